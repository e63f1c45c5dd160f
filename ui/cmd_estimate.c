/* cmd_estimate.c — `hetplan estimate`: evaluate one plan. */
#include "cli.h"
#include "plan_flags.h"
#include "table.h"
#include "escape.h"
#include "jsonx.h"
#include "perf.h"
#include "report.h"
#include "runs_on.h"
#include "framework.h"
#include "search.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above estimate_help. The plan flags between the two parts come from the
 * plan's settings table (cli_plan_usage). */
const char *cmd_estimate_usage(void)
{
	static char buf[2048];
	return cli_plan_usage(
		buf, sizeof buf, "estimate",
		"         [--no-price-book] [--mem-headroom FRAC] [--format table|json]\n"
		"       hetplan estimate (-c CLUSTER.json | --pool SPEC...) -m MODEL --plan PLAN.json\n"
		"         [--rank N] [--no-price-book] [--mem-headroom FRAC] [--format table|json]\n");
}

static const char estimate_help[] =
	"\n"
	"  -c, --cluster FILE   cluster JSON (pools, fabric)\n"
	"      --pool SPEC      NODESxGPUSxGPU[,key=value...], e.g. 16x8xH100-SXM,nics=8,nic_gbps=400\n"
	"  -m, --model M        preset name ('hetplan models') or a model JSON file\n"
	"      --on POOL        pool for a --tp/--pp/--dp plan (default: the first)\n"
	"      --dp N           data-parallel replicas (default: all GPUs of the pool)\n"
	"      --plan FILE      any plan, heterogeneous ones included (JSON schema in the man page),\n"
	"                       or a `hetplan plan`/report JSON with \"plans\"\n"
	"      --rank N         which of those plans (default 1)\n"
	"      --no-price-book  price pools from the catalog reference, not 'hetplan prices'\n"
	"      --mem-headroom F share of each GPU's memory to keep free (default 0.05): above\n"
	"                       it the plan fits-with-risk; over-gpu when its total is over\n"
	"                       the whole GPU (the live tensors fitting)\n"
	"\n"
	"Exit status: 0 fits (with or without risk), 4 does not fit in memory, 2 usage, 3 invalid input.\n";

enum { O_PLAN = 256, O_FORMAT, O_NOBOOK, O_HEADROOM, O_RANK };

/* -c, --pool, -m and the plan flags come from plan_flags.c. */
static const struct option estimate_opts[] = {
	CLI_PLAN_FLAG_OPTIONS,
	{ "no-price-book", no_argument, 0, O_NOBOOK },
	{ "mem-headroom", required_argument, 0, O_HEADROOM },
	{ "plan", required_argument, 0, O_PLAN },
	{ "rank", required_argument, 0, O_RANK },
	{ "format", required_argument, 0, O_FORMAT },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_estimate_options(void)
{
	return cli_plan_options(estimate_opts);
}

cJSON *cli_estimate_json(const struct estimate *e, const struct cluster *c,
			    const struct plan *p, const struct model_spec *m)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "model", m->name);
	cJSON_AddNumberToObject(o, "seq_len", e->seq_len);
	cJSON_AddNumberToObject(o, "gpus", e->n_gpus);
	cJSON_AddNumberToObject(o, "step_time_s", e->step_time_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", e->tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", e->mfu);
	cJSON_AddNumberToObject(o, "hfu", e->hfu);
	cJSON_AddNumberToObject(o, "model_tflops_per_gpu", e->model_tflops_per_gpu);
	cJSON_AddNumberToObject(o, "model_flops_per_step", e->model_flops);
	cJSON_AddNumberToObject(o, "hardware_flops_per_step", e->hw_flops);
	report_estimate_json_parts(o, e, c);
	cJSON_AddBoolToObject(o, "fits", e->fits);
	if (!e->fits)
		cJSON_AddNumberToObject(o, "memory_over_bytes", e->worst_over_bytes);
	/* an offload's host side against the node's memory (perf_offload_
	 * host_check): only for a plan that offloads, so others read as before */
	const struct perf_offload *f = &e->offload;
	if (f->host_bytes_per_node > 0) {
		if (f->host_usable_bytes > 0)
			cJSON_AddBoolToObject(o, "host_fits", !f->host_over);
		else
			cJSON_AddNullToObject(o, "host_fits");
		cJSON_AddNumberToObject(o, "host_need_bytes_per_node", f->host_bytes_per_node);
		if (f->host_usable_bytes > 0) {
			cJSON_AddNumberToObject(o, "host_usable_bytes_per_node", f->host_usable_bytes);
			cJSON_AddNumberToObject(o, "host_mem_bytes_per_node", f->host_mem_bytes);
		} else {
			cJSON_AddNullToObject(o, "host_usable_bytes_per_node");
			cJSON_AddNullToObject(o, "host_mem_bytes_per_node");
		}
		cJSON_AddStringToObject(o, "host_pool", c->pools[f->host_pool].name);
	}
	cJSON *cost = cJSON_AddObjectToObject(o, "cost");
	if (e->price_known) {
		cJSON_AddNumberToObject(cost, "usd_per_hour", e->usd_per_hour);
		cJSON_AddNumberToObject(cost, "usd_per_million_tokens", e->usd_per_mtok);
	} else {
		cJSON_AddNullToObject(cost, "usd_per_hour");
		cJSON_AddNullToObject(cost, "usd_per_million_tokens");
	}
	cJSON *src = cJSON_AddArrayToObject(cost, "price_sources");
	int used[HP_MAX_POOLS];
	plan_gpus(p, used);
	for (int i = 0; i < c->n_pools; i++)
		if (used[i]) {
			cJSON *ps = cJSON_CreateObject();
			cJSON_AddStringToObject(ps, "pool", c->pools[i].name);
			if (pool_price_known(&c->pools[i]))
				cJSON_AddNumberToObject(ps, "usd_per_node_hour", c->pools[i].usd_per_node_h);
			else
				cJSON_AddNullToObject(ps, "usd_per_node_hour");
			cJSON_AddStringToObject(ps, "source", c->pools[i].price_source);
			cJSON_AddItemToArray(src, ps);
		}
	/* each pool's network transport (pool key transport, its canonical
	 * name: a machine type reads as its fabric), as a cluster file or
	 * workspace saves it */
	cJSON *tr = cJSON_AddObjectToObject(o, "transport");
	for (int i = 0; i < c->n_pools; i++)
		if (used[i])
			cJSON_AddStringToObject(tr, c->pools[i].name,
						comm_transport_name(c->pools[i].transport));
	cJSON *en = cJSON_AddObjectToObject(o, "energy");
	cJSON_AddNumberToObject(en, "power_kw", e->power_kw);
	cJSON_AddNumberToObject(en, "joules_per_token", e->joules_per_token);
	cJSON_AddStringToObject(en, "method",
				"board TDP x (0.4 + 0.6 x compute share of the step) x 1.35 for host, NICs and fans");
	cJSON_AddItemToObject(o, "plan", plan_to_json(p, c));
	/* The dispatcher the step time was costed with, as hetplan launch
	 * writes it (plan_moe_dispatch, the one decider: the plan's key, or
	 * unset, flex where every piece can run it and alltoall elsewhere).
	 * The plan above leaves an unset key unset: it is resolved on load,
	 * against the cluster the plan runs on. Mixture-of-experts only. */
	if (m->moe.experts)
		cJSON_AddStringToObject(o, "moe_dispatch",
					plan_moe_dispatch_name(plan_moe_dispatch(p, c)));
	return o;
}

/* Whether q (p with offload activations, offload_layers n) fits with the
 * headroom kept (MEM_FITS: offload that leaves the GPU to the allocator's
 * goodwill is no lever); the estimate in *f when it ran (estimate_free is
 * the caller's then). */
static int act_offload_fits(const struct cluster *c, const struct model_spec *m,
			    const struct plan *p, int n, double headroom, struct estimate *f,
			    int *ran)
{
	struct plan q;
	plan_init(&q);
	plan_copy(&q, p);
	q.offload = OFFLOAD_ACTIVATIONS;
	q.offload_layers = n;
	struct hp_err err = { 0 };
	*ran = perf_estimate(c, m, &q, NULL, f, &err) == 0;
	plan_free(&q);
	return *ran && search_gpu_mem_state(f, headroom, NULL, NULL) == MEM_FITS;
}

/* The GPU's fit (act_offload_fits) and the host's: the host's need grows
 * with n as the GPU's falls, so the fewest layers that fit the GPU is the
 * only candidate; 1 when its host side fits too (or is unknown). */
static int act_offload_host_fits(const struct estimate *f)
{
	return !f->offload.host_over;
}

/* The activation-offload lever (Megatron-Core --cpu-offloading-num-layers)
 * where the plan could take it (plan.c validate_act_offload: megatron-core,
 * one pipeline stage, no recompute, no offload yet): the fewest offloaded
 * layers that fit, found by halving (memory falls as layers leave), and
 * printed as the other levers are. 1 when it printed. */
static int act_offload_hint(const struct cluster *c, const struct plan *p,
			    const struct model_spec *m, double step_s, double headroom)
{
	if (p->framework != FW_MEGATRON_CORE || p->recompute != RC_NONE ||
	    p->offload != OFFLOAD_NONE || m->layers < 2)
		return 0;
	for (int i = 0; i < p->n_replicas; i++)
		if (p->replicas[i].n_stages > 1)
			return 0;
	struct estimate f;
	int ran;
	int hi = m->layers - 1, lo = 0;   /* lo does not fit, hi is tried */
	int fits = act_offload_fits(c, m, p, hi, headroom, &f, &ran);
	if (ran)
		estimate_free(&f);
	if (!fits)
		return 0;
	while (hi - lo > 1) {
		int mid = lo + (hi - lo) / 2;
		fits = act_offload_fits(c, m, p, mid, headroom, &f, &ran);
		if (ran)
			estimate_free(&f);
		if (fits)
			hi = mid;
		else
			lo = mid;
	}
	if (!act_offload_fits(c, m, p, hi, headroom, &f, &ran)) {
		if (ran)
			estimate_free(&f);
		return 0;
	}
	if (!act_offload_host_fits(&f)) {
		/* more layers need more host memory: no N fits both */
		char hb[32], ub[32];
		printf("  with --offload activations it fits the GPU from --offload-layers %d, but "
		       "the host of pool %s cannot hold it: %s a node, %s usable\n", hi,
		       c->pools[f.offload.host_pool].name,
		       hp_fmt_bytes(hb, sizeof hb, f.offload.host_bytes_per_node),
		       hp_fmt_bytes(ub, sizeof ub, f.offload.host_usable_bytes));
		estimate_free(&f);
		return 0;
	}
	double need;
	char nb[32];
	search_mem_state(&f, 0, &need, NULL);
	printf("  with --offload activations --offload-layers %d it fits: %s on the fullest "
	       "stage, step time x%.2f\n", hi, hp_fmt_bytes(nb, sizeof nb, need),
	       step_s > 0 ? f.step_time_s / step_s : 1.0);
	estimate_free(&f);
	return 1;
}

/* A plan that does not fit: the first of the framework's levers that
 * makes it fit, with what its fullest stage then needs and the step time
 * it costs (step_s is the plan's own), tried in order: each higher ZeRO
 * stage the plan's framework runs (runs_on_zero_ok: apex DDP none,
 * InternLM up to 1), then Megatron-Core's activation offload with the
 * fewest layers that fit (act_offload_hint), then full recomputation;
 * nothing when none does. A lever the framework's rules would refuse the
 * plan for (runs_on_why_row) is not offered, unless they refuse the plan
 * as it is already (estimate warns of that). */
static void print_fit_hint(const struct cluster *c, const struct plan *p,
			   const struct model_spec *m, double step_s, double headroom)
{
	char why[400] = "";
	int fw = p->framework != FW_ANY;
	if (fw)
		runs_on_why_row(p, c, p->framework, why, sizeof why);
	int refused = why[0] != 0;
	int zeros[3], n = 0;
	for (int z = p->zero + 1; z <= 3; z++)
		if (runs_on_zero_ok(p->framework, z))
			zeros[n++] = z;
	for (int k = 0; k <= n; k++) {
		if (k == n && !refused && act_offload_hint(c, p, m, step_s, headroom))
			return;
		if (k == n && p->recompute == RC_FULL)
			break;
		struct plan q;
		plan_init(&q);
		plan_copy(&q, p);
		if (k < n) {
			q.zero = zeros[k];
		} else {
			q.recompute = RC_FULL;
			/* Megatron-Core refuses recompute beside activation
			 * offload (plan.c validate_act_offload): the lever
			 * drops it */
			q.offload = p->offload == OFFLOAD_ACTIVATIONS ? OFFLOAD_NONE : p->offload;
			if (p->offload == OFFLOAD_ACTIVATIONS)
				q.offload_layers = 0;
		}
		why[0] = '\0';
		if (fw && !refused)
			runs_on_why_row(&q, c, p->framework, why, sizeof why);
		struct estimate f;
		struct hp_err err = { 0 };
		int fits = 0;
		if (!why[0] && perf_estimate(c, m, &q, NULL, &f, &err) == 0) {
			fits = f.fits;
			if (fits) {
				double need;
				char nb[32], lever[32];
				search_mem_state(&f, 0, &need, NULL);
				if (k < n)
					snprintf(lever, sizeof lever, "--zero %d", q.zero);
				else
					snprintf(lever, sizeof lever, "--recompute full%s",
						 p->offload == OFFLOAD_ACTIVATIONS ? " --offload none" : "");
				printf("  with %s it fits: %s on the fullest stage, step time x%.2f\n",
				       lever, hp_fmt_bytes(nb, sizeof nb, need),
				       step_s > 0 ? f.step_time_s / step_s : 1.0);
			}
			estimate_free(&f);
		}
		plan_free(&q);
		if (fits)
			return;
	}
}

/* The communication table: the rows of report_comm_rows (a row a
 * dimension, the dp row's parameter gather and a WAN pipeline hand-off
 * off the step's path under theirs), the link column as wide as its
 * longest (a group across pools is "NVSwitch + 4x200G NIC (bottleneck)"),
 * at least 22. */
static void print_comm_table(const struct estimate *e)
{
	struct report_comm_row rows[REPORT_COMM_ROWS_MAX];
	int n = report_comm_rows(e, rows), lw = 22;
	for (int i = 0; i < n; i++)
		lw = HP_MAX(lw, (int)strlen(rows[i].pc->link));
	printf("\n  %-4s %-14s %10s %6s %-*s %-9s %-7s %10s %10s\n", "DIM", "COLLECTIVE",
	       "BYTES", "GROUP", lw, "LINK", "ALGO", "PROTO", "TIME", "EXPOSED");
	for (int i = 0; i < n; i++) {
		const struct report_comm_row *r = &rows[i];
		char a[32], t1[24], t2[24];
		hp_fmt_bytes(a, sizeof a, r->bytes);
		printf("  %-4s %-14s %10s %6d %-*s %-9s %-7s %10s %10s\n", r->dim, r->coll, a,
		       r->pc->group, lw, r->pc->link, comm_algo_name(r->algo),
		       comm_proto_name(r->proto), hp_fmt_duration(t1, sizeof t1, r->time_s),
		       hp_fmt_duration(t2, sizeof t2, r->exposed_s));
	}
	/* a note under the table for each gather or WAN row, in table order */
	char note[320];
	for (int i = 0; i < n; i++)
		if (rows[i].kind != REPORT_COMM_DIM)
			printf("  (%s)\n", report_comm_note(e, rows[i].kind, note, sizeof note));
}

static void print_table(const struct estimate *e, const struct cluster *c,
			const struct plan *p, const struct model_spec *m, double headroom)
{
	char a[32], b[32], rc[48], more[96] = "";
	/* what the plan sets beyond the defaults (1F1B, CP 1, EP 1): nowhere
	 * else in the text, so a plan read from a file said nothing of them */
	int mk = 0;
	if (p->schedule == SCHED_INTERLEAVED)
		mk += snprintf(more + mk, sizeof more - (size_t)mk, ", interleaved (%d chunks per stage)",
			      p->vpp);
	if (p->cp > 1 && mk < (int)sizeof more)
		mk += snprintf(more + mk, sizeof more - (size_t)mk, ", CP %d", p->cp);
	if (p->ep > 1 && mk < (int)sizeof more)
		snprintf(more + mk, sizeof more - (size_t)mk, ", EP %d", p->ep);
	printf("%s on %d GPU%s, seq %d, gbs %d, mbs %d, %s, recompute %s, ZeRO-%d%s%s%s\n",
	       m->display, e->n_gpus, e->n_gpus == 1 ? "" : "s", e->seq_len, p->gbs, p->mbs, hp_dtype_name(p->precision),
	       plan_recompute_text(p, rc, sizeof rc), p->zero,
	       p->master == MASTER_REPLICATED ? " (fp32 master replicated)" : p->master == MASTER_NONE ? " (no fp32 master: bf16 state)" : "",
	       p->loss == LOSS_EAGER ? ", eager loss" : p->loss == LOSS_CHUNKED ? ", chunked loss" : "",
	       more);
	printf("\n  step time        %s\n", hp_fmt_duration(a, sizeof a, e->step_time_s));
	printf("  tokens/s         %s\n", hp_fmt_count(a, sizeof a, e->tokens_per_s));
	printf("  MFU / HFU        %.1f%% / %.1f%%\n", 100 * e->mfu, 100 * e->hfu);
	printf("  model TFLOP/s    %.1f per GPU\n", e->model_tflops_per_gpu);
	if (e->price_known) {
		char uh[32], um[32];
		/* $/h in table_usd's words, $/1M tokens in table_rate's, as
		 * plan, the TUI and the reports write them */
		printf("  cost             %s/h, $%s per 1M tokens\n",
		       table_usd(uh, sizeof uh, e->usd_per_hour, 0),
		       table_rate(um, sizeof um, e->usd_per_mtok, 0));
	}
	int used[HP_MAX_POOLS], first = 1;
	plan_gpus(p, used);
	if (!e->price_known) {
		/* name the pools without one and how to give it */
		printf("  cost             unknown: no price for pool");
		for (int i = 0, n = 0; i < c->n_pools; i++)
			if (used[i] && !pool_price_known(&c->pools[i]))
				printf("%s %s (%s)", n++ ? "," : "", c->pools[i].name, c->pools[i].gpu.name);
		printf("; give price_per_node_hour (--pool ...,price=USD)\n");
	}
	/* unit prices in table_rate's words, as `hetplan prices` and the
	 * reports' cluster table write them */
	for (int i = 0; i < c->n_pools; i++)
		if (used[i] && pool_price_known(&c->pools[i])) {
			char r[32];
			printf("  %-16s %s $%s/node-h from %s\n", first ? "prices" : "",
			       c->pools[i].name, table_rate(r, sizeof r, c->pools[i].usd_per_node_h, 0),
			       c->pools[i].price_source);
			first = 0;
		}
	/* a transport other than InfiniBand/RoCE (the default above 50 Gb/s
	 * NICs) changes the collectives: named, as prices are, per pool */
	first = 1;
	for (int i = 0; i < c->n_pools; i++)
		if (used[i] && c->pools[i].transport != COMM_TRANSPORT_IB) {
			printf("  %-16s %s %s\n", first ? "transport" : "", c->pools[i].name,
			       comm_transport_name(c->pools[i].transport));
			first = 0;
		}
	printf("  power            %.1f kW, %.2f J/token (estimate)\n", e->power_kw,
	       e->joules_per_token);
	/* the parts in report_time_parts' order and words, five a line */
	int np, shown = 0;
	const struct report_part *tparts = report_time_parts(&np);
	printf("\n  breakdown (s)  ");
	for (int i = 0; i < np; i++) {
		if (!report_part_shown(&tparts[i], &e->bd))
			continue;
		if (shown && shown % 5 == 0)
			printf("\n                 ");
		printf("  %s %.3f", tparts[i].word, report_part_value(&tparts[i], &e->bd));
		shown++;
	}
	printf("\n");
	/* the memory columns: report_mem_parts, their words in capitals */
	int nm;
	const struct report_part *mparts = report_mem_parts(&nm);
	printf("\n  %-5s %-5s %-14s %3s %-9s", "GROUP", "STAGE", "POOL", "TP", "LAYERS");
	for (int k = 0; k < nm; k++) {
		char head[16];
		size_t j = 0;
		for (; mparts[k].word[j] && j + 1 < sizeof head; j++)
			head[j] = (char)toupper((unsigned char)mparts[k].word[j]);
		head[j] = 0;
		printf(" %10s", head);
	}
	printf(" %10s %s\n", "TOTAL", "FITS");
	shown = 0;
	for (int i = 0; i < e->n_stages; i++) {
		const struct perf_stage *s = &e->stages[i];
		if (shown >= 12 && i != e->worst_stage && i != e->n_stages - 1)
			continue;
		char tt[16], cap[16], ly[16];
		snprintf(ly, sizeof ly, "%d-%d", s->first_layer, s->last_layer);
		hp_fmt_bytes(tt, sizeof tt, s->total);
		hp_fmt_bytes(cap, sizeof cap, s->capacity);
		/* A stage whose total fits only once the caching allocator
		 * gives back its reserve says how much is live (perf_mem.c). */
		char live[48] = "";
		if (s->fits && s->total > s->capacity) {
			char lb[16];
			snprintf(live, sizeof live, ": %s live", hp_fmt_bytes(lb, sizeof lb, s->total - s->slack));
		}
		/* The pool padded by terminal columns, not bytes: a CJK name
		 * (two columns a character, three bytes) kept the row aligned
		 * only in ASCII. */
		printf("  %-5d %-5d ", s->group, s->index);
		cli_print_term(stdout, c->pools[s->pool].name, 14);
		printf(" %3d %-9s", s->tp, ly);
		for (int k = 0; k < nm; k++) {
			char v[16];
			printf(" %10s", hp_fmt_bytes(v, sizeof v, report_part_value(&mparts[k], s)));
		}
		printf(" %10s %s%s of %s\n", tt, s->fits ? "yes" : "NO", live, cap);
		shown++;
	}
	if (shown < e->n_stages)
		printf("  (%d more stages)\n", e->n_stages - shown);
	print_comm_table(e);
	if (!e->fits && e->worst_stage >= 0) {
		const struct perf_stage *s = &e->stages[e->worst_stage];
		printf("\n  DOES NOT FIT: stage %d on %s needs %s, %s more than its %s\n",
		       s->index, c->pools[s->pool].gpu.name, hp_fmt_bytes(a, sizeof a, s->total - s->slack),
		       hp_fmt_bytes(b, sizeof b, e->worst_over_bytes),
		       hp_fmt_bytes((char[32]){ 0 }, 32, s->capacity));
		print_fit_hint(c, p, m, e->step_time_s, headroom);
	}
	const struct perf_offload *f = &e->offload;
	if (f->host_over)
		printf("\n  DOES NOT FIT THE HOST: the offload needs %s of host memory a node of pool "
		       "%s, more than the %s usable of its host_mem_gb %g GB\n",
		       hp_fmt_bytes(a, sizeof a, f->host_bytes_per_node), c->pools[f->host_pool].name,
		       hp_fmt_bytes(b, sizeof b, f->host_usable_bytes), f->host_mem_bytes / 1e9);
}

/* The estimate as --format asks, with the memory verdict at headroom. */
static void print_estimate(enum cli_format fmt, const struct estimate *e,
			   const struct cluster *c, const struct plan *p,
			   const struct model_spec *m, double headroom)
{
	double need, capb;
	enum search_mem ms = search_mem_state(e, headroom, &need, &capb);
	if (fmt == FMT_JSON) {
		cJSON *j = cli_estimate_json(e, c, p, m);
		/* a host miss reads does-not-fit (search_mem_state) */
		cJSON_AddStringToObject(j, "memory_verdict", search_mem_verdict(e, headroom));
		cJSON_AddNumberToObject(j, "mem_headroom", headroom);
		cJSON_AddNumberToObject(j, "mem_need_bytes", need);
		cJSON_AddNumberToObject(j, "mem_capacity_bytes", capb);
		char *s = esc_json_print(j);
		printf("%s\n", s);
		free(s);
		cJSON_Delete(j);
	} else {
		print_table(e, c, p, m, headroom);
		/* The fullest stage as search_mem_state picks it (the largest
		 * total / capacity): its TOTAL, the allocator's reserve included,
		 * is what the headroom verdict reads, and the live bytes are what
		 * must fit; the line gave the live bytes alone beside a table
		 * whose TOTAL column was larger, with no word of which. */
		double total = need, worst = -1;
		for (int i = 0; i < e->n_stages; i++) {
			const struct perf_stage *st = &e->stages[i];
			double r = st->capacity > 0 ? st->total / st->capacity : HUGE_VAL;
			if (r > worst) {
				worst = r;
				total = st->total;
			}
		}
		char nb[32], cb[32], tb[32];
		/* the headroom is kept only by a plan that fits without risk */
		char hr[128];
		const char *verdict = search_mem_verdict(e, headroom);
		if (ms == MEM_FITS)
			snprintf(hr, sizeof hr, "; %.0f%% headroom kept", 100 * headroom);
		else if (!strcmp(verdict, "over-gpu"))
			snprintf(hr, sizeof hr, "; does not fit the GPU with the reserve: runs only "
				 "if PyTorch's caching allocator frees cached blocks");
		else if (ms == MEM_RISKY)
			snprintf(hr, sizeof hr, "; inside the %.0f%% headroom", 100 * headroom);
		else
			hr[0] = '\0';
		if (e->offload.host_over)
			snprintf(hr, sizeof hr, "; the GPU holds it, the host does not hold the offload");
		printf("\n  memory: %s (fullest stage %s of %s with the allocator's reserve, %s live%s)\n",
		       verdict, hp_fmt_bytes(tb, sizeof tb, total),
		       hp_fmt_bytes(cb, sizeof cb, capb), hp_fmt_bytes(nb, sizeof nb, need), hr);
		double cache = 0;
		for (int i = 0; i < e->n_stages; i++)
			cache = fmax(cache, e->stages[i].slack);
		if (ms == MEM_RISKY && need <= (1 - headroom) * capb)
			printf("  (inside the headroom only if PyTorch's caching allocator gives back "
			       "its reserve, up to %s a stage; expandable_segments:True in "
			       "PYTORCH_CUDA_ALLOC_CONF lessens fragmentation)\n",
			       hp_fmt_bytes(nb, sizeof nb, cache));
		/* the framework's own default, not the row's, turned the
		 * gradient overlap off (framework_grad_overlap_default) */
		const char *gn = p->grad_overlap < 0 && plan_dp(p) > 1
					 ? framework_grad_overlap_note(p->framework, p->zero)
					 : NULL;
		if (gn)
			printf("  note: %s: the gradient reduce is charged after each backward, "
			       "exposed (--grad-overlap on if the run turns it on)\n", gn);
		const struct perf_offload *f = &e->offload;
		if (f->kind == OFFLOAD_ACTIVATIONS) {
			char hb[32], nb2[32], lb[32], db[32];
			printf("  note: offload activations (Megatron-Core --cpu-offloading-num-layers "
			       "%d): the host needs %s a GPU of the fullest stage, %s on the fullest node "
			       "(its %d GPUs; pinned copies of "
			       "%d layers' activations, %s each), beside the GPU's memory above\n",
			       f->act_layers, hp_fmt_bytes(hb, sizeof hb, f->host_bytes_per_gpu),
			       hp_fmt_bytes(nb2, sizeof nb2, f->host_bytes_per_node), f->gpus_per_node,
			       f->act_layers, hp_fmt_bytes(lb, sizeof lb, f->act_layer_bytes));
			printf("  note: offload exposed %.3f s a step: %s each way over the host link "
			       "at %.1f GB/s, of which the compute leaves %.3f s forward and %.3f s "
			       "backward a micro-batch uncovered (%d micro-batches)\n",
			       f->exposed_s, hp_fmt_bytes(db, sizeof db, f->d2h_bytes), f->link_Bps / 1e9,
			       f->act_fwd_s, f->act_bwd_s, f->micro_batches);
		} else if (f->exposed_s > 0) {
			char hb[32], nb2[32], db[32], ub[32];
			printf("  note: offload optimizer (DeepSpeed ZeRO-Offload): the host needs %s "
			       "a GPU of the fullest stage, %s on the fullest node (its %d GPUs; fp32 "
			       "master, Adam moments and "
			       "gradients, pinned 16-bit buffers), beside the GPU's memory above\n",
			       hp_fmt_bytes(hb, sizeof hb, f->host_bytes_per_gpu),
			       hp_fmt_bytes(nb2, sizeof nb2, f->host_bytes_per_node), f->gpus_per_node);
			printf("  note: offload exposed %.3f s a step: gradient copies %.3f s (%s to "
			       "the host, %s back over PCIe at %.1f GB/s), CPU Adam %.3f s, "
			       "parameters back %.3f s\n",
			       f->exposed_s, f->grad_s, hp_fmt_bytes(db, sizeof db, f->d2h_bytes),
			       hp_fmt_bytes(ub, sizeof ub, f->h2d_bytes), f->link_Bps / 1e9, f->adam_s,
			       f->param_s);
		}
	}
}

int cmd_estimate(int argc, char **argv, const struct catalog *cat)
{
	struct cluster c;
	struct plan p;
	struct model_spec m;
	struct hp_err err = { 0 };
	cluster_init(&c);
	plan_init(&p);
	/* unset until the flags and the plan file are read: then the
	 * framework row's default (below) */
	p.zero = -1;
	const char *plan_file = NULL;
	int no_book = 0, rank = 1, rank_set = 0;
	double headroom = 0.05;   /* as `plan --mem-headroom` (search.c) */
	struct cli_plan_flags pf = { 0 };
	enum cli_format fmt = FMT_TABLE;
	int rc = HP_EXIT_USAGE, o;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":c:m:h", cli_plan_options(estimate_opts), NULL)) != -1) {
		switch (o) {
		case 'h':
			cli_usage(stdout, cmd_estimate_usage(), estimate_help);
			rc = 0;
			goto out;
		case O_NOBOOK: no_book = 1; break;
		case O_HEADROOM:
			/* decimal only (util.h): no space, sign, hex or inf/nan */
			if (hp_parse_number(optarg, &headroom) || !(headroom <= 0.5)) {
				rc = usage_error("estimate", "mem-headroom", "a fraction from 0 to 0.5 (0.05 = 5%)", optarg);
				goto out;
			}
			break;
		case O_PLAN: plan_file = optarg; break;
		case O_RANK:
			if (hp_parse_int(optarg, &rank)) {
				rc = usage_error("estimate", "rank", "a positive integer", optarg);
				goto out;
			}
			rank_set = 1;
			break;
		case O_FORMAT:
			if (cli_parse_format(optarg, &fmt, 3)) {
				rc = usage_error("estimate", "format", "table or json", optarg);
				goto out;
			}
			break;
		default: {
			int r = o == ':' ? 0 : cli_plan_flag("estimate", o, optarg, &p, &pf);
			if (r > 0)
				break;
			if (r == 0)
				cli_getopt_error("estimate", o, argv);
			goto out;
		}
		}
	}
	if (rank_set && !plan_file) {
		fprintf(stderr, "hetplan estimate: --rank picks a plan of a --plan file; give --plan\n");
		rc = HP_EXIT_USAGE;
		goto out;
	}
	if ((rc = cli_load_inputs("estimate", argc, argv, &pf.in, !no_book, cat, &c, &m)))
		goto out;
	rc = HP_EXIT_USAGE;
	const char *ctx = "plan flags";
	if (plan_file) {
		if (cli_load_plan_file(&p, plan_file, rank, &c, NULL, &err) < 0) {
			rc = cli_fail(&err, HP_EXIT_INPUT);
			goto out;
		}
		ctx = plan_file;
	} else if ((rc = cli_uniform_plan("estimate", &pf, &c, &m, &p))) {
		goto out;
	}
	/* the stage the framework's code runs when none is named
	 * (framework_default_zero: torchtitan FSDP2's, else ZeRO-1 or the
	 * highest stage the row runs) */
	plan_default_zero(&p);
	if (plan_validate(&p, &c, &m, ctx, &err) < 0) {
		rc = cli_fail(&err, HP_EXIT_INPUT);
		goto out;
	}
	/* estimated with the framework's behaviour even where its rules
	 * refuse the plan (as plan --framework never lists it): say which */
	if (p.framework != FW_ANY) {
		char why[400];
		runs_on_why_row(&p, &c, p.framework, why, sizeof why);
		if (why[0])
			fprintf(stderr, "hetplan estimate: warning: --framework %s does not run this "
				"plan as one job: %s (its rules: docs/runnable.md); estimated anyway\n",
				framework_name(p.framework), why);
	} else if (!runs_on_runnable(&p, &c)) {
		/* framework "any" is estimated with Megatron-Core's row, as
		 * asked (flash attention by default): the planner under "any"
		 * never offers such a plan (runs_on_runnable), so say that no
		 * stock framework runs it, and why */
		char why[400];
		runs_on_mask(&p, &c, why, sizeof why);
		fprintf(stderr, "hetplan estimate: warning: no stock framework runs this plan as "
			"one job: %s (their rules: docs/runnable.md); estimated anyway with "
			"megatron-core's behaviour\n", why);
	}
	struct estimate e;
	if (perf_estimate(&c, &m, &p, NULL, &e, &err) < 0) {
		rc = cli_fail(&err, HP_EXIT_FAIL);
		goto out;
	}
	print_estimate(fmt, &e, &c, &p, &m, headroom);
	if (!e.fits && e.worst_stage >= 0) {
		char a[32];
		fprintf(stderr, "hetplan: the plan does not fit in GPU memory (%s over on the fullest stage)\n",
			hp_fmt_bytes(a, sizeof a, e.worst_over_bytes));
	}
	if (e.offload.host_over) {
		char a[32], b[32];
		fprintf(stderr, "hetplan: the plan does not fit in host memory: the offload needs %s a "
			"node of pool %s, %s usable (host_mem_gb)\n",
			hp_fmt_bytes(a, sizeof a, e.offload.host_bytes_per_node),
			c.pools[e.offload.host_pool].name,
			hp_fmt_bytes(b, sizeof b, e.offload.host_usable_bytes));
	}
	rc = e.fits ? 0 : HP_EXIT_NOFIT;
	estimate_free(&e);
out:
	plan_free(&p);
	return rc;
}
