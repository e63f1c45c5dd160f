/* fields_doc.c — the settings tables rendered as documentation: a
 * terminal table, JSON, Markdown key tables and man-page entries
 * (fields_doc.h). Everything is read from the descriptors; the only prose
 * here is the words for kinds ("integer", "an object") and the sentence
 * that ties a plan key to its flag. */
#include "fields_doc.h"
#include "sbuf.h"
#include "table.h"
#include "util.h"

#include <assert.h>
#include <ctype.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fields_doc_format_parse(const char *s, enum fields_doc_format *out)
{
	static const char *const names[] = { "table", "json", "md", "man" };
	int i = fields_name_index(names, (int)HP_ARRAY_LEN(names), s);
	if (i < 0)
		return -1;
	*out = (enum fields_doc_format)i;
	return 0;
}

static const char *kind_word(const struct hp_field *f)
{
	switch (f->kind) {
	case FK_INT: return "integer";
	case FK_NUM: return "number";
	case FK_BOOL: return "boolean";
	case FK_STR:
	case FK_ENUM:
	case FK_CUSTOM: return "string";
	case FK_OBJECT: return "object";
	}
	return "?";
}

/* The JSON values: "1 to 1000000", "\"fused\" or \"eager\"", "see below";
 * names unquoted in a table of command-line text. */
static const char *values(const struct hp_field_table *t, const struct hp_field *f, char *buf,
			  size_t n)
{
	switch (f->kind) {
	case FK_INT: snprintf(buf, n, "%.0f to %.0f", f->min, f->max); break;
	case FK_NUM: snprintf(buf, n, "%g to %g", f->min, f->max); break;
	case FK_STR:
		snprintf(buf, n, "up to %zu bytes%s", f->size - 1,
			 f->flags & FF_NUM_TEXT ? ", or a whole number" : "");
		break;
	case FK_OBJECT: snprintf(buf, n, "see below"); break;
	default: fields_want(f, !t->cli_text, buf, n); break;
	}
	return buf;
}

/* The JSON values in words, for the man page: "an integer from 1 to
 * 1000000", "true or false", "\"fused\" or \"eager\"". */
static const char *man_values(const struct hp_field_table *t, const struct hp_field *f,
			      char *buf, size_t n)
{
	switch (f->kind) {
	case FK_INT: snprintf(buf, n, "an integer from %.0f to %.0f", f->min, f->max); break;
	case FK_NUM: snprintf(buf, n, "a number from %g to %g", f->min, f->max); break;
	case FK_STR:
		snprintf(buf, n, "text of up to %zu bytes%s", f->size - 1,
			 f->flags & FF_NUM_TEXT ? ", or a whole number" : "");
		break;
	case FK_OBJECT: snprintf(buf, n, "an object, keys below"); break;
	default: fields_want(f, !t->cli_text, buf, n); break;
	}
	return buf;
}

/* The value's markup: .arg, or {N}/{X}/{TEXT}, or the names a|b|c. */
static const char *arg_markup(const struct hp_field *f, char *buf, size_t n)
{
	size_t len = 0;
	*buf = '\0';
	if (f->arg) {
		snprintf(buf, n, "%s", f->arg);
		return buf;
	}
	switch (f->kind) {
	case FK_INT: snprintf(buf, n, "{N}"); break;
	case FK_NUM: snprintf(buf, n, "{X}"); break;
	case FK_STR: snprintf(buf, n, "{TEXT}"); break;
	case FK_BOOL:
		if (!(f->flags & FF_NEG_FLAG))
			snprintf(buf, n, "%s|%s", f->names ? f->names[1] : "on",
				 f->names ? f->names[0] : "off");
		break;
	case FK_ENUM:
		for (int i = 0; i < f->enm->n && len < n; i++) {
			int w = snprintf(buf + len, n - len, "%s%s", i ? "|" : "", f->enm->name(i));
			if (w < 0)
				break;
			len += (size_t)w;
		}
		break;
	case FK_CUSTOM:
	case FK_OBJECT: assert(!"a custom or object flag needs .arg"); break;
	}
	return buf;
}

const char *fields_doc_arg(const struct hp_field *f, char *buf, size_t n)
{
	char m[160];
	arg_markup(f, m, sizeof m);
	size_t j = 0;
	for (const char *p = m; *p && j + 1 < n; p++)
		if (!strchr("`{}", *p))
			buf[j++] = *p;
	buf[j] = '\0';
	return buf;
}

/* ---- roff ---- */

/* Markup as roff text: marks to fonts, '-' in marks to \-, '\' to \e,
 * the times and at-least signs to \(mu and \(>=, a space after a full
 * stop before a capital or a mark to a new line. A line must not start
 * with '.' or '\'': callers start with \& where the text could. */
static void roff_text(struct sbuf *b, const char *s)
{
	int mark = 0;   /* 0, '`' or '{' */
	char prev = '\0';
	for (; *s; prev = *s++) {
		if (!mark && (*s == '`' || *s == '{')) {
			mark = *s;
			sbuf_add(b, mark == '`' ? "\\fB" : "\\fI");
		} else if ((mark == '`' && *s == '`') || (mark == '{' && *s == '}')) {
			mark = 0;
			sbuf_add(b, "\\fR");
		} else if (*s == '-' && mark) {
			sbuf_add(b, "\\-");
		} else if (*s == '\\') {
			sbuf_add(b, "\\e");
		} else if (!strncmp(s, "\xc3\x97", 2)) {         /* U+00D7, times */
			sbuf_add(b, "\\(mu");
			s++;
		} else if (!strncmp(s, "\xe2\x89\xa5", 3)) {     /* U+2265, at least */
			sbuf_add(b, "\\(>=");
			s += 2;
		} else if (*s == ' ' && !mark && prev == '.' &&
			   (isupper((unsigned char)s[1]) || s[1] == '`')) {
			/* A new sentence starts a new line, so roff spaces
			 * sentences as the hand-written pages do. */
			sbuf_addc(b, '\n');
		} else if (*s == '\n') {
			sbuf_add(b, "\n\\&");
		} else {
			assert(*s >= ' ' && *s < 127 && "doc markup is ASCII but for two signs");
			sbuf_addc(b, *s);
		}
	}
	assert(!mark && "an unclosed ` or {");
}

/* Plain text (a .help) as roff: '\' escaped; `code` in bold with \- for
 * its '-' (the Markdown tables show it as code). */
static void roff_plain(struct sbuf *b, const char *s)
{
	int code = 0;
	for (; *s; s++) {
		if (*s == '`')
			sbuf_add(b, (code = !code) ? "\\fB" : "\\fR");
		else if (*s == '-' && code)
			sbuf_add(b, "\\-");
		else
			sbuf_add(b, *s == '\\' ? "\\e" : (char[2]){ *s, 0 });
	}
	if (code)
		sbuf_add(b, "\\fR");
}

/* The field's paragraph: its doc (markup), else its help (plain). */
static void roff_doc(struct sbuf *b, const struct hp_field *f)
{
	sbuf_add(b, "\\&");
	if (f->doc)
		roff_text(b, f->doc);
	else
		roff_plain(b, f->help);
}

/* A flag or key name in bold: \fB\-\-seq\-len\fR. */
static void roff_bold(struct sbuf *b, const char *prefix, const char *name)
{
	sbuf_add(b, "\\fB");
	for (const char *p = prefix; *p; p++)
		sbuf_add(b, *p == '-' ? "\\-" : (char[2]){ *p, 0 });
	for (const char *p = name; *p; p++)
		sbuf_add(b, *p == '-' ? "\\-" : (char[2]){ *p, 0 });
	sbuf_add(b, "\\fR");
}

static void man_begin(struct sbuf *b, const char *name)
{
	sbuf_addf(b, ".\\\" BEGIN fields: %s\n", name);
}

static void man_end(struct sbuf *b)
{
	sbuf_add(b, ".\\\" END fields\n");
}

/* "{NAME}: `a`, `b` or `c`." for an enum whose .arg stands for its
 * names; returns buf. */
static const char *enum_markup(const struct hp_field *f, char *buf, size_t n)
{
	int len = snprintf(buf, n, "%s:", f->arg);
	for (int i = 0; i < f->enm->n && len > 0 && (size_t)len < n; i++) {
		const char *sep = i == 0 ? " " : i == f->enm->n - 1 ? " or " : ", ";
		int w = snprintf(buf + len, n - (size_t)len, "%s`%s`", sep, f->enm->name(i));
		if (w < 0)
			break;
		len += w;
	}
	if (len > 0 && (size_t)len + 1 < n)
		snprintf(buf + len, n - (size_t)len, ".");
	return buf;
}

/* estimate options: ".TP", the flag and its value, the doc paragraph
 * (and an enum's names when its value reads {NAME}). */
static void man_flags(struct sbuf *b, const struct hp_field_table *t)
{
	char name[64];
	snprintf(name, sizeof name, "%s-flags", t->name);
	man_begin(b, name);
	for (int i = 0; i < t->n; i++) {
		const struct hp_field *f = &t->f[i];
		char arg[256];
		if (!f->flag)
			continue;
		sbuf_add(b, ".TP\n");
		roff_bold(b, "--", f->flag);
		if (*arg_markup(f, arg, sizeof arg)) {
			sbuf_addc(b, ' ');
			roff_text(b, arg);
		}
		sbuf_addc(b, '\n');
		roff_doc(b, f);
		if (f->kind == FK_ENUM && f->arg) {
			/* .arg hides the names: list them once, from the enum. */
			sbuf_add(b, "\n\\&");
			roff_text(b, enum_markup(f, arg, sizeof arg));
		}
		sbuf_addc(b, '\n');
	}
	man_end(b);
}

/* launch options: "\fB\-\-mbs\fR, \fB\-\-gbs\fR, ..." ending in ", " for
 * the hand-written words that follow. */
static void man_flag_list(struct sbuf *b, const struct hp_field_table *t)
{
	char name[64];
	snprintf(name, sizeof name, "%s-flag-list", t->name);
	man_begin(b, name);
	int k = 0;
	for (int i = 0; i < t->n; i++) {
		if (!t->f[i].flag)
			continue;
		if (k)
			sbuf_add(b, k % 5 ? ", " : ",\n");
		roff_bold(b, "--", t->f[i].flag);
		k++;
	}
	if (k)
		sbuf_add(b, ",\n");
	man_end(b);
}

/* INPUT FORMATS: a .TP per key: the key (required or not), its JSON type
 * and values, then its doc (or help); a key with a flag points to the
 * flag's entry, which carries the doc. */
static void man_keys(struct sbuf *b, const struct hp_field_table *t)
{
	char name[64], v[200];
	snprintf(name, sizeof name, "%s-keys", t->name);
	man_begin(b, name);
	for (int i = 0; i < t->n; i++) {
		const struct hp_field *f = &t->f[i];
		if (!f->key)
			continue;
		sbuf_add(b, ".TP\n");
		roff_bold(b, "", f->key);
		sbuf_addf(b, "%s\n", (f->flags & FF_REQUIRED) ? " (required)" : "");
		if (f->flag) {
			/* The flag's entry has the paragraph. */
			sbuf_add(b, "\\&");
			roff_plain(b, f->help);
		} else {
			roff_doc(b, f);
		}
		sbuf_add(b, "\n(");
		roff_plain(b, man_values(t, f, v, sizeof v));
		if (f->flag) {
			sbuf_add(b, "; as ");
			roff_bold(b, "--", f->flag);
		}
		sbuf_add(b, ")\n");
	}
	man_end(b);
}

/* ---- Markdown ---- */

/* Plain text for a Markdown table cell: '|' escaped, one line. */
static void md_text(struct sbuf *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '|')
			sbuf_add(b, "\\|");
		else if (*s == '\n')
			sbuf_addc(b, ' ');
		else
			sbuf_addc(b, *s);
	}
}

static void md_table(struct sbuf *b, const struct hp_field_table *t)
{
	char v[200];
	sbuf_addf(b, "<!-- fields: %s -->\n", t->name);
	sbuf_add(b, "| key | flag | type | values | meaning |\n| --- | --- | --- | --- | --- |\n");
	for (int i = 0; i < t->n; i++) {
		const struct hp_field *f = &t->f[i];
		if (!f->key)
			continue;
		sbuf_addf(b, "| `%s` | ", f->key);
		if (f->flag)
			sbuf_addf(b, "`--%s` ", f->flag);
		sbuf_addf(b, "| %s | ", kind_word(f));
		md_text(b, values(t, f, v, sizeof v));
		sbuf_add(b, " | ");
		md_text(b, f->help);
		sbuf_add(b, (f->flags & FF_REQUIRED) ? " (required) |\n" : " |\n");
	}
	sbuf_add(b, "<!-- end fields -->\n");
}

/* ---- table and JSON ---- */

static void term_table(struct sbuf *b, const struct hp_field_table *const *t, int n)
{
	static const struct table_col cols[] = {
		{ "TABLE", NULL, TABLE_LEFT }, { "KEY", NULL, TABLE_LEFT },
		{ "FLAG", NULL, TABLE_LEFT },  { "TYPE", NULL, TABLE_LEFT },
		{ "VALUES", NULL, TABLE_LEFT }, { "MEANING", NULL, TABLE_LEFT },
	};
	struct table tb;
	char v[200];
	table_init(&tb, NULL);
	table_cols(&tb, cols, (int)HP_ARRAY_LEN(cols));
	for (int k = 0; k < n; k++)
		for (int i = 0; i < t[k]->n; i++) {
			const struct hp_field *f = &t[k]->f[i];
			table_row(&tb, 0);
			table_text(&tb, t[k]->name);
			table_text(&tb, f->key ? f->key : "-");
			table_textf(&tb, "%s%s", f->flag ? "--" : "-", f->flag ? f->flag : "");
			table_text(&tb, kind_word(f));
			table_text(&tb, values(t[k], f, v, sizeof v));
			table_textf(&tb, "%s%s", f->help,
				    (f->flags & FF_REQUIRED) ? " (required)" : "");
		}
	table_render_term(b, &tb);
	table_done(&tb);
}

static void json_fields(struct sbuf *b, const struct hp_field_table *const *t, int n)
{
	cJSON *a = cJSON_CreateArray();
	char v[200];
	for (int k = 0; k < n; k++)
		for (int i = 0; i < t[k]->n; i++) {
			const struct hp_field *f = &t[k]->f[i];
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "table", t[k]->name);
			if (f->key)
				cJSON_AddStringToObject(o, "key", f->key);
			else
				cJSON_AddNullToObject(o, "key");
			if (f->flag) {
				cJSON_AddStringToObject(o, "flag", f->flag);
				cJSON_AddStringToObject(o, "arg", fields_doc_arg(f, v, sizeof v));
			} else {
				cJSON_AddNullToObject(o, "flag");
			}
			cJSON_AddStringToObject(o, "type", kind_word(f));
			cJSON_AddStringToObject(o, "values", values(t[k], f, v, sizeof v));
			cJSON_AddBoolToObject(o, "required", (f->flags & FF_REQUIRED) != 0);
			cJSON_AddStringToObject(o, "help", f->help);
			if (f->doc)
				cJSON_AddStringToObject(o, "doc", f->doc);
			if (f->label)
				cJSON_AddStringToObject(o, "label", f->label);
			if (f->unit)
				cJSON_AddStringToObject(o, "unit", f->unit);
			cJSON_AddItemToArray(a, o);
		}
	char *s = cJSON_Print(a);
	cJSON_Delete(a);
	sbuf_add(b, s);
	sbuf_addc(b, '\n');
	free(s);
}

char *fields_doc(const struct hp_field_table *const *t, int n, enum fields_doc_format fmt)
{
	struct sbuf b;
	sbuf_init(&b);
	switch (fmt) {
	case FIELDS_DOC_TABLE: term_table(&b, t, n); break;
	case FIELDS_DOC_JSON: json_fields(&b, t, n); break;
	case FIELDS_DOC_MD:
		for (int k = 0; k < n; k++)
			md_table(&b, t[k]);
		break;
	case FIELDS_DOC_MAN:
		for (int k = 0; k < n; k++) {
			int has_flag = 0;
			for (int i = 0; i < t[k]->n; i++)
				has_flag |= t[k]->f[i].flag != NULL;
			if (has_flag) {
				man_flags(&b, t[k]);
				man_flag_list(&b, t[k]);
			}
			man_keys(&b, t[k]);
		}
		break;
	}
	return sbuf_take(&b, NULL);
}
