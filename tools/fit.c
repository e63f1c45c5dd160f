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
 *   build/tools/fit [passes] --hold NAME ...
 *               keeps constant NAME at its shipped value (repeatable): a
 *               refit of the others, e.g. with a pair that parks on its
 *               bounds held where the last written fit left it.
 *   build/tools/fit [passes] --pull NAME
 *               after the fit, which rows pull constant NAME which way:
 *               each fitted row's share of the loss gradient in log NAME
 *               (2 w e dlog(p)/dlog(NAME), e = log(predicted/measured)),
 *               every row it moves, strongest upward pull first, and the
 *               sum per source group (no leave-one-source-out table).
 *               With passes 0, at the shipped values.
 *   build/tools/fit [passes] --moves GROUP
 *               what leaving source group GROUP out does to the fit, as
 *               the leave-one-source-out table does it (a refit from the
 *               shipped values without the group): every fitted constant
 *               that moves, shipped -> refit and the change in percent,
 *               then the group's rows under both (no other output).
 *
 * See tests/fit_core.h for the loss and the weights. */
#include "fit_core.h"
#include <ctype.h>

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

/* Which rows pull constant `name` up or down at k (see the head comment). */
static int print_pull(const struct fit_set *fs, const struct perf_calib *k, const char *name)
{
	int nc, ci = -1;
	const struct perf_const *ct = perf_const_table(&nc);
	for (int i = 0; i < nc; i++)
		if (!strcmp(ct[i].name, name))
			ci = i;
	if (ci < 0) {
		fprintf(stderr, "fit: --pull %s: no such constant (data/calibration.json names them)\n",
			name);
		return -1;
	}
	struct pull { int row; double e, el, g; } *pl = calloc((size_t)fs->n, sizeof *pl);
	if (!pl) {
		fprintf(stderr, "fit: --pull: out of memory\n");
		return -1;
	}
	double gsum[FIT_MAX_GROUPS] = { 0 }, wsum = 0, tot = 0;
	int np = 0;
	struct perf_calib kh = *k;
	double *vh = perf_const_ptr(&kh, &ct[ci]), v0 = *vh;
	const double h = 1e-3;
	*vh *= 1 + h;
	for (int i = 0; i < fs->n; i++)
		wsum += fs->w[i] > 0 ? fs->w[i] : 0;
	for (int i = 0; i < fs->n; i++) {
		if (fs->w[i] <= 0)
			continue;
		double p = row_predict(&fs->rows[i], k), ph = row_predict(&fs->rows[i], &kh);
		if (!(p > 0) || !(ph > 0))
			continue;
		double e = log(p / fs->rows[i].measured), el = log(ph / p) / log1p(h);
		double g = 2 * fs->w[i] * e * el / wsum;
		pl[np++] = (struct pull){ i, e, el, g };
		gsum[fs->gi[i]] += g;
		tot += g;
	}
	/* sort by g, most negative (raising the constant lowers the loss) first */
	for (int i = 1; i < np; i++)
		for (int j = i; j > 0 && pl[j].g < pl[j - 1].g; j--) {
			struct pull t = pl[j];
			pl[j] = pl[j - 1];
			pl[j - 1] = t;
		}
	printf("\npull on %s = %.5g (range %.5g..%.5g): dloss/dlog(value) %+.3e "
	       "(negative: a higher value fits better)\n", name, v0, ct[ci].lo, ct[ci].hi, tot);
	printf("%-12s %-8s %8s %10s %11s\n", "row", "conf", "error", "dlogp/dlogv", "pull");
	for (int i = 0; i < np; i++) {
		const struct calib_row *r = &fs->rows[pl[i].row];
		if (pl[i].g == 0)
			continue;
		printf("%-12s %-8.8s %+7.1f%% %10.3f %+11.3e\n", r->id, r->conf,
		       100 * expm1(pl[i].e), pl[i].el, pl[i].g);
	}
	printf("\n%-8s %11s\n", "group", "pull");
	for (int g = 0; g < fs->n_groups; g++)
		if (gsum[g] != 0)
			printf("%-8s %+11.3e\n", fs->group[g], gsum[g]);
	free(pl);
	return 0;
}

/* What the leave-one-source-out refit without group `name` moves (see the
 * head comment): the refit starts from the shipped values, as the table's
 * does, so the two figures it prints for the group are that table's
 * in-sample and held-out rows. */
static int print_moves(const struct fit_set *fs, const char *name, int passes)
{
	int g = -1;
	for (int i = 0; i < fs->n_groups; i++)
		if (!strcmp(fs->group[i], name))
			g = i;
	if (g < 0) {
		fprintf(stderr, "fit: --moves %s: no such source group (the table's first column "
			"names them)\n", name);
		return -1;
	}
	const struct perf_calib *k0 = perf_calib_default();
	struct perf_calib kg = *k0;
	fit_run(fs, &kg, g, passes);
	int nc;
	const struct perf_const *ct = perf_const_table(&nc);
	printf("refit without %s, from the shipped values (%d passes)\n", name, passes);
	printf("%-22s %12s %12s %9s\n", "constant", "shipped", "refit", "change");
	for (int i = 0; i < nc; i++) {
		if (!ct[i].fitted)
			continue;
		double v0 = *perf_const_ptr((struct perf_calib *)k0, &ct[i]);
		double v1 = *perf_const_ptr(&kg, &ct[i]);
		if (v1 == v0)
			continue;
		if (v0 != 0)
			printf("%-22s %12.5g %12.5g %+8.1f%%\n", ct[i].name, v0, v1,
			       100.0 * (v1 - v0) / v0);
		else
			printf("%-22s %12.5g %12.5g %9s\n", ct[i].name, v0, v1, "from 0");
	}
	printf("\n%-12s %-8s %12s %12s %9s %9s\n", "row", "conf", "measured", "refit", "shipped",
	       "refit");
	for (int i = 0; i < fs->n; i++) {
		const struct calib_row *r = &fs->rows[i];
		if (fs->gi[i] != g || !r->usable || r->kind != ROW_TIME)
			continue;
		double p0 = row_predict(r, k0), p1 = row_predict(r, &kg);
		printf("%-12s %-8.8s %12.4g %12.4g %+8.1f%% %+8.1f%%\n", r->id, r->conf, r->measured,
		       p1, 100.0 * (p0 - r->measured) / r->measured,
		       100.0 * (p1 - r->measured) / r->measured);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct catalog cat;
	struct calib_row *rows;
	int n = rows_open("fit", &cat, &rows);
	if (n < 0)
		return 1;
	int passes = 16, write = 0, n_hold = 0;
	const char *pull = NULL, *moves = NULL, *hold[16];
	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "--write")) {
			write = 1;
		} else if (!strcmp(argv[a], "--pull") && a + 1 < argc) {
			pull = argv[++a];
		} else if (!strcmp(argv[a], "--moves") && a + 1 < argc) {
			moves = argv[++a];
		} else if (!strcmp(argv[a], "--hold") && a + 1 < argc && n_hold < 16) {
			hold[n_hold++] = argv[++a];
		} else if (isdigit((unsigned char)argv[a][0])) {
			passes = atoi(argv[a]);
		} else {
			fprintf(stderr, "usage: fit [passes] [--write] [--hold CONSTANT]... [--pull CONSTANT]"
				" [--moves GROUP]\n");
			return 2;
		}
	}
	struct fit_set fs;
	fit_set_init(&fs, rows, n);
	int nct;
	const struct perf_const *cti = perf_const_table(&nct);
	for (int h = 0; h <= n_hold; h++) {
		const char *name = h < n_hold ? hold[h] : pull;
		int found = 0;
		for (int i = 0; name && i < nct; i++)
			if (!strcmp(cti[i].name, name)) {
				found = 1;
				if (h < n_hold && i < FIT_MAX_CONSTS)
					fs.hold[i] = 1;
			}
		if (name && !found) {
			fprintf(stderr, "fit: --%s %s: no such constant (data/calibration.json "
				"names them)\n", h < n_hold ? "hold" : "pull", name);
			fit_set_done(&fs);
			return 2;
		}
	}
	if (moves) {
		int rc = print_moves(&fs, moves, passes);
		fit_set_done(&fs);
		return rc < 0 ? 2 : 0;
	}
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
		       !ct[i].fitted ? "set" : on_lo ? "ON LOWER BOUND" : on_hi ? "ON UPPER BOUND"
		       : i < FIT_MAX_CONSTS && fs.hold[i] ? "held" : "fitted");
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
	if (pull) {
		int rc = print_pull(&fs, &k, pull);
		fit_set_done(&fs);
		return rc < 0 ? 2 : 0;
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
