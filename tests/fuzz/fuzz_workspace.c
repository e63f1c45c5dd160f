/* fuzz_workspace.c — workspace JSON, then (for small clusters) the search
 * and every report format, as `hetplan report` runs them; each report
 * must be valid UTF-8. */
#include "fuzz.h"
#include "report.h"
#include "utf8.h"
#include "workspace.h"

/* Every report is UTF-8 (RFC 3629): a name cut inside a character by a
 * bounded buffer is no longer text to a browser, a spreadsheet or a JSON
 * parser. */
static void fw_utf8(const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		int k = s[i] ? utf8_len(s + i, NULL) : 1;
		if (!k)
			abort();
		i += (size_t)k;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fuzz_text(data, size);
	struct workspace *w = xcalloc(1, sizeof *w);
	struct hp_err err = { 0 };
	if (workspace_parse(w, s, size, "fuzz.json", fuzz_catalog(), &err) == 0 &&
	    /* The search's cost grows fast with GPUs and pools: two pools
	     * of 8 GPUs took 3.7 s in a release build, two of 4 took 0.1 s
	     * released and 2.2 s under ASan + UBSan (corpus file
	     * timeout-8gpus.json); a fuzz input must finish well under
	     * libFuzzer's 2 s timeout, so the search runs up to 4 GPUs. */
	    cluster_total_gpus(&w->cluster) <= 4 && w->model.layers <= 64) {
		struct search_result res;
		w->opts.top_k = HP_MIN(HP_MAX(w->opts.top_k, 1), 3);
		memset(&res, 0, sizeof res);
		if (search_run(&w->cluster, &w->model, &w->opts, &res, &err) == 0) {
			struct report_input in = { &w->cluster, &w->model, &w->opts, &res, 0,
						   1764547200, "fuzz", NULL };
			for (int f = REPORT_MD; f <= REPORT_CSV; f++) {
				char *out = NULL;
				size_t len = 0;
				if (report_render(&in, (enum report_format)f, &out, &len, &err) == 0) {
					fw_utf8(out, len);
					free(out);
				}
			}
		}
		search_result_free(&res);
	}
	free(w);
	if (err.code)   /* a name cut inside a character (fuzz.h) */
		fuzz_msg_whole(s, size, err.msg);
	free(s);
	return 0;
}
