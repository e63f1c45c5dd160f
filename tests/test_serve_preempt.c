/* test_serve_preempt.c — the burst scheduler's KV preemption (vLLM's
 * recompute mode, docs/serve-preempt.md) against counts made by hand.
 *
 * Facts used (each independent of the code under test): the schedules
 * below, counted on paper step by step from vLLM's rules (running
 * requests first; when their next tokens do not fit the pool the
 * last-admitted one is preempted, frees its KV, and goes to the head of
 * the waiting queue; no admission in a step that preempted; a resumed
 * request prefills prompt + output again and that prefill yields its
 * next token). Step times are made up (1 s, or 1 s + 1 ms per prefill
 * token) so that the makespan counts steps and prefilled tokens. */
#include "t.h"
#include "serve_perf.h"

#include <stdio.h>

/* one second per iteration */
static double unit_step(void *ctx, double n_dec, double dec_ctx, double n_pre, double pre_ctx,
			double n_pre_seqs)
{
	return 1;
}

/* one second per iteration plus one millisecond per prefilled token */
static double prefill_step(void *ctx, double n_dec, double dec_ctx, double n_pre, double pre_ctx,
			   double n_pre_seqs)
{
	return 1 + 1e-3 * n_pre;
}

static const double isl4[4] = { 200, 200, 200, 200 };
static const double osl4[4] = { 100, 100, 100, 100 };

/* A pool of 1,000 tokens, 4 requests of 200 in / 100 out, chunk 2,048.
 * Step 1: each needs 200 + 1 = 201, 4 x 201 = 804 <= 1000: all four are
 *   admitted and prefilled together; each has 1 token (KV 201 each).
 * Steps 2..50: 4 decode tokens a step; before step s the pool holds
 *   804 + 4 (s - 2), and 804 + 4 (s - 2) + 4 <= 1000 holds up to s = 50
 *   (996 + 4 = 1000). After step 50 each has 50 tokens, the pool 1,000.
 * Step 51: 1000 + 4 > 1000: request 3 (admitted last) is preempted and
 *   frees 200 + 50 = 250 (the tokens to recompute); 750 + 3 <= 1000.
 *   Nothing is admitted in this step.
 * Steps 51..100: requests 0-2 decode; the pool holds 600 + 3 g at g
 *   tokens, at most 600 + 3 x 99 + 3 = 900 before the last step: no
 *   further preemption; request 3 needs 200 + 50 + 1 = 251 and
 *   600 + 3 x 51 + 251 = 1004 > 1000 already at step 52: it waits until
 *   requests 0-2 end with their 100th token at step 100.
 * Step 101: request 3 is re-admitted and prefills 250 tokens; that
 *   prefill yields its 51st token.
 * Steps 102..150: its tokens 52..100.
 * So: 150 steps, 1 preemption, 250 tokens recomputed (against 100 steps
 * without the limit). Mean TTFT: every first token at t = 1. ITL: requests
 * 0-2 give 99 gaps of 1 s; request 3 gives 49 (tokens 2..50), one gap of
 * 101 - 50 = 51 s (the resume) and 49 more: (3 x 99 + 149) / (4 x 99) =
 * 446 / 396. */
TEST(one_preemption)
{
	struct serve_burst_sched s = { 1000, 256, 2048, 0, unit_step, NULL };
	struct serve_burst_result b = { 0 };
	CHECK(serve_burst_run(&s, 4, isl4, osl4, &b) == 0);
	CHECK_EQ_INT((int)b.steps, 150);
	CHECK_EQ_INT(b.preemptions, 1);
	CHECK_NEAR(b.recomputed_tokens, 250, 1e-12);
	CHECK_NEAR(b.makespan_s, 150, 1e-12);
	CHECK_NEAR(b.ttft_mean_s, 1, 1e-12);
	CHECK_NEAR(b.itl_mean_s, 446.0 / 396.0, 1e-12);
}

/* The same schedule, each step 1 s + 1 ms per prefilled token: the
 * prefills are 800 tokens (step 1) and the 250 recomputed (step 101), so
 * the makespan is 150 + 1.050 = 151.05 s. */
TEST(recompute_costs_prefill)
{
	struct serve_burst_sched s = { 1000, 256, 2048, 0, prefill_step, NULL };
	struct serve_burst_result b = { 0 };
	CHECK(serve_burst_run(&s, 4, isl4, osl4, &b) == 0);
	CHECK_NEAR(b.makespan_s, 151.05, 1e-12);
}

/* A pool of 1,200 tokens holds all four to the end: before the last step
 * 4 x (200 + 99) + 4 = 1,200 <= 1,200. 100 steps (1 prefill + 99
 * decode), no preemption. */
TEST(pool_keeps_up)
{
	struct serve_burst_sched s = { 1200, 256, 2048, 0, unit_step, NULL };
	struct serve_burst_result b = { 0 };
	CHECK(serve_burst_run(&s, 4, isl4, osl4, &b) == 0);
	CHECK_EQ_INT((int)b.steps, 100);
	CHECK_EQ_INT(b.preemptions, 0);
	CHECK_NEAR(b.recomputed_tokens, 0, 1e-12);
}

/* An engine that reserves prompt + output at admission never preempts:
 * on 1,000 tokens three of 300 fit (900), the fourth waits for them. They
 * end at step 100; the fourth prefills at step 101 and ends at step 200. */
TEST(reserve_full_no_preemption)
{
	struct serve_burst_sched s = { 1000, 256, 2048, 1, unit_step, NULL };
	struct serve_burst_result b = { 0 };
	CHECK(serve_burst_run(&s, 4, isl4, osl4, &b) == 0);
	CHECK_EQ_INT((int)b.steps, 200);
	CHECK_EQ_INT(b.preemptions, 0);
	/* TTFT: three at 1 s, one at 101 s */
	CHECK_NEAR(b.ttft_mean_s, 104.0 / 4, 1e-12);
}

/* A second count with other numbers: a pool of 700,
 * 3 requests of 200 in / 100 out. Step 1: 3 x 201 = 603 admitted. Before
 * step s (s >= 2) the pool holds 603 + 3 (s - 2); 603 + 3 (s - 2) + 3 <=
 * 700 up to s = 33 (696 + 3 = 699), 699 + 3 = 702 > 700 at s = 34:
 * request 2 is preempted (200 + 33 = 233 freed, 466 + 2 = 468). Requests
 * 0 and 1 then hold 400 + 2 g, at most 400 + 198 + 2 = 600: no more
 * preemption; request 2 (needs 234) waits while 400 + 2 g + 234 > 700,
 * i.e. g > 33, always (g >= 34 from step 34). They end at step 100;
 * request 2 prefills 233 tokens at step 101 (its token 34) and makes
 * tokens 35..100 in steps 102..167. 167 steps, 1 preemption, 233
 * tokens recomputed. */
TEST(three_requests)
{
	static const double i3[3] = { 200, 200, 200 }, o3[3] = { 100, 100, 100 };
	struct serve_burst_sched s = { 700, 256, 2048, 0, unit_step, NULL };
	struct serve_burst_result b = { 0 };
	CHECK(serve_burst_run(&s, 3, i3, o3, &b) == 0);
	CHECK_EQ_INT((int)b.steps, 167);
	CHECK_EQ_INT(b.preemptions, 1);
	CHECK_NEAR(b.recomputed_tokens, 233, 1e-12);
}

int main(void)
{
	RUN(one_preemption);
	RUN(recompute_costs_prefill);
	RUN(pool_keeps_up);
	RUN(reserve_full_no_preemption);
	RUN(three_requests);
	return t_done("serve_preempt");
}
