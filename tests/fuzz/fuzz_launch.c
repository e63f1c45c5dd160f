/* fuzz_launch.c — `hetplan launch` over the pools of a fuzzed cluster JSON
 * (hostile pool and GPU names, node shapes, transports), every format.
 *
 * When the cluster parses and has two pools or more, four plans of Llama
 * 3.1 8B (32 layers, TP 1) are built over its first two pools, by name,
 * through the plan JSON reader (so a name goes through the same parser
 * and checks as a user's plan file): one pipeline over both pools (one
 * Slurm heterogeneous job), the same with a third stage back on the
 * first pool (three components), two equal replicas one on each pool
 * (one job, data parallel over pools) and two unequal ones (62.5% and
 * 37.5%: pieces, and the reason no stock framework runs it). Each plan
 * plan_validate accepts is rendered in every format; then, whatever the
 * names held:
 *   - no output or note carries a control byte but newline and tab, or
 *     a byte that is not UTF-8 (a
 *     name reaches comments, notes and quoted words; a raw newline would
 *     end a comment and start a command);
 *   - every "#SBATCH --partition=" value is one Slurm word of
 *     [A-Za-z0-9._-] (sbatch parses those lines, not the shell);
 *   - the estimate lines (launch_estimate_lines, with and without cost)
 *     hold no control byte either. */
#include "fuzz.h"
#include "cluster.h"
#include "launch.h"
#include "plan.h"
#include "runs_on.h"
#include "sbuf.h"
#include "utf8.h"

#include <cjson/cJSON.h>

static void fl_no_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			abort();
	}
	/* and valid UTF-8 (RFC 3629): a name cut inside a multi-byte
	 * character is no longer text (TOML refuses the whole file) */
	for (size_t i = 0; i < n;) {
		int k = s[i] ? utf8_len(s + i, NULL) : 1;
		if (!k)
			abort();
		i += (size_t)k;
	}
}

/* The Slurm script's partitions are Slurm words. */
static void fl_check_slurm(const char *s)
{
	const char *line = s;
	while (*line) {
		const char *e = strchr(line, '\n');
		size_t k = e ? (size_t)(e - line) : strlen(line);
		char buf[4096];
		size_t m = k < sizeof buf - 1 ? k : sizeof buf - 1;
		memcpy(buf, line, m);
		buf[m] = '\0';
		static const char part[] = "#SBATCH --partition=";
		if (!strncmp(buf, part, sizeof part - 1)) {
			const char *v = buf + sizeof part - 1;
			if (!*v)
				abort();
			for (; *v; v++)
				if (!((*v >= 'a' && *v <= 'z') || (*v >= 'A' && *v <= 'Z') ||
				      (*v >= '0' && *v <= '9') || *v == '.' || *v == '_' || *v == '-'))
					abort();
		}
		line += k + (e != NULL);
	}
}

static cJSON *fl_stage(const char *pool, int first, int last)
{
	cJSON *s = cJSON_CreateObject();
	cJSON_AddStringToObject(s, "pool", pool);
	cJSON_AddNumberToObject(s, "tp", 1);
	cJSON_AddNumberToObject(s, "first_layer", first);
	cJSON_AddNumberToObject(s, "last_layer", last);
	return s;
}

static cJSON *fl_replica(int count, double share)
{
	cJSON *r = cJSON_CreateObject();
	cJSON_AddNumberToObject(r, "count", count);
	cJSON_AddNumberToObject(r, "batch_share", share);
	cJSON_AddArrayToObject(r, "stages");
	return r;
}

/* Plan k (0-3) over pools a and b, as plan JSON text. */
static char *fl_plan_text(int k, const char *a, const char *b)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "mbs", 1);
	cJSON_AddNumberToObject(o, "gbs", 8);
	cJSON *rs = cJSON_AddArrayToObject(o, "replicas");
	cJSON *r;
	switch (k) {
	case 0:
		r = fl_replica(1, 1);
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(a, 0, 15));
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(b, 16, 31));
		cJSON_AddItemToArray(rs, r);
		break;
	case 1:
		r = fl_replica(1, 1);
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(a, 0, 9));
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(b, 10, 20));
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(a, 21, 31));
		cJSON_AddItemToArray(rs, r);
		break;
	default:
		r = fl_replica(1, k == 2 ? 0.5 : 0.625);
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(a, 0, 31));
		cJSON_AddItemToArray(rs, r);
		r = fl_replica(1, k == 2 ? 0.5 : 0.375);
		cJSON_AddItemToArray(cJSON_GetObjectItem(r, "stages"), fl_stage(b, 0, 31));
		cJSON_AddItemToArray(rs, r);
		break;
	}
	char *s = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	if (!s)
		abort();
	return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model_spec m;
	static int ready;
	if (!ready) {
		m = *catalog_model(fuzz_catalog(), "llama3.1-8b");
		ready = 1;
	}
	char *s = fuzz_text(data, size);
	struct cluster c;
	struct hp_err err = { 0 };
	cluster_init(&c);
	if (cluster_parse_json(&c, s, size, "fuzz.json", fuzz_catalog(), &err) == 0 &&
	    c.n_pools >= 2) {
		for (int k = 0; k < 4; k++) {
			char *t = fl_plan_text(k, c.pools[0].name, c.pools[1].name);
			struct plan p;
			plan_init(&p);
			if (plan_parse_json(&p, t, strlen(t), "plan.json", &c, &err) == 0 &&
			    plan_validate(&p, &c, &m, "--plan", &err) == 0) {
				char why[512];
				runs_on_mask(&p, &c, why, sizeof why);
				fl_no_control(why, strlen(why));
				for (int f = 0; f < LAUNCH_FORMAT_COUNT; f++) {
					char *out = NULL, *notes = NULL;
					size_t len = 0;
					if (launch_render(&c, &m, &p, (enum launch_format)f, 0, "fuzz", &out,
							  &len, &notes, &err) == 0) {
						fl_no_control(out, len);
						fl_no_control(notes, strlen(notes));
						if (f == LAUNCH_SLURM)
							fl_check_slurm(out);
					}
					free(out);
					free(notes);
				}
				for (int cost = 0; cost < 2; cost++) {
					struct sbuf b;
					sbuf_init(&b);
					launch_estimate_lines(&b, &c, &m, &p, "# ", cost);
					if (b.s)
						fl_no_control(b.s, b.len);
					sbuf_done(&b);
				}
			}
			plan_free(&p);
			free(t);
		}
	}
	free(s);
	return 0;
}
