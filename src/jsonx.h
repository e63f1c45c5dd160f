/* jsonx.h — reading typed fields from cJSON with messages a user can act on.
 *
 * Every getter takes the file name and the JSON path of the object it reads
 * from, so a failure reads "cluster.json: pools[1].nodes: expected a
 * positive integer, got -4". Getters return 0 on success, 1 when an optional
 * key is absent (out keeps its value), and -1 with err filled (code
 * HP_EXIT_INPUT) when the value is present but wrong or a required key is
 * missing. */
#ifndef HP_JSONX_H
#define HP_JSONX_H

#include <cjson/cJSON.h>
#include "util.h"

struct jx_ctx {
	const char *file;     /* "cluster.json" or "--plan" */
	const char *path;     /* "pools[1]" or "" for the root */
	struct hp_err *err;
};

/* Parse the len bytes at text (no NUL needed). Returns the tree, which the
 * caller frees with cJSON_Delete, or NULL with err (HP_EXIT_INPUT) naming
 * file, line and column of a syntax error, the nesting limit or a \u0000
 * escape in a string (C text would end there), or the path of an object
 * that holds a key twice (readers differ on which one counts). */
cJSON *jx_parse(const char *text, size_t len, const char *file,
		struct hp_err *err);

/* The number key of o, a whole number from lo to hi (jx_int) or a
 * finite one from lo to hi (jx_num), into *out. c, o, key and out must
 * not be NULL and lo <= hi (asserted). */
int jx_int(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, long lo, long hi, int *out);
int jx_num(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, double lo, double hi, double *out);
/* true or false into *out as 1 or 0. */
int jx_bool(const struct jx_ctx *c, const cJSON *o, const char *key,
	    int required, int *out);
/* Copies at most size-1 bytes; a longer string is an error, and so is one
 * that is not printable UTF-8 (control characters, invalid sequences). */
int jx_str(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, char *out, size_t size);
/* An object or array member that must have that type when present:
 * returns it (borrowed from o; do not free), or NULL with *bad 0 when it
 * is absent and not required, or NULL with *bad 1 and c->err filled when
 * it is required and absent or has another type. */
const cJSON *jx_obj(const struct jx_ctx *c, const cJSON *o, const char *key,
		    int required, int *bad);
const cJSON *jx_arr(const struct jx_ctx *c, const cJSON *o, const char *key,
		    int required, int *bad);

/* 0 when every key of o is in the NULL-terminated list known; -1 with
 * c->err (HP_EXIT_INPUT) naming the first other key, the keys allowed and
 * the nearest one ("did you mean") when it is within 2 edits. */
int jx_check_keys(const struct jx_ctx *c, const cJSON *o,
		  const char *const *known);

#endif
