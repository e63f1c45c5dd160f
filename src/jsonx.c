/* jsonx.c — typed, path-aware field access over cJSON. */
#include "jsonx.h"
#include "sbuf.h"
#include "escape.h"
#include "utf8.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first byte JSON text may not hold, with its line and column: a
 * \u0000 escape inside a string (cJSON decodes it to a NUL byte, which ends
 * the text in C: "h100\u0000x" would read as "h100"), a raw byte below 0x20
 * inside a string (RFC 8259 section 7 requires U+0000-U+001F escaped there;
 * cJSON copies it, and a raw NUL cuts a name short the same way), or one
 * outside a string other than the tab, line feed and carriage return that
 * section 2 allows as white space (cJSON skips any byte up to 0x20).
 * Returns 0 when there is none, else 'u' for the escape and 'r' for a raw
 * byte, whose value is stored in *byte. */
static int bad_byte(const char *text, size_t len, int *line, int *col,
		    unsigned char *byte)
{
	int in_str = 0;
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < len; i++, (*col)++) {
		unsigned char c = (unsigned char)text[i];
		if (c < 0x20 && (in_str || (c != '\t' && c != '\n' && c != '\r'))) {
			*byte = c;
			return 'r';
		}
		if (c == '\n') {
			(*line)++;
			*col = 0;
		} else if (!in_str) {
			in_str = c == '"';
		} else if (c == '"') {
			in_str = 0;
		} else if (c == '\\' && i + 1 < len) {
			if (len - i >= 6 && text[i + 1] == 'u' && !memcmp(text + i + 2, "0000", 4))
				return 'u';
			i++;
			(*col)++;
			if (!text[i] || (unsigned char)text[i] < 0x20) {
				*byte = (unsigned char)text[i];
				return 'r';
			}
		}
	}
	return 0;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A key of object o that appears twice, or NULL: sorted names compared
 * side by side, so a hostile object of 10^5 keys costs n log n, not n^2. */
static const char *twice(const cJSON *o)
{
	size_t n = 0;
	for (const cJSON *e = o->child; e; e = e->next)
		n++;
	if (n < 2)
		return NULL;
	const char **k = xmalloc(n * sizeof *k);
	n = 0;
	for (const cJSON *e = o->child; e; e = e->next)
		k[n++] = e->string ? e->string : "";
	qsort(k, n, sizeof *k, cmp_name);
	const char *dup = NULL;
	for (size_t i = 1; i < n && !dup; i++)
		if (!strcmp(k[i - 1], k[i]))
			dup = k[i];
	free(k);
	return dup;
}

/* A key that appears twice in one object of the tree at v (its path in
 * path): RFC 8259 leaves which one counts to the reader (cJSON takes the
 * first, Python's json the last), so the file means two things. The key
 * into dup; 1 when there is one. */
static int dup_key(const cJSON *v, char *path, size_t n, char *dup, size_t dn)
{
	const char *k = cJSON_IsObject(v) ? twice(v) : NULL;
	if (k) {
		snprintf(dup, dn, "%.*s", UTF8_CUT(k, dn - 1));   /* a whole character */
		return 1;
	}
	size_t at = strlen(path);
	int i = 0;
	for (const cJSON *e = v ? v->child : NULL; e; e = e->next, i++) {
		if (cJSON_IsObject(v)) {
			/* cut on a whole character (the room after the ".") */
			size_t room = n - at > 2 ? n - at - 2 : 0;
			snprintf(path + at, n - at, "%s%.*s", at ? "." : "",
				 UTF8_CUT(e->string ? e->string : "", room));
		}
		else
			snprintf(path + at, n - at, "[%d]", i);
		if (dup_key(e, path, n, dup, dn))
			return 1;
		path[at] = 0;
	}
	return 0;
}

cJSON *jx_parse(const char *text, size_t len, const char *file,
		struct hp_err *err)
{
	assert((text || !len) && file);
	const char *end = NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, &end, 0);
	int nl, nc;
	unsigned char raw = 0;
	char path[256] = "", key[64];
	int bad = bad_byte(text, len, &nl, &nc, &raw);
	if (bad == 'u') {
		hp_err_set(err, HP_EXIT_INPUT, "%s: line %d, column %d: a string holds \\u0000 "
			   "(NUL), which no name or value may", file, nl, nc);
		cJSON_Delete(root);
		return NULL;
	}
	if (bad == 'r' && !raw) {
		hp_err_set(err, HP_EXIT_INPUT, "%s: line %d, column %d: a raw NUL byte, "
			   "which JSON text may not hold (RFC 8259 section 7)", file, nl, nc);
		cJSON_Delete(root);
		return NULL;
	}
	if (bad == 'r') {
		hp_err_set(err, HP_EXIT_INPUT, "%s: line %d, column %d: raw control byte 0x%02X, "
			   "which JSON allows only as the escape \\u%04X inside a string "
			   "(RFC 8259 section 7)", file, nl, nc, raw, raw);
		cJSON_Delete(root);
		return NULL;
	}
	if (root && dup_key(root, path, sizeof path, key, sizeof key)) {
		char shown[80];
		hp_err_set(err, HP_EXIT_INPUT, "%s: %s%skey \"%s\" appears twice in one object",
			   file, path, *path ? ": " : "", esc_term_buf(shown, sizeof shown, key));
		cJSON_Delete(root);
		return NULL;
	}
	if (root)
		return root;
	if (!end || end < text || end > text + len)
		end = text + len;
	int line = 1, col = 1, depth = 0, in_str = 0;
	for (const char *p = text; p < end; p++) {
		if (*p == '\n') {
			line++;
			col = 1;
		} else {
			col++;
		}
		/* Track nesting outside strings to tell cJSON's depth limit
		 * from a syntax error. */
		if (in_str) {
			if (*p == '\\' && p + 1 < end)
				p++, col++;
			else if (*p == '"')
				in_str = 0;
		} else if (*p == '"') {
			in_str = 1;
		} else if (*p == '[' || *p == '{') {
			depth++;
		} else if (*p == ']' || *p == '}') {
			depth--;
		}
	}
	if (depth >= CJSON_NESTING_LIMIT)
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: line %d, column %d: JSON nested deeper than %d levels",
			   file, line, col, CJSON_NESTING_LIMIT);
	else if (len == 0)
		hp_err_set(err, HP_EXIT_INPUT, "%s: empty file, expected JSON", file);
	else
		hp_err_set(err, HP_EXIT_INPUT,
			   "%s: line %d, column %d: malformed JSON", file, line, col);
	return NULL;
}

/* Describe a JSON value for an error message ("-4", "\"abc\"", "an object"). */
static void jx_describe(const cJSON *v, char *buf, size_t n)
{
	if (!v)
		snprintf(buf, n, "nothing");
	else if (cJSON_IsNumber(v))
		snprintf(buf, n, "%.15g", v->valuedouble);
	else if (cJSON_IsString(v))
		snprintf(buf, n, "\"%.*s\"", UTF8_CUT(v->valuestring, 60));
	else if (cJSON_IsBool(v))
		snprintf(buf, n, "%s", cJSON_IsTrue(v) ? "true" : "false");
	else if (cJSON_IsNull(v))
		snprintf(buf, n, "null");
	else if (cJSON_IsArray(v))
		snprintf(buf, n, "an array");
	else
		snprintf(buf, n, "an object");
}

static int fail(const struct jx_ctx *c, const char *key, const cJSON *v,
		const char *expected)
{
	char got[96];
	jx_describe(v, got, sizeof got);
	return hp_err_set(c->err, HP_EXIT_INPUT, "%s: %s%s%s: expected %s, got %s",
			  c->file, c->path, *c->path ? "." : "", key, expected, got);
}

static int missing(const struct jx_ctx *c, const char *key, const char *expected)
{
	return hp_err_set(c->err, HP_EXIT_INPUT, "%s: %s%s%s: missing, expected %s",
			  c->file, c->path, *c->path ? "." : "", key, expected);
}

int jx_int(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, long lo, long hi, int *out)
{
	assert(c && o && key && out && lo <= hi);
	char what[96];
	if (lo == 1 && hi >= 1000000)
		snprintf(what, sizeof what, "a positive integer");
	else if (lo == 0 && hi >= 1000000)
		snprintf(what, sizeof what, "a non-negative integer");
	else
		snprintf(what, sizeof what, "an integer from %ld to %ld", lo, hi);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return required ? missing(c, key, what) : 1;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble != floor(v->valuedouble) ||
	    v->valuedouble < (double)lo || v->valuedouble > (double)hi)
		return fail(c, key, v, what);
	*out = (int)v->valuedouble;
	return 0;
}

int jx_num(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, double lo, double hi, double *out)
{
	assert(c && o && key && out && lo <= hi);
	char what[96];
	if (lo == 0 && hi >= 1e300)
		snprintf(what, sizeof what, "a non-negative number");
	else
		snprintf(what, sizeof what, "a number from %g to %g", lo, hi);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return required ? missing(c, key, what) : 1;
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble) ||
	    v->valuedouble < lo || v->valuedouble > hi)
		return fail(c, key, v, what);
	*out = v->valuedouble;
	return 0;
}

int jx_bool(const struct jx_ctx *c, const cJSON *o, const char *key,
	    int required, int *out)
{
	assert(c && o && key && out);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return required ? missing(c, key, "true or false") : 1;
	if (!cJSON_IsBool(v))
		return fail(c, key, v, "true or false");
	*out = cJSON_IsTrue(v);
	return 0;
}

int jx_str(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, char *out, size_t size)
{
	assert(c && o && key && out && size > 0);
	char what[64];
	snprintf(what, sizeof what, "a string of at most %zu bytes", size - 1);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	if (!v)
		return required ? missing(c, key, "a string") : 1;
	if (!cJSON_IsString(v) || strlen(v->valuestring) >= size)
		return fail(c, key, v, what);
	/* Names go to terminals, scripts, CSV and JSON: printable UTF-8 only. */
	if (!esc_is_printable(v->valuestring, size - 1))
		return fail(c, key, v, "printable UTF-8 text (no control characters)");
	hp_strlcpy(out, v->valuestring, size);
	return 0;
}

/* The member key of o when it is there and has_type says yes; NULL with
 * *bad 0 when it is absent and optional; NULL with *bad 1 and c->err
 * filled otherwise. */
static const cJSON *member(const struct jx_ctx *c, const cJSON *o, const char *key,
			   int required, int *bad, cJSON_bool (*has_type)(const cJSON *),
			   const char *what)
{
	assert(c && o && key && bad);
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
	*bad = 0;
	if (!v) {
		if (required) {
			missing(c, key, what);
			*bad = 1;
		}
		return NULL;
	}
	if (!has_type(v)) {
		fail(c, key, v, what);
		*bad = 1;
		return NULL;
	}
	return v;
}

const cJSON *jx_obj(const struct jx_ctx *c, const cJSON *o, const char *key,
		    int required, int *bad)
{
	return member(c, o, key, required, bad, cJSON_IsObject, "an object");
}

const cJSON *jx_arr(const struct jx_ctx *c, const cJSON *o, const char *key,
		    int required, int *bad)
{
	return member(c, o, key, required, bad, cJSON_IsArray, "an array");
}

int jx_check_keys(const struct jx_ctx *c, const cJSON *o,
		  const char *const *known)
{
	assert(c && o && known);
	const cJSON *it;
	cJSON_ArrayForEach(it, o) {
		int ok = 0;
		for (const char *const *k = known; *k; k++)
			if (it->string && !strcmp(it->string, *k))
				ok = 1;
		if (ok)
			continue;
		/* The list of known keys has no fixed length (a plan has 30
		 * of them), so it is built in a growing buffer; hp_err_set
		 * then truncates the whole sentence to the message size. */
		const char *best = NULL;
		int best_d = 3;  /* "did you mean" only within 2 edits */
		struct sbuf list;
		sbuf_init(&list);
		for (const char *const *k = known; *k; k++) {
			sbuf_add(&list, *k);
			if (k[1])
				sbuf_add(&list, ", ");
			if (it->string) {
				int d = hp_edit_distance(it->string, *k);
				if (d < best_d) {
					best_d = d;
					best = *k;
				}
			}
		}
		char hint[96] = "";
		if (best)
			snprintf(hint, sizeof hint, "did you mean \"%s\"? ", best);
		hp_err_set(c->err, HP_EXIT_INPUT,
			   "%s: %s%s%.*s: unknown key (%sknown: %s)",
			   c->file, c->path, *c->path ? "." : "",
			   UTF8_CUT(it->string ? it->string : "?", 80), hint,
			   list.s ? list.s : "");
		sbuf_done(&list);
		return -1;
	}
	return 0;
}
