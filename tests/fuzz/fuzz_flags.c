/* fuzz_flags.c — the plan flags as `estimate` and `launch` read them
 * (fields_parse_text over plan_fields: --loss, --grad-accum-fusion,
 * --optimizer-impl, --compile and every other key's flag), the layout
 * flags --tp/--pp/--dp, the serve settings (ws_serve_fields by key:
 * ttft_p99_s, tpot_p99_s, rate, ...) and --isl/--osl (serve_dist_parse).
 *
 * Input: lines "NAME=VALUE". NAME is a plan flag ("grad-accum-fusion"),
 * "tp", "pp" or "dp", "isl" or "osl", or a serve key. Then, as
 * cli_uniform_plan does, a uniform plan on the first pool of the
 * fuzz_plan cluster (4 nodes of 8 H100, 8 of 8 A100; Llama 3.1 8B): for
 * one that plan_validate accepts the estimate must be finite (as
 * fuzz_plan requires), and the plan written as a plan file
 * (plan_to_json, what `plan --format json` saves) must read back as the
 * same plan (plan_equal): a key set on the command line that the file
 * loses, or writes in a form its reader refuses, aborts. A refused
 * value's "expected ..." text must be UTF-8 without control bytes (it is
 * printed as typed). Accepted request-length distributions must give
 * finite buckets of positive lengths whose shares add up to 1
 * (probabilities), whatever the numbers. */
#include "fuzz.h"
#include "cluster.h"
#include "perf.h"
#include "plan.h"
#include "serve_search.h"
#include "utf8.h"
#include "workspace.h"

#include <cjson/cJSON.h>
#include <math.h>

static void ff_text(const char *s)
{
	for (size_t i = 0; s[i];) {
		unsigned cp;
		int k = utf8_len(s + i, &cp);
		if (!k || utf8_is_control(cp))
			abort();
		i += (size_t)k;
	}
}

static void ff_dists(const struct serve_dist *isl, const struct serve_dist *osl)
{
	struct serve_bucket b[SERVE_MAX_BUCKETS];
	int n = serve_buckets(isl, osl, 4, 4, b);
	double sum = 0;
	if (n < 1 || n > SERVE_MAX_BUCKETS)
		abort();
	for (int i = 0; i < n; i++) {
		if (!isfinite(b[i].isl) || !(b[i].isl > 0) || !isfinite(b[i].osl) ||
		    !(b[i].osl > 0) || !isfinite(b[i].share) || b[i].share < 0)
			abort();
		sum += b[i].share;
	}
	if (fabs(sum - 1) > 1e-9)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct cluster c;
	static struct model_spec m;
	static int ready;
	if (!ready) {
		struct hp_err e = { 0 };
		cluster_init(&c);
		if (cluster_add_pool_spec(&c, "4x8xH100-SXM,host_mem_gb=64", fuzz_catalog(), &e) < 0 ||
		    cluster_add_pool_spec(&c, "8x8xA100-SXM4-80GB,name=a100", fuzz_catalog(), &e) < 0)
			abort();
		m = *catalog_model(fuzz_catalog(), "llama3.1-8b");
		ready = 1;
	}
	char *s = fuzz_text(data, size);
	struct plan p;
	struct ws_serve ws;
	struct serve_dist isl = { DIST_FIXED, 1000, 0 }, osl = { DIST_FIXED, 200, 0 };
	int tp = 8, pp = 1, dp = 0, dist = 0;
	char want[FIELDS_WANT_MAX];
	plan_init(&p);
	memset(&ws, 0, sizeof ws);
	p.mbs = 1;
	p.gbs = 32;
	char *save = NULL;
	for (char *line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, '=');
		if (!v)
			continue;
		*v++ = '\0';
		struct hp_err err = { 0 };
		const struct hp_field *f;
		int *lay = !strcmp(line, "tp") ? &tp : !strcmp(line, "pp") ? &pp
			 : !strcmp(line, "dp") ? &dp : NULL;
		if (lay) {
			int x;
			/* the layout fields' range (ui/plan_flags.c) */
			if (hp_parse_int(v, &x) == 0 && x >= 1 && x <= HP_MAX_GPUS)
				*lay = x;
		} else if (!strcmp(line, "isl") || !strcmp(line, "osl")) {
			struct serve_dist d;
			if (serve_dist_parse(v, &d, &err) == 0) {
				*(line[0] == 'i' ? &isl : &osl) = d;
				dist = 1;
			} else {
				ff_text(err.msg);
			}
		} else if ((f = fields_find_flag(&plan_fields, line))) {
			if (fields_parse_text(f, &p, v, want, sizeof want) < 0)
				ff_text(want);
		} else if ((f = fields_find_key(&ws_serve_fields, line))) {
			if (fields_parse_text(f, &ws, v, want, sizeof want) < 0)
				ff_text(want);
			else if (f->kind == FK_NUM && !isfinite(fields_get_num(f, &ws)))
				abort();
		}
	}
	if (dist)
		ff_dists(&isl, &osl);
	struct hp_err err = { 0 };
	long long need = (long long)tp * pp * p.cp;
	int have = c.pools[0].nodes * c.pools[0].gpus_per_node;
	if (!dp && need <= have)
		dp = have / (int)need;
	if (dp && plan_uniform(&p, &c, &m, 0, tp, pp, dp, &err) == 0 &&
	    plan_validate(&p, &c, &m, "plan flags", &err) == 0) {
		struct estimate e;
		if (perf_estimate(&c, &m, &p, NULL, &e, &err) == 0) {
			if (!isfinite(e.step_time_s) || !(e.step_time_s > 0) ||
			    !isfinite(e.tokens_per_s) || !isfinite(e.mfu))
				abort();
			estimate_free(&e);
		}
		cJSON *j = plan_to_json(&p, &c);
		char *text = cJSON_PrintUnformatted(j);
		struct plan q;
		plan_init(&q);
		if (plan_parse_json(&q, text, strlen(text), "saved plan", &c, &err) < 0 ||
		    !plan_equal(&p, &q))
			abort();
		plan_free(&q);
		free(text);
		cJSON_Delete(j);
	}
	plan_free(&p);
	free(s);
	return 0;
}
