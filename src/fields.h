/* fields.h — one description per setting, in the manner of tmux's
 * options table.
 *
 * A setting of a plan, a model, a cluster pool or a workspace is one
 * `struct hp_field`: its JSON key, its CLI flag, its kind, where it lives
 * (offsetof into its struct), its range, its names (enums), its TUI label,
 * unit and help. The same entry drives:
 *   - reading and writing the JSON files (fields_read_json, fields_write_json),
 *     with the messages jsonx.h gives ("plan.json: cp: expected ...");
 *   - the command line (fields_getopt, fields_parse_text: "--cp: expected ...");
 *   - the TUI's get and set (fields_format, fields_set_int, fields_cycle);
 *   - the documentation: `hetplan --list-fields=md|man` prints the key
 *     tables, the flag entries and the key lists (fields_doc.h), which
 *     `make fields-docs` splices into docs/formats.md and man/hetplan.1;
 *     tests/test_man.sh fails when those files are not current.
 * Rules that join several fields (kv_heads divides heads, a replicated
 * master needs ZeRO 0 or 1) stay in the module that owns the struct.
 *
 * Enum-typed members are read and written as int: every enum here has
 * non-negative values and the size of int (checked in fields.c). */
#ifndef HP_FIELDS_H
#define HP_FIELDS_H

#include <stddef.h>
#include <getopt.h>

struct cJSON;
struct jx_ctx;

enum hp_field_kind {
	FK_INT,     /* int; min..max */
	FK_NUM,     /* double; min..max */
	FK_BOOL,    /* int 0/1; JSON true/false; CLI and TUI use names[] when given */
	FK_STR,     /* char[size] */
	FK_ENUM,    /* an enum stored as int, named through enm */
	FK_CUSTOM,  /* parsed and formatted by hooks (the schedule: two members) */
	FK_OBJECT,  /* a JSON sub-object described by sub (offsets stay those of
		     * the outer struct, so one base pointer serves both) */
};

enum {
	FF_REQUIRED = 1 << 0,  /* the JSON key must be present */
	FF_OMIT_ZERO = 1 << 1, /* not written while 0, "" or the first enum value */
	FF_NOSAVE = 1 << 2,    /* read from JSON, never written (a file's "source") */
	FF_NEG_FLAG = 1 << 3,  /* a bool whose CLI flag takes no argument and
				* clears it (--no-sp) */
	FF_ZERO_NONE = 1 << 4, /* 0 means "none" in the TUI (experts: 0 = dense),
				* though the JSON range starts at min */
	FF_NUM_TEXT = 1 << 5,  /* FK_STR that also takes a whole JSON number and
				* stores its digits (a workspace's isl 1500) */
};

struct hp_field_enum {
	int n;                                  /* values 0 .. n-1 */
	const char *(*name)(int v);
	int (*parse)(const char *s, int *v);    /* 0, or -1 (aliases allowed) */
};

/* .off and .size of a char array member m of struct type T. */
#define FIELD_STR(T, m) .off = offsetof(T, m), .size = sizeof(((T *)0)->m)

/* Define `storage const struct hp_field_enum var` for an enum type T with
 * n values, named by name_fn(T) and parsed by parse_fn(const char *, T *)
 * (the module's own functions, aliases and all). storage: static or empty. */
#define FIELDS_ENUM(storage, var, T, n, name_fn, parse_fn)                      \
	static const char *var##_name(int v) { return name_fn((T)v); }          \
	static int var##_parse(const char *s, int *v)                           \
	{                                                                       \
		T e;                                                            \
		if (parse_fn(s, &e))                                            \
			return -1;                                              \
		*v = (int)e;                                                    \
		return 0;                                                       \
	}                                                                       \
	storage const struct hp_field_enum var = { n, var##_name, var##_parse }

/* The index of s in names[0..n-1], ignoring case; -1 when absent. */
int fields_name_index(const char *const *names, int n, const char *s);

struct hp_field_custom {
	int (*parse)(void *base, const char *s);               /* 0 or -1 */
	void (*format)(const void *base, char *buf, size_t n);
	const char *want;       /* CLI: "1f1b or interleaved:V (V from 2 to 64)" */
	const char *json_want;  /* JSON, quoted names */
};

struct hp_field_table;

struct hp_field {
	const char *key;        /* JSON key; NULL: CLI only */
	const char *flag;       /* CLI long option without "--"; NULL: none */
	enum hp_field_kind kind;
	size_t off;             /* offsetof into the table's struct */
	size_t size;            /* FK_STR: the buffer's size */
	double min, max;        /* FK_INT, FK_NUM: the accepted range */
	unsigned flags;         /* FF_* */
	const struct hp_field_enum *enm;      /* FK_ENUM */
	const char *const *names;             /* FK_BOOL: {false, true} words, or NULL */
	const struct hp_field_custom *custom; /* FK_CUSTOM */
	const struct hp_field_table *sub;     /* FK_OBJECT */
	const char *want;       /* CLI message override ("0, 1, 2 or 3"); NULL: generated */
	const char *label;      /* TUI label; NULL: not shown */
	const char *unit;       /* after the value: "tokens", "Gb/s" */
	const char *help;       /* one line: docs/formats.md, --list-fields */
	/* The man page's paragraph for the key or flag, longer than help;
	 * NULL: help. In the doc markup of fields_doc.h (`bold`, {italic}). */
	const char *doc;
	/* The flag's value in synopses and the man page, in the same markup
	 * ("1f1b|interleaved:{V}"); NULL: from the kind ({N}, the names). */
	const char *arg;
	const char *hint;       /* the TUI prompt's hint; NULL: the unit */
	/* What else a value may be, beyond what the kind says (an enum's
	 * aliases of another kind): fields_want appends " (or ALSO)", an
	 * example in backquotes written as the value is (quoted in the JSON
	 * form). "a Google Cloud machine type such as `a3-megagpu-8g`".
	 * NULL: nothing. */
	const char *also;
	/* FK_INT/FK_BOOL/FK_ENUM: the value to write and show when the member holds
	 * a "default" marker (the overlaps: -1 = the framework's). */
	int (*effective)(const void *base);
	/* Write the key only when this returns 1 (display differs from name). */
	int (*present)(const void *base);
};

struct hp_field_table {
	const char *name;       /* "plan", "model", "pool", "workload" */
	const struct hp_field *f;
	int n;
	int strict;             /* unknown keys in this object are errors */
	/* Values are written as on a command line (--pool's key=value), so
	 * the docs show names unquoted; 0: JSON. */
	int cli_text;
};

/* The tables live with their structs: plan_fields (plan.h), model_fields
 * (catalog.h), pool_fields and workload_fields (workspace.h, which also
 * lists them all for --list-fields). This file knows no struct. */

/* The entry with this JSON key or CLI flag; NULL when there is none. */
const struct hp_field *fields_find_key(const struct hp_field_table *t, const char *key);
const struct hp_field *fields_find_flag(const struct hp_field_table *t, const char *flag);

/* Read every key of t that o holds into base. An absent optional key keeps
 * base's value; an absent FF_REQUIRED key, a value of the wrong type or out
 * of range fails with err naming c->file, c->path and the key, as jsonx.h
 * does. Required keys are read first, then the rest, in table order.
 * Unknown keys are not checked here (fields_check_keys). Returns 0 or -1. */
int fields_read_json(const struct hp_field_table *t, void *base, const struct jx_ctx *c,
		     const struct cJSON *o);

/* Read the fields of t named in keys (NULL-terminated), in that order,
 * as fields_read_json reads them. Returns 0 or -1 with c->err filled. */
int fields_read_keys(const struct hp_field_table *t, const char *const *keys, void *base,
		     const struct jx_ctx *c, const struct cJSON *o);

/* Complain about a key of o that is neither in t nor in extra (a
 * NULL-terminated list, or NULL). Returns 0 or -1 with err filled. */
int fields_check_keys(const struct hp_field_table *t, const struct jx_ctx *c,
		      const struct cJSON *o, const char *const *extra);

/* Add t's keys from base to the JSON object o, in table order, skipping
 * FF_NOSAVE keys and FF_OMIT_ZERO keys at zero. */
void fields_write_json(const struct hp_field_table *t, const void *base, struct cJSON *o);

/* The value as text: "%d", a number without a trailing ".0", a name, or
 * "yes"/"no" for a bool without names. Returns buf ("" for an empty string). */
const char *fields_format(const struct hp_field *f, const void *base, char *buf, size_t n);

/* Parse text as the command line spells it (names, "on"/"off", a number in
 * range) and store it in base. Returns 0, or -1 with want (n bytes) set to
 * what was expected ("an integer from 1 to 1024"). */
int fields_parse_text(const struct hp_field *f, void *base, const char *s, char *want,
		      size_t n);

/* What a value of f looks like, for messages: CLI style (quoted 0) or JSON
 * style (quoted 1: "\"fused\" or \"eager\""), with f->also after it.
 * Returns buf. Every caller's
 * buffer is FIELDS_WANT_MAX bytes, which test_fields checks against the
 * longest "want" of every table (the framework list grows with its rows). */
#define FIELDS_WANT_MAX 512
const char *fields_want(const struct hp_field *f, int quoted, char *buf, size_t n);

/* Direct access for editors that parse themselves (the TUI). */
int fields_get_int(const struct hp_field *f, const void *base);
void fields_set_int(const struct hp_field *f, void *base, int v);
double fields_get_num(const struct hp_field *f, const void *base);
void fields_set_num(const struct hp_field *f, void *base, double v);
/* Step a bool or enum by dir (+1 / -1), wrapping. A bool flips the value
 * fields_get_int shows, so one at its default marker becomes explicitly
 * the other value. Returns 1 if it was one. */
int fields_cycle(const struct hp_field *f, void *base, int dir);
/* 1 when f has an effective hook and base holds its "default" marker (the
 * member differs from the value in force: the overlaps' -1), else 0. */
int fields_is_default(const struct hp_field *f, const void *base);

/* getopt_long entries for the flags of t, val = val0 + the entry's index,
 * into out (room for max). Returns the number written. */
int fields_getopt(const struct hp_field_table *t, int val0, struct option *out, int max);

#endif
