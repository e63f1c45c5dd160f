/* pp_layout.c — Megatron-Core's pipeline layout string (pp_layout.h). */
#include "pp_layout.h"

#include <stdio.h>
#include <string.h>

/* The text without its commas (Megatron drops them first), each symbol
 * with its place in the text as given, for messages. */
struct rd {
	char c[PP_LAYOUT_TEXT];
	int at[PP_LAYOUT_TEXT];
	int len;
	const char *s;
	struct pp_layout *L;
	char *msg;
	size_t n;
};

/* A message at index i of the compacted text (len: the end). */
static int fail(struct rd *r, int i, const char *what)
{
	if (i >= r->len) {
		snprintf(r->msg, r->n, "position %d (the end): %s", (int)strlen(r->s) + 1, what);
		return -1;
	}
	unsigned char ch = (unsigned char)r->c[i];
	if (ch >= 0x20 && ch < 0x7f)
		snprintf(r->msg, r->n, "position %d ('%c'): %s", r->at[i] + 1, ch, what);
	else
		snprintf(r->msg, r->n, "position %d (byte 0x%02x): %s", r->at[i] + 1, ch, what);
	return -1;
}

static int is_sym(char c)
{
	return c == 'E' || c == 'L' || c == 't' || c == 'm' || c == '|';
}

/* "*N" at index *i when there is one (then *i moves past it), else a
 * count of 1; a second "*" right after is refused. */
static int read_count(struct rd *r, int *i, int *count)
{
	*count = 1;
	if (*i >= r->len || r->c[*i] != '*')
		return 0;
	int k = *i + 1, v = 0, digits = 0;
	while (k < r->len && r->c[k] >= '0' && r->c[k] <= '9') {
		if (++digits > 6)
			return fail(r, k, "count of more than 6 digits");
		v = v * 10 + (r->c[k] - '0');
		k++;
	}
	if (!digits)
		return fail(r, k, "expected a count after '*'");
	if (v > PP_LAYOUT_REPEAT_MAX)
		return fail(r, *i, "count above 100000");
	if (k < r->len && r->c[k] == '*')
		return fail(r, k, "a count after a count (write one product)");
	*count = v;
	*i = k;
	return 0;
}

/* Add a total of what each counter of the layout may hold. */
static int add_capped(int *to, long long add, int cap)
{
	if (*to + add > cap)
		return -1;
	*to += (int)add;
	return 0;
}

/* count copies of symbol sym at index i (for messages). */
static int emit(struct rd *r, int i, char sym, int count)
{
	struct pp_layout *L = r->L;
	if (!count)
		return 0;
	if (sym == '|') {
		if (L->n + (long long)count > PP_LAYOUT_VSTAGES)
			return fail(r, i, "more than 1024 virtual stages");
		for (int k = 0; k < count; k++) {
			L->stage_layers[L->n] = 0;
			L->flags[L->n++] = 0;
		}
		return 0;
	}
	int k = L->n - 1, *ctr = sym == 't' ? &L->layers : sym == 'E' ? &L->n_emb
						: sym == 'L' ? &L->n_loss : &L->n_mtp;
	if (add_capped(ctr, count, PP_LAYOUT_LAYERS_MAX) < 0)
		return fail(r, i, "more than 1000000 symbols of one kind");
	if (sym == 't')
		L->stage_layers[k] += count;
	else
		L->flags[k] |= sym == 'E' ? PPL_EMB : sym == 'L' ? PPL_LOSS : PPL_MTP;
	if (!L->first_sym)
		L->first_sym = sym;
	L->last_sym = sym;
	return 0;
}

/* The group "(...)*N" whose '(' is at index *i. */
static int read_group(struct rd *r, int *i)
{
	char sym[PP_LAYOUT_TEXT];
	int cnt[PP_LAYOUT_TEXT], pos[PP_LAYOUT_TEXT], n = 0, k = *i + 1;
	while (k < r->len && r->c[k] != ')') {
		if (r->c[k] == '(')
			return fail(r, k, "a group inside a group (hetplan reads one level)");
		if (!is_sym(r->c[k]))
			return fail(r, k, r->c[k] == '*' ? "'*' without a symbol before it"
							 : "expected E, t, m, L or '|' in the group");
		sym[n] = r->c[k];
		pos[n] = k++;
		if (read_count(r, &k, &cnt[n]) < 0)
			return -1;
		n++;
	}
	if (k >= r->len)
		return fail(r, *i, "'(' without its ')'");
	if (!n)
		return fail(r, *i, "an empty group");
	int rep;
	k++;
	if (k >= r->len || r->c[k] != '*')
		return fail(r, k, "expected '*N' after ')'");
	if (read_count(r, &k, &rep) < 0)
		return -1;
	for (int t = 0; t < rep; t++)
		for (int j = 0; j < n; j++)
			if (emit(r, pos[j], sym[j], cnt[j]) < 0)
				return -1;
	*i = k;
	return 0;
}

int pp_layout_parse(const char *s, struct pp_layout *L, char *msg, size_t n)
{
	struct rd rd = { .s = s, .L = L, .msg = msg, .n = n };
	size_t slen = strlen(s);
	memset(L, 0, sizeof *L);
	if (!slen) {
		snprintf(msg, n, "position 1 (the end): an empty layout");
		return -1;
	}
	if (slen >= PP_LAYOUT_TEXT) {
		snprintf(msg, n, "position %d: longer than %d bytes", PP_LAYOUT_TEXT,
			 PP_LAYOUT_TEXT - 1);
		return -1;
	}
	for (size_t i = 0; i < slen; i++)
		if (s[i] != ',') {
			rd.c[rd.len] = s[i];
			rd.at[rd.len++] = (int)i;
		}
	L->n = 1;   /* the text before the first '|' is the first stage */
	for (int i = 0; i < rd.len;) {
		char ch = rd.c[i];
		int at = i, count;
		if (ch == '(') {
			if (read_group(&rd, &i) < 0)
				return -1;
			continue;
		}
		if (ch == ')')
			return fail(&rd, i, "')' without its '('");
		if (ch == '*')
			return fail(&rd, i, "'*' without a symbol before it");
		if (!is_sym(ch))
			return fail(&rd, i, "expected E, t, m, L, '|', '(' or ','");
		i++;
		if (read_count(&rd, &i, &count) < 0 || emit(&rd, at, ch, count) < 0)
			return -1;
	}
	return 0;
}

int pp_layout_check(const struct pp_layout *L, int pp, int vp, int layers, char *msg,
		    size_t n)
{
	if (L->n_mtp) {
		snprintf(msg, n, "holds %d MTP layer%s (m); hetplan's models have no multi-token "
			 "prediction layers, so leave m out", L->n_mtp, L->n_mtp == 1 ? "" : "s");
		return -1;
	}
	/* pipeline_parallel_layer_layout.py validate_layer_layout: the first
	 * symbol is E and the last L, each once */
	if (L->n_emb != 1 || L->first_sym != 'E') {
		snprintf(msg, n, "must start with the embedding E and hold it once (it holds %d)",
			 L->n_emb);
		return -1;
	}
	if (L->n_loss != 1 || L->last_sym != 'L') {
		snprintf(msg, n, "must end with the loss L and hold it once (it holds %d)",
			 L->n_loss);
		return -1;
	}
	/* Megatron builds the embedding on the first virtual stage and the
	 * output layer and loss on the last (training.py model_provider:
	 * pre_process / post_process), and hetplan costs them on the first
	 * and last stages: an empty stage before E or after L would move them */
	if (!(L->flags[0] & PPL_EMB)) {
		snprintf(msg, n, "places the embedding E in a later virtual stage than the first "
			 "(stage 1 is empty); Megatron builds it on virtual stage 1 of rank 0");
		return -1;
	}
	if (L->n < 1 || !(L->flags[L->n - 1] & PPL_LOSS)) {
		snprintf(msg, n, "places the loss L in an earlier virtual stage than the last "
			 "(stage %d is empty); Megatron builds it on the last", L->n);
		return -1;
	}
	if (L->layers != layers) {
		snprintf(msg, n, "places %d transformer layers (t); the model has %d", L->layers,
			 layers);
		return -1;
	}
	if (pp < 1 || vp < 1 || L->n != pp * vp) {
		snprintf(msg, n, "has %d virtual stages; PP %d x VP %d is %d (the schedule "
			 "interleaved:V gives VP; 1f1b is VP 1)", L->n, pp, vp, pp * vp);
		return -1;
	}
	for (int r = 0; r < pp; r++)
		if (!pp_layout_rank_layers(L, pp, r)) {
			snprintf(msg, n, "gives pipeline rank %d no transformer layer (its virtual "
				 "stages %d, %d, ...); a hetplan stage holds at least one", r, r,
				 r + pp);
			return -1;
		}
	return 0;
}

int pp_layout_rank_layers(const struct pp_layout *L, int pp, int r)
{
	int sum = 0;
	for (int k = r; k < L->n; k += pp)
		sum += L->stage_layers[k];
	return sum;
}

double pp_layout_chunk_share(const struct pp_layout *L, int pp, int r, int c)
{
	int total = pp_layout_rank_layers(L, pp, r);
	int k = c * pp + r;
	return total > 0 && k < L->n ? (double)L->stage_layers[k] / total : 0;
}

int pp_layout_even(const struct pp_layout *L, int pp)
{
	if (pp < 1 || L->n % pp)
		return 0;
	for (int k = pp; k < L->n; k++)
		if (L->stage_layers[k] != L->stage_layers[k % pp])
			return 0;
	return 1;
}

/* The model chunk of rank-local forward k (0 <= k < mb x vp) in
 * Megatron-Core's schedule table (schedules.py get_schedule_table): the
 * micro-batches in groups of pp, each group run through chunk 0, then
 * chunk 1, ..., the last group holding what is left (mb mod pp, or pp). */
static int forward_chunk(long long k, int pp, int vp, int mb)
{
	long long group = (long long)pp * vp, g = k / group;
	long long first = g * pp;                     /* the group's first micro-batch */
	long long size = first + pp >= mb ? mb - first : pp;
	return (int)((k - g * group) / size);
}

double pp_layout_inflight(const struct pp_layout *L, int pp, int r, int mb)
{
	int vp = L->n / pp, rl = pp_layout_rank_layers(L, pp, r);
	if (vp <= 1 || rl <= 0)
		return pp - r < mb ? pp - r : mb;   /* 1F1B: pp - r in flight */
	long long total = (long long)mb * vp;
	long long w = (long long)(pp - r - 1) * 2 + (long long)(vp - 1) * pp;
	if (w >= total)
		return mb;   /* every forward first: each micro-batch through every chunk */
	/* Warm-up: w forwards. Steady state: forward k, then backward k - w on
	 * chunk vp - 1 - (forward k - w's chunk) (get_model_chunk_id with
	 * forward false). The peak is after a forward. With mb a multiple of
	 * pp every group is full, the steady state repeats every pp x vp
	 * steps with no net change, so one period after the warm-up bounds
	 * it; otherwise the whole schedule is walked (mb x vp steps): plan.c
	 * refuses interleaved plans with mb not a multiple of pp (as
	 * Megatron does), so only direct callers reach it (test_pp_layout.c's
	 * hand count). */
	long long end = mb % pp == 0 && w + (long long)pp * vp < total ?
			w + (long long)pp * vp : total;
	long long held = 0, peak = 0;
	for (long long k = 0; k < end; k++) {
		held += L->stage_layers[forward_chunk(k, pp, vp, mb) * pp + r];
		if (held > peak)
			peak = held;
		if (k >= w)
			held -= L->stage_layers[(vp - 1 - forward_chunk(k - w, pp, vp, mb)) * pp + r];
	}
	return (double)peak / rl;
}

const struct pp_layout *pp_layout_cached(const char *text)
{
	static _Thread_local struct {
		char text[PP_LAYOUT_TEXT];
		int ok;
		struct pp_layout L;
	} c;
	if (!text || !*text || strlen(text) >= PP_LAYOUT_TEXT)
		return NULL;
	if (strcmp(c.text, text) != 0) {
		char msg[160];
		c.ok = pp_layout_parse(text, &c.L, msg, sizeof msg) == 0;
		snprintf(c.text, sizeof c.text, "%s", text);
	}
	return c.ok ? &c.L : NULL;
}
