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

/* Parse text (length-aware). On a syntax error, err names file, line and
 * column. Caller owns the result (cJSON_Delete). */
cJSON *jx_parse(const char *text, size_t len, const char *file,
		struct hp_err *err);

int jx_int(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, long lo, long hi, int *out);
int jx_num(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, double lo, double hi, double *out);
int jx_bool(const struct jx_ctx *c, const cJSON *o, const char *key,
	    int required, int *out);
/* Copies at most size-1 bytes; a longer string is an error, and so is one
 * that is not printable UTF-8 (control characters, invalid sequences). */
int jx_str(const struct jx_ctx *c, const cJSON *o, const char *key,
	   int required, char *out, size_t size);
/* An object or array member that must have a given type when present. */
const cJSON *jx_obj(const struct jx_ctx *c, const cJSON *o, const char *key,
		    int required, int *bad);
const cJSON *jx_arr(const struct jx_ctx *c, const cJSON *o, const char *key,
		    int required, int *bad);

/* Describe a JSON value for an error message ("-4", "\"abc\"", "an object"). */
void jx_describe(const cJSON *v, char *buf, size_t n);

/* Complain about keys of o that are not in the NULL-terminated list known. */
int jx_check_keys(const struct jx_ctx *c, const cJSON *o,
		  const char *const *known);

#endif
