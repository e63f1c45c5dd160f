/* test_accuracy.c — hetplan's predictions against measured training runs,
 * in sample and cross-validated by source.
 *
 * Rows: tests/data/training.csv (82 runs from papers and vendor tables,
 * graded CONF:high ... low) and tests/data/vtrain-a100-single.csv (320
 * small GPT models on 2-8 A100s). calib_rows.h turns each into a cluster,
 * a model and a plan, and derives the measured step time or peak memory
 * from the source's own numbers.
 *
 * Printed: every row with a prediction, then the rows skipped and why,
 * then per source group the in-sample error and the leave-one-source-out
 * error: the constants refitted without the group (tests/fit_core.h), the
 * group predicted with them. That second figure is the one that says how
 * hetplan does on runs it never saw.
 *
 * Asserted (issue acceptance, the numbers in README's Accuracy table):
 *  - cross-validated step-time MAPE over the CONF:high rows <= 12%, with
 *    no source group's CONF:high rows above 20%;
 *  - the vTrain single-node rows within 12% MAPE with the shipped
 *    constants;
 *  - every memory row with a complete configuration within +-15%. */
#include "t.h"
#include "fit_core.h"

static struct catalog cat;
static struct calib_row *rows;
static int n_rows;

static double err_pct(double pred, double meas) { return 100.0 * (pred - meas) / meas; }

/* Print one row; returns its signed error. */
static double print_row(const struct calib_row *r)
{
	double pred = row_predict(r, NULL);
	double e = err_pct(pred, r->measured);
	if (r->kind == ROW_MEMORY)
		printf("%-10s %-6.6s %-28.28s %9.1f GiB %9.1f GiB %+7.1f%%%s\n", r->id, r->conf,
		       r->model_name, pred / 1073741824.0, r->measured / 1073741824.0, e,
		       r->guessed[0] ? "  EXCLUDED: configuration incomplete" : "");
	else
		printf("%-10s %-6.6s %-28.28s %10.3f s %10.3f s %+7.1f%%\n", r->id, r->conf,
		       r->model_name, pred, r->measured, e);
	return e;
}

/* The five summary lines, as printed (docs_state_the_measurement). */
static char summary[5][160];

TEST(rows_and_memory)
{
	double sum_high = 0, max_high = 0, sum_mem = 0, max_mem = 0, sum_other = 0;
	int n_high = 0, n_mem = 0, n_other = 0;
	printf("%-10s %-6s %-28s %12s %12s %8s\n", "row", "conf", "model", "predicted",
	       "measured", "error");
	for (int i = 0; i < n_rows; i++) {
		const struct calib_row *r = &rows[i];
		if (!r->usable || (!strncmp(r->id, "VT-", 3) && i % 8))
			continue;   /* every eighth vTrain row is printed */
		double e = fabs(print_row(r));
		if (r->kind == ROW_MEMORY) {
			if (r->guessed[0] || r->extra)
				continue;   /* printed, not held to the bound */
			n_mem++;
			sum_mem += e;
			max_mem = fmax(max_mem, e);
			if (!(e <= 15))
				T_FAILF("%s: memory off by %.1f%% (bound 15%%)", r->id, e);
		} else if (!strcmp(r->conf, "high") && strncmp(r->id, "VT-", 3) && !r->extra) {
			n_high++;
			sum_high += e;
			max_high = fmax(max_high, e);
		} else if (strncmp(r->id, "VT-", 3) && !r->extra) {
			n_other++;
			sum_other += e;
		}
	}
	printf("\nskipped rows (no prediction):\n");
	for (int i = 0; i < n_rows; i++)
		if (!rows[i].usable)
			printf("  %-10s %s\n", rows[i].id, rows[i].skip);
	snprintf(summary[0], sizeof summary[0],
		 "CONF:high step-time rows: %d, mean |error| %.1f%%, max %.1f%%", n_high,
		 n_high ? sum_high / n_high : 0, max_high);
	snprintf(summary[1], sizeof summary[1], "other step-time rows: %d, mean |error| %.1f%%",
		 n_other, n_other ? sum_other / n_other : 0);
	snprintf(summary[2], sizeof summary[2],
		 "memory rows: %d held to +-15%%, mean |error| %.1f%%, max %.1f%%", n_mem,
		 n_mem ? sum_mem / n_mem : 0, max_mem);
	printf("\n%s\n%s\n%s\n", summary[0], summary[1], summary[2]);
	CHECK(n_high >= 25);
	CHECK(n_mem >= 3);
}

/* In sample and leave-one-source-out, per source group. */
TEST(cross_validated_by_source)
{
	struct fit_set fs;
	fit_set_init(&fs, rows, n_rows);
	const struct perf_calib *k0 = perf_calib_default();
	double cv_sum_high = 0, worst_group_high = 0;
	int cv_n_high = 0;
	double vt_in = -1;
	printf("\n%-6s %5s %10s %10s %10s %12s\n", "group", "rows", "in-sample", "held-out",
	       "max(held)", "high(held)");
	for (int g = 0; g < fs.n_groups; g++) {
		if (!strcmp(fs.group[g], "MEM"))
			continue;
		double mx_in, mx_out, mx_h;
		int cnt, cnt_h;
		double in = fit_group_mape(&fs, k0, g, 0, &mx_in, &cnt);
		struct perf_calib kg = *k0;
		fit_run(&fs, &kg, g, 8);
		double out = fit_group_mape(&fs, &kg, g, 0, &mx_out, &cnt);
		double out_h = fit_group_mape(&fs, &kg, g, 1, &mx_h, &cnt_h);
		printf("%-6s %5d %9.1f%% %9.1f%% %9.1f%%", fs.group[g], cnt, in, out, mx_out);
		if (cnt_h)
			printf(" %5.1f%% (%d)", out_h, cnt_h);
		printf("\n");
		fflush(stdout);
		if (!strcmp(fs.group[g], "VT")) {
			vt_in = in;
			continue;   /* judged on its own below */
		}
		if (cnt_h) {
			cv_sum_high += out_h * cnt_h;
			cv_n_high += cnt_h;
			worst_group_high = fmax(worst_group_high, out_h);
		}
	}
	double cv = cv_n_high ? cv_sum_high / cv_n_high : 0;
	snprintf(summary[3], sizeof summary[3],
		 "cross-validated CONF:high step time: %d rows, MAPE %.1f%%, worst group %.1f%%",
		 cv_n_high, cv, worst_group_high);
	snprintf(summary[4], sizeof summary[4],
		 "vTrain single-node rows, shipped constants: MAPE %.1f%%", vt_in);
	printf("\n%s\n%s\n", summary[3], summary[4]);
	CHECK(cv_n_high >= 25);
	if (!(cv <= 12))
		T_FAILF("cross-validated CONF:high MAPE %.1f%% (bound 12%%)", cv);
	if (!(worst_group_high <= 20))
		T_FAILF("a source group's CONF:high rows held out: %.1f%% (bound 20%%)",
			worst_group_high);
	if (!(vt_in >= 0 && vt_in <= 12))
		T_FAILF("vTrain rows MAPE %.1f%% (bound 12%%)", vt_in);
	fit_set_done(&fs);
}

/* The framework that ran each blind row, from holdout_small.csv's
 * `framework` column (a framework row's name, framework.h, estimate-only
 * rows included; empty: the loader's choice). Returns the rows set, or
 * -1 with the failure reported. */
static int blind_frameworks(struct calib_row *b, int nb)
{
	static char names[40][1200], f[40][1200];
	FILE *in = fopen(small_files[0], "r");
	if (!in) {
		T_FAILF("%s: cannot open", small_files[0]);
		return -1;
	}
	int nn = csv_next_record(in, names, 40), col = -1, set = 0;
	for (int i = 0; i < nn; i++)
		if (!strcmp(names[i], "framework"))
			col = i;
	while (col >= 0) {
		int n = csv_next_record(in, f, 40);
		if (n < 0)
			break;
		if (n <= col || !f[col][0])
			continue;
		int fw = FW_ROWS;
		for (int k = 0; k < FW_ROWS; k++)
			if (!strcmp(f[col], framework_name((enum hp_framework)k)))
				fw = k;
		for (int i = 0; i < nb; i++)
			if (!strcmp(b[i].id, f[0]) && fw < FW_ROWS) {
				b[i].plan.framework = (enum hp_framework)fw;
				set++;
			}
		if (fw == FW_ROWS)
			T_FAILF("%s: %s: framework '%s' is no framework row", small_files[0], f[0],
				f[col]);
	}
	fclose(in);
	if (col < 0)
		T_FAILF("%s: no framework column", small_files[0]);
	return col < 0 ? -1 : set;
}

/* Lambda's benchmark script exported NCCL_P2P_DISABLE=1 before
 * run_squad.sh from 2022-10-16 (lambdal/deeplearning-benchmark 0a684b62,
 * pytorch/scripts/benchmark_pytorch.sh, benchmark_pytorch_bert_squad) to
 * 2023-02-06 (aad0d1cd comments it out). NCCL then moves every
 * intra-node byte through host memory (the SHM transport), over NVLink
 * machines too. The multi-GPU rows whose bert_*_squad values were
 * committed inside that window (pytorch-train-throughput-fp16.csv: the
 * V100 rows 357c49a7 2022-12-16, 2x RTX 3090 835c4479 2022-10-24,
 * 2x RTX 4090 f4b26687 2022-10-16 23:42, 2x RTX A6000 2a1c3745
 * 2022-12-15); the RTX 6000 Ada rows came after it (844ea0ca, fc6c1e01). */
static const char *const lambda_no_p2p[] = {
	"LBERT-06", "LBERT-07", "LBERT-08", "LBERT-24", "LBERT-25", "LBERT-26",
	"LBERT-09", "LBERT-29", "LBERT-10", "LBERT-30", "LBERT-11", "LBERT-28",
};

static void blind_no_p2p(struct calib_row *b, int nb)
{
	for (size_t k = 0; k < HP_ARRAY_LEN(lambda_no_p2p); k++)
		for (int i = 0; i < nb; i++)
			if (!strcmp(b[i].id, lambda_no_p2p[k]))
				for (int j = 0; j < b[i].cluster.n_pools; j++) {
					b[i].cluster.pools[j].intra = INTRA_PCIE;
					b[i].cluster.pools[j].gpu.no_p2p = 1;
				}
}

/* The blind rows of tests/data/holdout_small.csv (small models on V100
 * and workstation GPUs), recorded before hetplan first predicted them and
 * never fitted: printed with the shipped constants, per source and in
 * all. Asserted: every row loads and gets a prediction (the file is the
 * check; its error is reported, not bounded, so that no one tunes to it
 * row by row). */
TEST(blind_small_rows)
{
	struct calib_row *b;
	int nb = rows_load_small(&cat, &b);
	if (nb <= 0) {
		T_FAILF("tests/data/holdout_small.csv: no rows");
		return;
	}
	/* DeepLearningExamples' PyTorch BERT: PTBERT (21 rows, the 2020 code)
	 * and LBERT (30, Lambda's 2022 fork) */
	CHECK(blind_frameworks(b, nb) == 51);
	blind_no_p2p(b, nb);
	printf("\nblind rows (tests/data/holdout_small.csv, never fitted):\n");
	char grp[8][16];
	double gs[8] = { 0 }, gmax[8] = { 0 }, gsig[8] = { 0 };
	int gn[8] = { 0 }, ng = 0, n = 0, over30 = 0;
	double sum = 0, mx = 0;
	for (int i = 0; i < nb; i++) {
		if (!b[i].usable) {
			T_FAILF("%s: %s", b[i].id, b[i].skip);
			continue;
		}
		double e = print_row(&b[i]);
		if (!(fabs(e) < 1e9)) {
			T_FAILF("%s: no prediction", b[i].id);
			continue;
		}
		char g[16];
		row_group(&b[i], g, sizeof g);
		int k;
		for (k = 0; k < ng && strcmp(grp[k], g); k++)
			;
		if (k == ng && ng < 8)
			snprintf(grp[ng++], sizeof grp[0], "%s", g);
		if (k < 8) {
			gs[k] += fabs(e);
			gsig[k] += e;
			gmax[k] = fmax(gmax[k], fabs(e));
			gn[k]++;
		}
		sum += fabs(e);
		mx = fmax(mx, fabs(e));
		over30 += fabs(e) > 30;
		n++;
	}
	for (int k = 0; k < ng; k++)
		printf("blind group %s: %d rows, MAPE %.1f%%, mean signed %+.1f%%, max %.1f%%\n",
		       grp[k], gn[k], gs[k] / gn[k], gsig[k] / gn[k], gmax[k]);
	printf("blind rows: %d, MAPE %.1f%%, max %.1f%%, %d beyond 30%%\n", n, n ? sum / n : 0, mx,
	       over30);
	CHECK(n == nb);
	/* The loader reads the rows as their sources state them: Lambda's
	 * V100 BERT-large row is 57 sequences/s at batch 16, a step of
	 * 16 / 57 = 0.2807 s; the SQuAD head has 2 outputs beside BERT's
	 * 30,522-token embedding table (bert_config.json); DS3Lab's
	 * Megatron script runs without --fp16, so fp32. */
	for (int i = 0; i < nb; i++) {
		if (!strcmp(b[i].id, "LBERT-01")) {
			CHECK_NEAR(b[i].measured, 16.0 / 57.0, 1e-12);
			CHECK_EQ_INT(b[i].model.task_head, 2);
			CHECK_EQ_INT(b[i].model.vocab, 30522);
			CHECK_EQ_INT(b[i].plan.precision, HP_FP16);
		}
		if (!strcmp(b[i].id, "DSMEG-01"))
			CHECK_EQ_INT(b[i].plan.precision, HP_FP32);
	}
	for (int i = 0; i < nb; i++)
		plan_free(&b[i].plan);
	free(b);
}

/* What README.md and docs/accuracy.md say is what was just measured:
 * tools/accuracy_update.py writes them from this program's output. */
TEST(docs_state_the_measurement)
{
	static const char *const files[] = { "README.md", "docs/accuracy.md" };
	for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
		size_t len;
		struct hp_err err = { 0 };
		char *text = hp_read_file(files[f], &len, &err);
		if (!text) {
			T_FAILF("%s", err.msg);
			continue;
		}
		for (int i = 0; i < 5; i++)
			if (!summary[i][0] || !strstr(text, summary[i]))
				T_FAILF("%s lacks \"%s\" (run: build/tests/test_accuracy | "
					"python3 tools/accuracy_update.py)", files[f], summary[i]);
		free(text);
	}
}

/* Every constant inside its range, and the table complete. */
TEST(constants_in_range)
{
	int nc;
	const struct perf_const *ct = perf_const_table(&nc);
	struct perf_calib k = *perf_calib_default();
	CHECK(nc >= 15);
	for (int i = 0; i < nc; i++) {
		double v = *perf_const_ptr(&k, &ct[i]);
		if (!(v >= ct[i].lo && v <= ct[i].hi))
			T_FAILF("%s = %g outside [%g, %g]", ct[i].name, v, ct[i].lo, ct[i].hi);
		if (!ct[i].source || strlen(ct[i].source) < 20)
			T_FAILF("%s has no source", ct[i].name);
	}
}


/* The calibration file: the embedded one loads whole; a hostile one is
 * refused with a message naming the entry. */
TEST(calibration_file)
{
	int nc;
	const struct perf_const *ct = perf_const_table(&nc);
	CHECK(nc >= 25);
	for (int i = 0; i < nc; i++)
		CHECK(ct[i].unit && ct[i].source && ct[i].lo <= ct[i].hi);
	static const char gens[] =
		"\"generations\": {\"other\": [1,1,1,1,1,1,1,1,1], \"volta\": [1,1,1,1,1,1,1,1,1],"
		" \"turing\": [1,1,1,1,1,1,1,1,1], \"ampere\": [1,1,1,1,1,1,1,1,1], \"ada\": [1,1,1,1,1,1,1,1,1],"
		" \"hopper\": [1,1,1,1,1,1,1,1,1], \"blackwell\": [1,1,1,1,1,1,1,1,1], \"cdna\": [1,1,1,1,1,1,1,1,1],"
		" \"gaudi\": [null,1,1,1,1,1,1,1,1], \"cdna4\": [1,1,1,1,1,1,1,1,1]}";
	static const struct { const char *constants, *want; } bad[] = {
		{ "[]", "given nowhere" },
		{ "[{\"name\": \"gaudi.gemm16\", \"value\": 2, \"range\": [0, 1], \"unit\": \"u\","
		  " \"fitted\": true, \"source\": \"s\"}]", "outside its range" },
		{ "[{\"name\": \"gaudi.gemm99\", \"value\": 1, \"range\": [0, 1], \"unit\": \"u\","
		  " \"fitted\": true, \"source\": \"s\"}]", "not a constant" },
		{ "[{\"name\": \"gaudi.gemm16\", \"value\": 1, \"range\": [0, 1], \"unit\": \"u\","
		  " \"fitted\": true, \"source\": \"s\"}, {\"name\": \"gaudi.gemm16\", \"value\": 1,"
		  " \"range\": [0, 1], \"unit\": \"u\", \"fitted\": true, \"source\": \"s\"}]", "given twice" },
		{ "[{\"name\": \"gaudi.gemm16\", \"value\": 1}]", "needs value, range" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[1200];
		snprintf(text, sizeof text, "{%s, \"constants\": %s}", gens, bad[i].constants);
		struct perf_calib k;
		struct perf_const *t;
		int n;
		struct hp_err err = { 0 };
		CHECK(perf_calib_parse(text, strlen(text), "x.json", &k, &t, &n, &err) < 0);
		CHECK(t == NULL && n == 0 && err.code == HP_EXIT_INPUT);
		if (!strstr(err.msg, bad[i].want) || !strstr(err.msg, "x.json"))
			T_FAILF("case %zu: \"%s\" lacks \"%s\"", i, err.msg, bad[i].want);
	}
	struct perf_calib k;
	struct perf_const *t;
	int n;
	struct hp_err err = { 0 };
	CHECK(perf_calib_parse("{\"generations\": 1", 17, "x.json", &k, &t, &n, &err) < 0);
}

/* Pipeline transfers as each framework runs them, on N21-T1-09 (GPT
 * 530B, TP 8, PP 35, one micro-batch of 2,048 tokens, h 20,480, fp16,
 * no sequence parallelism). A stage's output is b x s x h x 2 bytes =
 * 2,048 x 20,480 x 2 = 83,886,080 bytes; Megatron-LM 2021 sends 1/8 of
 * it from each TP rank (scatter/gather, SC21 Sec. 4.1): 10,485,760 bytes.
 * DeepSpeed's PipelineEngine sends 1/8 too: with model parallelism each
 * TP rank keeps and sends its PartitionedTensor slice of the output and
 * of its gradient (deepspeed/runtime/pipe/engine.py @29bee73f0:
 * is_pipe_partitioned = is_grad_partitioned = is_model_parallel). Its send
 * and receive are two blocking calls (deepspeed/runtime/pipe/p2p.py):
 * twice the paired exchange's time on a pipeline without TP. An fp32 run
 * sends 4-byte elements: 2,048 x 20,480 x 4 / 8 = 20,971,520 bytes. */
TEST(pipeline_transfers_as_frameworks_run_them)
{
	const struct calib_row *r = NULL;
	for (int i = 0; i < n_rows; i++)
		if (!strcmp(rows[i].id, "N21-T1-09"))
			r = &rows[i];
	if (!r || !r->usable) {
		T_FAILF("row N21-T1-09 missing");
		return;
	}
	struct plan p;
	plan_init(&p);
	plan_copy(&p, &r->plan);
	struct estimate e;
	struct hp_err err = { 0 };
	static const struct { enum hp_framework fw; double bytes; } cases[] = {
		{ FW_MEGATRON_LM, 10485760.0 }, { FW_DEEPSPEED, 10485760.0 },
		{ FW_MEGATRON_CORE, 83886080.0 }, { FW_DEEPSPEED, 20971520.0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		p.framework = cases[i].fw;
		p.precision = i == 3 ? HP_FP32 : r->plan.precision;
		CHECK(perf_estimate(&r->cluster, &r->model, &p, NULL, &e, &err) == 0);
		if (e.comm[DIM_PP].bytes != cases[i].bytes)
			T_FAILF("%s: PP message %.0f bytes, want %.0f", framework_name(cases[i].fw),
				e.comm[DIM_PP].bytes, cases[i].bytes);
		estimate_free(&e);
	}
	/* Without TP there is nothing to scatter: DeepSpeed's exposed PP time
	 * is twice Megatron-Core's, message for message. */
	struct plan q;
	plan_init(&q);
	struct hp_err e2 = { 0 };
	CHECK(plan_uniform(&q, &r->cluster, &r->model, 0, 1, 4, 1, &e2) == 0);
	q.mbs = 1;
	q.gbs = 8;
	q.sp = 0;
	q.flash = 0;
	q.precision = HP_FP16;
	double pp[2];
	for (int i = 0; i < 2; i++) {
		q.framework = i ? FW_DEEPSPEED : FW_MEGATRON_CORE;
		CHECK(perf_estimate(&r->cluster, &r->model, &q, NULL, &e, &err) == 0);
		pp[i] = e.bd.pp_comm;
		estimate_free(&e);
	}
	if (!(pp[0] > 0 && fabs(pp[1] / pp[0] - 2) < 1e-9))
		T_FAILF("PP time deepspeed %g s, megatron-core %g s: want a ratio of 2", pp[1], pp[0]);
	plan_free(&p);
	plan_free(&q);
}

/* The dtype data-parallel gradients are reduced in, from each framework's
 * own code: Megatron's arguments.py turns --accumulate-allreduce-grads-
 * in-fp32 on by itself only for bf16 ("bfloat16 requires gradient
 * accumulation and all-reduce to be done in fp32"), so an fp16 run
 * reduces fp16 gradients; torchtitan reduces in fp32
 * (mixed_precision_reduce = "float32"); DeepSpeed reduces in the training
 * dtype unless fp32_allreduce, except bf16 without a ZeRO optimizer,
 * which it accumulates and so all-reduces in fp32 (runtime/engine.py
 * get_data_types: "if model_dtype == torch.bfloat16 and not
 * self.zero_optimization(): grad_accum_dtype = torch.float32"; these
 * plans are ZeRO 0). Checked as the DP bytes of one plan: the
 * gradients of N21-T1-01 (GPT 1.7B, fp16, TP 1: 1.7e9 parameters) all-
 * reduced as 2 or 4 bytes each. */
TEST(gradient_dtype_as_frameworks_reduce)
{
	const struct calib_row *r = NULL;
	for (int i = 0; i < n_rows; i++)
		if (!strcmp(rows[i].id, "N21-T1-01"))
			r = &rows[i];
	if (!r || !r->usable) {
		T_FAILF("row N21-T1-01 missing");
		return;
	}
	static const struct { enum hp_framework fw; enum hp_dtype dt; int bytes; } cases[] = {
		{ FW_MEGATRON_LM, HP_FP16, 2 },   { FW_MEGATRON_LM, HP_BF16, 4 },
		{ FW_MEGATRON_CORE, HP_FP16, 2 }, { FW_MEGATRON_CORE, HP_BF16, 4 },
		{ FW_TORCHTITAN, HP_FP16, 4 },    { FW_DEEPSPEED, HP_BF16, 4 },
		{ FW_DEEPSPEED, HP_FP16, 2 },
	};
	struct plan p;
	plan_init(&p);
	plan_copy(&p, &r->plan);
	double per_param[7];
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		p.framework = cases[i].fw;
		p.precision = cases[i].dt;
		p.zero = 0;
		CHECK_EQ_INT(plan_grad_fp32(&p), cases[i].bytes == 4);
		struct estimate e;
		struct hp_err err = { 0 };
		CHECK(perf_estimate(&r->cluster, &r->model, &p, NULL, &e, &err) == 0);
		per_param[i] = e.comm[DIM_DP].bytes;
		estimate_free(&e);
	}
	/* Same parameters every time: the bytes follow the dtype alone. */
	for (size_t i = 1; i < sizeof cases / sizeof *cases; i++)
		CHECK_NEAR(per_param[i] / per_param[0], cases[i].bytes / 2.0, 1e-9);
	CHECK_NEAR(per_param[0] / 2, 1.7e9, 0.05);
	plan_free(&p);
}

/* The usable row named id among set[0..n), or NULL (the test fails). */
static const struct calib_row *usable_in(const struct calib_row *set, int n, const char *id)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(set[i].id, id) && set[i].usable)
			return &set[i];
	T_FAILF("row %s missing", id);
	return NULL;
}

/* The usable calibration row named id, or NULL (the test fails). */
static const struct calib_row *usable_row(const char *id)
{
	return usable_in(rows, n_rows, id);
}

/* Stage 0's forward + backward compute on cluster c for row r's plan. */
static double stage0_compute(const struct cluster *c, const struct calib_row *r)
{
	struct estimate e;
	struct hp_err err = { 0 };
	if (perf_estimate(c, &r->model, &r->plan, NULL, &e, &err) != 0) {
		T_FAILF("%s: %s", r->id, err.msg);
		return NAN;
	}
	double t = e.stages[0].t_fwd + e.stages[0].t_bwd;
	estimate_free(&e);
	return t;
}

/* Megatron TP groups on a DGX-1 V100 hybrid cube-mesh reach only the
 * NVLinks among their members (`nvidia-smi topo -m` of a DGX-1: GPU0-1
 * one link, the quad 0-3 four links a GPU at the fewest; NCCL's 20 GB/s
 * per NVLink2 link). By hand, no recompute count from the code:
 *  - DLPERF-10 (TP 2, DP 4, MBS 4 = one micro-batch of GBS 16, 16 layers,
 *    full recompute: 6 all-reduces a layer, 96 a step) all-reduces
 *    4 x 2,048 x 1,536 x 2 B = 25,165,824 B; a ring of 2 moves S a GPU:
 *    96 x 25,165,824 / 20e9 = 0.1208 s at one link;
 *  - DLPERF-09 (TP 4, DP 2, MBS 8, one micro-batch): S = 50,331,648 B,
 *    a ring of 4 moves 1.5 S a GPU: 96 x 1.5 x S / 80e9 = 0.0906 s.
 * The link-bound time is a floor; latency and the protocol may add up to
 * a quarter. At all six links (120 GB/s) they were 0.020 and 0.060 s. */
TEST(v100_mesh_tp_links)
{
	static const struct { const char *id; double bound_s; } cases[] = {
		{ "DLPERF-10", 96 * 25165824.0 / 20e9 },
		{ "DLPERF-09", 96 * 1.5 * 50331648.0 / 80e9 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct calib_row *r = usable_row(cases[i].id);
		if (!r)
			continue;
		struct estimate e;
		struct hp_err err = { 0 };
		if (perf_estimate(&r->cluster, &r->model, &r->plan, NULL, &e, &err) != 0) {
			T_FAILF("%s: %s", r->id, err.msg);
			continue;
		}
		double t = e.bd.tp_comm;
		estimate_free(&e);
		if (!(t >= cases[i].bound_s * 0.999 && t <= cases[i].bound_s * 1.25))
			T_FAILF("%s: TP time %.4f s, want %.4f-%.4f s (link bound)", cases[i].id, t,
				cases[i].bound_s, cases[i].bound_s * 1.25);
	}
}

/* A GPU held below its rated power: the firmware lowers the clock until
 * the board draws no more. Dynamic power C V^2 f falls at least in
 * proportion to f (V fixed) and at most as f^3 (V following f), so a
 * compute-bound kernel at a limit of P / TDP runs between (P / TDP) and
 * (P / TDP)^(1/3) of its rate at TDP, whatever the fitted exponent.
 * Checked on TT-01 (Llama 3.1 8B on 8 H100 held at 500 of 700 W): its
 * compute time between those bounds, and nothing changes at the rated
 * power or above it. */
TEST(power_limit_within_physics)
{
	const struct calib_row *r = usable_row("TT-01");
	if (!r)
		return;
	struct cluster c = r->cluster;
	double lim[3] = { 500, 0, 700 }, comp[3];
	for (int i = 0; i < 3; i++) {
		c.pools[0].gpu.power_limit_w = lim[i];
		comp[i] = stage0_compute(&c, r);
	}
	double ratio = comp[1] / comp[0], f = 500.0 / 700.0;
	if (!(ratio < pow(f, 1.0 / 3) && ratio > f))
		T_FAILF("compute at 500 W runs %.3f of its 700 W rate: want %.3f to %.3f",
			ratio, f, pow(f, 1.0 / 3));
	CHECK(comp[2] == comp[1]);
	CHECK(perf_calib_default()->power_clock_exp >= 1.0 / 3 - 1e-12 &&
	      perf_calib_default()->power_clock_exp <= 1);
}

/* A measured sustained square-GEMM rate (catalog gemm16_tflops_measured,
 * torch.mm at 8192 and 10240) sets a part's 16-bit GEMM rate against the
 * part its generation's gemm16 was fitted on (gen.square16), by hand:
 *  - T4, the turing reference: 24 of 65 TFLOP/s = 0.369231 of peak (NVIDIA
 *    developer forum 264462), so 65 x turing.gemm16 0.29 = 18.85 TFLOP/s,
 *    as without the measurement;
 *  - RTX 2080 Ti: 48.8 of 53.8 = 0.907 (TPD issue 181):
 *    53.8 x 0.29 x (0.907 / 0.369) = 38.35, exactly 0.29 x 48.8 / 0.369231
 *    = 38.33 TFLOP/s, 2.46x the 15.60 it had as a share of the T4's rate;
 *  - TITAN RTX: 49.7 of 130.5 = 0.381 (TPD issue 127): 0.29 x 49.7 /
 *    0.369231 = 39.03 TFLOP/s;
 *  - RTX 5090: 222 TFLOP/s measured, above its 209.5 datasheet peak
 *    (boost past the rated clock), counts as 1.0 of peak: the same rate
 *    as a measurement of exactly 209.5;
 *  - A10: 54 of 125 = 0.432 (chsasank/device-benchmarks) under ampere's
 *    reference A100 SXM4 cuBLASLt 253.7 of 312 = 0.813: x0.531.
 * On TT-01's H100 cluster: half the reference part's square rate halves
 * the compute-bound kernels' rate only, so the step's compute grows by
 * more than nothing and at most 2x (its memory-bound share keeps its
 * speed). The H100 SXM entry is the hopper reference itself: 702.3 of
 * 989.4 = 0.709824 (TPD issue 79). */
TEST(measured_gemm_rate_caps)
{
	const struct perf_calib *k = perf_calib_default();
	const struct gpu_spec *a10 = catalog_gpu(&cat, "A10");
	CHECK(a10 && a10->gemm16_meas == 54e12);
	CHECK(catalog_gpu(&cat, "RTX-3090")->gemm16_meas == 0);
	static const struct { const char *gpu; double tflops; } want[] = {
		{ "T4", 18.85 }, { "RTX-2080-Ti", 38.33 }, { "TITAN-RTX", 39.03 },
	};
	for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
		const struct gpu_spec *g = catalog_gpu(&cat, want[i].gpu);
		double got = g ? perf_gemm16_ceiling(k, g) / 1e12 : 0;
		if (fabs(got - want[i].tflops) > 0.01)
			T_FAILF("%s: 16-bit GEMM ceiling %.3f TFLOP/s, by hand %.2f", want[i].gpu, got,
				want[i].tflops);
	}
	struct gpu_spec g5 = *catalog_gpu(&cat, "RTX-5090");
	CHECK(g5.gemm16_meas == 222e12 && g5.flops[HP_FP16] == 209.5e12);
	double over = perf_gemm16_ceiling(k, &g5);
	g5.gemm16_meas = g5.flops[HP_FP16];
	CHECK(perf_gemm16_ceiling(k, &g5) == over);
	double a10_none_tf, a10_tf = perf_gemm16_ceiling(k, a10);
	struct gpu_spec a10n = *a10;
	a10n.gemm16_meas = 0;
	a10_none_tf = perf_gemm16_ceiling(k, &a10n);
	CHECK(fabs(a10_tf / a10_none_tf - 0.432 / 0.813) < 0.001);
	const struct gpu_spec *h100 = catalog_gpu(&cat, "H100-SXM");
	CHECK(fabs(h100->gemm16_meas / h100->flops[HP_FP16] - 0.709824) < 1e-6);
	CHECK(fabs(k->gen[GEN_HOPPER].square16 - 0.709824) < 1e-6);
	const struct calib_row *r = usable_row("TT-01");
	if (!r)
		return;
	struct cluster c = r->cluster;
	c.pools[0].gpu.power_limit_w = 0;
	const struct gpu_spec *g = &c.pools[0].gpu;
	double ref = g->flops[HP_FP16] * k->gen[g->gen].square16;
	double meas[3] = { 0, ref, 0.5 * ref }, comp[3];
	for (int i = 0; i < 3; i++) {
		c.pools[0].gpu.gemm16_meas = meas[i];
		comp[i] = stage0_compute(&c, r);
	}
	CHECK(fabs(comp[1] / comp[0] - 1) < 1e-9);
	CHECK(comp[2] > comp[0] && comp[2] <= 2 * comp[0]);
}

/* The pytorch-ddp row is apex DistributedDataParallel's own argument list
 * (NVIDIA/apex apex/parallel/distributed.py @47da14a0, __init__:
 * message_size=10000000, delay_allreduce=False, allreduce_always_fp32=
 * False) and its allreduce_bucket: flatten, mul_ and the copy back. The
 * copies by hand on PTBERT-03 (BERT-large on 8 V100-SXM2-16GB, fp16
 * gradients): 24 layers x 12,596,224 (4 x 1024^2 + 2 x 1024 x 4096
 * weights, 5 x 1024 + 4096 biases, two LayerNorms of 2 x 1024) +
 * 31,782,912 embeddings (30,522 + 512 + 2 rows of 1024) + 2,048 final
 * norm + 2,050 SQuAD head = 334.1 M parameters; 3 passes x (read +
 * write) x 2 bytes x 334.1 M = 4.01 GB over V100 HBM at 900 GB/s x
 * volta.hbm 0.85 = 765 GB/s: 5.24 ms, exposed with or without overlap.
 * Compared with the gradient overlap off on both sides (the all-reduce
 * then exposed in full), the rows differ by the copies alone. */
TEST(pytorch_ddp_as_apex_runs_it)
{
	for (int fw = FW_PYTORCH_DDP; fw <= FW_PYTORCH_DDP_2020; fw++) {
		const struct framework_info *f = framework_get((enum hp_framework)fw);
		CHECK(f->ddp_bucket_elems == 1e7);
		CHECK(f->grad_overlap == 1);
		CHECK(f->ddp_copy_passes == 3);
		CHECK(f->tp_overlap == 0 && f->param_overlap == 0);
		enum hp_framework out = FW_ANY;
		CHECK(framework_parse(f->name, &out) == -1 && out == FW_ANY);   /* estimate-only */
	}
	/* 2020's modeling.py hands permuted 4-D views to torch.matmul (copies);
	 * 2022's hands strided 3-D views to torch.bmm (none). */
	CHECK(framework_get(FW_PYTORCH_DDP_2020)->eager_qkv_copies == 1);
	CHECK(framework_get(FW_PYTORCH_DDP)->eager_qkv_copies == 0);
	struct calib_row *b;
	int nb = rows_load_small(&cat, &b);
	const struct calib_row *r = usable_in(b, nb, "PTBERT-03");
	if (r) {
		double dp[2];
		for (int k = 0; k < 2; k++) {
			struct plan p = r->plan;
			p.framework = k ? FW_PYTORCH_DDP_2020 : FW_MEGATRON_CORE;
			p.grad_overlap = 0;
			struct estimate e;
			struct hp_err err = { 0 };
			CHECK(perf_estimate(&r->cluster, &r->model, &p, NULL, &e, &err) == 0);
			dp[k] = e.bd.dp_comm;
			estimate_free(&e);
		}
		double copies = dp[1] - dp[0];
		if (!(copies > 5.24e-3 * 0.97 && copies < 5.24e-3 * 1.03))
			T_FAILF("PTBERT-03: apex bucket copies %.2f ms, want 5.24 +- 3%%", copies * 1e3);
	}
	for (int i = 0; i < nb; i++)
		plan_free(&b[i].plan);
	free(b);
}

/* The optimizer step's HBM bytes per local parameter, counted pass by pass
 * from the code each row ran (framework.c):
 *  - pytorch-ddp, apex O2's generic path (NVIDIA/apex @ab520f82): unscale
 *    fp16 -> new fp32 master grads 2 + 4; DLE's clipper's l2norm 4;
 *    FusedAdam (multi_tensor_adam) reads g, p, m, v 4 x 4 and writes p, m,
 *    v 3 x 4; master -> model copy 4 + 2; zero_grad 2: 6 + 4 + 28 + 6 + 2
 *    = 46.
 *  - pytorch-ddp-2020, apex of July 2019 (@47da14a0), amp's FusedAdam
 *    path: overflow l2norm over the fp16 grads 2; FusedAdam reads the fp16
 *    grad 2 and p, m, v 12, writes p, m, v 12 and the fp16 weight 2;
 *    zero_grad 2: 2 + 28 + 2 = 32.
 *  - deepspeed-0.3, FP16_Optimizer.step (microsoft/DeepSpeed @7d4d742
 *    runtime/fp16/fused_optimizer.py): the per-tensor overflow check
 *    float(x.float().sum()) 2 + 4 + 4; p.grad.to(fp32) 2 + 4; the flatten
 *    4 + 4; the flat norm 4; the unscale mul_ 4 + 4; apex FusedAdam 16 +
 *    12; the fp32 -> fp16 copy 4 + 2: 10 + 6 + 8 + 4 + 8 + 28 + 6 = 70
 *    (test_ds03.c checks the row's other counts).
 *  - hf-transformers, the HF Trainer of transformers @00349ae8 with torch
 *    2.8 (its default `optim` adamw_torch_fused): GradScaler.unscale_'s
 *    multi-tensor unscale 4 + 4; clip_grad_norm_'s norms 4 and scale
 *    4 + 4; torch._fused_adamw_ reads p, g, m, v 16 and writes p, m, v
 *    12; zero_grad sets None: 8 + 12 + 28 = 48. Its loop's era
 *    (transformers.AdamW, torch 1.x, the BLDSA runs, docs/volta.md 7.1):
 *    the same unscale and clip, AdamW.step's exp_avg.mul_ 4 + 4 and
 *    .add_ 4 + 4 + 4, exp_avg_sq.mul_ 4 + 4 and .addcmul_ 4 + 4 + 4 + 4,
 *    sqrt 4 + 4, add_(eps) 4 + 4, p.addcdiv_ 4 + 4 + 4 + 4 (76), and
 *    zero_grad's zero_ 4: 8 + 12 + 76 + 4 = 100; 7 AdamW launches a
 *    tensor, 2 for the per-tensor clip (norm, mul_) and 1 zero_: 10.
 *    torch's foreach AdamW (_multi_tensor_adamw @c15fcf4e): lerp_ 4 + 4 +
 *    4, mul_ 4 + 4, addcmul_ 16, sqrt 8, div_ 8, add_ 8, addcdiv_ 16 = 76:
 *    8 + 12 + 76 = 96.
 *  - hf-deepspeed at ZeRO 0 as counted (116, the Trainer's AdamW loop):
 *    with DeepSpeed's FusedAdam, 116 - 76 + 28 = 68; at ZeRO 1-2 (128 a
 *    shard parameter) 128 - 76 + 28 = 80, the count docs/hf-deepspeed.md
 *    gives for an "optimizer" section.
 *  - every other row, and fp32 runs: hetplan's earlier 30, not counted.
 * On PTBERT-01 (BERT-large, one V100-SXM2-16GB, fp16; 334,096,386
 * parameters, the count of pytorch_ddp_as_apex_runs_it below), at
 * 900 GB/s x volta.hbm 0.85 = 765 GB/s: 46 x 334,096,386 / 765e9 =
 * 20.09 ms, 32 x ... = 13.97 ms, 30 x ... = 13.10 ms. */
TEST(optimizer_bytes_as_frameworks_count)
{
	CHECK(framework_opt_bytes(FW_PYTORCH_DDP, 0) == 46);
	CHECK(framework_opt_bytes(FW_PYTORCH_DDP_2020, 0) == 32);
	CHECK(framework_opt_bytes(FW_DEEPSPEED_03, 0) == 70);
	CHECK(framework_opt_bytes(FW_HF_DEEPSPEED, 0) == 116);   /* test_hf_deepspeed.c */
	CHECK(framework_opt_bytes(FW_HF, 0) == 48);
	CHECK(framework_opt_bytes_impl(FW_HF, 0, OPT_IMPL_LOOP) == 100);
	CHECK(framework_opt_bytes_impl(FW_HF, 0, OPT_IMPL_FOREACH) == 96);
	CHECK(framework_opt_bytes_impl(FW_HF, 0, OPT_IMPL_FUSED) == 48);
	CHECK(framework_opt_launches(FW_HF, OPT_IMPL_LOOP) == 10);
	CHECK(framework_opt_launches(FW_HF, OPT_IMPL_FUSED) == 0);
	/* foreach: 1/64 + 1/110 + 1/48 + 1/64 + 1/96 + 1/110 + 1/48 = 0.1015 */
	CHECK(fabs(framework_opt_launches(FW_HF, OPT_IMPL_FOREACH) - 0.1015) < 0.0005);
	CHECK(framework_opt_bytes_impl(FW_HF_DEEPSPEED, 0, OPT_IMPL_FUSED) == 68);
	CHECK(framework_opt_step_bytes_impl(FW_HF_DEEPSPEED, 0, 1, OPT_IMPL_FUSED, 1, 0) == 80);
	CHECK(framework_opt_step_bytes_impl(FW_HF_DEEPSPEED, 0, 1, OPT_IMPL_LOOP, 1, 0) == 128);
	for (int f = 0; f < FW_ROWS; f++) {
		CHECK(framework_opt_bytes((enum hp_framework)f, 1) == 30);
		for (int i = 0; i < OPT_IMPL_COUNT; i++)   /* fp32: 30 whatever the step */
			CHECK(framework_opt_bytes_impl((enum hp_framework)f, 1, (enum hp_opt_impl)i) ==
			      30);
		if (f != FW_PYTORCH_DDP && f != FW_PYTORCH_DDP_2020 && f != FW_DEEPSPEED_03 &&
		    f != FW_HF_DEEPSPEED && f != FW_HF)
			CHECK(framework_opt_bytes((enum hp_framework)f, 0) == 30);
	}
	struct calib_row *b;
	int nb = rows_load_small(&cat, &b);
	const struct calib_row *r = usable_in(b, nb, "PTBERT-01");
	static const struct { enum hp_framework f; double ms; } want[] = {
		{ FW_PYTORCH_DDP, 20.09 }, { FW_PYTORCH_DDP_2020, 13.97 }, { FW_MEGATRON_CORE, 13.10 },
	};
	for (size_t k = 0; r && k < HP_ARRAY_LEN(want); k++) {
		struct plan p = r->plan;
		p.framework = want[k].f;
		struct estimate e;
		struct hp_err err = { 0 };
		CHECK(perf_estimate(&r->cluster, &r->model, &p, NULL, &e, &err) == 0);
		double ms = e.bd.optimizer * 1e3;
		if (!(fabs(ms - want[k].ms) < want[k].ms * 0.01))
			T_FAILF("PTBERT-01 as %s: optimizer %.2f ms, want %.2f +- 1%%",
				framework_name(want[k].f), ms, want[k].ms);
		estimate_free(&e);
	}
	for (int i = 0; i < nb; i++)
		plan_free(&b[i].plan);
	free(b);
}

/* InternLM's Hybrid Zero as configs/7B_sft.py and hybrid_zero_optim.py
 * @01e7fd61 run it: zero_overlap_communication True (gradient hooks and
 * ParamBcastSyncHandler), reduce_bucket_size 512 x 1024 x 1024 elements,
 * gradients reduced in the parameters' dtype, the updated shards
 * broadcast one owner at a time. The owners, walked by hand through
 * ParamBcastSyncHandler for InternLM 7B (32 layers of wqkv 4096 x 12288,
 * wo 4096 x 4096 and the gated MLP's w1, w3, w2 of 4096 x 11008, their
 * biases and norms; embedding and head 103,168 x 4096; 7.32e9 parameters
 * in all): over 1,024 ranks a share is 7.15 M, and 1.01 x that is passed
 * by every weight matrix alone, so each of them, the embedding and the
 * head opens a rank of its own (the biases and norms ride along, rank 0
 * is left empty): 1 + 32 x 5 + 1 = 162 owners. Over 8 ranks (915 M a
 * share) every rank owns some: 8. */
TEST(internlm_hybrid_zero)
{
	const struct framework_info *f = framework_get(FW_INTERNLM);
	CHECK(f->zero1_bcast == 1);
	CHECK(f->grad_reduce_fp32 == 0);
	CHECK(f->ddp_bucket_elems == 512.0 * 1024 * 1024);
	CHECK(f->grad_overlap == 1 && f->param_overlap == 1 && f->tp_overlap == 0);
	enum hp_framework out = FW_ANY;
	CHECK(framework_parse(f->name, &out) == -1 && out == FW_ANY);   /* estimate-only */
	CHECK(framework_parse_estimate("InternLM", &out) == 0 && out == FW_INTERNLM);
	CHECK(framework_parse_estimate("megatron", &out) == 0 && out == FW_MEGATRON_CORE);
	CHECK(framework_parse_estimate("internlm2", &out) == -1 && out == FW_MEGATRON_CORE);
	for (int k = 0; k < FW_ROWS; k++)
		CHECK(framework_get((enum hp_framework)k)->zero1_bcast == (k == FW_INTERNLM));
	CHECK(framework_bcast_owners(32, 1, 2, 1024) == 162);
	CHECK(framework_bcast_owners(32, 1, 2, 512) == 162);
	CHECK(framework_bcast_owners(32, 1, 2, 8) == 8);
	CHECK(framework_bcast_owners(0, 0, 0, 8) == 1);
	/* The broadcasts are what ZeRO-1 adds over plain DP on this row's
	 * DP time; with both overlaps off they are all exposed, and the
	 * megatron-core row's ZeRO-1 (reduce-scatter + all-gather) differs. */
	const struct calib_row *r = NULL;
	for (int i = 0; i < n_rows; i++)
		if (!r && rows[i].usable && rows[i].plan.n_replicas > 0 &&
		    rows[i].plan.replicas[0].count >= 16 && rows[i].plan.replicas[0].n_stages == 1)
			r = &rows[i];
	CHECK(r != NULL);
	if (r) {
		double dp[3];
		for (int k = 0; k < 3; k++) {
			struct plan p = r->plan;
			p.framework = k == 2 ? FW_MEGATRON_CORE : FW_INTERNLM;
			p.zero = k == 0 ? 0 : 1;
			p.grad_overlap = p.param_overlap = 0;
			struct estimate e;
			struct hp_err err = { 0 };
			CHECK(perf_estimate(&r->cluster, &r->model, &p, NULL, &e, &err) == 0);
			dp[k] = e.bd.dp_comm;
			estimate_free(&e);
		}
		if (!(dp[1] > dp[0] && dp[1] != dp[2]))
			T_FAILF("%s: internlm ZeRO-1 DP %.3f s, plain DP %.3f s, megatron-core "
				"ZeRO-1 %.3f s", r->id, dp[1], dp[0], dp[2]);
	}
}

/* Rows of one source that differ only in GPU count: the same group, model,
 * TP, PP, micro-batch, sequence, precision and sequences per GPU. */
static int same_recipe(const struct calib_row *a, const struct calib_row *b)
{
	const char *da = strrchr(a->id, '-'), *db = strrchr(b->id, '-');
	const struct plan *pa = &a->plan, *pb = &b->plan;
	if (!da || !db || da - a->id != db - b->id || strncmp(a->id, b->id, (size_t)(da - a->id)))
		return 0;
	int na = plan_gpus(pa, NULL), nb = plan_gpus(pb, NULL);
	return !strcmp(a->model_name, b->model_name) && pa->n_replicas > 0 && pb->n_replicas > 0 &&
	       pa->replicas[0].n_stages == pb->replicas[0].n_stages &&
	       pa->replicas[0].stages[0].tp == pb->replicas[0].stages[0].tp &&
	       pa->mbs == pb->mbs && a->model.seq_len == b->model.seq_len &&
	       pa->precision == pb->precision &&
	       fabs((double)pa->gbs / na - (double)pb->gbs / nb) < 1e-9;
}

/* Weak scaling inside a recipe (docs/accuracy.md, "Scale"): for every set
 * of same_recipe rows spanning at least 4x in GPUs, the step's growth from
 * the smallest to the largest run, measured and predicted. Level offsets
 * between sources hide a slope of a few percent from the cross-validated
 * figures; these pairs show it. Measured at main 56e80b4: 17 pairs, the
 * measured growth beyond hetplan's +2.78 points on average (mean absolute
 * 3.19), 16 of 17 positive: hetplan scales a little too well (stragglers,
 * pure-DP fabrics; not modelled). Asserted: the pairs are found, and a
 * change that makes hetplan scale better still (the gap past 3.5 points on
 * average, or past 4.0 absolute) fails. DLPERF is left out: its pairs
 * change the network (one node, then EDR across nodes), and so are sets
 * inside one 8-GPU node (vTrain's 2->8 GPU rows: within 1 point). */
TEST(weak_scaling_within_recipe)
{
	int npairs = 0;
	double sum = 0, sum_abs = 0;
	for (int i = 0; i < n_rows; i++) {
		const struct calib_row *a = &rows[i], *lo = a, *hi = a;
		if (!a->usable || a->kind != ROW_TIME || !strncmp(a->id, "DLPERF", 6))
			continue;
		int first = 1;
		for (int j = 0; j < n_rows && first; j++) {
			const struct calib_row *b = &rows[j];
			if (j == i || !b->usable || b->kind != ROW_TIME || !same_recipe(a, b))
				continue;
			if (j < i)
				first = 0;   /* the set was seen from its first row */
			int nb = plan_gpus(&b->plan, NULL), nl = plan_gpus(&lo->plan, NULL),
			    nh = plan_gpus(&hi->plan, NULL);
			if (nb < nl || (nb == nl && strcmp(b->id, lo->id) < 0))
				lo = b;
			if (nb > nh || (nb == nh && strcmp(b->id, hi->id) > 0))
				hi = b;
		}
		int n0 = plan_gpus(&lo->plan, NULL), n1 = plan_gpus(&hi->plan, NULL);
		if (!first || n1 < 4 * n0 || n1 <= 8)
			continue;
		double meas = 100 * (hi->measured / lo->measured - 1);
		double pred = 100 * (row_predict(hi, NULL) / row_predict(lo, NULL) - 1);
		printf("pair %s..%s %d->%d GPUs: measured %+.1f%%, hetplan %+.1f%%\n", lo->id, hi->id,
		       n0, n1, meas, pred);
		npairs++;
		sum += meas - pred;
		sum_abs += fabs(meas - pred);
	}
	if (npairs == 0) {
		T_FAILF("no weak-scaling pairs found");
		return;
	}
	printf("weak-scaling pairs: %d, measured growth beyond hetplan's: mean %+.2f points, "
	       "mean absolute %.2f\n", npairs, sum / npairs, sum_abs / npairs);
	CHECK(npairs >= 15);
	if (!(sum / npairs <= 3.5 && sum_abs / npairs <= 4.0))
		T_FAILF("weak scaling: measured growth beyond hetplan's %+.2f points (bound 3.5), "
			"absolute %.2f (bound 4.0)", sum / npairs, sum_abs / npairs);
}

int main(void)
{
	n_rows = rows_open("test_accuracy", &cat, &rows);
	if (n_rows < 0)
		return 1;
	RUN(rows_and_memory);
	RUN(cross_validated_by_source);
	RUN(constants_in_range);
	RUN(calibration_file);
	RUN(pipeline_transfers_as_frameworks_run_them);
	RUN(gradient_dtype_as_frameworks_reduce);
	RUN(power_limit_within_physics);
	RUN(v100_mesh_tp_links);
	RUN(measured_gemm_rate_caps);
	RUN(pytorch_ddp_as_apex_runs_it);
	RUN(optimizer_bytes_as_frameworks_count);
	RUN(internlm_hybrid_zero);
	RUN(weak_scaling_within_recipe);
	RUN(blind_small_rows);
	RUN(docs_state_the_measurement);
	for (int i = 0; i < n_rows; i++)
		plan_free(&rows[i].plan);
	free(rows);
	catalog_done(&cat);
	return t_done("accuracy");
}
