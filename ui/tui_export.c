/* tui_export.c — `e`: write the selected plan's report to a file.
 *
 * JSON: the workspace inputs (cluster, model and workload in their input
 * schemas), the plan in the `estimate --plan` schema, and the estimate's
 * numbers (SI units), keys as `hetplan estimate --format json`. Markdown:
 * report_plan_md(), the report's tables for this one plan. A path ending
 * in .html or .csv gets the shared report (report.c) with this plan
 * detailed. The Edit plan view's plan (TUI_ID_EDITED) goes out with the
 * inputs it was estimated on, as .md or .json only: the shared report
 * ranks the planner's plans, and an edited one is not among them; nor is
 * a pool's best plan (the rows under the ranked ones), also .md or .json. Every
 * file is written atomically. */
#include "common.h"
#include "escape.h"
#include "launch.h"
#include "perf.h"
#include "report.h"
#include "sbuf.h"
#include "tui_int.h"
#include "utf8.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static cJSON *estimate_to_json(const struct search_plan *sp, const struct cluster *c)
{
	const struct estimate *e = &sp->est;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "label", sp->label);
	cJSON_AddNumberToObject(o, "gpus", e->n_gpus);
	cJSON_AddNumberToObject(o, "seq_len", e->seq_len);
	cJSON_AddNumberToObject(o, "step_time_s", e->step_time_s);
	cJSON_AddNumberToObject(o, "tokens_per_s", e->tokens_per_s);
	cJSON_AddNumberToObject(o, "mfu", e->mfu);
	cJSON_AddNumberToObject(o, "hfu", e->hfu);
	cJSON_AddNumberToObject(o, "model_tflops_per_gpu", e->model_tflops_per_gpu);
	if (e->price_known) {
		cJSON_AddNumberToObject(o, "usd_per_hour", e->usd_per_hour);
		cJSON_AddNumberToObject(o, "usd_per_million_tokens", e->usd_per_mtok);
	} else {
		cJSON_AddNullToObject(o, "usd_per_hour");
		cJSON_AddNullToObject(o, "usd_per_million_tokens");
	}
	cJSON_AddNumberToObject(o, "time_to_train_s", sp->time_to_train_s);
	if (sp->cost_to_train_usd > 0)
		cJSON_AddNumberToObject(o, "cost_to_train_usd", sp->cost_to_train_usd);
	else
		cJSON_AddNullToObject(o, "cost_to_train_usd");
	cJSON_AddBoolToObject(o, "pareto", sp->pareto);
	cJSON_AddStringToObject(o, "optimality", search_optimality_name(sp->optimality));
	cJSON_AddNumberToObject(o, "power_kw", e->power_kw);
	report_estimate_json_parts(o, e, c);
	report_plan_fit_json(o, sp);
	return o;
}

static char *export_json(const struct report_input *in, const struct search_plan *sp)
{
	const struct search_opts *wo = in->opts;
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "generator", "hetplan " HETPLAN_VERSION);
	cJSON_AddItemToObject(o, "cluster", cluster_to_json(in->cluster));
	cJSON_AddItemToObject(o, "model", model_to_json(in->model));
	cJSON *w = cJSON_AddObjectToObject(o, "workload");
	cJSON_AddNumberToObject(w, "gbs", wo->gbs);
	cJSON_AddNumberToObject(w, "seq_len", wo->seq_len ? wo->seq_len : in->model->seq_len);
	cJSON_AddNumberToObject(w, "tokens", model_train_tokens(in->model, wo->tokens));
	cJSON_AddStringToObject(w, "precision", hp_dtype_name(wo->precision));
	cJSON_AddStringToObject(w, "objective", search_objective_name(wo->objective));
	cJSON_AddItemToObject(o, "plan", plan_to_json(&sp->plan, in->cluster));
	cJSON_AddItemToObject(o, "estimate", estimate_to_json(sp, in->cluster));
	char *s = esc_json_print(o);
	cJSON_Delete(o);
	return s;
}

int tui_export(const struct tui *t, int id, const char *path, struct hp_err *err)
{
	const struct search_plan *sp = tui_plan_get(t, id);
	if (!sp)
		return hp_err_set(err, HP_EXIT_FAIL, "no plan to export yet");
	enum report_format rf;
	int whole = report_format_from_path(path, &rf) == 0 && (rf == REPORT_HTML || rf == REPORT_CSV);
	struct report_input in = { &t->cur->c, &t->cur->m, &t->cur->o, &t->cur->res, 0, time(NULL),
				   HETPLAN_VERSION, NULL };
	if (id < 0) {
		/* the edited plan or a pool's best: the shared report details
		 * one of the ranked plans, and neither is one */
		if (whole)
			return hp_err_set(err, HP_EXIT_USAGE, "%s: %s exports as .md or .json", path,
					  id == TUI_ID_EDITED ? "the edited plan" : "a pool's best plan");
		if (id == TUI_ID_EDITED)
			tui_planedit_inputs(t, &in.cluster, &in.model, &in.opts);
	} else if (whole) {
		/* .html and .csv: the shared report (report.c) detailing this plan */
		const struct search_result *r = &t->cur->res;
		int chosen = 0;
		for (int i = 0; i < r->n_plans; i++)
			if (&r->plans[i] == sp || (!strcmp(r->plans[i].label, sp->label) &&
						   r->plans[i].est.step_time_s == sp->est.step_time_s))
				chosen = i;
		in.chosen = chosen;
		return report_write_file(path, rf, &in, err);
	}
	size_t n = strlen(path);
	int json = n > 5 && !strcmp(path + n - 5, ".json");
	char *s = json ? export_json(&in, sp) : report_plan_md(&in, sp);
	int rc = hp_write_file_atomic(path, s, strlen(s), err);
	free(s);
	return rc;
}

/* `L`'s formats by the file name's ending; the first row, with no ending,
 * is `hetplan launch`'s default. what names the file in the message. */
static const struct {
	const char *ext;
	enum launch_format fmt;
	const char *what;
} launch_exts[] = {
	{ NULL, LAUNCH_MEGATRON, "Megatron-LM arguments" },
	{ ".sh", LAUNCH_SLURM, "Slurm + torchrun script" },
	{ ".toml", LAUNCH_TORCHTITAN, "torchtitan job config" },
	{ ".json", LAUNCH_DEEPSPEED, "DeepSpeed config" },
};

static int launch_ext_row(const char *path)
{
	size_t n = strlen(path);
	for (int i = 1; i < (int)HP_ARRAY_LEN(launch_exts); i++) {
		size_t e = strlen(launch_exts[i].ext);
		if (n > e && !strcasecmp(path + n - e, launch_exts[i].ext))
			return i;
	}
	return 0;
}

/* What `hetplan launch` refuses before it renders anything, in its order:
 * an estimate-only framework (a usage error there, said first), an
 * invalid plan, then a plan that does not fit in GPU memory (its exit 4
 * without --force). Returns 0 or -1 with err. */
static int launch_check(const struct search_plan *sp, const struct cluster *c,
			const struct model_spec *m, struct hp_err *err)
{
	if (launch_refuses(&sp->plan, "the plan's framework", err) < 0)
		return -1;
	if (plan_validate(&sp->plan, c, m, "plan", err) < 0)
		return -1;
	if (sp->est.fits)
		return 0;
	char why[400];
	/* hetplan launch's sentence, its --force named as a command */
	launch_nofit_text(&sp->est, c, why, sizeof why);
	return hp_err_set(err, HP_EXIT_NOFIT, "%s; hetplan launch --force writes it anyway", why);
}

/* The note the status line shows: the framework's verdict on a plan it
 * does not run as planned when there is one (launch_render words it "...
 * does not run this plan as planned: ..."), else the first. notes is
 * newline-ended lines; returns the line's length, *line its start, and
 * the number of lines in *count. */
static int launch_shown_note(const char *notes, const char **line, int *count)
{
	const char *v = strstr(notes, " does not run this plan as planned: ");
	*count = 0;
	for (const char *s = notes; *s; s++)
		*count += *s == '\n' || !s[1];
	if (v)
		while (v > notes && v[-1] != '\n')
			v--;
	*line = v ? v : notes;
	const char *e = strchr(*line, '\n');
	return e ? (int)(e - *line) : (int)strlen(*line);
}

/* path's base name into out, at most NAME_COLS columns: a longer one
 * keeps its start and its end (the extension that chose the format) about
 * a "~", cut on characters. */
enum { NAME_COLS = 28, NAME_HEAD = 12 };
static void short_name(const char *path, char *out, size_t n)
{
	const char *base = strrchr(path, '/');
	base = base && base[1] ? base + 1 : path;
	if (utf8_cols(base) <= NAME_COLS) {
		snprintf(out, n, "%s", base);
		return;
	}
	size_t head = utf8_cut_cols(base, NAME_HEAD);
	const char *tail = base + utf8_tail_cols(base, NAME_COLS - NAME_HEAD - 1);
	snprintf(out, n, "%.*s~%s", (int)head, base, tail);
}

int tui_export_launch(const struct tui *t, int id, const char *path, char *msg, size_t n,
		      int *warn, struct hp_err *err)
{
	const struct search_plan *sp = tui_plan_get(t, id);
	if (!sp || !t->cur)
		return hp_err_set(err, HP_EXIT_FAIL, "no plan to export yet");
	const struct cluster *c = &t->cur->c;
	const struct model_spec *m = &t->cur->m;
	const struct search_opts *o = &t->cur->o;
	if (id == TUI_ID_EDITED)
		tui_planedit_inputs(t, &c, &m, &o);
	if (launch_check(sp, c, m, err) < 0)
		return -1;
	int row = launch_ext_row(path);
	char *text, *notes;
	size_t len;
	if (launch_render(c, m, &sp->plan, launch_exts[row].fmt, model_train_tokens(m, o->tokens),
			  HETPLAN_VERSION, &text, &len, &notes, err) < 0)
		return -1;
	int rc = hp_write_file_atomic(path, text, len, err);
	if (rc == 0) {
		const char *line;
		int count, ln = launch_shown_note(notes, &line, &count);
		*warn = count > 0;
		/* a short "wrote FILE" first, then the verdict: an 80-column
		 * status line cuts the end, and both must show there (with the
		 * notes first, a long note hid whether the file was written);
		 * the file's name alone (the path is the part the user typed),
		 * cut in its middle when long so the verdict still shows */
		char base[128];
		short_name(path, base, sizeof base);
		if (count)
			snprintf(msg, n, "wrote %s; %d note%s: %.*s; format: %s", base, count,
				 count == 1 ? "" : "s", ln, line, launch_exts[row].what);
		else
			snprintf(msg, n, "wrote %s (%s)", base, launch_exts[row].what);
	}
	free(text);
	free(notes);
	return rc;
}
