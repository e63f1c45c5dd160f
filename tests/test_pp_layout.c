/* test_pp_layout.c — the pipeline layout string (src/pp_layout.c) against
 * Megatron-Core's own examples and hand counts:
 *   - pipeline_parallel_layer_layout.py @d98e8a64, parse_str_to_list's
 *     docstring: "Ettt|(tt|)*29,m|L" is [E,t,t,t] + [t,t] x 29 + [m] + [L];
 *     its comments: "(|ab)*2,cd -> |ab|abcd";
 *   - arguments.py @d98e8a64 --pipeline-model-parallel-layout help:
 *     "E|(t|)*3,m|m||L" (an empty stage between the two m);
 *   - NVIDIA's DeepSeek-V3 recipe layout "Et*4|(t*4|)*14tmL" (Megatron-
 *     Bridge deepseek_v3.py @067f987df0): with PP 4 the ranks hold 16, 16,
 *     16 and 13 layers, with PP 2 32 and 29 (tests/data/blind_train.csv,
 *     BLMBM-01/02 notes);
 *   - hostile text: each error names its 1-based position, and a
 *     pseudo-random stream of layout-like bytes never overruns a bound.
 * The in-flight and fill shares are hand counts written beside each. */
#include "t.h"
#include "model.h"
#include "plan.h"
#include "pp_layout.h"

#include <stdlib.h>
#include <string.h>

static struct pp_layout L;
static char msg[200];

static int parse(const char *s)
{
	msg[0] = 0;
	return pp_layout_parse(s, &L, msg, sizeof msg);
}

TEST(megatron_docstring)
{
	CHECK(parse("Ettt|(tt|)*29,m|L") == 0);
	CHECK_EQ_INT(L.n, 32);
	CHECK_EQ_INT(L.stage_layers[0], 3);
	CHECK(L.flags[0] == PPL_EMB);
	for (int k = 1; k <= 29; k++)
		CHECK_EQ_INT(L.stage_layers[k], 2);
	CHECK(L.flags[30] == PPL_MTP && L.stage_layers[30] == 0);
	CHECK(L.flags[31] == PPL_LOSS && L.stage_layers[31] == 0);
	CHECK_EQ_INT(L.layers, 61);
	CHECK_EQ_INT(L.n_mtp, 1);
	/* the help's example: E | t | t | t | m | m | (empty) | L */
	CHECK(parse("E|(t|)*3,m|m||L") == 0);
	CHECK_EQ_INT(L.n, 8);
	CHECK_EQ_INT(L.layers, 3);
	CHECK(L.flags[6] == 0 && L.stage_layers[6] == 0);
	/* the comment's "(|ab)*2,cd -> |ab|abcd": E|tt|tttL */
	CHECK(parse("E(|tt)*2,tL") == 0);
	CHECK_EQ_INT(L.n, 3);
	CHECK_EQ_INT(L.stage_layers[1], 2);
	CHECK_EQ_INT(L.stage_layers[2], 3);
	CHECK(L.flags[2] == PPL_LOSS);
}

TEST(deepseek_recipe_ranks)
{
	CHECK(parse("Et*4|(t*4|)*14tmL") == 0);
	CHECK_EQ_INT(L.n, 16);
	CHECK_EQ_INT(L.layers, 61);
	int want4[] = { 16, 16, 16, 13 };
	for (int r = 0; r < 4; r++)
		CHECK_EQ_INT(pp_layout_rank_layers(&L, 4, r), want4[r]);
	CHECK_EQ_INT(pp_layout_rank_layers(&L, 2, 0), 32);
	CHECK_EQ_INT(pp_layout_rank_layers(&L, 2, 1), 29);
	/* the recipe's MTP layer: hetplan's models have none */
	CHECK(pp_layout_check(&L, 4, 4, 61, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "MTP") != NULL);
	CHECK(parse("Et*4|(t*4|)*14tL") == 0);
	CHECK(pp_layout_check(&L, 4, 4, 61, msg, sizeof msg) == 0);
	CHECK(pp_layout_check(&L, 2, 8, 61, msg, sizeof msg) == 0);
	/* 16 virtual stages are not PP 4 x VP 2, nor 60 layers the model's */
	CHECK(pp_layout_check(&L, 4, 2, 61, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "16 virtual stages") != NULL);
	CHECK(pp_layout_check(&L, 4, 4, 60, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "61 transformer layers") != NULL);
}

TEST(check_ends_and_ranks)
{
	CHECK(parse("tE|tL") == 0);   /* E not first */
	CHECK(pp_layout_check(&L, 2, 1, 2, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "start with the embedding") != NULL);
	CHECK(parse("Et|LtL") == 0);  /* L twice */
	CHECK(pp_layout_check(&L, 2, 1, 2, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "end with the loss") != NULL);
	CHECK(parse("Et|tL|") == 0);  /* the last symbol is L, the last stage empty */
	CHECK_EQ_INT(L.n, 3);
	/* Megatron builds L on the last virtual stage (training.py
	 * post_process), E on the first (pre_process) */
	CHECK(pp_layout_check(&L, 3, 1, 2, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "loss L in an earlier virtual stage") != NULL);
	CHECK(parse("|Et|tL") == 0);
	CHECK(pp_layout_check(&L, 3, 1, 2, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "embedding E in a later virtual stage") != NULL);
	/* rank 2 of 4 gets stage 2, which is empty */
	CHECK(parse("Et|t||tL") == 0);
	CHECK(pp_layout_check(&L, 4, 1, 3, msg, sizeof msg) < 0);
	CHECK(strstr(msg, "rank 2") != NULL);
}

/* Each refusal names where: the 1-based position in the text as given
 * (commas count). */
TEST(errors_name_the_position)
{
	static const struct { const char *s, *at; } bad[] = {
		{ "Et*4|x", "position 6 ('x')" },
		{ "Et*|L", "position 4 ('|')" },
		{ "Et*", "position 4 (the end)" },
		{ "E(t|(t)*2)*2L", "position 5 ('(')" },
		{ "E(t|L", "position 2 ('(')" },
		{ "Et)L", "position 3 (')')" },
		{ "E()*2L", "position 2 ('(')" },
		{ "E(t)L", "position 5 ('L')" },
		{ "Et*2*3L", "position 5 ('*')" },
		{ "E,t*100001L", "position 4 ('*')" },
		{ "Et*1234567L", "position 10 ('7')" },
		{ "*E", "position 1 ('*')" },
		{ "E t", "position 2 (' ')" },
		{ "E\x01t", "position 2 (byte 0x01)" },
		{ "", "position 1 (the end)" },
		{ "E(|)*1024L", "more than 1024 virtual stages" },
		{ "E(t*100000)*11L", "more than 1000000" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		if (parse(bad[i].s) != -1 || !strstr(msg, bad[i].at))
			T_FAILF("\"%s\": %s (want \"%s\")", bad[i].s, msg, bad[i].at);
	}
	char big[PP_LAYOUT_TEXT + 8];
	memset(big, 't', sizeof big - 1);
	big[sizeof big - 1] = 0;
	CHECK(parse(big) == -1);
	CHECK(strstr(msg, "longer than 127 bytes") != NULL);
	CHECK(pp_layout_cached(big) == NULL);
	CHECK(pp_layout_cached("") == NULL);
	CHECK(pp_layout_cached("Et*2|tL") != NULL);
	CHECK(pp_layout_cached("Et*2|tQ") == NULL);
}

/* A pseudo-random stream of layout bytes (fixed seed, so every run reads
 * the same texts): each parse ends with 0 and sane counts, or -1 and a
 * positioned message. Run under ASan/UBSan by make check's sanitizer
 * build, this is the parser's fuzz replay. */
TEST(random_text)
{
	static const char alpha[] = "EtLm|()*,0123456789x";
	unsigned long long st = 0x9e3779b97f4a7c15ull;
	char s[PP_LAYOUT_TEXT + 40];
	for (int it = 0; it < 20000; it++) {
		st = st * 6364136223846793005ull + 1442695040888963407ull;
		int len = (int)(st >> 33) % (int)(sizeof s - 1);
		for (int i = 0; i < len; i++) {
			st = st * 6364136223846793005ull + 1442695040888963407ull;
			s[i] = alpha[(st >> 35) % (sizeof alpha - 1)];
		}
		s[len] = 0;
		int rc = parse(s);
		if (rc == 0) {
			CHECK(L.n >= 1 && L.n <= PP_LAYOUT_VSTAGES);
			CHECK(L.layers >= 0 && L.layers <= PP_LAYOUT_LAYERS_MAX);
		} else if (rc != -1 || strncmp(msg, "position ", 9) != 0) {
			T_FAILF("\"%s\": rc %d, %s", s, rc, msg);
			break;
		}
	}
}

/* The interleaved schedule (Megatron-Core schedules.py get_schedule_table,
 * get_model_chunk_id): rank r runs w = (pp - r - 1) x 2 + (vp - 1) x pp
 * warm-up forwards, then forward k and backward k - w alternately.
 * Forward k is on chunk (k / pp) mod vp (groups of pp micro-batches);
 * backward j on chunk vp - 1 - (j / pp) mod vp. Held layers counted by
 * hand, peak after a forward. */
TEST(inflight_hand_counts)
{
	/* PP 4, VP 2, rank 0: chunks 6 (virtual stage 0) and 2 (stage 4).
	 * w = 3 x 2 + 1 x 4 = 10: forwards 0-3 on c0, 4-7 on c1, 8-9 on c0
	 * hold 24 + 8 + 12 = 44. Then (forward chunk, backward chunk: held
	 * after the forward / after the backward):
	 *   f10 c0 / b0 c1: 50 / 48     f11 c0 / b1 c1: 54 / 52
	 *   f12 c1 / b2 c1: 54 / 52     f13 c1 / b3 c1: 54 / 52
	 *   f14 c1 / b4 c0: 54 / 48     f15 c1 / b5 c0: 50 / 44
	 *   f16 c0 / b6 c0: 50 / 44     f17 c0 / b7 c0: 50 / 44
	 *   f18 c0 / b8 c1: 50 / 48     f19 c0 / b9 c1: 54 / 52 ...
	 * (period 8, net 0): peak 54 of 8 layers = 6.75. The warm-up alone
	 * (11 forwards, 50) would give 6.25. */
	CHECK(parse("Et*6|t*2|t*6|t*2|t*2|t*6|t*2|t*6L") == 0);
	CHECK_NEAR(pp_layout_inflight(&L, 4, 0, 64), 54.0 / 8, 1e-12);
	/* rank 3: chunks 2 and 6, w = 4: f0-3 on c0 hold 8; f4 c1 / b0 c1:
	 * 14 / 8, and so on through f7 / b3; f8 c0 / b4 c0: 10 / 8: peak 14
	 * of 8 = 1.75 */
	CHECK_NEAR(pp_layout_inflight(&L, 4, 3, 64), 14.0 / 8, 1e-12);

	CHECK(parse("Et*4|(t*4|)*14tL") == 0);
	/* DeepSeek-V3's recipe, rank 3 of PP 4, VP 4 (chunks 4, 4, 4, 1):
	 * w = 12 forwards on chunks 0, 1, 2 (4 each) hold 48; f12-f15 on
	 * chunk 3 (+1) with b0-b3 on chunk 3 (-1): 49 / 48; f16 on chunk 0
	 * (+4): 52, b4 on chunk 2 (-4): 48; the period repeats: peak 52 of
	 * 13 layers */
	CHECK_NEAR(pp_layout_inflight(&L, 4, 3, 64), 52.0 / 13, 1e-12);
	/* rank 0, chunks all of 4: w = 18; equal chunks keep w + 1 = 19
	 * forwards at the peak: 76 of 16 = 4.75 */
	CHECK_NEAR(pp_layout_inflight(&L, 4, 0, 64), 4.75, 1e-12);
	/* 4 micro-batches: rank 0's 18 warm-up forwards reach the 16 there
	 * are, so all 4 are in flight */
	CHECK_NEAR(pp_layout_inflight(&L, 4, 0, 4), 4, 1e-12);
	/* 1F1B (one chunk a rank): pp - r */
	CHECK(parse("Et*16|t*16|t*16|t*13L") == 0);
	CHECK_NEAR(pp_layout_inflight(&L, 4, 1, 64), 3, 1e-12);

	/* mb not a multiple of pp (the whole-schedule walk; plan.c refuses
	 * such interleaved plans, as Megatron does): PP 2, VP 2, 3
	 * micro-batches; the last group holds one micro-batch, so forwards
	 * run (0,c0) (1,c0) (0,c1) (1,c1) (2,c0) (2,c1). Rank 0 holds
	 * chunks of 3 (c0) and 1 (c1) layers, w = (2 - 0 - 1) x 2 +
	 * (2 - 1) x 2 = 4 warm-up forwards. Held after each step
	 * (micro-batch, chunk): (0,c0) 3, (1,c0) 6, (0,c1) 7, (1,c1) 8,
	 * (2,c0) 11, backward (0,c1) 10, forward (2,c1) 11, backward (1,c1)
	 * 10, cool-down 7, 4, 3, 0: peak 11 of 4 layers = 2.75. Rank 1
	 * (chunks of 1 and 1, w = 2): 1, 2, then forward 3 / backward 2
	 * alternately: peak 3 of 2 layers = 1.5. */
	CHECK(parse("Et*3|t|t|tL") == 0);
	CHECK_NEAR(pp_layout_inflight(&L, 2, 0, 3), 11.0 / 4, 1e-12);
	CHECK_NEAR(pp_layout_inflight(&L, 2, 1, 3), 3.0 / 2, 1e-12);
}

/* A chunk's share of its rank's time: its transformer layers over the
 * rank's (E and L are the first and last stages' own costs). */
TEST(chunk_shares)
{
	CHECK(parse("Et*4|(t*4|)*14tL") == 0);
	/* rank 0: chunks E+4, 4, 4, 4 = 16 layers; chunk 0 is 4 */
	CHECK_NEAR(pp_layout_chunk_share(&L, 4, 0, 0), 4.0 / 16, 1e-12);
	/* rank 3: chunks 4, 4, 4, 1+L = 13 layers; chunk 3 is 1 */
	CHECK_NEAR(pp_layout_chunk_share(&L, 4, 3, 3), 1.0 / 13, 1e-12);
	CHECK_NEAR(pp_layout_chunk_share(&L, 4, 3, 0), 4.0 / 13, 1e-12);
	/* rank 1: four chunks of 4 */
	CHECK_NEAR(pp_layout_chunk_share(&L, 4, 1, 2), 0.25, 1e-12);
	CHECK_NEAR(pp_layout_chunk_share(&L, 4, 1, 4), 0, 1e-12);   /* no chunk 4 */
	/* even: rank 3's chunks differ (4 and 1) */
	CHECK(!pp_layout_even(&L, 4));
	CHECK(parse("Et*4|t*4|t*4|t*4|t*4|t*4|t*4|t*4L") == 0);
	CHECK(pp_layout_even(&L, 4));
	/* ranks of 6 + 2 and 2 + 6: each rank's chunks differ */
	CHECK(parse("Et*6|t*2|t*6|t*2|t*2|t*6|t*2|t*6L") == 0);
	CHECK(!pp_layout_even(&L, 4));
	/* ranks unequal to each other (5+5 and 3+3) but each of equal
	 * chunks: the schedule is the even split's */
	CHECK(parse("Et*5|t*3|t*3|t*5|t*5|t*3|t*3|t*5L") == 0);
	CHECK(pp_layout_even(&L, 4));
}

/* plan_place_layout: stage s takes rank s's layers, in order, whatever
 * the split before (the Edit plan view calls it when the key changes).
 * "Et*6|t*4|t*6|t*2|t*2|t*6|t*2|t*4L" at PP 4: virtual stages 6, 4, 6,
 * 2, 2, 6, 2, 4; rank r holds stages r and r + 4: 6 + 2 = 8, 4 + 6 = 10,
 * 6 + 2 = 8, 2 + 4 = 6, so layers 0-7, 8-17, 18-25, 26-31 of 32. */
TEST(place_layout)
{
	struct model_spec m;
	memset(&m, 0, sizeof m);
	m.layers = 32;
	struct plan p;
	plan_init(&p);
	struct stage st[4];
	for (int s = 0; s < 4; s++)
		st[s] = (struct stage){ s % 2, 2, 8 * s, 8 * s + 7 };
	struct replica r = { 1, 1.0, 4, st };
	p.n_replicas = 1;
	p.replicas = &r;
	CHECK_EQ_INT(plan_place_layout(&p, &m), 0);   /* no layout: nothing */
	snprintf(p.pp_layout, sizeof p.pp_layout, "%s", "Et*6|t*4|t*6|t*2|t*2|t*6|t*2|t*4L");
	CHECK_EQ_INT(plan_place_layout(&p, &m), 1);
	const int want[4][2] = { { 0, 7 }, { 8, 17 }, { 18, 25 }, { 26, 31 } };
	for (int s = 0; s < 4; s++) {
		CHECK_EQ_INT(st[s].first_layer, want[s][0]);
		CHECK_EQ_INT(st[s].last_layer, want[s][1]);
		CHECK_EQ_INT(st[s].pool, s % 2);   /* pools and TP stay */
		CHECK_EQ_INT(st[s].tp, 2);
	}
	/* another model depth: nothing placed */
	m.layers = 31;
	st[1].first_layer = 5;
	CHECK_EQ_INT(plan_place_layout(&p, &m), 0);
	CHECK_EQ_INT(st[1].first_layer, 5);
}

int main(void)
{
	RUN(megatron_docstring);
	RUN(deepseek_recipe_ranks);
	RUN(check_ends_and_ranks);
	RUN(errors_name_the_position);
	RUN(random_text);
	RUN(inflight_hand_counts);
	RUN(chunk_shares);
	RUN(place_layout);
	return t_done("pp_layout");
}
