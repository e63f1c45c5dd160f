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
#include "sbuf.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

/* The most tokens launch takes (--tokens, a plan file's "tokens"): 1e18,
 * a thousand times the largest runs reported (Llama 3's 15.6T), and far
 * below where the step count (tokens / sequence) leaves a long long. */
#define LAUNCH_MAX_TOKENS 1e18

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above launch_help. The plan flags between the two parts come from the
 * plan's settings table (cli_plan_usage). */
const char *cmd_launch_usage(void)
{
	static char buf[2048];
	return cli_plan_usage(
		buf, sizeof buf, "launch",
		"         [--tokens N] [--force] [--format megatron|slurm|deepspeed|torchtitan|hf-trainer]\n"
		"         [-o FILE]\n"
		"       hetplan launch (-c CLUSTER.json | --pool SPEC...) -m MODEL --plan PLAN.json\n"
		"         [--rank N] [--tokens N] [--force] [--format megatron|slurm|deepspeed|torchtitan|hf-trainer]\n"
		"         [-o FILE]\n");
}

static const char launch_help[] =
	"\n"
	"  --format megatron    Megatron-LM arguments (default)\n"
	"  --format slurm       a Slurm batch script running them under torchrun\n"
	"  --format deepspeed   a DeepSpeed config (JSON)\n"
	"  --format torchtitan  a torchtitan job config (TOML)\n"
	"  --format hf-trainer  a Slurm script running an HF Trainer script (run_clm.py)\n"
	"                       under torchrun: TrainingArguments flags, DeepSpeed config\n"
	"  --tokens N           tokens to train, for --train-samples / steps (default: 20 per\n"
	"                       parameter, or the \"tokens\" of a `hetplan plan` JSON)\n"
	"  --force              write configs for a plan that does not fit in GPU memory\n"
	"  --plan FILE          a plan, or a `hetplan plan`/report JSON with \"plans\"\n"
	"  --rank N             which of those plans (default 1)\n"
	"  -o, --output FILE    write atomically instead of to standard output\n"
	"\n"
	"A plan over pools whose replicas share one layout and batch share runs as one\n"
	"Megatron-Core job: --format slurm writes a Slurm heterogeneous job (one\n"
	"component per run of ranks on a pool, torchrun node ranks fixed from\n"
	"SLURM_PROCID), --format megatron the arguments with that rank map. Other\n"
	"heterogeneous plans give one piece per replica group and say why no stock\n"
	"framework runs them as one job (on standard error, and in the comments).\n"
	"Standard error ends with the plan's estimate: step, $ per step, memory headroom.\n"
	"Exit status: 0 ok, 2 usage (an estimate-only --framework or plan \"framework\"\n"
	"included: hetplan has no launcher for it), 3 invalid input, 4 the plan does not\n"
	"fit in GPU memory (without --force), 1 I/O failure.\n";

enum { O_PLAN = 256, O_RANK, O_TOKENS, O_FORCE };

/* -c, --pool, -m and the plan flags come from plan_flags.c. */
static const struct option launch_opts[] = {
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
	return cli_plan_options(launch_opts);
}

/* What the command line asked for. */
struct launch_args {
	const char *plan_file, *out_path;
	int rank, rank_set, force;
	double tokens;
	struct cli_plan_flags pf;
	enum launch_format fmt;
};

/* One launch option with its value (plan flags go to cli_plan_flag).
 * Returns -1 to read on, else the command's exit status. */
static int parse_opt(int o, char **argv, struct launch_args *a, struct plan *p)
{
	switch (o) {
	case 'o': a->out_path = optarg; return -1;
	case O_PLAN: a->plan_file = optarg; return -1;
	case O_FORCE: a->force = 1; return -1;
	case O_RANK:
		if (hp_parse_int(optarg, &a->rank))
			return usage_error("launch", "rank", "a positive integer", optarg);
		a->rank_set = 1;
		return -1;
	case O_TOKENS:
		if (hp_parse_quantity(optarg, &a->tokens) || a->tokens < 1 ||
		    a->tokens > LAUNCH_MAX_TOKENS)
			return usage_error("launch", "tokens", "a token count such as 2T or 300B", optarg);
		return -1;
	case 'f':
		if (launch_format_parse(optarg, &a->fmt))
			return usage_error("launch", "format", "megatron, slurm, deepspeed, torchtitan or hf-trainer", optarg);
		return -1;
	case ':':
		fprintf(stderr, "hetplan launch: %s: missing value\n", cli_shown(argv[optind - 1]));
		return HP_EXIT_USAGE;
	default: {
		int r = cli_plan_flag("launch", o, optarg, p, &a->pf);
		if (r > 0)
			return -1;
		if (r == 0)
			fprintf(stderr, "hetplan launch: unknown option '%s' (try --help)\n",
				cli_shown(argv[optind - 1]));
		return HP_EXIT_USAGE;
	}
	}
}

/* The cluster, model and plan the options name, the plan validated.
 * Returns 0, or the command's exit status. */
static int build_inputs(struct launch_args *a, int argc, char **argv, const struct catalog *cat,
			struct cluster *c, struct model_spec *m, struct plan *p)
{
	struct hp_err err = { 0 };
	int rc;
	if (a->rank_set && !a->plan_file) {
		fprintf(stderr, "hetplan launch: --rank picks a plan of a --plan file; give --plan\n");
		return HP_EXIT_USAGE;
	}
	/* A plan may name an estimate-only framework; launch has nothing to
	 * write for it: a usage error, said before anything else about the
	 * plan (a missing --tp or --mbs, the model's own checks), as soon as
	 * the framework is known: the --framework flag's now, a plan file's
	 * once it is read. */
	char where[300];
	const char *wfile = a->plan_file ? a->plan_file : "--framework";
	snprintf(where, sizeof where, "%.*s%s", UTF8_CUT(wfile, 250),
		 a->plan_file ? ": framework" : "");
	if (!a->plan_file && launch_refuses_format(p, a->fmt, where, &err) < 0)
		return cli_fail(&err, HP_EXIT_USAGE);
	/* Launch configs need no prices. */
	if ((rc = cli_load_inputs("launch", argc, argv, &a->pf.in, 0, cat, c, m)))
		return rc;
	const char *ctx = "plan flags";
	if (a->plan_file) {
		if (cli_load_plan_file(p, a->plan_file, a->rank, c, &a->tokens, &err) < 0)
			return cli_fail(&err, HP_EXIT_INPUT);
		/* the file's "tokens" (hetplan plan --format json), in --tokens's
		 * range: beyond it the step count overflows a long long */
		if (!(a->tokens <= 0 || (a->tokens >= 1 && a->tokens <= LAUNCH_MAX_TOKENS))) {
			hp_err_set(&err, HP_EXIT_INPUT,
				   "%s: tokens: expected a token count from 1 to %g, got %g",
				   a->plan_file, LAUNCH_MAX_TOKENS, a->tokens);
			return cli_fail(&err, HP_EXIT_INPUT);
		}
		ctx = a->plan_file;
		if (launch_refuses_format(p, a->fmt, where, &err) < 0)
			return cli_fail(&err, HP_EXIT_USAGE);
	} else if ((rc = cli_uniform_plan("launch", &a->pf, c, m, p))) {
		return rc;
	}
	/* no --framework: the one the format runs under; no --zero: the
	 * stage the framework runs unasked (estimate's rule) */
	int zero = p->zero;
	const char *implied = launch_format_framework(p, a->fmt);
	plan_default_zero(p);
	if (implied && plan_validate(p, c, m, ctx, &err) < 0) {
		/* a setting only another framework runs (fp8_params): "any" */
		p->framework = FW_ANY;
		p->zero = zero;
		plan_default_zero(p);
		implied = NULL;
		err = (struct hp_err){ 0 };
	}
	if (implied)
		fprintf(stderr, "hetplan launch: %s\n", implied);
	if (plan_validate(p, c, m, ctx, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	/* what the format cannot run, before the memory check */
	if (launch_format_refuses(c, p, a->fmt, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	return 0;
}

/* Configs for a plan that runs out of memory help no one: say by how
 * much, and go on only when asked to. Returns 0, or the exit status. */
static int check_fits(const struct launch_args *a, const struct cluster *c,
		      const struct model_spec *m, const struct plan *p)
{
	struct estimate est;
	struct hp_err err = { 0 };
	if (perf_estimate(c, m, p, NULL, &est, &err) < 0)
		return cli_fail(&err, HP_EXIT_FAIL);
	int rc = 0;
	if (!est.fits) {
		char why[400];
		launch_nofit_text(&est, c, why, sizeof why);
		fprintf(stderr, "hetplan launch: %s%s\n", why,
			a->force ? " (--force: writing it anyway)" : "; --force writes it anyway");
		if (!a->force)
			rc = HP_EXIT_NOFIT;
	}
	estimate_free(&est);
	return rc;
}

/* Render the configs, print the renderer's notes on stderr, then the
 * plan's estimate (step, $ per step, memory headroom: every format,
 * DeepSpeed's JSON included, which has no comments), write the configs
 * to -o or stdout. Returns the exit status. */
static int write_configs(const struct launch_args *a, const struct cluster *c,
			 const struct model_spec *m, const struct plan *p)
{
	struct hp_err err = { 0 };
	char *text, *notes;
	size_t len;
	if (launch_render(c, m, p, a->fmt, a->tokens, HETPLAN_VERSION, &text, &len, &notes,
			  &err) < 0)
		return cli_fail(&err, HP_EXIT_FAIL);
	for (const char *s = notes; *s;) {
		const char *e = strchr(s, '\n');
		int n = e ? (int)(e - s) : (int)strlen(s);
		fprintf(stderr, "hetplan launch: %.*s\n", n, s);
		s += n + (e != NULL);
	}
	struct sbuf eb;
	sbuf_init(&eb);
	launch_estimate_lines(&eb, c, m, p, "hetplan launch: ", 1);
	if (eb.s)
		fputs(eb.s, stderr);
	sbuf_done(&eb);
	int rc = 0;
	if (a->out_path) {
		if (cli_write_output(a->out_path, text, len, &err) < 0)
			rc = cli_fail(&err, HP_EXIT_FAIL);
	} else {
		fwrite(text, 1, len, stdout);
	}
	free(text);
	free(notes);
	return rc;
}

int cmd_launch(int argc, char **argv, const struct catalog *cat)
{
	struct cluster c;
	struct plan p;
	struct model_spec m;
	struct launch_args a = { .rank = 1, .fmt = LAUNCH_MEGATRON };
	int o, rc = -1;
	cluster_init(&c);
	plan_init(&p);
	/* unset until the flags and the plan file are read: then the
	 * framework's default (build_inputs) */
	p.zero = -1;
	optind = 1;
	opterr = 0;
	const struct option *opts = cli_plan_options(launch_opts);
	while (rc < 0 && (o = getopt_long(argc, argv, ":c:m:f:o:h", opts, NULL)) != -1) {
		if (o == 'h') {
			cli_usage(stdout, cmd_launch_usage(), launch_help);
			rc = 0;
		} else {
			rc = parse_opt(o, argv, &a, &p);
		}
	}
	if (rc < 0 && !(rc = build_inputs(&a, argc, argv, cat, &c, &m, &p)) &&
	    !(rc = check_fits(&a, &c, &m, &p)))
		rc = write_configs(&a, &c, &m, &p);
	plan_free(&p);
	return rc;
}
