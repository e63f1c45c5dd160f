/* cmd_prices.h — what `hetplan prices` shares with `hetplan gpus --update`
 * (both fetch into the same cache with the same HTTP flags); defined in
 * ui/cmd_prices.c. */
#ifndef HP_CMD_PRICES_H
#define HP_CMD_PRICES_H

#include <getopt.h>
#include "pricing.h"

/* The HTTP and cache flags given (--timeout, --max-bytes, --retry-wait,
 * --cache-dir, --skypilot-url, --azure-url), checked only once the config
 * is loaded so that flags win over it. */
struct http_flags {
	const char *v[8][2];      /* {long name, value} */
	int n;
};

/* Remember option o of opts with its value; a repeated flag keeps its
 * last value. Never fails. */
void http_flags_add(struct http_flags *f, const struct option *opts, int o,
		    const char *value);
/* Apply them to cfg (pricing_config_flag). Returns 0, or HP_EXIT_USAGE
 * after printing "hetplan CMD: --FLAG: expected ..., got '...'". */
int http_flags_apply(const struct http_flags *f, const char *cmd, struct price_config *cfg);

/* After option parsing: no stray argument, --source only with --update.
 * Returns -1 to go on, or HP_EXIT_USAGE after printing why. */
int cmd_update_check(const char *cmd, int argc, char **argv, int has_source, int update);

#endif
