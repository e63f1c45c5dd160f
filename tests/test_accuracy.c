/* test_accuracy.c — hetplan's predictions against measured training runs.
 *
 * Rows: tests/data/training.csv (a copy of the team's calibration set: 82
 * runs from papers and vendor tables, each graded CONF:high ... low). Each
 * row with a complete configuration is run through perf_estimate and
 * compared with its measured step time or peak memory (see calib_rows.h
 * for how the measured value is derived from the source's own numbers).
 *
 * Asserted (issue acceptance): every CONF:high step-time row within +-15%,
 * mean absolute error over them <= 10%; every memory row with a complete
 * configuration within +-15% (see below for the rule on incomplete ones). The
 * table of every row is printed and copied into README.md. */
#include "t.h"
#include "calib_rows.h"

static struct catalog cat;
static struct calib_row *rows;
static int n_rows;

/* Memory rows are held to +-15% when every column that sets the memory is
 * known: stated in the CSV, or settled by the source or the row's own
 * logged numbers as calib_rows.h documents row by row (the BLOOM pre-flight
 * rows BL-02..08: vocab, recompute, heads and the optimizer build). A row
 * with a column still unknown (r->guessed) is printed with its error and
 * marked EXCLUDED with the columns; the rule is mechanical, the same for a
 * row that happens to land inside the band and one that does not. */

static double err_pct(double pred, double meas) { return 100.0 * (pred - meas) / meas; }

TEST(table_and_bounds)
{
	double sum_high = 0, max_high = 0;
	int n_high = 0;
	double sum_other = 0;
	int n_other = 0, n_mem = 0, n_mem_excl = 0;
	double sum_mem = 0, max_mem = 0;
	printf("%-10s %-6s %-28s %12s %12s %8s\n", "row", "conf", "model", "predicted",
	       "measured", "error");
	for (int i = 0; i < n_rows; i++) {
		struct calib_row *r = &rows[i];
		if (!r->usable) {
			printf("%-10s %-6.6s %-28.28s skipped: %s\n", r->id, r->conf, r->model_name,
			       r->skip);
			continue;
		}
		double pred = row_predict(r, NULL);
		double e = err_pct(pred, r->measured);
		if (r->kind == ROW_MEMORY) {
			int excluded = r->guessed[0] != '\0';
			printf("%-10s %-6.6s %-28.28s %9.1f GiB %9.1f GiB %+7.1f%%", r->id, r->conf,
			       r->model_name, pred / 1073741824.0, r->measured / 1073741824.0, e);
			if (excluded) {
				printf("  EXCLUDED: configuration incomplete (not stated:%s)\n",
				       r->guessed);
				n_mem_excl++;
				continue;
			}
			printf("\n");
			n_mem++;
			sum_mem += fabs(e);
			if (fabs(e) > max_mem)
				max_mem = fabs(e);
			if (!(fabs(e) <= 15))
				T_FAILF("%s: memory off by %+.1f%% (bound 15%%)", r->id, e);
			continue;
		}
		printf("%-10s %-6.6s %-28.28s %10.2f s %10.2f s %+7.1f%%\n", r->id, r->conf,
		       r->model_name, pred, r->measured, e);
		if (!strcmp(r->conf, "high")) {
			n_high++;
			sum_high += fabs(e);
			if (fabs(e) > max_high)
				max_high = fabs(e);
			if (fabs(e) > 15)
				T_FAILF("%s: step time off by %+.1f%% (bound 15%%)", r->id, e);
		} else {
			n_other++;
			sum_other += fabs(e);
		}
	}
	printf("\nCONF:high step-time rows: %d, mean |error| %.1f%%, max %.1f%%\n", n_high,
	       n_high ? sum_high / n_high : 0, max_high);
	printf("other step-time rows: %d, mean |error| %.1f%%\n", n_other,
	       n_other ? sum_other / n_other : 0);
	printf("memory rows: %d held to +-15%%, mean |error| %.1f%%, max %.1f%%, %d excluded (configuration incomplete)\n",
	       n_mem, n_mem ? sum_mem / n_mem : 0, max_mem, n_mem_excl);
	CHECK(n_high >= 25);
	CHECK(n_mem >= 3);
	CHECK(n_high && sum_high / n_high <= 10.0);
}

int main(void)
{
	struct hp_err err = { 0 };
	if (catalog_load(&cat, "/nonexistent", &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	n_rows = rows_load(&cat, "tests/data/training.csv", &rows);
	if (n_rows <= 0) {
		fprintf(stderr, "tests/data/training.csv: cannot read\n");
		return 1;
	}
	RUN(table_and_bounds);
	for (int i = 0; i < n_rows; i++)
		plan_free(&rows[i].plan);
	free(rows);
	catalog_done(&cat);
	return t_done("accuracy");
}
