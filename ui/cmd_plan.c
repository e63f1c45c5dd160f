/* cmd_plan.c — `hetplan plan`: the best plans for a model on a cluster. */
#include "advice.h"
#include "cli.h"
#include "escape.h"
#include "dispatch.h"
#include "cmd_report.h"
#include "report.h"
#include "sbuf.h"
#include "runs_on.h"
#include "launch.h"
#include "plan_label.h"
#include "utf8.h"
#include "table.h"
#include "search.h"
#include "plan_flags.h"

#include <assert.h>
#include <cjson/cJSON.h>
#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The formats `plan` writes: the table, the plan JSON, and the report's
 * CSV, Markdown and HTML page (report.h). */
#define PLAN_FORMATS                                                                    \
	(1u << FMT_TABLE | 1u << FMT_JSON | 1u << FMT_CSV | 1u << FMT_MD | 1u << FMT_HTML)

/* The plan keys `plan` takes as given, for every plan (the planner
 * searches neither): their flags, values, help and parsing are their
 * plan_fields entries' (src/plan.c), copied here at first use, so the
 * synopsis, --help, --list-options and the completions read them. */
static const char *const plan_key_names[] = { "optimizer_impl", "compile", "grad_accum_fusion",
					      "recompute_modules" };
enum { N_PLAN_KEYS = (int)HP_ARRAY_LEN(plan_key_names) };
static struct hp_field plan_key_list[N_PLAN_KEYS];
static const struct hp_field_table plan_keys = { "plan", plan_key_list, N_PLAN_KEYS, 0, 0 };

static const struct hp_field_table *plan_key_table(void)
{
	if (!plan_key_list[0].key)
		for (int i = 0; i < N_PLAN_KEYS; i++) {
			const struct hp_field *f = fields_find_key(&plan_fields, plan_key_names[i]);
			assert(f && f->flag);
			plan_key_list[i] = *f;
		}
	return &plan_keys;
}

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above plan_help. Built once: the fixed words, then the plan keys'. */
const char *cmd_plan_usage(void)
{
	static char buf[1024];
	static const char head[] =
		"hetplan plan (-c CLUSTER.json | --pool SPEC...) -m MODEL --gbs N\n"
		"         [--seq-len N] [--tokens 2T] [--objective throughput|cost|deadline|budget]\n"
		"         [--deadline 30d] [--budget 2.5M] [--top K] [--precision fp32|tf32|bf16|fp16|fp8]\n"
		"         [--tp N] [--pp N] [--mbs N] [--zero 0|1|2|3] [--recompute none|selective|full]\n"
		"         [--schedule 1f1b|interleaved:V] [--framework NAME|any] [--mem-headroom FRAC]\n"
		"         [--no-hetero] [--no-price-book] [--threads N] [--format table|json|csv|md|html]\n"
		"         [-o FILE]";
	if (*buf)
		return buf;
	size_t col = 17, len = (size_t)snprintf(buf, sizeof buf, "%s", head);
	len = cli_flag_words(buf, sizeof buf, len, &col, plan_key_table(), NULL);
	if (len + 1 < sizeof buf)
		snprintf(buf + len, sizeof buf - len, "\n");
	return buf;
}

static const char plan_help[] =
	"\n"
	"  -c, --cluster FILE   cluster JSON; pools with \"nodes\": {\"max\": N} are available to rent\n"
	"      --pool SPEC      NODESxGPUSxGPU[,key=value...]; max=N marks nodes to rent\n"
	"  -m, --model M        preset name ('hetplan models') or a model JSON file\n"
	"      --gbs N          global batch in sequences\n"
	"      --tokens N       tokens to train (default: 20 per parameter); 2T, 300B\n"
	"      --objective O    throughput (default), cost (USD per token), deadline (cheapest\n"
	"                       plan that trains --tokens by --deadline), budget (fastest\n"
	"                       plan that trains --tokens within --budget USD)\n"
	"      --top K          plans to list (default 10)\n"
	"      --tp/--pp/--mbs/--zero/--recompute/--schedule  fix that choice instead of\n"
	"                       searching it\n"
	"      --no-hetero      no pipeline across pools (replica groups on different\n"
	"                       pools may still train side by side)\n"
	"      --framework F    only plans F runs as one job, estimated under F's behaviour\n"
	"                       (the names below); any (default) ranks all and shows RUNS ON\n"
	"      --mem-headroom F share of each GPU's memory every plan keeps free (default\n"
	"                       0.05); only when none can are plans over it listed, as risky (!)\n"
	"      --no-price-book  price pools from the catalog reference, not 'hetplan prices'\n"
	"      --threads N      search threads (default: the online cores); same plans for any N\n"
	"  -o, --output FILE    write there (atomically) instead of standard output; the\n"
	"                       format follows the extension (.json .csv .md .html) unless\n"
	"                       --format; md, html and csv are `hetplan report`'s formats\n";
static const char plan_help_end[] =
	"\n"
	"Exit status: 0 plans found, 4 nothing fits or meets the deadline/budget (the\n"
	"nearest miss is explained), 2 usage, 3 invalid input.\n";

enum { O_POOL = 256, O_GBS, O_SEQ, O_TOKENS, O_OBJ, O_DEADLINE, O_BUDGET, O_TOP, O_PREC,
       O_TP, O_PP, O_MBS, O_ZERO, O_RC, O_NOHET, O_FORMAT, O_NOBOOK, O_SCHED, O_FW,
       O_HEADROOM, O_THREADS, O_KEY0 };

static const struct option plan_opts[] = {
	{ "cluster", required_argument, 0, 'c' },
	{ "pool", required_argument, 0, O_POOL },
	{ "model", required_argument, 0, 'm' },
	{ "gbs", required_argument, 0, O_GBS },
	{ "seq-len", required_argument, 0, O_SEQ },
	{ "tokens", required_argument, 0, O_TOKENS },
	{ "objective", required_argument, 0, O_OBJ },
	{ "deadline", required_argument, 0, O_DEADLINE },
	{ "budget", required_argument, 0, O_BUDGET },
	{ "top", required_argument, 0, O_TOP },
	{ "precision", required_argument, 0, O_PREC },
	{ "tp", required_argument, 0, O_TP },
	{ "pp", required_argument, 0, O_PP },
	{ "mbs", required_argument, 0, O_MBS },
	{ "zero", required_argument, 0, O_ZERO },
	{ "recompute", required_argument, 0, O_RC },
	{ "schedule", required_argument, 0, O_SCHED },
	{ "no-hetero", no_argument, 0, O_NOHET },
	{ "framework", required_argument, 0, O_FW },
	{ "mem-headroom", required_argument, 0, O_HEADROOM },
	{ "no-price-book", no_argument, 0, O_NOBOOK },
	{ "threads", required_argument, 0, O_THREADS },
	{ "format", required_argument, 0, O_FORMAT },
	{ "output", required_argument, 0, 'o' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

/* plan_opts and the plan keys' flags (O_KEY0 + their index). */
const struct option *cmd_plan_options(void)
{
	static struct option all[HP_ARRAY_LEN(plan_opts) + N_PLAN_KEYS];
	if (all[0].name)
		return all;
	int n = (int)HP_ARRAY_LEN(plan_opts) - 1;
	memcpy(all, plan_opts, (size_t)n * sizeof *all);
	n += fields_getopt(plan_key_table(), O_KEY0, all + n, N_PLAN_KEYS);
	all[n] = (struct option){ 0, 0, 0, 0 };
	return all;
}

/* A fraction from 0 to 1 ("0.05", decimal only: util.h's parser);
 * returns 0, or -1 for anything else. */
static int parse_frac(const char *s, double *out)
{
	double v;
	if (hp_parse_number(s, &v) || !(v <= 1))
		return -1;
	*out = v;
	return 0;
}

/* The plan entry of the JSON contract: one builder for `plan` and the
 * reports (report.c), so both print the same keys. */
cJSON *cli_plan_entry_json(const struct search_plan *sp, int rank, const struct search_result *r,
			   const struct cluster *c, const struct model_spec *m)
{
	return report_plan_json(sp, rank, r, c, m);
}

/* What would meet a missed deadline (search_capacity_answer). */
struct capacity {
	int n;
	int add_nodes[HP_MAX_POOLS];
	char text[512];
	struct nofit_advice advice;   /* every line, cap.text's first */
};

static cJSON *result_json(const struct search_result *res, const struct cluster *c,
			  const struct model_spec *m, const struct search_opts *so, double tokens,
			  const struct capacity *cap)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "schema_version", 1);
	cJSON_AddStringToObject(o, "model", m->name);
	cJSON_AddStringToObject(o, "objective", search_objective_name(so->objective));
	cJSON_AddNumberToObject(o, "tokens", tokens);
	cJSON *pl = cJSON_AddArrayToObject(o, "plans");
	for (int i = 0; i < res->n_plans; i++)
		cJSON_AddItemToArray(pl, cli_plan_entry_json(&res->plans[i], i + 1, res, c, m));
	cJSON *pa = cJSON_AddArrayToObject(o, "pareto");
	for (int i = 0; i < res->n_pareto; i++) {
		const struct search_plan *sp = &res->pareto[i];
		cJSON *e = cJSON_CreateObject();
		char lb[PLAN_LABEL_MAX];
		plan_list_label(sp, c, res->plans, NULL, res->n_plans, 0, lb, sizeof lb);
		cJSON_AddStringToObject(e, "label", sp->label);
		cJSON_AddStringToObject(e, "list_label", lb);
		cJSON_AddNumberToObject(e, "time_to_train_s", sp->time_to_train_s);
		cJSON_AddNumberToObject(e, "cost_to_train_usd", sp->cost_to_train_usd);
		cJSON_AddNumberToObject(e, "tokens_per_s", sp->est.tokens_per_s);
		cJSON_AddNumberToObject(e, "gpus", sp->est.n_gpus);
		cJSON_AddItemToObject(e, "plan", plan_to_json(&sp->plan, c));
		cJSON_AddItemToArray(pa, e);
	}
	cJSON *sg = cJSON_AddArrayToObject(o, "single_pool");
	for (int i = 0; i < c->n_pools; i++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "pool", c->pools[i].name);
		if (res->has_single[i]) {
			const struct search_plan *sp = &res->single[i];
			cJSON_AddStringToObject(e, "label", sp->label);
			cJSON_AddNumberToObject(e, "tokens_per_s", sp->est.tokens_per_s);
			cJSON_AddNumberToObject(e, "time_to_train_s", sp->time_to_train_s);
			if (sp->est.price_known)
				cJSON_AddNumberToObject(e, "cost_to_train_usd", sp->cost_to_train_usd);
			if (res->n_plans)
				cJSON_AddNumberToObject(e, "best_vs_this",
							res->plans[0].est.tokens_per_s /
								sp->est.tokens_per_s - 1);
			/* the plan itself, as the ranked plans carry it ("rank" null
			 * when it is not one of them): what `launch --plan` and
			 * `estimate --plan` take, as the report's single_pool */
			cJSON_AddItemToObject(e, "plan",
					      cli_plan_entry_json(sp, report_plan_rank(res, sp), res,
								  c, m));
		} else {
			cJSON_AddStringToObject(e, "note", "the model does not fit on this pool alone");
		}
		cJSON_AddItemToArray(sg, e);
	}
	report_search_json(o, &res->stats);
	cJSON_AddNumberToObject(o, "mem_headroom", so->mem_headroom);
	cJSON_AddStringToObject(o, "framework", framework_name(so->framework));
	if (res->has_stock)
		cJSON_AddItemToObject(o, "best_stock", cli_plan_entry_json(&res->stock, 0, res, c, m));
	if (!res->n_plans) {
		cJSON_AddStringToObject(o, "why", res->why);
		/* the nearest miss: the plan (estimate --plan schema), the
		 * memory of its fullest stage and that GPU's capacity */
		const struct search_plan *nm = res->has_nearest ? &res->nearest
					       : res->has_mem_miss ? &res->mem_miss : NULL;
		if (nm) {
			cJSON *n = cJSON_AddObjectToObject(o, "nearest_miss");
			cJSON_AddItemToObject(n, "plan", plan_to_json(&nm->plan, c));
			cJSON_AddStringToObject(n, "label", nm->label);
			cJSON_AddNumberToObject(n, "need_bytes", nm->mem_need_bytes);
			cJSON_AddNumberToObject(n, "capacity_bytes", nm->mem_capacity_bytes);
			cJSON_AddNumberToObject(n, "tokens_per_s", nm->est.tokens_per_s);
			cJSON_AddNumberToObject(n, "time_to_train_s", nm->time_to_train_s);
			cJSON_AddStringToObject(n, "why", res->why);
		}
		if (cap->n) {
			cJSON *ca = cJSON_AddObjectToObject(o, "capacity");
			cJSON_AddStringToObject(ca, "text", cap->text);
			cJSON *arr = cJSON_AddArrayToObject(ca, "add");
			for (int i = 0; i < c->n_pools; i++)
				if (cap->add_nodes[i]) {
					cJSON *e = cJSON_CreateObject();
					cJSON_AddStringToObject(e, "pool", c->pools[i].name);
					cJSON_AddStringToObject(e, "gpu", c->pools[i].gpu.name);
					cJSON_AddNumberToObject(e, "nodes", cap->add_nodes[i]);
					cJSON_AddNumberToObject(e, "gpus",
								cap->add_nodes[i] * c->pools[i].gpus_per_node);
					cJSON_AddItemToArray(arr, e);
				}
		}
		if (cap->advice.n) {
			cJSON *arr = cJSON_AddArrayToObject(o, "advice");
			for (int i = 0; i < cap->advice.n; i++)
				cJSON_AddItemToArray(arr, cJSON_CreateString(cap->advice.line[i]));
		}
	}
	return o;
}

/* table_usd's text, "-" when unknown. */
static void fmt_usd(char *b, size_t n, double v, int known)
{
	if (!known || !isfinite(v) || v < 0)
		snprintf(b, n, "-");
	else
		table_usd(b, n, v, 0);
}

/* 1 with the first "A/B mb" word of a planner label (replicas of one
 * layout running A and B micro-batches: plan_label.c's split suffix) in
 * *a and *b; 0 when the label has none. */
static int split_example(const char *label, int *a, int *b)
{
	for (const char *p = strchr(label, '/'); p; p = strchr(p + 1, '/')) {
		const char *s = p;
		while (s > label && isdigit((unsigned char)s[-1]))
			s--;
		int x, y, n = 0;
		if (s == p || (s > label && s[-1] != ' '))
			continue;
		if (sscanf(s, "%d/%d mb%n", &x, &y, &n) == 2 && n && (s[n] == '\0' || s[n] == ' ')) {
			*a = x;
			*b = y;
			return 1;
		}
	}
	return 0;
}

/* Terminal columns a label takes (utf8_cols: a CJK character or an emoji
 * takes two). */
static int label_cols(const char *s)
{
	return utf8_cols(s);
}

/* The plan column is as wide as its widest label, at least the header's
 * 28 and at most PLAN_COL_MAX; a longer label keeps whole words of its
 * start and its last third (the micro-batch counts and the settings that
 * tell it from its neighbours) around " ... " (add_label_cell). */
#define PLAN_COL_MAX 64
/* Pool and GPU name columns: names are at most 63 bytes (cluster.c);
 * wider than this they keep their start and end around "...". */
#define NAME_COL_MAX 24

/* w widened to fit name, up to NAME_COL_MAX. */
static int name_col(int w, const char *name)
{
	int n = label_cols(name);
	n = n < NAME_COL_MAX ? n : NAME_COL_MAX;
	return n > w ? n : w;
}

/* A label wider than width keeps whole words: its end from the start of
 * the word holding its last third (at most half the width), " ... ", and
 * the whole words of its start that fit; cut inside words, "...0s" no
 * longer said which pool. A label with no space to cut at is cut inside a
 * word, its start and last third around "...". Widths are terminal
 * columns; a wide character that does not fit whole leaves a space. */
static void add_label_cell(struct sbuf *o, const char *label, int width)
{
	int cols = label_cols(label);
	if (cols <= width) {
		sbuf_addf(o, "%s%*s", label, width - cols, "");
		return;
	}
	size_t t = utf8_tail_cols(label, width / 3);
	int tail = label_cols(label + t);
	while (t > 0 && label[t - 1] != ' ' && tail < width / 2) {
		do /* back one character */
			t--;
		while (t > 0 && ((unsigned char)label[t] & 0xC0) == 0x80);
		tail = label_cols(label + t);
	}
	if (t > 0 && label[t - 1] == ' ') {
		size_t h = utf8_cut_cols(label, width - 5 - tail);
		while (h > 0 && label[h] != ' ')
			h--;
		while (h > 0 && label[h - 1] == ' ')
			h--;
		if (h > 0) {
			int head = utf8_cols_n(label, h);
			sbuf_addf(o, "%.*s ... %s%*s", (int)h, label, label + t,
				  width - head - 5 - tail, "");
			return;
		}
	}
	t = utf8_tail_cols(label, width / 3);
	size_t h = utf8_cut_cols(label, width - 3 - label_cols(label + t));
	sbuf_addf(o, "%.*s...%s%*s", (int)h, label, label + t,
		  width - utf8_cols_n(label, h) - 3 - label_cols(label + t), "");
}

/* A row's formatted figures: time and cost to train, $/h, $/1M tokens,
 * tokens/s (print_row's cells, and same_figures' comparison). */
struct row_cells {
	char t[32], cost[32], uh[32], um[32], tok[32];
};

static void row_cells(const struct search_plan *sp, struct row_cells *rc)
{
	hp_fmt_duration(rc->t, sizeof rc->t, sp->time_to_train_s);
	fmt_usd(rc->cost, sizeof rc->cost, sp->cost_to_train_usd, sp->est.price_known);
	fmt_usd(rc->uh, sizeof rc->uh, sp->est.usd_per_hour, sp->est.price_known);
	if (!sp->est.price_known || !isfinite(sp->est.usd_per_mtok) || sp->est.usd_per_mtok < 0) {
		snprintf(rc->um, sizeof rc->um, "-");
	} else {
		char r[32];
		snprintf(rc->um, sizeof rc->um, "$%s",
			 table_rate(r, sizeof r, sp->est.usd_per_mtok, 0));
	}
	hp_fmt_count(rc->tok, sizeof rc->tok, sp->est.tokens_per_s);
}

/* The figures of a row as the table shows them (GPUs, tokens/s, MFU,
 * $/h, $/1M tokens, time and cost to train), for same_figures. */
static void row_figures(const struct search_plan *sp, char *buf, size_t n)
{
	struct row_cells rc;
	row_cells(sp, &rc);
	snprintf(buf, n, "%d %s %.1f %s %s %s %s", sp->est.n_gpus, rc.tok, 100 * sp->est.mfu, rc.uh,
		 rc.um, rc.t, rc.cost);
}

/* Rows i and i + 1 (0-based) whose figures print alike: a line saying
 * what differs between them (the settings, the fullest stage's memory,
 * the frameworks), so that two rows that look the same are not read as a
 * duplicate. Nothing when their figures differ. */
static void same_figures(struct sbuf *o, const struct search_result *res, int i)
{
	const struct search_plan *a = &res->plans[i], *b = &res->plans[i + 1];
	char fa[256], fb[256];
	row_figures(a, fa, sizeof fa);
	row_figures(b, fb, sizeof fb);
	if (strcmp(fa, fb))
		return;
	const struct plan *p = &a->plan, *q = &b->plan;
	char d[400] = "";
	size_t k = 0;
#define DIFF(...) k += (size_t)snprintf(d + k, k < sizeof d ? sizeof d - k : 0, __VA_ARGS__), \
		  k = HP_MIN(k, sizeof d - 1)
	/* rows whose layouts differ (a100 tp4 vs tp2) say so first: the
	 * settings and memory below are not all that sets them apart */
	if (strcmp(a->label, b->label))
		DIFF("layout (%s vs %s)", a->label, b->label);
	if (p->zero != q->zero)
		DIFF("%sZeRO-%d vs ZeRO-%d", k ? ", " : "", p->zero, q->zero);
	if (p->mbs != q->mbs)
		DIFF("%smicro-batch %d vs %d", k ? ", " : "", p->mbs, q->mbs);
	if (p->recompute != q->recompute)
		DIFF("%srecompute %s vs %s", k ? ", " : "", plan_recompute_name(p->recompute),
		     plan_recompute_name(q->recompute));
	if (p->schedule != q->schedule || p->vpp != q->vpp)
		DIFF("%sschedule %s vs %s", k ? ", " : "",
		     p->schedule == SCHED_INTERLEAVED ? "interleaved" : "1f1b",
		     q->schedule == SCHED_INTERLEAVED ? "interleaved" : "1f1b");
	if (a->mem_need_bytes != b->mem_need_bytes) {
		char ma[32], mb[32];
		DIFF("%sthe fullest stage's live memory %s vs %s", k ? ", " : "",
		     hp_fmt_bytes(ma, sizeof ma, a->mem_need_bytes),
		     hp_fmt_bytes(mb, sizeof mb, b->mem_need_bytes));
	}
	if (a->runs_on != b->runs_on)
		DIFF("%sRUNS ON", k ? ", " : "");
#undef DIFF
	sbuf_addf(o, "Plans %d and %d show the same figures; they differ in %s%s.\n", i + 1, i + 2,
		  k ? d : "their layout's details",
		  (long)plan_dp(p) * HP_MAX(p->cp, 1) == 1 && p->zero != q->zero
			  ? " (one data-parallel rank: nothing is sharded, but the stages hold "
			    "gradients and weight buffers differently)" : "");
}

static void print_row(struct sbuf *o, const struct search_plan *sp, int rank,
		      const char *label, int width)
{
	struct row_cells rc;
	row_cells(sp, &rc);
	char opt[24];
	search_optimality_text(sp, opt, sizeof opt);
	char ro[48];
	runs_on_short(sp->runs_on, ro, sizeof ro);
	sbuf_addf(o, "%3d%c%c", rank, sp->pareto ? '*' : ' ', sp->risky ? '!' : ' ');
	add_label_cell(o, label, width);
	sbuf_addf(o, " %-18.18s %5d %8s %5.1f%% %9s %8s %9s %9s  %s\n", ro, sp->est.n_gpus,
		  rc.tok, 100 * sp->est.mfu, rc.uh, rc.um, rc.t, rc.cost, opt);
}

static void print_layout(struct sbuf *o, const struct search_plan *sp, const struct cluster *c,
			 const struct model_spec *m)
{
	const struct plan *p = &sp->plan;
	struct dispatch d;
	struct hp_err err = { 0 };
	int have_d = dispatch_plan(c, m, p, &d, &err) == 0;
	char sched[24], rc[48];
	if (p->schedule == SCHED_INTERLEAVED)
		snprintf(sched, sizeof sched, "interleaved:%d", p->vpp);
	else
		snprintf(sched, sizeof sched, "1f1b");
	sbuf_addf(o, "  micro-batch %d, %s, recompute %s, ZeRO-%d%s, cp %d, ep %d\n", p->mbs, sched,
	     plan_recompute_text(p, rc, sizeof rc), p->zero, p->zero == 1 ? " (distributed optimizer)" : "",
	     p->cp, p->ep);
	/* The pool and GPU columns are as wide as the widest name the plan
	 * uses (at least 8, at most NAME_COL_MAX), so that "A100-SXM4-40GB"
	 * and "A100-SXM4-80GB" never print alike. */
	int wpool = 8, wgpu = 8;
	for (int r = 0; r < p->n_replicas; r++)
		for (int s = 0; s < p->replicas[r].n_stages; s++) {
			const struct pool *pl = &c->pools[p->replicas[r].stages[s].pool];
			wpool = name_col(wpool, pl->name);
			wgpu = name_col(wgpu, pl->gpu.name);
		}
	int k = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rep = &p->replicas[r];
		int mb = plan_replica_microbatches(p, r);
		sbuf_addf(o, "  %d x replica, %d micro-batch%s each (%.2f%% of the batch per replica):\n",
			  rep->count, mb, mb == 1 ? "" : "es", 100 * rep->batch_share);
		for (int s = 0; s < rep->n_stages; s++, k++) {
			const struct stage *st = &rep->stages[s];
			char nodes[96] = "";
			if (have_d)
				dispatch_nodes_text(&d.st[k], nodes, sizeof nodes);
			sbuf_addf(o, "    stage %-2d ", s);
			add_label_cell(o, c->pools[st->pool].name, wpool);
			sbuf_add(o, " ");
			add_label_cell(o, c->pools[st->pool].gpu.name, wgpu);
			sbuf_addf(o, " tp %-2d layers %3d-%-3d (%2d)  nodes %s\n", st->tp,
				  st->first_layer, st->last_layer, st->last_layer - st->first_layer + 1,
				  nodes);
		}
	}
	const struct perf_breakdown *b = &sp->est.bd;
	/* The step as every view writes it (hp_fmt_duration: estimate's
	 * "step time", the reports' "Step time:", the TUI); its parts in
	 * seconds to the millisecond, as estimate's "breakdown (s)" and the
	 * reports' step table. */
	char stp[32];
	sbuf_addf(o, "  step %s", hp_fmt_duration(stp, sizeof stp, sp->est.step_time_s));
	/* a step written in other units than seconds ("17.3 min") is given
	 * in seconds too, the unit of the parts after it: "compute 765.240"
	 * beside "17.3 min" read as minutes */
	size_t sl = strlen(stp);
	if (sl < 2 || strcmp(stp + sl - 2, " s"))
		sbuf_addf(o, " = %.3f s", sp->est.step_time_s);
	sbuf_add(o, ":");
	int np;
	const struct report_part *tparts = report_time_parts(&np);
	for (int i = 0, nk = 0; i < np; i++)
		if (report_part_shown(&tparts[i], b))
			sbuf_addf(o, "%s %s %.3f", nk++ ? "," : "", tparts[i].word,
				  report_part_value(&tparts[i], b));
	sbuf_add(o, "\n");
	/* The fullest stage (the largest total / capacity, as
	 * search_mem_state picks it) in the words and units of the TUI's
	 * Detail view and the reports' memory table: its total with the
	 * allocator's reserve, its GPU's capacity, and the bytes left
	 * (the reports' "headroom" column), each through hp_fmt_bytes. */
	const struct perf_stage *fs = estimate_fullest_stage(&sp->est);
	double total = fs ? fs->total : 0, cap = fs ? fs->capacity : 0;
	char tb[32], cb[32], fb[32];
	/* risky 2: the total with the allocator's reserve is over the GPU
	 * (search_plan.risky), which is not "within the headroom" */
	sbuf_addf(o, "  memory: %s, fullest stage %s of %s (%.0f%%), %s %s%s\n",
		  search_plan_verdict(sp), hp_fmt_bytes(tb, sizeof tb, total),
		  hp_fmt_bytes(cb, sizeof cb, cap), cap > 0 ? 100 * total / cap : 0,
		  hp_fmt_bytes(fb, sizeof fb, fabs(cap - total)), cap >= total ? "free" : "over",
		  sp->risky == 2 ? " (over the GPU with the allocator's reserve: runs only if the "
				   "caching allocator frees cached blocks; risky)"
		  : sp->risky ? " (under the memory headroom: risky)" : "");
	if (have_d)
		dispatch_free(&d);
	/* the links and the transports, in the words the TUI's Detail view
	 * shows them (common.c) */
	struct plan_links pl;
	plan_links_text(c, m, p, &pl);
	for (int i = 0; i < pl.n; i++)
		sbuf_addf(o, "  %s\n", pl.line[i]);
}

/* --help's last lines: the framework names from the table, the
 * launchable ones apart from the estimate-only ones. */
static void fw_help(FILE *f)
{
	char l[200], e[200];
	fprintf(f, "\nFrameworks (--framework): %s (hetplan launch writes their configs);\n"
		"estimate-only, planned and estimated but not launched: %s.\n",
		framework_list(FW_LIST_LAUNCHABLE, l, sizeof l),
		framework_list(FW_LIST_ESTIMATE_ONLY, e, sizeof e));
}

/* What plan says of an estimate-only --framework: it plans, and its
 * plans get no launch config. On stderr (a diagnostic), and as the
 * table's last note. */
static void fw_note(char *buf, size_t n, enum hp_framework f)
{
	buf[0] = '\0';
	const char *fmt = launch_format_running(f);
	if (!framework_launchable(f) && fmt)
		snprintf(buf, n, "--framework %s is estimate-only: every plan runs on it as one job "
			 "and is estimated with its behaviour (%s); hetplan launch writes its "
			 "config with --format %s only; RUNS ON names the stock frameworks that "
			 "could run each plan too; limits: docs/runnable.md", framework_name(f),
			 framework_get(f)->display, fmt);
	else if (!framework_launchable(f))
		snprintf(buf, n, "--framework %s is estimate-only: every plan runs on it as one job "
			 "and is estimated with its behaviour (%s); hetplan launch writes no "
			 "config for it (exit 2); RUNS ON names the stock frameworks that could "
			 "run each plan too; limits: docs/runnable.md", framework_name(f),
			 framework_get(f)->display);
}

static void print_table(struct sbuf *o, const struct search_result *res, const struct cluster *c,
			const struct model_spec *m, const struct search_opts *so, double tokens)
{
	char tk[32];
	hp_fmt_count(tk, sizeof tk, tokens);
	int gpus = cluster_total_gpus(c);
	sbuf_addf(o, "%s on %s (%d GPU%s in %d pool%s), batch %d x %d, %s tokens, objective %s\n\n",
	     m->name, *c->name ? c->name : "the cluster", gpus, gpus == 1 ? "" : "s", c->n_pools,
	     c->n_pools == 1 ? "" : "s", so->gbs, so->seq_len ? so->seq_len : m->seq_len, tk,
	     search_objective_name(so->objective));
	char(*labels)[PLAN_LABEL_MAX] = res->n_plans ? xmalloc((size_t)res->n_plans * sizeof *labels) : NULL;
	int width = 28, suffixed = 0, split = 0, mb_a = 0, mb_b = 0;
	for (int i = 0; i < res->n_plans; i++) {
		char base[PLAN_LABEL_MAX];
		plan_list_label(&res->plans[i], c, res->plans, NULL, res->n_plans, 1, labels[i],
				sizeof labels[i]);
		plan_label_base(&res->plans[i], c, 1, base, sizeof base);
		if (strcmp(base, res->plans[i].label) && !split)
			split = split_example(base, &mb_a, &mb_b);
		suffixed |= strcmp(base, labels[i]) != 0;
		width = HP_MAX(width, HP_MIN(label_cols(labels[i]), PLAN_COL_MAX));
	}
	sbuf_addf(o, "  #  %-*s RUNS ON             GPUs tokens/s   MFU       $/h $/1M tok  to train "
		  "  cost      optimality\n", width, "plan");
	for (int i = 0; i < res->n_plans; i++)
		print_row(o, &res->plans[i], i + 1, labels[i], width);
	free(labels);
	/* the legend's example is the first split the table shows (it said
	 * "113/112" whatever the plans were) */
	char split_legend[96] = "";
	if (split)
		snprintf(split_legend, sizeof split_legend,
			 "; %d/%d mb: replicas of one layout run %d and %d micro-batches", mb_a, mb_b,
			 mb_a, mb_b);
	sbuf_addf(o, "(* on the Pareto front of time and cost to train; ! under the %.0f%% memory "
		  "headroom; RUNS ON: stock frameworks that run the plan as one job, mcore = "
		  "Megatron-Core, mlm = Megatron-LM 2021-22, ds = DeepSpeed, titan = torchtitan, "
		  "none = needs a heterogeneity-aware runtime%s%s)\n", 100 * so->mem_headroom,
		  split_legend, 
		  suffixed ? "; a label's last words (vpp2, mbs2, rc-sele, z1, cp2, ep8, fp8, 48gpu) are what "
			     "tell it from a plan of the same layout" : "");
	for (int i = 0; i + 1 < res->n_plans; i++)
		same_figures(o, res, i);
	sbuf_add(o, "\n");
	if (res->n_plans && !res->plans[0].runs_on) {
		char why[400];
		snprintf(why, sizeof why, "%s", res->plans[0].runs_on_why);
		sbuf_addf(o, "Plan 1 runs on no stock framework (%s).\n", why);
		if (res->has_stock) {
			const struct search_plan *sp = &res->stock;
			char tok[32], ro[96];
			hp_fmt_count(tok, sizeof tok, sp->est.tokens_per_s);
			runs_on_names(sp->runs_on, ro, sizeof ro);
			char lb[PLAN_LABEL_MAX];
			plan_list_label(sp, c, res->plans, NULL, res->n_plans, 1, lb, sizeof lb);
			sbuf_addf(o, "Best plan a stock framework runs: %s, %d GPU%s, %s tokens/s "
				  "(%.0f%% slower than plan 1), on %s.\n", lb, sp->est.n_gpus,
				  sp->est.n_gpus == 1 ? "" : "s", tok,
				  100 * (1 - sp->est.tokens_per_s / res->plans[0].est.tokens_per_s), ro);
		} else {
			sbuf_add(o, "No plan found runs on a stock framework; try --framework megatron.\n");
		}
		sbuf_add(o, "\n");
	}

	if (c->n_pools > 1 && res->n_plans) {
		sbuf_add(o, "Best plan on each pool alone:\n");
		int wpool = 10, wlab = 24;
		for (int i = 0; i < c->n_pools; i++) {
			char lb[PLAN_LABEL_MAX];
			wpool = name_col(wpool, c->pools[i].name);
			if (res->has_single[i]) {
				plan_list_label(&res->single[i], c, res->plans, NULL, res->n_plans, 1, lb, sizeof lb);
				int n = label_cols(lb);
				wlab = n > wlab ? (n < PLAN_COL_MAX ? n : PLAN_COL_MAX) : wlab;
			}
		}
		for (int i = 0; i < c->n_pools; i++) {
			sbuf_add(o, "  ");
			add_label_cell(o, c->pools[i].name, wpool);
			if (!res->has_single[i]) {
				sbuf_add(o, "  nothing fits on this pool alone\n");
				continue;
			}
			const struct search_plan *sp = &res->single[i];
			const struct search_plan *b = &res->plans[0];
			char tok[32], t[32], cost[32], lb[PLAN_LABEL_MAX];
			plan_list_label(sp, c, res->plans, NULL, res->n_plans, 1, lb, sizeof lb);
			hp_fmt_count(tok, sizeof tok, sp->est.tokens_per_s);
			hp_fmt_duration(t, sizeof t, sp->time_to_train_s);
			fmt_usd(cost, sizeof cost, sp->cost_to_train_usd, sp->est.price_known);
			double gain = b->est.tokens_per_s / sp->est.tokens_per_s - 1;
			sbuf_add(o, "  ");
			add_label_cell(o, lb, wlab);
			sbuf_addf(o, " %8s tokens/s, %s, %s", tok, t, cost);
			/* the pool's best plan may be plan 1 itself (a one-pool
			 * plan wins): "the best plan is 0% faster and 0.0%
			 * cheaper" said nothing */
			if (plan_equal(&sp->plan, &b->plan)) {
				sbuf_add(o, "; plan 1 itself\n");
				continue;
			}
			sbuf_addf(o, "; the best plan is %.0f%% %s", 100 * fabs(gain),
				  gain >= 0 ? "faster" : "slower");
			if (sp->est.price_known && b->est.price_known && sp->cost_to_train_usd > 0) {
				double dc = b->cost_to_train_usd / sp->cost_to_train_usd - 1;
				/* to a tenth of a percent, as the reports' summary
				 * writes the same ratio ("-0.7% cost to train"): "1%
				 * cheaper" beside it read as another figure */
				sbuf_addf(o, " and %.1f%% %s", 100 * fabs(dc), dc <= 0 ? "cheaper" : "dearer");
			}
			if (so->objective == OBJ_DEADLINE && sp->time_to_train_s > so->deadline_s)
				sbuf_addf(o, " (alone it misses the deadline)");
			if (so->objective == OBJ_BUDGET && sp->cost_to_train_usd > so->budget_usd)
				sbuf_addf(o, " (alone it is over budget)");
			sbuf_addf(o, "\n");
		}
		sbuf_addf(o, "\n");
	}
	if (res->n_plans) {
		sbuf_add(o, "Plan 1 in detail:\n");
		print_layout(o, &res->plans[0], c, m);
		/* how to act on it: the JSON carries every plan exactly (layer
		 * splits and batch shares no flag spells), and estimate and
		 * launch read it */
		sbuf_add(o, "  to estimate or launch it: add -o plans.json to this command, then run "
			    "hetplan estimate or launch with the same cluster and -m and --plan "
			    "plans.json (--rank N for plan N)\n");
		sbuf_add(o, "\n");
	}
	if (res->n_pareto > 1) {
		sbuf_add(o, "Pareto front (time vs cost to train):\n");
		for (int i = 0; i < res->n_pareto; i++) {
			char t[32], cost[32], lb[PLAN_LABEL_MAX];
			plan_list_label(&res->pareto[i], c, res->plans, NULL, res->n_plans, 1, lb, sizeof lb);
			hp_fmt_duration(t, sizeof t, res->pareto[i].time_to_train_s);
			fmt_usd(cost, sizeof cost, res->pareto[i].cost_to_train_usd, 1);
			sbuf_addf(o, "  %9s %9s  %s (%d GPU%s)\n", t, cost, lb,
				  res->pareto[i].est.n_gpus, res->pareto[i].est.n_gpus == 1 ? "" : "s");
		}
		sbuf_addf(o, "\n");
	}
	sbuf_addf(o, "search: %ld candidates, %ld model evaluations, %ld pruned, %d LP solves, %.2f s\n",
	     res->stats.candidates, res->stats.evaluated, res->stats.pruned, res->stats.lp_solves,
	     res->stats.seconds);
	if (res->idle_note[0])
		sbuf_addf(o, "note: %s\n", res->idle_note);
	char fw[300];
	fw_note(fw, sizeof fw, so->framework);
	if (fw[0])
		sbuf_addf(o, "note: %s\n", fw);
}

/* The stderr progress line of a long plan (only on a terminal): nothing
 * for the first half second, so quick plans print nothing, then at most
 * ten updates a second; erased when the search returns. */
#define PLAN_PROGRESS_AFTER_S 0.5
#define PLAN_PROGRESS_EVERY_S 0.1

struct plan_progress {
	double start, last;
	int shown;
};

static void plan_progress_cb(void *arg, double done)
{
	struct plan_progress *pp = arg;
	double now = hp_now();
	if (now - pp->start < PLAN_PROGRESS_AFTER_S || now - pp->last < PLAN_PROGRESS_EVERY_S)
		return;
	pp->last = now;
	pp->shown = 1;
	fprintf(stderr, "\rhetplan: planning %3.0f%%  %.1f s", 100 * done, now - pp->start);
	fflush(stderr);
}

/* What the command line asked for. */
struct plan_args {
	const char *cluster_file, *model_arg, *out_file;
	const char *pools[HP_MAX_POOLS];
	int n_pools, have_fmt, no_book;
	enum cli_format fmt;
	enum report_format rf;    /* AUTO: not a report format */
	struct search_opts so;
	struct plan keys;         /* the plan keys given (plan_key_names) */
};

/* One option with its value. Returns -1 to read on, else the command's
 * exit status (0 after --help). */
/* --format: html is the report page; md and csv the report's Markdown
 * and its one CSV schema (report.h). Returns -1 to go on, or the exit
 * status of a usage error. */
static int parse_format(struct plan_args *a, const char *arg)
{
	if (cli_parse_format(arg, &a->fmt, PLAN_FORMATS)) {
		char fmts[64];
		return usage_error("plan", "format",
				   cli_format_names(fmts, sizeof fmts, PLAN_FORMATS, ", ", " or "), arg);
	}
	a->rf = a->fmt == FMT_HTML ? REPORT_HTML : a->fmt == FMT_MD ? REPORT_MD
		: a->fmt == FMT_CSV ? REPORT_CSV : REPORT_FORMAT_AUTO;
	if (a->fmt == FMT_HTML)
		a->fmt = FMT_TABLE;   /* the report page carries it (a->rf) */
	a->have_fmt = 1;
	return -1;
}

static int parse_opt(struct plan_args *a, int opt, char **argv)
{
	int v = 0;
	double d;
	switch (opt) {
	case 'h':
		cli_usage(stdout, cmd_plan_usage(), plan_help);
		cli_flag_help(stdout, plan_key_table());
		fputs(plan_help_end, stdout);
		fw_help(stdout);
		return 0;
	case 'c': a->cluster_file = optarg; return -1;
	case 'm': a->model_arg = optarg; return -1;
	case 'o': a->out_file = optarg; return -1;
	case O_POOL:
		if (a->n_pools == HP_MAX_POOLS) {
			fprintf(stderr, "hetplan plan: --pool: at most %d pools\n", HP_MAX_POOLS);
			return HP_EXIT_USAGE;
		}
		a->pools[a->n_pools++] = optarg;
		return -1;
	case O_GBS:
		if (hp_parse_int(optarg, &a->so.gbs) || a->so.gbs > 100000000)
			return usage_error("plan", "gbs", "an integer from 1 to 100000000 (sequences)", optarg);
		return -1;
	case O_SEQ:
		if (hp_parse_int(optarg, &a->so.seq_len))
			return usage_error("plan", "seq-len", "a positive integer", optarg);
		return -1;
	case O_TOKENS:
		if (hp_parse_quantity(optarg, &a->so.tokens) || a->so.tokens < 1 || a->so.tokens > 1e18)
			return usage_error("plan", "tokens", "a token count such as 2T or 300B", optarg);
		return -1;
	case O_OBJ:
		if (search_objective_parse(optarg, &a->so.objective))
			return usage_error("plan", "objective", "throughput, cost, deadline or budget", optarg);
		return -1;
	case O_DEADLINE:
		if (hp_parse_duration(optarg, &a->so.deadline_s) || a->so.deadline_s <= 0)
			return usage_error("plan", "deadline", "a duration up to 100 years, such as 30d, 12h or 90m", optarg);
		return -1;
	case O_BUDGET:
		if (hp_parse_quantity(optarg, &d) || d <= 0 || d > 1e13)
			return usage_error("plan", "budget", "USD such as 2.5M or 800k", optarg);
		a->so.budget_usd = d;
		return -1;
	case O_TOP:
		if (hp_parse_int(optarg, &a->so.top_k) || a->so.top_k > 1000)
			return usage_error("plan", "top", "an integer from 1 to 1000", optarg);
		return -1;
	case O_PREC:
		if (hp_dtype_parse(optarg, &a->so.precision))
			return usage_error("plan", "precision", "fp32, tf32, bf16, fp16 or fp8", optarg);
		return -1;
	case O_TP:
		if (hp_parse_int(optarg, &a->so.fix_tp))
			return usage_error("plan", "tp", "a positive integer", optarg);
		return -1;
	case O_PP:
		if (hp_parse_int(optarg, &a->so.fix_pp))
			return usage_error("plan", "pp", "a positive integer", optarg);
		return -1;
	case O_MBS:
		if (hp_parse_int(optarg, &a->so.fix_mbs))
			return usage_error("plan", "mbs", "a positive integer", optarg);
		return -1;
	case O_ZERO:
		if ((hp_parse_int(optarg, &v) && strcmp(optarg, "0")) || v > 3)
			return usage_error("plan", "zero", "0, 1, 2 or 3", optarg);
		a->so.fix_zero = strcmp(optarg, "0") ? v : 0;
		return -1;
	case O_RC: {
		enum hp_recompute r;
		if (plan_recompute_parse(optarg, &r))
			return usage_error("plan", "recompute", "none, selective or full", optarg);
		a->so.fix_recompute = r;
		return -1;
	}
	case O_SCHED: {
		enum hp_schedule sc;
		int vpp;
		if (plan_schedule_parse(optarg, &sc, &vpp))
			return usage_error("plan", "schedule", "1f1b or interleaved:V (V from 2 to 64)", optarg);
		a->so.fix_sched = sc == SCHED_INTERLEAVED ? vpp : 0;
		return -1;
	}
	case O_NOHET: a->so.no_hetero = 1; return -1;
	case O_FW:
		/* every row, as the plan key takes them (estimate-only ones too) */
		if (framework_parse_estimate(optarg, &a->so.framework)) {
			char want[200];
			return usage_error("plan", "framework",
					   fields_want(fields_find_flag(&plan_fields, "framework"), 0,
						       want, sizeof want), optarg);
		}
		return -1;
	case O_HEADROOM:
		if (parse_frac(optarg, &d) || d > 0.5)
			return usage_error("plan", "mem-headroom", "a fraction from 0 to 0.5 (0.05 = 5%)", optarg);
		a->so.mem_headroom = d;
		return -1;
	case O_NOBOOK: a->no_book = 1; return -1;
	case O_THREADS:
		if (hp_parse_int(optarg, &a->so.threads) || a->so.threads > 256)
			return usage_error("plan", "threads", "an integer from 1 to 256", optarg);
		return -1;
	case O_FORMAT:
		return parse_format(a, optarg);
	default:   /* ':' (a missing value) or an unknown option */
		if (opt >= O_KEY0 && opt < O_KEY0 + N_PLAN_KEYS) {
			const struct hp_field *f = &plan_key_table()->f[opt - O_KEY0];
			char want[FIELDS_WANT_MAX];
			/* an empty module list unsets the plan key (the TUI's
			 * entry); a flag names modules or is left out */
			int empty = !strcmp(f->key, "recompute_modules") && optarg && !*optarg;
			if (empty)
				fields_want(f, 0, want, sizeof want);
			if (empty || fields_parse_text(f, &a->keys, optarg, want, sizeof want) < 0)
				return usage_error("plan", f->flag, want, optarg);
			return -1;
		}
		return cli_getopt_error("plan", opt, argv);
	}
}

/* After the options: the checks that need several of them, the output
 * format an -o name implies, the cluster and the model. Returns 0, or the
 * exit status after printing why. */
static int plan_inputs(struct plan_args *a, const struct catalog *cat, struct cluster *c,
		       struct model_spec *m)
{
	struct hp_err err = { 0 };
	int rc;
	if (!a->so.gbs) {
		fprintf(stderr, "hetplan plan: --gbs N is required (global batch, sequences)\n");
		return HP_EXIT_USAGE;
	}
	if (a->so.objective == OBJ_DEADLINE && a->so.deadline_s <= 0) {
		fprintf(stderr, "hetplan plan: --objective deadline needs --deadline (e.g. 30d)\n");
		return HP_EXIT_USAGE;
	}
	if (a->so.objective == OBJ_BUDGET && a->so.budget_usd <= 0) {
		fprintf(stderr, "hetplan plan: --objective budget needs --budget (e.g. 2.5M)\n");
		return HP_EXIT_USAGE;
	}
	/* A deadline or a budget is a limit the user means to hold; the other
	 * objectives do not look at it, so planning on would list plans that
	 * may miss it. Refused, naming the objective that keeps it. */
	const struct {
		enum search_objective obj;
		double value;
		const char *flag, *what;
	} limits[] = {
		{ OBJ_DEADLINE, a->so.deadline_s, "--deadline", "the cheapest plan that trains --tokens by then" },
		{ OBJ_BUDGET, a->so.budget_usd, "--budget", "the fastest plan that trains --tokens within it" },
	};
	for (size_t i = 0; i < HP_ARRAY_LEN(limits); i++)
		if (a->so.objective != limits[i].obj && limits[i].value > 0) {
			const char *want = search_objective_name(limits[i].obj);
			fprintf(stderr, "hetplan plan: %s is used only by --objective %s (%s); "
				"--objective %s ignores it: give --objective %s, or drop %s\n",
				limits[i].flag, want, limits[i].what,
				search_objective_name(a->so.objective), want, limits[i].flag);
			return HP_EXIT_USAGE;
		}
	enum report_format pf;
	if (a->out_file && !a->have_fmt && report_format_from_path(a->out_file, &pf) == 0) {
		if (pf == REPORT_JSON)
			a->fmt = FMT_JSON;   /* the plan JSON, not the report's */
		else
			a->rf = pf;
	}
	/* the plan keys against --framework, --precision and --zero, in the
	 * validator's words, before a search whose every plan it would refuse */
	a->keys.framework = a->so.framework;
	a->keys.precision = a->so.precision;
	if (a->so.fix_zero >= 0)
		a->keys.zero = a->so.fix_zero;
	if (plan_validate_framework_keys(&a->keys, "plan flags", &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);   /* as estimate's */
	a->so.opt_impl = a->keys.opt_impl;
	a->so.compile = a->keys.compile;
	a->so.ga_fusion = a->keys.grad_accum_fusion;
	/* recompute_modules: on the plans with selective recompute, which
	 * --recompute selective must fix (the planner searches no modules) */
	if (a->keys.recompute_modules && a->so.fix_recompute != RC_SELECTIVE) {
		fprintf(stderr, "hetplan plan: --recompute-modules needs --recompute selective\n");
		return HP_EXIT_USAGE;
	}
	a->so.rc_modules = a->keys.recompute_modules;
	if ((rc = cli_build_cluster("plan", a->cluster_file, a->pools, a->n_pools, !a->no_book, cat, c)))
		return rc;
	if (cli_load_model(cat, a->model_arg, m, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	/* a MoE model under a dense-only --framework: every plan would be
	 * refused, so say why before the search */
	if (plan_framework_model(a->so.framework, m, "--framework", &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	if (a->so.fix_tp && (a->so.fix_tp & (a->so.fix_tp - 1))) {
		fprintf(stderr, "hetplan plan: --tp: expected a power of two, got %d\n", a->so.fix_tp);
		return HP_EXIT_USAGE;
	}
	return 0;
}

int cmd_plan(int argc, char **argv, const struct catalog *cat)
{
	struct cluster c;
	struct model_spec m;
	struct search_result res;
	struct hp_err err = { 0 };
	struct plan_args a = { .fmt = FMT_TABLE, .rf = REPORT_FORMAT_AUTO };
	cluster_init(&c);
	search_opts_init(&a.so);
	plan_init(&a.keys);
	memset(&res, 0, sizeof res);
	int rc, opt;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:m:o:h", cmd_plan_options(), NULL)) != -1)
		if ((rc = parse_opt(&a, opt, argv)) >= 0)
			return rc;
	if ((rc = cli_check_inputs("plan", argc, argv, a.model_arg, a.cluster_file, a.n_pools)))
		return rc;
	if ((rc = plan_inputs(&a, cat, &c, &m)))
		return rc;
	struct search_opts so = a.so;
	enum cli_format fmt = a.fmt;
	enum report_format rf = a.rf;
	const char *out_file = a.out_file;
	struct plan_progress prog = { hp_now(), 0, 0 };
	if (isatty(STDERR_FILENO)) {
		so.progress = plan_progress_cb;
		so.progress_arg = &prog;
	}
	char fwn[300];
	fw_note(fwn, sizeof fwn, so.framework);
	if (fwn[0] && (fmt != FMT_TABLE || rf != REPORT_FORMAT_AUTO))   /* the table says it */
		fprintf(stderr, "hetplan plan: note: %s\n", fwn);
	int src = search_run(&c, &m, &so, &res, &err);
	plan_label_result(&res, &c);
	if (prog.shown)
		fputs("\r\033[K", stderr);   /* erase the progress line */
	double tokens = model_train_tokens(&m, so.tokens);
	if (src < 0 && !res.why[0] && !res.has_nearest) {
		rc = cli_fail(&err, HP_EXIT_USAGE);
		search_result_free(&res);
		return rc;
	}
	struct capacity cap;
	memset(&cap, 0, sizeof cap);
	if (src < 0 && err.code == HP_EXIT_NOFIT)
		cap.n = nofit_advice_run(&c, &m, &so, &res, cat, tokens, cap.add_nodes, cap.text,
					 sizeof cap.text, &cap.advice);
	struct sbuf o;
	sbuf_init(&o);
	rc = 0;
	if (rf != REPORT_FORMAT_AUTO) {
		/* Markdown, HTML and CSV: the report (report.h), plan 1 detailed */
		struct search_opts ro = so;
		ro.tokens = tokens;
		struct advice_extra ax;
		struct report_input in = { &c, &m, &ro, &res, 0, time(NULL), HETPLAN_VERSION,
					   nofit_advice_extra(&ax, &cap.advice, NULL) };
		char *text;
		size_t len;
		if (report_render(&in, rf, &text, &len, &err) < 0) {
			rc = cli_fail(&err, HP_EXIT_FAIL);
		} else {
			sbuf_addn(&o, text, len);
			free(text);
		}
	} else if (fmt == FMT_JSON) {
		cJSON *j = result_json(&res, &c, &m, &so, tokens, &cap);
		char *s = esc_json_print(j);
		sbuf_addf(&o, "%s\n", s);
		free(s);
		cJSON_Delete(j);
	} else if (res.n_plans) {
		print_table(&o, &res, &c, &m, &so, tokens);
	}
	if (out_file) {
		if (o.len && cli_write_output(out_file, o.s, o.len, &err) < 0)
			rc = cli_fail(&err, HP_EXIT_FAIL);
	} else if (o.len) {
		fwrite(o.s, 1, o.len, stdout);
	}
	if (src < 0) {
		fprintf(stderr, "hetplan: %s\n", res.why[0] ? res.why : err.msg);
		if (res.has_nearest && fmt == FMT_TABLE && rf == REPORT_FORMAT_AUTO) {
			char tok[32];
			fprintf(stderr, "nearest miss: %s, %d GPU%s, %s tokens/s\n",
				res.nearest.label, res.nearest.est.n_gpus,
				res.nearest.est.n_gpus == 1 ? "" : "s",
				hp_fmt_count(tok, sizeof tok, res.nearest.est.tokens_per_s));
		}
		for (int i = 0; i < cap.advice.n; i++)
			fprintf(stderr, "%s\n", cap.advice.line[i]);
		rc = err.code ? err.code : HP_EXIT_NOFIT;
	}
	sbuf_done(&o);
	search_result_free(&res);
	return rc;
}
