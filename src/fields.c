/* fields.c — reading, writing, parsing and showing settings from their
 * descriptors (fields.h). Knows no struct of its own: every access goes
 * through a descriptor's offset, so a new setting is a new table entry in
 * the module that owns the struct. */
#include "fields.h"
#include "escape.h"
#include "jsonx.h"

#include <assert.h>
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enum members are accessed as int (fields.h); the enums of hetplan are
 * all int-sized, and this keeps a future one honest. */
enum fields_probe { FIELDS_PROBE_A, FIELDS_PROBE_B };
_Static_assert(sizeof(enum fields_probe) == sizeof(int), "enums are int-sized");

static int *int_at(const struct hp_field *f, const void *base)
{
	return (int *)((char *)(uintptr_t)base + f->off);
}

static double *num_at(const struct hp_field *f, const void *base)
{
	return (double *)((char *)(uintptr_t)base + f->off);
}

static char *str_at(const struct hp_field *f, const void *base)
{
	return (char *)(uintptr_t)base + f->off;
}

const struct hp_field *fields_find_key(const struct hp_field_table *t, const char *key)
{
	for (int i = 0; i < t->n; i++)
		if (t->f[i].key && !strcmp(t->f[i].key, key))
			return &t->f[i];
	return NULL;
}

const struct hp_field *fields_find_flag(const struct hp_field_table *t, const char *flag)
{
	for (int i = 0; i < t->n; i++)
		if (t->f[i].flag && !strcmp(t->f[i].flag, flag))
			return &t->f[i];
	return NULL;
}

int fields_name_index(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (hp_strieq(s, names[i]))
			return i;
	return -1;
}

int fields_get_int(const struct hp_field *f, const void *base)
{
	assert(f->kind == FK_INT || f->kind == FK_BOOL || f->kind == FK_ENUM);
	return f->effective ? f->effective(base) : *int_at(f, base);
}

void fields_set_int(const struct hp_field *f, void *base, int v)
{
	assert(f->kind == FK_INT || f->kind == FK_BOOL || f->kind == FK_ENUM);
	*int_at(f, base) = v;
}

double fields_get_num(const struct hp_field *f, const void *base)
{
	assert(f->kind == FK_NUM);
	return *num_at(f, base);
}

void fields_set_num(const struct hp_field *f, void *base, double v)
{
	assert(f->kind == FK_NUM);
	*num_at(f, base) = v;
}

/* "a, b or c", each name quoted when asked. */
static void name_list(const struct hp_field_enum *e, int quoted, char *buf, size_t n)
{
	size_t len = 0;
	*buf = '\0';
	for (int i = 0; i < e->n && len < n; i++) {
		const char *sep = i == 0 ? "" : i == e->n - 1 ? " or " : ", ";
		int w = snprintf(buf + len, n - len, quoted ? "%s\"%s\"" : "%s%s", sep,
				 e->name(i));
		if (w < 0)
			break;
		len += (size_t)w;
	}
}

/* " (or ALSO)" after buf's text, ALSO's `example` in double quotes when
 * quoted, as it is otherwise; cut at n bytes like the rest. */
static void append_also(const char *also, int quoted, char *buf, size_t n)
{
	size_t len = strlen(buf);
	if (len + 1 >= n)
		return;
	int w = snprintf(buf + len, n - len, " (or ");
	if (w < 0 || (size_t)w >= n - len)
		return;        /* cut: snprintf ended it */
	len += (size_t)w;
	for (const char *s = also; *s && len + 1 < n; s++) {
		if (*s == '`') {
			if (quoted)
				buf[len++] = '"';
			continue;
		}
		buf[len++] = *s;
	}
	if (len + 1 < n)
		buf[len++] = ')';
	buf[len < n ? len : n - 1] = '\0';
}

const char *fields_want(const struct hp_field *f, int quoted, char *buf, size_t n)
{
	if (f->want && !quoted) {
		snprintf(buf, n, "%s", f->want);
		return buf;
	}
	switch (f->kind) {
	case FK_INT:
		/* The wording of jx_int (jsonx.c), so the JSON messages stay. */
		if (f->min == 1 && f->max >= 1e6)
			snprintf(buf, n, "a positive integer");
		else if (f->min == 0 && f->max >= 1e6)
			snprintf(buf, n, "a non-negative integer");
		else
			snprintf(buf, n, "an integer from %.0f to %.0f", f->min, f->max);
		break;
	case FK_NUM: snprintf(buf, n, "a number from %g to %g", f->min, f->max); break;
	case FK_BOOL:
		if (f->names && !quoted)
			snprintf(buf, n, "%s or %s", f->names[1], f->names[0]);
		else
			snprintf(buf, n, "true or false");
		break;
	case FK_STR: snprintf(buf, n, "printable UTF-8 text of at most %zu bytes", f->size - 1); break;
	case FK_ENUM: name_list(f->enm, quoted, buf, n); break;
	case FK_CUSTOM: snprintf(buf, n, "%s", quoted ? f->custom->json_want : f->custom->want); break;
	case FK_OBJECT: snprintf(buf, n, "an object"); break;
	}
	if (f->also)
		append_also(f->also, quoted, buf, n);
	return buf;
}

/* An enum or custom value: a string, parsed by the descriptor. An empty
 * string counts as absent, as the plan reader always allowed. */
static int read_named(const struct hp_field *f, void *base, const struct jx_ctx *c,
		      const cJSON *o, int req)
{
	char s[96] = "", want[FIELDS_WANT_MAX];
	int rc = jx_str(c, o, f->key, req, s, sizeof s);
	if (rc != 0)
		return rc < 0 ? -1 : 0;
	if (!*s)
		return 0;
	int v = 0;
	if (f->kind == FK_ENUM ? f->enm->parse(s, &v) == 0 : f->custom->parse(base, s) == 0) {
		if (f->kind == FK_ENUM)
			*int_at(f, base) = v;
		return 0;
	}
	return hp_err_set(c->err, HP_EXIT_INPUT, "%s: %s%s%s: expected %s, got \"%s\"", c->file,
			  c->path, *c->path ? "." : "", f->key, fields_want(f, 1, want, sizeof want),
			  s);
}

static int read_object(const struct hp_field *f, void *base, const struct jx_ctx *c,
		       const cJSON *o, int req)
{
	int bad;
	const cJSON *so = jx_obj(c, o, f->key, req, &bad);
	if (bad)
		return -1;
	if (!so)
		return 0;
	char path[128];
	snprintf(path, sizeof path, "%s%s%s", c->path, *c->path ? "." : "", f->key);
	struct jx_ctx sc = { c->file, path, c->err };
	if (f->sub->strict && fields_check_keys(f->sub, &sc, so, NULL) < 0)
		return -1;
	return fields_read_json(f->sub, base, &sc, so);
}

static int read_one(const struct hp_field *f, void *base, const struct jx_ctx *c,
		    const cJSON *o)
{
	int req = (f->flags & FF_REQUIRED) != 0;
	switch (f->kind) {
	case FK_INT:
		return jx_int(c, o, f->key, req, (long)f->min, (long)f->max, int_at(f, base)) < 0
			       ? -1 : 0;
	case FK_NUM:
		return jx_num(c, o, f->key, req, f->min, f->max, num_at(f, base)) < 0 ? -1 : 0;
	case FK_BOOL: return jx_bool(c, o, f->key, req, int_at(f, base)) < 0 ? -1 : 0;
	case FK_STR: {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, f->key);
		/* A whole number in [0, 1e15] is written as its digits; any other
		 * number falls through to jx_str's "expected a string". */
		if ((f->flags & FF_NUM_TEXT) && cJSON_IsNumber(v) && v->valuedouble >= 0 &&
		    v->valuedouble <= 1e15 && v->valuedouble == floor(v->valuedouble)) {
			int n = snprintf(str_at(f, base), f->size, "%.0f", v->valuedouble);
			if (n > 0 && (size_t)n < f->size)
				return 0;
		}
		return jx_str(c, o, f->key, req, str_at(f, base), f->size) < 0 ? -1 : 0;
	}
	case FK_ENUM:
	case FK_CUSTOM: return read_named(f, base, c, o, req);
	case FK_OBJECT: return read_object(f, base, c, o, req);
	}
	return -1;
}

int fields_read_json(const struct hp_field_table *t, void *base, const struct jx_ctx *c,
		     const cJSON *o)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < t->n; i++) {
			const struct hp_field *f = &t->f[i];
			if (!f->key || ((f->flags & FF_REQUIRED) != 0) != (pass == 0))
				continue;
			if (read_one(f, base, c, o) < 0)
				return -1;
		}
	return 0;
}

int fields_read_keys(const struct hp_field_table *t, const char *const *keys, void *base,
		     const struct jx_ctx *c, const cJSON *o)
{
	for (; *keys; keys++) {
		const struct hp_field *f = fields_find_key(t, *keys);
		if (!f)
			return hp_err_set(c->err, HP_EXIT_FAIL, "%s: no field '%s' in table %s",
					  c->file, *keys, t->name);
		if (read_one(f, base, c, o) < 0)
			return -1;
	}
	return 0;
}

int fields_check_keys(const struct hp_field_table *t, const struct jx_ctx *c, const cJSON *o,
		      const char *const *extra)
{
	const char *known[128];
	int n = 0;
	for (int i = 0; i < t->n && n < 127; i++) {
		int seen = 0;   /* a key of two kinds (nodes: N or {"max": N}) once */
		for (int k = 0; k < n && !seen && t->f[i].key; k++)
			seen = !strcmp(known[k], t->f[i].key);
		if (t->f[i].key && !seen)
			known[n++] = t->f[i].key;
	}
	for (; extra && *extra && n < 127; extra++)
		known[n++] = *extra;
	known[n] = NULL;
	return jx_check_keys(c, o, known);
}

static int is_zero(const struct hp_field *f, const void *base)
{
	switch (f->kind) {
	case FK_INT:
	case FK_BOOL:
	case FK_ENUM: return *int_at(f, base) == 0;
	case FK_NUM: return *num_at(f, base) == 0;
	case FK_STR: return !*str_at(f, base);
	default: return 0;
	}
}

void fields_write_json(const struct hp_field_table *t, const void *base, cJSON *o)
{
	for (int i = 0; i < t->n; i++) {
		const struct hp_field *f = &t->f[i];
		char buf[64];
		if (!f->key || (f->flags & FF_NOSAVE) || (f->present && !f->present(base)) ||
		    ((f->flags & FF_OMIT_ZERO) && is_zero(f, base)))
			continue;
		switch (f->kind) {
		case FK_INT: cJSON_AddNumberToObject(o, f->key, fields_get_int(f, base)); break;
		case FK_NUM: cJSON_AddNumberToObject(o, f->key, *num_at(f, base)); break;
		case FK_BOOL: cJSON_AddBoolToObject(o, f->key, fields_get_int(f, base)); break;
		case FK_STR: cJSON_AddStringToObject(o, f->key, str_at(f, base)); break;
		case FK_ENUM:
		case FK_CUSTOM:
			cJSON_AddStringToObject(o, f->key, fields_format(f, base, buf, sizeof buf));
			break;
		case FK_OBJECT:
			fields_write_json(f->sub, base, cJSON_AddObjectToObject(o, f->key));
			break;
		}
	}
}

const char *fields_format(const struct hp_field *f, const void *base, char *buf, size_t n)
{
	int v;
	double d;
	switch (f->kind) {
	case FK_INT: snprintf(buf, n, "%d", fields_get_int(f, base)); break;
	case FK_NUM:
		/* Whole numbers without a decimal point, the rest to 4 digits. */
		d = *num_at(f, base);
		snprintf(buf, n, d == floor(d) && fabs(d) < 1e15 ? "%.0f" : "%.4g", d);
		break;
	case FK_BOOL:
		v = fields_get_int(f, base) != 0;
		snprintf(buf, n, "%s", f->names ? f->names[v] : v ? "yes" : "no");
		break;
	case FK_STR: snprintf(buf, n, "%s", str_at(f, base)); break;
	case FK_ENUM:
		v = fields_get_int(f, base);   /* unset (-1): the effective value */
		assert(v >= 0 && v < f->enm->n);
		snprintf(buf, n, "%s", f->enm->name(v));
		break;
	case FK_CUSTOM: f->custom->format(base, buf, n); break;
	case FK_OBJECT: snprintf(buf, n, "{...}"); break;
	}
	return buf;
}

static int parse_int_text(const struct hp_field *f, void *base, const char *s, char *want,
			  size_t n)
{
	int v = 0;
	/* digits only, past what an int holds: above the range, worded as
	 * a value just above it is ("--gbs 100000001" and "--gbs
	 * 99999999999" read alike) */
	int big = *s && strspn(s, "0123456789") == strlen(s) && strtod(s, NULL) > INT_MAX;
	if (!(f->min <= 0 && !strcmp(s, "0")) && hp_parse_int(s, &v) && !big) {
		/* the range as fields_want words it: "a positive integer" for
		 * 1 and up, else its bounds ("an integer from 1 to 100000") */
		fields_want(f, 0, want, n);
		return -1;
	}
	if (big)
		v = INT_MAX;   /* hp_parse_int refused it: too large for an int */
	if (v < f->min || v > f->max) {
		if (f->want)
			snprintf(want, n, "%s", f->want);
		else
			snprintf(want, n, "an integer from %.0f to %.0f", f->min, f->max);
		return -1;
	}
	*int_at(f, base) = v;
	return 0;
}

static int parse_bool_text(const struct hp_field *f, void *base, const char *s)
{
	static const char *const yes[] = { "on", "true", "yes", "1" }, *const no[] = { "off", "false",
										       "no", "0" };
	if (f->names) {
		for (int v = 0; v < 2; v++)
			if (!strcmp(s, f->names[v])) {
				*int_at(f, base) = v;
				return 0;
			}
		return -1;
	}
	for (size_t i = 0; i < HP_ARRAY_LEN(yes); i++) {
		if (!strcmp(s, yes[i]) || !strcmp(s, no[i])) {
			*int_at(f, base) = !strcmp(s, yes[i]);
			return 0;
		}
	}
	return -1;
}

int fields_parse_text(const struct hp_field *f, void *base, const char *s, char *want,
		      size_t n)
{
	int rc = -1, v = 0;
	char *end;
	double d;
	if (f->kind == FK_BOOL && (f->flags & FF_NEG_FLAG)) {
		*int_at(f, base) = 0;
		return 0;
	}
	if (!s)
		s = "";
	switch (f->kind) {
	case FK_INT: return parse_int_text(f, base, s, want, n);
	case FK_NUM:
		/* decimal only, as util.h's parsers: strtod would also take
		 * leading space, a '+' and hex ("0x10" = 16) */
		d = strtod(s, &end);
		if (end != s && !*end && isfinite(d) && d >= f->min && d <= f->max &&
		    !strpbrk(s, "xX") && (isdigit((unsigned char)*s) || *s == '.' || *s == '-')) {
			*num_at(f, base) = d;
			rc = 0;
		}
		break;
	case FK_BOOL: rc = parse_bool_text(f, base, s); break;
	case FK_STR:
		if (strlen(s) < f->size && esc_is_printable(s, f->size - 1)) {
			hp_strlcpy(str_at(f, base), s, f->size);
			rc = 0;
		}
		break;
	case FK_ENUM:
		if (f->enm->parse(s, &v) == 0) {
			*int_at(f, base) = v;
			rc = 0;
		}
		break;
	case FK_CUSTOM: rc = f->custom->parse(base, s); break;
	case FK_OBJECT: break;
	}
	if (rc < 0)
		fields_want(f, 0, want, n);
	return rc;
}

int fields_cycle(const struct hp_field *f, void *base, int dir)
{
	int *p = int_at(f, base);
	if (f->kind == FK_BOOL) {
		*p = !fields_get_int(f, base);
		return 1;
	}
	if (f->kind == FK_ENUM) {
		int v = fields_get_int(f, base);   /* from the value in force */
		*p = ((v + dir) % f->enm->n + f->enm->n) % f->enm->n;
		return 1;
	}
	return 0;
}

int fields_is_default(const struct hp_field *f, const void *base)
{
	return f->effective && *int_at(f, base) != f->effective(base);
}

int fields_getopt(const struct hp_field_table *t, int val0, struct option *out, int max)
{
	int k = 0;
	for (int i = 0; i < t->n && k < max; i++) {
		const struct hp_field *f = &t->f[i];
		if (!f->flag)
			continue;
		out[k++] = (struct option){ f->flag,
					    f->kind == FK_BOOL && (f->flags & FF_NEG_FLAG)
						    ? no_argument : required_argument,
					    0, val0 + i };
	}
	return k;
}
