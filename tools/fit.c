/* fit.c — refit perf.c's constants against the measured runs, and say
 * how well the model predicts sources it was not fitted to.
 *
 *   make fit    prints the fitted constants, every constant that ends on
 *               a bound of its range, and the leave-one-source-out table:
 *               for each source group, refit without it and predict it.
 *   build/tools/fit [passes] --write
 *               also writes the fitted values into data/calibration.json
 *               (atomically; everything else in the file is kept), the
 *               file the binary embeds at its next build.
 *
 * See tests/fit_core.h for the loss and the weights. */
#include "fit_core.h"

#include <cjson/cJSON.h>

/* Write k's values of the fitted constants into the calibration file. */
static int write_values(const char *path, const struct perf_calib *k)
{
	struct hp_err err = { 0 };
	size_t len;
	char *text = hp_read_file(path, &len, &err);
	cJSON *root = text ? cJSON_ParseWithLength(text, len) : NULL;
	free(text);
	cJSON *cs = root ? cJSON_GetObjectItemCaseSensitive(root, "constants") : NULL;
	if (!cJSON_IsArray(cs)) {
		fprintf(stderr, "fit: %s: %s\n", path, err.msg[0] ? err.msg : "no \"constants\" array");
		cJSON_Delete(root);
		return -1;
	}
	int nc;
	const struct perf_const *ct = perf_const_table(&nc);
	cJSON *c;
	cJSON_ArrayForEach(c, cs) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(c, "name");
		for (int i = 0; i < nc; i++)
			if (ct[i].fitted && cJSON_IsString(name) && !strcmp(name->valuestring, ct[i].name))
				cJSON_ReplaceItemInObjectCaseSensitive(
					c, "value", cJSON_CreateNumber(*perf_const_ptr((struct perf_calib *)k, &ct[i])));
	}
	char *out = cJSON_Print(root);
	cJSON_Delete(root);
	size_t n = strlen(out);
	out[n] = '\n';   /* cJSON_Print's terminator becomes the final newline */
	int rc = hp_write_file_atomic(path, out, n + 1, &err);
	free(out);
	if (rc < 0)
		fprintf(stderr, "fit: %s\n", err.msg);
	return rc;
}

int main(int argc, char **argv)
{
	struct catalog cat;
	struct calib_row *rows;
	int n = rows_open("fit", &cat, &rows);
	if (n < 0)
		return 1;
	int passes = argc > 1 && strcmp(argv[1], "--write") ? atoi(argv[1]) : 16;
	int write = argc > 1 && !strcmp(argv[argc - 1], "--write");
	struct fit_set fs;
	fit_set_init(&fs, rows, n);
	struct perf_calib k = *perf_calib_default();
	fprintf(stderr, "start loss %.5f\n", fit_loss(&fs, &k, -1));
	double l = fit_run(&fs, &k, -1, passes);
	fprintf(stderr, "fitted loss %.5f\n", l);
	int nc;
	const struct perf_const *ct = perf_const_table(&nc);
	printf("%-22s %12s %12s %12s  %s\n", "constant", "value", "lo", "hi", "note");
	int n_bound = 0;
	for (int i = 0; i < nc; i++) {
		double v = *perf_const_ptr(&k, &ct[i]);
		int on_lo = ct[i].fitted && v <= ct[i].lo * (1 + 1e-9);
		int on_hi = ct[i].fitted && v >= ct[i].hi * (1 - 1e-9);
		printf("%-22s %12.5g %12.5g %12.5g  %s\n", ct[i].name, v, ct[i].lo, ct[i].hi,
		       !ct[i].fitted ? "set" : on_lo ? "ON LOWER BOUND" : on_hi ? "ON UPPER BOUND" : "fitted");
		if (on_lo || on_hi) {
			n_bound++;
			printf("%24s why: %s\n", "", ct[i].on_bound ? ct[i].on_bound
					      : "NO REASON WRITTEN (add one to perf_const_table)");
		}
	}
	printf("%d constants on a bound\n", n_bound);
	if (write) {
		if (write_values("data/calibration.json", &k) < 0)
			return 1;
		printf("data/calibration.json: fitted values written\n");
	}
	printf("\n%-6s %5s %10s %10s %10s\n", "group", "rows", "in-sample", "held-out", "max(held)");
	for (int g = 0; g < fs.n_groups; g++) {
		if (!strcmp(fs.group[g], "MEM"))
			continue;
		double mx_in, mx_out;
		int cnt;
		double in = fit_group_mape(&fs, &k, g, 0, &mx_in, &cnt);
		struct perf_calib kg = *perf_calib_default();
		fit_run(&fs, &kg, g, passes);
		double out = fit_group_mape(&fs, &kg, g, 0, &mx_out, &cnt);
		printf("%-6s %5d %9.1f%% %9.1f%% %9.1f%%\n", fs.group[g], cnt, in, out, mx_out);
		fflush(stdout);
	}
	fit_set_done(&fs);
	return 0;
}
