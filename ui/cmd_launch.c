/* cmd_launch.c — `hetplan launch`: the plan given by flags or a plan file
 * as Megatron-LM arguments, a Slurm + torchrun script or a DeepSpeed
 * config (src/launch.c renders them). */
#include "cmd_launch.h"
#include "common.h"
#include "plan_flags.h"
#include "jsonx.h"
#include "launch.h"
#include "perf.h"
#include "report.h"

#include <stdlib.h>
#include <string.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above launch_help. */
const char cmd_launch_usage[] =
	"hetplan launch (-c CLUSTER.json | --pool SPEC...) -m MODEL\n"
	"         --tp N --pp N [--dp N] [--cp N] [--ep N] --mbs N --gbs N [--on POOL]\n"
	"         [--seq-len N] [--precision fp32|tf32|bf16|fp16|fp8]\n"
	"         [--recompute none|selective|full|selective-op] [--loss fused|eager]\n"
	"         [--zero 0|1|2|3] [--master sharded|replicated] [--schedule 1f1b|interleaved:V]\n"
	"         [--attention flash|unfused] [--no-sp] [--tokens N] [--force]\n"
	"         [--framework NAME] [--tp-overlap on|off] [--grad-overlap on|off] [--param-overlap on|off]\n"
	"         [--format megatron|slurm|deepspeed|torchtitan] [-o FILE]\n"
	"       hetplan launch (-c CLUSTER.json | --pool SPEC...) -m MODEL --plan PLAN.json\n"
	"         [--rank N] [--tokens N] [--force] [--format megatron|slurm|deepspeed|torchtitan]\n"
	"         [-o FILE]\n";

static const char launch_help[] =
	"\n"
	"  --format megatron    Megatron-LM arguments (default)\n"
	"  --format slurm       a Slurm batch script running them under torchrun\n"
	"  --format deepspeed   a DeepSpeed config (JSON)\n"
	"  --format torchtitan  a torchtitan job config (TOML)\n"
	"  --tokens N           tokens to train, for --train-samples / steps (default: 20 per\n"
	"                       parameter, or the \"tokens\" of a `hetplan plan` JSON)\n"
	"  --force              write configs for a plan that does not fit in GPU memory\n"
	"  --plan FILE          a plan, or a `hetplan plan`/report JSON with \"plans\"\n"
	"  --rank N             which of those plans (default 1)\n"
	"  -o, --output FILE    write atomically instead of to standard output\n"
	"\n"
	"Heterogeneous plans give one piece per replica group and say what stock\n"
	"frameworks cannot express (on standard error, and in the output's comments).\n"
	"Exit status: 0 ok, 2 usage, 3 invalid input, 4 the plan does not fit in GPU memory\n"
	"(without --force), 1 I/O failure.\n";

enum { O_POOL = 256, O_PLAN, O_RANK, O_TOKENS, O_FORCE };

static const struct option launch_opts[] = {
	{ "cluster", required_argument, 0, 'c' },
	{ "pool", required_argument, 0, O_POOL },
	{ "model", required_argument, 0, 'm' },
	CLI_PLAN_FLAG_OPTIONS,
	{ "plan", required_argument, 0, O_PLAN },
	{ "rank", required_argument, 0, O_RANK },
	{ "tokens", required_argument, 0, O_TOKENS },
	{ "force", no_argument, 0, O_FORCE },
	{ "format", required_argument, 0, 'f' },
	{ "output", required_argument, 0, 'o' },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_launch_options(void)
{
	return launch_opts;
}

/* Read the plan file: a plan object, or an object with "plans" (the
 * planner's and the report's JSON), from which plan `rank` is taken. */
static int load_plan(struct plan *p, const char *path, int rank, const struct cluster *c,
		     double *tokens, struct hp_err *err)
{
	size_t len;
	char *text = hp_read_file(path, &len, err);
	if (!text)
		return -1;
	cJSON *root = jx_parse(text, len, path, err);
	if (!root) {
		free(text);
		return -1;
	}
	const cJSON *plans = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "plans")
						  : NULL;
	int rc;
	const cJSON *tk = cJSON_IsObject(root) ? cJSON_GetObjectItemCaseSensitive(root, "tokens")
					      : NULL;
	if (cJSON_IsNumber(tk) && tk->valuedouble > 0 && *tokens <= 0)
		*tokens = tk->valuedouble;
	if (plans) {
		int n = cJSON_IsArray(plans) ? cJSON_GetArraySize(plans) : -1;
		if (n < 0)
			rc = hp_err_set(err, HP_EXIT_INPUT, "%s: plans: expected an array", path);
		else if (rank > n)
			rc = hp_err_set(err, HP_EXIT_INPUT, "%s: --rank %d: the file has %d plan%s",
					path, rank, n, n == 1 ? "" : "s");
		else {
			cJSON *entry = cJSON_GetArrayItem(plans, rank - 1);
			report_plan_strip_extras(entry);
			char *one = cJSON_PrintUnformatted(entry);
			char where[300];
			snprintf(where, sizeof where, "%.250s: plans[%d]", path, rank - 1);
			rc = plan_parse_json(p, one, strlen(one), where, c, err);
			free(one);
		}
	} else {
		rc = plan_parse_json(p, text, len, path, c, err);
	}
	cJSON_Delete(root);
	free(text);
	return rc;
}

int cmd_launch(int argc, char **argv, const struct catalog *cat)
{
	struct cluster c;
	struct plan p;
	struct model_spec m;
	struct hp_err err = { 0 };
	cluster_init(&c);
	plan_init(&p);
	const char *cluster_file = NULL, *model_arg = NULL, *plan_file = NULL, *out_path = NULL;
	const char *pools[HP_MAX_POOLS];
	int n_pools = 0, rank = 1, o, force = 0;
	double tokens = 0;
	struct cli_plan_flags pf = { 0 };
	enum launch_format fmt = LAUNCH_MEGATRON;
	int rc = HP_EXIT_USAGE;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":c:m:f:o:h", launch_opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			cli_usage(stdout, cmd_launch_usage, launch_help);
			rc = 0;
			goto out;
		case 'c': cluster_file = optarg; break;
		case 'm': model_arg = optarg; break;
		case 'o': out_path = optarg; break;
		case O_POOL:
			if (n_pools == HP_MAX_POOLS) {
				fprintf(stderr, "hetplan launch: --pool: at most %d pools\n", HP_MAX_POOLS);
				goto out;
			}
			pools[n_pools++] = optarg;
			break;
		case O_RANK:
			if (hp_parse_int(optarg, &rank)) {
				rc = usage_error("launch", "rank", "a positive integer", optarg);
				goto out;
			}
			break;
		case O_PLAN: plan_file = optarg; break;
		case O_TOKENS:
			if (hp_parse_quantity(optarg, &tokens) || tokens < 1 || tokens > 1e18) {
				rc = usage_error("launch", "tokens", "a token count such as 2T or 300B", optarg);
				goto out;
			}
			break;
		case O_FORCE: force = 1; break;
		case 'f':
			if (launch_format_parse(optarg, &fmt)) {
				rc = usage_error("launch", "format", "megatron, slurm, deepspeed or torchtitan", optarg);
				goto out;
			}
			break;
		case ':':
			fprintf(stderr, "hetplan launch: %s: missing value\n", argv[optind - 1]);
			goto out;
		default: {
			int r = cli_plan_flag("launch", o, optarg, &p, &pf);
			if (r > 0)
				break;
			if (r == 0)
				fprintf(stderr, "hetplan launch: unknown option '%s' (try --help)\n",
					argv[optind - 1]);
			goto out;
		}
		}
	}
	if ((rc = cli_check_inputs("launch", argc, argv, model_arg, cluster_file, n_pools)))
		goto out;
	/* Launch configs need no prices. */
	rc = cli_build_cluster("launch", cluster_file, pools, n_pools, 0, cat, &c);
	if (rc)
		goto out;
	rc = HP_EXIT_USAGE;   /* for the usage errors below */
	if (cli_load_model(cat, model_arg, &m, &err) < 0) {
		rc = cli_fail(&err, HP_EXIT_INPUT);
		goto out;
	}
	const char *ctx = "plan flags";
	if (plan_file) {
		if (load_plan(&p, plan_file, rank, &c, &tokens, &err) < 0) {
			rc = cli_fail(&err, HP_EXIT_INPUT);
			goto out;
		}
		ctx = plan_file;
	} else {
		if ((rc = cli_uniform_plan("launch", &pf, &c, &m, &p)))
			goto out;
		rc = HP_EXIT_USAGE;
	}
	if (plan_validate(&p, &c, &m, ctx, &err) < 0) {
		rc = cli_fail(&err, HP_EXIT_INPUT);
		goto out;
	}
	/* Megatron needs the layers to split evenly into virtual stages. */
	if (p.schedule == SCHED_INTERLEAVED) {
		int stages = p.replicas[0].n_stages;
		if (m.layers % (stages * p.vpp)) {
			fprintf(stderr, "hetplan launch: --schedule interleaved:%d: %d layers do not "
				"split into %d stages x %d chunks\n", p.vpp, m.layers, stages, p.vpp);
			rc = HP_EXIT_INPUT;
			goto out;
		}
	}
	/* Configs for a plan that runs out of memory help no one: say by how
	 * much, and write them only when asked to. */
	struct estimate est;
	if (perf_estimate(&c, &m, &p, NULL, &est, &err) < 0) {
		rc = cli_fail(&err, HP_EXIT_FAIL);
		goto out;
	}
	if (!est.fits) {
		const struct perf_stage *ws = &est.stages[est.worst_stage];
		char nb[32], cb[32], ob[32];
		fprintf(stderr, "hetplan launch: the plan does not fit in GPU memory: stage %d of "
			"replica group %d on %s needs %s per GPU, %s more than its %s%s\n",
			ws->index, ws->group, c.pools[ws->pool].gpu.name,
			hp_fmt_bytes(nb, sizeof nb, ws->total),
			hp_fmt_bytes(ob, sizeof ob, est.worst_over_bytes),
			hp_fmt_bytes(cb, sizeof cb, ws->capacity),
			force ? " (--force: writing it anyway)" : "; --force writes it anyway");
		if (!force) {
			estimate_free(&est);
			rc = HP_EXIT_NOFIT;
			goto out;
		}
	}
	estimate_free(&est);
	char *text, *notes;
	size_t len;
	if (launch_render(&c, &m, &p, fmt, tokens, HETPLAN_VERSION, &text, &len, &notes,
			  &err) < 0) {
		rc = cli_fail(&err, HP_EXIT_FAIL);
		goto out;
	}
	for (const char *s = notes; *s;) {
		const char *e = strchr(s, '\n');
		int n = e ? (int)(e - s) : (int)strlen(s);
		fprintf(stderr, "hetplan launch: %.*s\n", n, s);
		s += n + (e != NULL);
	}
	rc = 0;
	if (out_path) {
		if (cli_write_output(out_path, text, len, &err) < 0)
			rc = cli_fail(&err, HP_EXIT_FAIL);
	} else {
		fwrite(text, 1, len, stdout);
	}
	free(text);
	free(notes);
out:
	plan_free(&p);
	return rc;
}
