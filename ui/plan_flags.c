/* plan_flags.c — the flags that describe a plan on one pool (--tp, --pp,
 * --mbs, --precision, ...) and its inputs (-c, --pool, -m), shared by
 * estimate and launch. Every flag but
 * --on is a settings descriptor (fields.h): the plan's own keys from
 * plan_fields, the layout from the table below; getopt entries, parsing
 * and messages all come from them. */
#include "plan_flags.h"
#include "common.h"
#include "fields_doc.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LF(m) offsetof(struct cli_plan_flags, m)
/* The layout of a one-pool plan. TP, PP and DP are bounded by HP_MAX_GPUS
 * in any cluster. */
static const struct hp_field layout_field_list[] = {
	{ .flag = "tp", .kind = FK_INT, .off = LF(tp), .min = 1, .max = HP_MAX_GPUS,
	  .help = "tensor-parallel degree" },
	{ .flag = "pp", .kind = FK_INT, .off = LF(pp), .min = 1, .max = HP_MAX_GPUS,
	  .help = "pipeline stages" },
	{ .flag = "dp", .kind = FK_INT, .off = LF(dp), .min = 1, .max = HP_MAX_GPUS,
	  .help = "data-parallel replicas; default: every GPU of the pool" },
};
#undef LF

static const struct hp_field_table layout_fields = { "layout", layout_field_list,
						     (int)HP_ARRAY_LEN(layout_field_list), 0, 0 };

/* The generated entries, in --list-options order. */
static int plan_flag_entries(struct option *out, int max)
{
	static const struct option inputs[] = {
		{ "cluster", required_argument, 0, 'c' },
		{ "pool", required_argument, 0, CLI_PF_POOL },
		{ "model", required_argument, 0, 'm' },
	};
	int n = 0;
	for (size_t i = 0; i < HP_ARRAY_LEN(inputs) && n < max; i++)
		out[n++] = inputs[i];
	n += fields_getopt(&layout_fields, CLI_PF_LAYOUT, out + n, max - n);
	n += fields_getopt(&plan_fields, CLI_PF_PLAN, out + n, max - n);
	if (n < max)
		out[n++] = (struct option){ "on", required_argument, 0, CLI_PF_ON };
	return n;
}

const struct option *cli_plan_options(const struct option *opts)
{
	/* A handful of commands take plan flags; each gets its spliced table
	 * once. Single-threaded: only command parsing calls this. */
	enum { MAX_TABLES = 8, MAX_OPTS = 160 };
	static struct { const struct option *in; struct option out[MAX_OPTS]; } cache[MAX_TABLES];
	static int n_cache;
	for (int i = 0; i < n_cache; i++)
		if (cache[i].in == opts)
			return cache[i].out;
	/* getopt values of plan keys must not reach the layout flags'. */
	assert(plan_fields.n < CLI_PF_LAYOUT - CLI_PF_PLAN);
	int mark = -1, len = 0;
	for (; opts[len].name; len++)
		if (opts[len].val == CLI_PF_SPLICE)
			mark = len;
	if (mark < 0 || n_cache == MAX_TABLES)
		return opts;
	struct option *out = cache[n_cache].out;
	int k = 0;
	for (int i = 0; i < mark; i++)
		out[k++] = opts[i];
	k += plan_flag_entries(out + k, MAX_OPTS - 1 - len - k);
	for (int i = mark + 1; i <= len; i++)    /* with the terminating zero entry */
		out[k++] = opts[i];
	cache[n_cache].in = opts;
	return cache[n_cache++].out;
}

int cli_plan_flag(const char *cmd, int opt, const char *arg, struct plan *p,
		  struct cli_plan_flags *f)
{
	const struct hp_field *d;
	void *base;
	char want[FIELDS_WANT_MAX];
	switch (opt) {
	case 'c': f->in.cluster_file = arg; return 1;
	case 'm': f->in.model_arg = arg; return 1;
	case CLI_PF_POOL: return cli_add_pool(cmd, &f->in, arg) ? -1 : 1;
	case CLI_PF_ON: f->on = arg; return 1;
	}
	if (opt >= CLI_PF_PLAN && opt < CLI_PF_PLAN + plan_fields.n) {
		d = &plan_fields.f[opt - CLI_PF_PLAN];
		base = p;
	} else if (opt >= CLI_PF_LAYOUT && opt < CLI_PF_LAYOUT + layout_fields.n) {
		d = &layout_fields.f[opt - CLI_PF_LAYOUT];
		base = f;
	} else {
		return 0;
	}
	/* an empty list unsets the plan key (the TUI's entry); a flag
	 * names modules or is left out */
	if (fields_parse_text(d, base, arg, want, sizeof want) < 0 ||
	    (d->key && !strcmp(d->key, "recompute_modules") && arg && !*arg)) {
		if (arg && !*arg)
			fields_want(d, 0, want, sizeof want);
		usage_error(cmd, d->flag, want, arg);
		return -1;
	}
	if (d->key && !strcmp(d->key, "mbs"))
		f->have_mbs = 1;
	return 1;
}

size_t cli_flag_words(char *buf, size_t n, size_t len, size_t *col,
		      const struct hp_field_table *t, const char *head)
{
	for (int i = 0; i < t->n && len < n; i++) {
		const struct hp_field *f = &t->f[i];
		char name[48], arg[96], word[160];
		if (!f->flag)
			continue;
		/* head names it (--mbs N, required; --cp N beside --tp)? */
		int w = snprintf(name, sizeof name, "--%s", f->flag);
		const char *p = head ? strstr(head, name) : NULL;
		if (p && (p[w] == ' ' || p[w] == ']' || p[w] == '\n'))
			continue;
		fields_doc_arg(f, arg, sizeof arg);
		w = snprintf(word, sizeof word, "[--%s%s%s]", f->flag, *arg ? " " : "", arg);
		if (*col == 9 || *col + 1 + (size_t)w > 96) {
			len += (size_t)snprintf(buf + len, n - len, "%s         %s",
						*col == 9 ? "" : "\n", word);
			*col = 9 + (size_t)w;
		} else {
			len += (size_t)snprintf(buf + len, n - len, " %s", word);
			*col += 1 + (size_t)w;
		}
	}
	return len < n ? len : n;
}

/* text from column 23, words wrapped before column 80 */
static void help_wrapped(FILE *out, const char *text)
{
	size_t col = 23;
	const char *p = text;
	while (*p) {
		size_t w = strcspn(p, " ");
		if (col > 23 && col + 1 + w > 80) {
			fprintf(out, "\n%23s", "");
			col = 23;
		} else if (col > 23) {
			fputc(' ', out);
			col++;
		}
		fprintf(out, "%.*s", (int)w, p);
		col += w;
		p += w;
		p += strspn(p, " ");
	}
	fputc('\n', out);
}

void cli_flag_help(FILE *out, const struct hp_field_table *t)
{
	for (int i = 0; i < t->n; i++) {
		const struct hp_field *f = &t->f[i];
		char arg[96], lead[160];
		if (!f->flag || !f->help)
			continue;
		fields_doc_arg(f, arg, sizeof arg);
		int w = snprintf(lead, sizeof lead, "      --%s%s%s", f->flag, *arg ? " " : "", arg);
		if (w < 22)
			fprintf(out, "%-23s", lead);
		else
			fprintf(out, "%s\n%23s", lead, "");
		help_wrapped(out, f->help);
	}
}

const char *cli_plan_usage(char *buf, size_t n, const char *cmd, const char *tail)
{
	if (*buf)
		return buf;
	char head[256];
	snprintf(head, sizeof head,
		 "hetplan %s (-c CLUSTER.json | --pool SPEC...) -m MODEL\n"
		 "         --tp N --pp N [--dp N] [--cp N] [--ep N] --mbs N --gbs N [--on POOL]\n",
		 cmd);
	size_t len = (size_t)snprintf(buf, n, "%s", head), col = 9;
	len = cli_flag_words(buf, n, len, &col, &plan_fields, head);
	if (len < n)
		snprintf(buf + len, n - len, "%s%s", col == 9 ? "" : "\n", tail);
	return buf;
}

int cli_uniform_plan(const char *cmd, const struct cli_plan_flags *f, const struct cluster *c,
		     const struct model_spec *m, struct plan *p)
{
	struct hp_err err = { 0 };
	if (!f->tp || !f->pp) {
		fprintf(stderr, "hetplan %s: --tp and --pp are required (or --plan FILE)\n", cmd);
		return HP_EXIT_USAGE;
	}
	if (!f->have_mbs || !p->gbs) {
		fprintf(stderr, "hetplan %s: --mbs and --gbs are required\n", cmd);
		return HP_EXIT_USAGE;
	}
	int pool = 0, dp = f->dp;
	if (f->on && (pool = cluster_pool_index(c, f->on)) < 0) {
		/* the pools there are, as a plan file's unknown pool is answered
		 * (src/plan.c); through cli_fail, so the name as typed reaches
		 * the terminal escaped */
		char names[200] = "";
		for (int i = 0; i < c->n_pools; i++) {
			/* whole names, room kept for ", ...": a byte cut split a name
			 * of euro signs inside a character (shown as \xE2) */
			size_t at = strlen(names);
			if (at + 2 + strlen(c->pools[i].name) + 6 > sizeof names) {
				snprintf(names + at, sizeof names - at, "%s...", i ? ", " : "");
				break;
			}
			snprintf(names + at, sizeof names - at, "%s%s", i ? ", " : "", c->pools[i].name);
		}
		hp_err_set(&err, HP_EXIT_INPUT, "%s --on: no pool named '%s' in the cluster (pools: %s)",
			   cmd, f->on, names);
		return cli_fail(&err, HP_EXIT_INPUT);
	}
	if (!dp) {
		int have = c->pools[pool].nodes * c->pools[pool].gpus_per_node;
		/* each flag is at most HP_MAX_GPUS (2^24), so the product is
		 * taken in 64 bits: in int, --tp 65536 --pp 65536 wrapped to 0
		 * and the division stopped the program (SIGFPE) */
		long long need = (long long)f->tp * f->pp * p->cp;
		dp = need > have ? 0 : (int)(have / need);
		if (dp < 1) {
			fprintf(stderr, "hetplan %s: tp %d x pp %d x cp %d = %lld GPUs; pool '%s' has %d\n",
				cmd, f->tp, f->pp, p->cp, need, c->pools[pool].name, have);
			return HP_EXIT_INPUT;
		}
	}
	if (plan_uniform(p, c, m, pool, f->tp, f->pp, dp, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	return 0;
}
