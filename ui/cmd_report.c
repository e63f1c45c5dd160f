/* cmd_report.c — `hetplan report WORKSPACE.json -o FILE`: plan the
 * workspace and write the report (report_write_file; -o - is standard
 * output). */
#include "advice.h"
#include "cmd_report.h"
#include "common.h"
#include "plan_label.h"
#include "pricing.h"
#include "serve_report.h"
#include "workspace.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

/* The synopsis: the command table's usage (ui/cli.c); --help prints it
 * above report_help. */
const char cmd_report_usage[] =
	"hetplan report WORKSPACE.json -o FILE [--format md|html|json|csv] [--rank N]\n";

static const char report_help[] =
	"\n"
	"Plan the workspace (cluster, model, workload) and write a report.\n"
	"  -o, --output FILE    where to write it (atomically)\n"
	"  -f, --format F       md, html, json or csv (default: from FILE's extension)\n"
	"      --rank N         the plan the report details (default 1, the best)\n"
	"\n"
	"Exit status: 0 written, 4 nothing fits (the report says why), 2 usage,\n"
	"3 invalid workspace, 1 planner or I/O failure (nothing written).\n";

enum { O_RANK = 256 };

static const struct option report_opts[] = {
	{ "output", required_argument, 0, 'o' },
	{ "format", required_argument, 0, 'f' },
	{ "rank", required_argument, 0, O_RANK },
	{ "help", no_argument, 0, 'h' },
	{ 0, 0, 0, 0 },
};

const struct option *cmd_report_options(void)
{
	return report_opts;
}

/* The report rendered and written by cli_write_output, which knows "-",
 * the descriptor names (/dev/stdout), devices and links; the format comes
 * from the name unless given (checked before planning). */
static int write_report(const char *path, enum report_format fmt, const struct report_input *in,
			struct hp_err *err)
{
	if (fmt == REPORT_FORMAT_AUTO && report_format_from_path(path, &fmt) < 0)
		return hp_err_set(err, HP_EXIT_USAGE,
				  "%s: cannot tell the format from the name; use .md, .html, "
				  ".json or .csv, or give --format", path);
	char *text;
	size_t len;
	if (report_render(in, fmt, &text, &len, err) < 0)
		return -1;
	int rc = cli_write_output(path, text, len, err);
	free(text);
	return rc;
}

/* The workspace's "serve" section planned as `hetplan serve` plans it, on
 * the same priced cluster, into *in (so holds its options). Returns the
 * result (caller frees), or NULL after saying why on standard error (the
 * section was checked when the file was read, so only a serving model
 * that the planner refuses gets here). Nothing that serves the rate is an
 * answer, not a failure: the report's serving part says why. */
static struct serve_plan_result *serve_part(const struct workspace *ws, const struct catalog *cat,
					    struct serve_opts *so, struct serve_report_input *in)
{
	struct hp_err err = { 0 };
	const struct model_spec *m = *ws->serve.model ? catalog_model(cat, ws->serve.model) : NULL;
	serve_opts_init(so);
	if (serve_dist_parse(ws->serve.isl, &so->isl, &err) < 0 ||
	    serve_dist_parse(ws->serve.osl, &so->osl, &err) < 0) {
		cli_fail(&err, HP_EXIT_INPUT);
		return NULL;
	}
	ws_serve_to_opts(&ws->serve, so);
	struct serve_plan_result *res = xcalloc(1, sizeof *res);
	int src = serve_plan(&ws->cluster, m ? m : &ws->model, so, NULL, res, &err);
	if (src < 0 && !res->why[0] && !res->has_nearest) {
		fprintf(stderr, "hetplan report: serve: ");
		cli_fail(&err, HP_EXIT_INPUT);
		free(res);
		return NULL;
	}
	*in = (struct serve_report_input){ .cluster = &ws->cluster, .model = m ? m : &ws->model,
					   .opts = so, .res = res, .failed = src < 0,
					   .generated = time(NULL), .version = HETPLAN_VERSION };
	return res;
}

int cmd_report(int argc, char **argv, const struct catalog *cat)
{
	const char *out = NULL, *ws_path = NULL;
	enum report_format fmt = REPORT_FORMAT_AUTO;
	int rank = 1, o;
	optind = 1;
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":o:f:h", report_opts, NULL)) != -1) {
		switch (o) {
		case 'h':
			cli_usage(stdout, cmd_report_usage, report_help);
			return 0;
		case 'o': out = optarg; break;
		case 'f':
			if (report_format_parse(optarg, &fmt) < 0) {
				fprintf(stderr, "hetplan report: --format: expected md, html, json or "
					"csv, got '%s'\n", optarg);
				return HP_EXIT_USAGE;
			}
			break;
		case O_RANK:
			if (hp_parse_int(optarg, &rank)) {
				fprintf(stderr, "hetplan report: --rank: expected a positive integer, "
					"got '%s'\n", optarg);
				return HP_EXIT_USAGE;
			}
			break;
		case ':':
			fprintf(stderr, "hetplan report: %s: missing value\n", cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		default:
			fprintf(stderr, "hetplan report: unknown option '%s' (try --help)\n",
				cli_shown(argv[optind - 1]));
			return HP_EXIT_USAGE;
		}
	}
	if (optind < argc)
		ws_path = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "hetplan report: unexpected argument '%s'\n", cli_shown(argv[optind]));
		return HP_EXIT_USAGE;
	}
	if (!ws_path) {
		fprintf(stderr, "hetplan report: give a workspace: hetplan report WORKSPACE.json -o FILE\n");
		return HP_EXIT_USAGE;
	}
	if (!out) {
		fprintf(stderr, "hetplan report: -o FILE is required\n");
		return HP_EXIT_USAGE;
	}
	/* -o naming the workspace itself would replace the user's inputs
	 * with the report (same file: same device and inode) */
	struct stat st_ws, st_out;
	if (stat(ws_path, &st_ws) == 0 && stat(out, &st_out) == 0 && st_ws.st_dev == st_out.st_dev &&
	    st_ws.st_ino == st_out.st_ino) {
		fprintf(stderr, "hetplan report: -o %s: that is the workspace being reported on; "
			"write the report to another file\n", cli_shown(out));
		return HP_EXIT_USAGE;
	}
	enum report_format probe;
	if (fmt == REPORT_FORMAT_AUTO && report_format_from_path(out, &probe) < 0) {
		fprintf(stderr, "hetplan report: -o %s: cannot tell the format from the name; use "
			".md, .html, .json or .csv, or give --format\n", cli_shown(out));
		return HP_EXIT_USAGE;
	}
	struct workspace ws;
	struct hp_err err = { 0 };
	if (workspace_load(&ws, ws_path, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	/* The planner's own check speaks of plan's flags (--deadline, exit
	 * 2); here the bound is the file's, an invalid workspace (exit 3).
	 * Loading such a file stays allowed, so the TUI opens it to add one. */
	if ((ws.opts.objective == OBJ_DEADLINE && ws.opts.deadline_s <= 0) ||
	    (ws.opts.objective == OBJ_BUDGET && ws.opts.budget_usd <= 0)) {
		int dl = ws.opts.objective == OBJ_DEADLINE;
		fprintf(stderr, "hetplan: %s: workload.%s: the objective %s needs one (%s)\n",
			cli_shown(ws_path), dl ? "deadline_s" : "budget_usd", dl ? "deadline" : "budget",
			dl ? "seconds, e.g. 2592000 for 30 days" : "USD, e.g. 2500000");
		return HP_EXIT_INPUT;
	}
	/* Pools without a price of their own take the price book's cheapest
	 * matching offer, as estimate does (snapshot + cache, no network). */
	struct price_config pc;
	struct price_book pb;
	if (pricing_config_load(&pc, NULL, &err) < 0 || pricing_load(&pb, &pc, cat, &err) < 0)
		return cli_fail(&err, HP_EXIT_INPUT);
	if (*pb.warnings)
		fprintf(stderr, "hetplan report: warning: %s\n", pb.warnings);
	pricing_apply(&pb, &ws.cluster);
	pricing_free(&pb);
	struct search_result res;
	int rc = 0;
	int src = search_run(&ws.cluster, &ws.model, &ws.opts, &res, &err);
	plan_label_result(&res, &ws.cluster);
	if (src < 0) {
		if (err.code != HP_EXIT_NOFIT) {
			rc = cli_fail(&err, HP_EXIT_FAIL);
			search_result_free(&res);
			return rc;
		}
		/* Nothing fits: the report says why and how close the nearest came. */
		fprintf(stderr, "hetplan: %s\n", err.msg);
		rc = HP_EXIT_NOFIT;
	}
	if (res.n_plans && rank > res.n_plans) {
		/* the workspace's "top" caps the list: say so when it did */
		fprintf(stderr, "hetplan report: --rank %d: the planner found %d plan%s%s\n", rank,
			res.n_plans, res.n_plans == 1 ? "" : "s",
			res.n_plans == ws.opts.top_k ? " (the workspace's workload.top; raise it for more)"
						     : "");
		search_result_free(&res);
		return HP_EXIT_USAGE;
	}
	/* nothing fits: what would (the same lines as `hetplan plan`'s) */
	int add_nodes[HP_MAX_POOLS];
	char cap_text[512];
	struct nofit_advice advice = { 0 };
	if (src < 0) {
		nofit_advice_run(&ws.cluster, &ws.model, &ws.opts, &res, cat,
				 model_train_tokens(&ws.model, ws.opts.tokens), add_nodes, cap_text,
				 sizeof cap_text, &advice);
		for (int i = 0; i < advice.n; i++)
			fprintf(stderr, "%s\n", advice.line[i]);
	}
	struct report_input in = { &ws.cluster, &ws.model, &ws.opts, &res,
				   res.n_plans ? rank - 1 : 0, time(NULL), HETPLAN_VERSION, NULL };
	struct serve_plan_result *sres = NULL;
	struct serve_opts so;
	struct serve_report_input sin;
	if (ws.serve.set && (sres = serve_part(&ws, cat, &so, &sin)) == NULL) {
		search_result_free(&res);
		return HP_EXIT_INPUT;
	}
	struct report_extra extra;
	if (sres) {
		serve_report_extra(&extra, &sin);
		in.extra = &extra;
	}
	struct advice_extra ax;
	in.extra = nofit_advice_extra(&ax, &advice, in.extra);
	if (write_report(out, fmt, &in, &err) < 0)
		rc = cli_fail(&err, HP_EXIT_FAIL);
	free(sres);
	search_result_free(&res);
	return rc;
}
