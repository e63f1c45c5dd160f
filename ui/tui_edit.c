/* tui_edit.c — the Cluster and Model views: what the user plans for; and
 * the key list of the Edit plan view (tui_planedit.c).
 *
 * Both are lists of fields. Most fields are settings: their label, unit,
 * hint, kind, value and storage come from the settings tables (fields.h:
 * pool_fields, fabric_fields, model_fields, workload_fields), and a
 * labelled setting added to one of those tables shows up in its pane by
 * itself. The few fields with rules of their own (the pool's name and GPU,
 * availability, price, the restrictions, the preset) keep a case on their
 * id. The pool editor, the fabric settings, the model and the workload
 * share the field list, the prompt and the choice cycling. Every committed
 * change goes through tui_edited(), which re-plans on the worker; nothing
 * waits. The plan editor's list is every entry of plan_fields, built from
 * the table alone (a label when the entry has one, else its JSON key); its
 * changes go to the edited plan and tui_planedit_changed() instead. */
#include "tui_int.h"
#include "table.h"
#include "comm.h"
#include "common.h"
#include "plan_label.h"

#include <assert.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

enum field_kind { F_TEXT, F_INT, F_INT0, F_NUM, F_QTY, F_DUR, F_CHOICE, F_GPU, F_SEP };

/* Fields that need more than their setting's descriptor (a picker, a
 * check against the other pools, a side effect, a format of their own).
 * Every other field is F_SET: its descriptor (fields.h) gives its label,
 * unit, hint, kind, value and storage. */
enum field_id {
	F_SET,
	PF_NAME, PF_GPU, PF_GPN, PF_NODES, PF_AVAIL, PF_INTRA, PF_INTRA_BW, PF_PRICE,
	CF_SEP, CF_OVERSUB,
	MF_PRESET,
	WF_SEQ, WF_TOKENS, WF_PRECISION, WF_OBJECTIVE, WF_DEADLINE, WF_BUDGET, WF_TOP,
	WF_SEP, WF_TP, WF_PP, WF_MBS, WF_HETERO,
};

struct field {
	enum field_id id;
	enum field_kind kind;
	const char *label;
	const char *unit;        /* shown after the value */
	const char *hint;        /* shown in the prompt */
	const struct hp_field_table *tbl;  /* the setting, when it is one */
	const char *key;
	const struct hp_field *d;          /* resolved from tbl and key */
};

/* Room in each pane's list: its fields plus settings added to the tables
 * (fields_resolve_all appends them). */
enum { FIELDS_UI_MAX = 64 };

/* A field backed by a setting: label, unit, hint and kind come from the
 * descriptor (fields_resolve); id names the few with extra behaviour. */
#define SET(ID, T, K) { ID, F_TEXT, NULL, NULL, NULL, &(T), K, NULL }

static struct field pool_field_ui[FIELDS_UI_MAX] = {
	SET(PF_NAME, pool_fields, "name"),
	SET(PF_GPU, pool_fields, "gpu"),
	SET(PF_GPN, pool_fields, "gpus_per_node"),
	SET(PF_NODES, pool_fields, "nodes"),
	{ PF_AVAIL, F_CHOICE, "Availability", "", NULL, NULL, NULL, NULL },
	SET(PF_INTRA, pool_fields, "intra"),
	{ PF_INTRA_BW, F_NUM, "Scale-up speed", "GB/s", "per GPU and direction; empty: catalog", NULL, NULL, NULL },
	/* NICs to site come here from the table, before the price; the spot
	 * and the fabric's links after the entries they follow there. The
	 * transport is named here (by its key) to be shown after the NICs and
	 * their speed, with its table label. */
	SET(F_SET, pool_fields, "transport"),
	SET(PF_PRICE, pool_fields, "price_per_node_hour"),
	{ CF_SEP, F_SEP, "Between pools", "", NULL, NULL, NULL, NULL },
	SET(CF_OVERSUB, fabric_fields, "oversubscription"),
};

static struct field model_field_ui[FIELDS_UI_MAX] = {
	{ MF_PRESET, F_CHOICE, "Preset", "", NULL, NULL, NULL, NULL },
	SET(F_SET, model_fields, "layers"),
	SET(F_SET, model_fields, "hidden"),
	SET(F_SET, model_fields, "heads"),
	SET(F_SET, model_fields, "kv_heads"),
	SET(F_SET, model_fields, "head_dim"),
	SET(F_SET, model_fields, "ffn"),
	SET(F_SET, model_fields, "gated_mlp"),
	SET(F_SET, model_fields, "vocab"),
	SET(F_SET, model_fields, "seq_len"),
	SET(F_SET, model_fields, "tied_embeddings"),
	SET(F_SET, model_fields, "norm"),
	SET(F_SET, model_fields, "position"),
	SET(F_SET, model_fields, "bias"),
	SET(F_SET, model_fields, "qkv_bias"),
	SET(F_SET, model_fields, "dropout"),
	SET(F_SET, model_fields, "embedding_norm"),
	SET(F_SET, moe_fields, "experts"),
	SET(F_SET, moe_fields, "top_k"),
	SET(F_SET, moe_fields, "expert_ffn"),
	SET(F_SET, moe_fields, "shared_experts"),
	SET(F_SET, moe_fields, "dense_layers"),
	SET(F_SET, mla_fields, "kv_lora_rank"),
	SET(F_SET, mla_fields, "q_lora_rank"),
};

static struct field work_field_ui[FIELDS_UI_MAX] = {
	SET(F_SET, workload_fields, "gbs"),
	SET(WF_SEQ, workload_fields, "seq_len"),
	SET(WF_TOKENS, workload_fields, "tokens"),
	SET(WF_PRECISION, workload_fields, "precision"),
	SET(WF_OBJECTIVE, workload_fields, "objective"),
	SET(WF_DEADLINE, workload_fields, "deadline_s"),
	SET(WF_BUDGET, workload_fields, "budget_usd"),
	SET(WF_TOP, workload_fields, "top"),
	{ WF_SEP, F_SEP, "Restrictions", "", NULL, NULL, NULL, NULL },
	{ WF_TP, F_INT0, "Fix TP", "", "0 or free lets the planner choose", NULL, NULL, NULL },
	{ WF_PP, F_INT0, "Fix PP", "", "0 or free lets the planner choose", NULL, NULL, NULL },
	{ WF_MBS, F_INT0, "Fix micro-batch", "", "0 or free lets the planner choose", NULL, NULL,
	  NULL },
	/* --no-hetero turns off pipelines across pools only (docs/planner.md):
	 * replica groups on different pools still train side by side, so
	 * "Mixed pools: single pool only" said more than it does */
	{ WF_HETERO, F_CHOICE, "Cross-pool PP", "", NULL, NULL, NULL, NULL },
};
#undef SET

/* Filled from plan_fields by fields_resolve_all: no entry of its own. */
static struct field plan_field_ui[FIELDS_UI_MAX];

/* Fill label, unit, hint and kind of the setting-backed fields from their
 * descriptors. A key missing from its table is a programming error; an
 * entry without a label (the plan's) shows its JSON key. */
static void field_resolve(struct field *f)
{
	const struct hp_field *d = fields_find_key(f->tbl, f->key);
	assert(d);
	f->d = d;
	f->label = d->label ? d->label : d->key;
	f->unit = d->unit ? d->unit : "";
	f->hint = d->hint;
	switch (d->kind) {
	case FK_INT: f->kind = d->min <= 0 || (d->flags & FF_ZERO_NONE) ? F_INT0 : F_INT; break;
	case FK_NUM: f->kind = F_NUM; break;
	case FK_BOOL:
	case FK_ENUM: f->kind = F_CHOICE; break;
	default: f->kind = F_TEXT; break;
	}
	/* The GPU comes from the picker; quantities and durations take "2T"
	 * and "30d" rather than plain numbers. */
	if (f->id == PF_GPU)
		f->kind = F_GPU;
	else if (f->id == WF_TOKENS || f->id == WF_BUDGET)
		f->kind = F_QTY;
	else if (f->id == WF_DEADLINE)
		f->kind = F_DUR;
}

/* The list's length: entries up to the first empty one. */
static int fields_count(const struct field *fs)
{
	int n = 0;
	while (n < FIELDS_UI_MAX && (fs[n].tbl || fs[n].label))
		n++;
	return n;
}

/* Add every labelled setting of tbl (every keyed one when all) that the
 * list does not show yet, in the table's order: before the first entry of
 * tbl the list shows that comes later in the table, else before the entry
 * with id `before` (or at the end). A key added to a table with a label
 * becomes a field with no edit here. */
static void fields_add_missing(struct field *fs, const struct hp_field_table *tbl,
			       enum field_id before, int all)
{
	for (int i = 0; i < tbl->n; i++) {
		const struct hp_field *d = &tbl->f[i];
		int n = fields_count(fs), at = n, later = n, shown = 0;
		if ((!d->label && !all) || !d->key || n == FIELDS_UI_MAX)
			continue;
		for (int k = 0; k < n; k++) {
			const struct hp_field *e =
				fs[k].tbl == tbl && fs[k].key ? fields_find_key(tbl, fs[k].key) : NULL;
			shown |= e == d;
			if (e > d && later == n)
				later = k;
			if (before && fs[k].id == before && at == n)
				at = k;
		}
		if (shown)
			continue;
		if (later < n)
			at = later;
		memmove(&fs[at + 1], &fs[at], (size_t)(n - at) * sizeof *fs);
		fs[at] = (struct field){ F_SET, F_TEXT, NULL, NULL, NULL, tbl, d->key, NULL };
	}
}

static void fields_resolve(struct field *fs)
{
	for (int i = 0, n = fields_count(fs); i < n; i++)
		if (fs[i].tbl && !fs[i].d)
			field_resolve(&fs[i]);
}

static const enum hp_dtype precisions[] = { HP_BF16, HP_FP16, HP_FP8, HP_TF32, HP_FP32 };

static void fields_resolve_all(void)
{
	static int resolved;
	if (resolved)
		return;
	fields_add_missing(pool_field_ui, &pool_fields, CF_SEP, 0);
	fields_add_missing(pool_field_ui, &fabric_fields, 0, 0);
	fields_add_missing(model_field_ui, &model_fields, 0, 0);
	fields_add_missing(model_field_ui, &moe_fields, 0, 0);
	fields_add_missing(model_field_ui, &mla_fields, 0, 0);
	fields_add_missing(work_field_ui, &workload_fields, WF_SEP, 0);
	fields_add_missing(plan_field_ui, &plan_fields, 0, 1);
	fields_resolve(pool_field_ui);
	fields_resolve(model_field_ui);
	fields_resolve(work_field_ui);
	fields_resolve(plan_field_ui);
	resolved = 1;
}

/* ---- the help screen's notes: what each field of a list is, from its
 * setting's help (the tables of fields.h, the one description of each
 * setting), else the prompt's hint; the few fields with no setting say
 * it here. Choice fields cycle without a prompt, so their meaning showed
 * nowhere ("Cross-pool PP", "Availability", "GeLU as gelu_new"). */

static const struct {
	enum field_id id;
	const char *text;
} field_notes_own[] = {
	{ PF_AVAIL, "fixed: the pool's nodes, all there; rent up to N: the planner may rent "
		    "any count up to N (\"nodes\": {\"max\": N}); Enter toggles" },
	{ MF_PRESET, "a model preset ('hetplan models'), or a model JSON file typed in the "
		     "picker; p or Enter opens it" },
	{ WF_HETERO, "allowed: a pipeline may run its first stages on one pool and the "
		     "rest on another; off: each pipeline on one pool, replicas on "
		     "different pools still side by side (hetplan plan --no-hetero)" },
};

static void notes_of(struct tui_notes *nt, const struct field *fs, int n)
{
	for (int i = 0; i < n; i++) {
		const struct field *f = &fs[i];
		if (f->kind == F_SEP)
			continue;
		const char *text = f->d && f->d->help ? f->d->help : f->hint ? f->hint : "";
		for (size_t k = 0; k < HP_ARRAY_LEN(field_notes_own); k++)
			if (field_notes_own[k].id == f->id && !f->d)
				text = field_notes_own[k].text;
		if (*text)
			tui_notes_add(nt, f->label, text);
	}
}

const char *const *tui_cluster_notes(int *n)
{
	static struct tui_notes nt;
	if (!nt.n) {
		fields_resolve_all();
		notes_of(&nt, pool_field_ui, fields_count(pool_field_ui));
	}
	*n = nt.n;
	return nt.line;
}

const char *const *tui_model_notes(int *n)
{
	static struct tui_notes nt;
	if (!nt.n) {
		fields_resolve_all();
		notes_of(&nt, model_field_ui, fields_count(model_field_ui));
		notes_of(&nt, work_field_ui, fields_count(work_field_ui));
	}
	*n = nt.n;
	return nt.line;
}

/* The field list the current view edits. */
static const struct field *fields_of(const struct tui *t, int *n)
{
	fields_resolve_all();
	if (t->view == TV_PLANEDIT) {
		*n = fields_count(plan_field_ui);
		return plan_field_ui;
	}
	if (t->view == TV_CLUSTER) {
		*n = fields_count(pool_field_ui);
		return pool_field_ui;
	}
	if (t->model_pane == 0) {
		*n = fields_count(model_field_ui);
		return model_field_ui;
	}
	*n = fields_count(work_field_ui);
	return work_field_ui;
}

static struct tui_list *field_list(struct tui *t)
{
	if (t->view == TV_PLANEDIT)
		return &t->lplanedit;
	return t->view == TV_CLUSTER ? &t->lfields : &t->lmodel[t->model_pane];
}

static struct pool *cur_pool(struct tui *t)
{
	struct cluster *c = &t->ws.cluster;
	if (c->n_pools == 0)
		return NULL;
	if (t->lpools.sel >= c->n_pools)
		t->lpools.sel = c->n_pools - 1;
	return &c->pools[t->lpools.sel];
}

static void fmt_num(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.4g", v);
}

/* The struct a setting-backed field lives in (NULL: no pool selected). */
static void *field_base(struct tui *t, const struct field *f)
{
	if (f->tbl == &pool_fields)
		return cur_pool(t);
	if (f->tbl == &fabric_fields)
		return &t->ws.cluster;
	if (f->tbl == &workload_fields)
		return &t->ws.opts;
	if (f->tbl == &plan_fields)
		return tui_planedit_plan(t);
	return &t->ws.model;
}

static int is_model_field(const struct field *f)
{
	return f->tbl == &model_fields || f->tbl == &moe_fields || f->tbl == &mla_fields;
}

/* The scale-up rate the step-time model prices an intra-node hop at,
 * bytes/s per GPU and direction: the pool's measured figure when it has
 * one, else the fabric's own from the catalog (perf_memo.c build_link). */
static double pool_intra_rate(const struct pool *p)
{
	struct comm_fabric f;
	comm_fabric_init(&f, &p->gpu, p->intra, p->nics, p->nic_gbps);
	comm_fabric_set_intra(&f, p->intra_gbyte_s);
	return f.intra_Bps;
}

/* 1 when every stage of plan p names a pool of c (the edited plan was
 * made for c; checked so a stale pair never reads past c's pools). */
static int plan_on_cluster(const struct plan *p, const struct cluster *c)
{
	if (!c)
		return 0;
	for (int i = 0; i < p->n_replicas; i++)
		for (int s = 0; s < p->replicas[i].n_stages; s++)
			if (p->replicas[i].stages[s].pool < 0 ||
			    p->replicas[i].stages[s].pool >= c->n_pools)
				return 0;
	return 1;
}

/* The text of setting d in base as the field lists show it: an unset
 * key reads as the value in force and whose it is. An unset plan
 * sequence length is model m's. */
static void setting_text(const struct hp_field *d, const void *base, const struct model_spec *m,
			 const struct cluster *c, char *buf, size_t n)
{
	fields_format(d, base, buf, n);
	if (d == fields_find_key(&plan_fields, "seq_len") && fields_is_default(d, base)) {
		snprintf(buf, n, "model's (%d)", m->seq_len);
	} else if (d == fields_find_key(&plan_fields, "moe_dispatch") && fields_is_default(d, base) &&
		   m->moe.experts && plan_on_cluster(base, c)) {
		/* unset: the dispatcher the plan runs on this cluster, as
		 * estimate and launch resolve it (plan_moe_dispatch: flex
		 * only where every piece can run it and has expert TP x EP
		 * above 1). A dense model dispatches nothing: it reads the
		 * framework's default, the one value its plan may name. */
		snprintf(buf, n, "default: %s",
			 plan_moe_dispatch_name(plan_moe_dispatch(base, c)));
	} else if (d == fields_find_key(&plan_fields, "etp") &&
		   !((const struct plan *)base)->etp) {
		/* unset: the experts take each stage's TP (plan_etp) */
		snprintf(buf, n, "stage's TP");
	} else if (fields_is_default(d, base)) {
		char v[PP_LAYOUT_TEXT];
		hp_strlcpy(v, buf, sizeof v);
		snprintf(buf, n, "default: %s", v);
	}
}

/* The text of field f; "" when it has no value. */
static void field_get(struct tui *t, const struct field *f, char *buf, size_t n)
{
	struct pool *p = cur_pool(t);
	const struct model_spec *m = &t->ws.model;
	const struct search_opts *o = &t->ws.opts;
	const struct cluster *pc = NULL;
	*buf = 0;
	if (f->tbl == &plan_fields) {
		/* the edited plan's model and cluster are the ones it is
		 * estimated on */
		const struct search_opts *po;
		if (tui_planedit_inputs(t, &pc, &m, &po) < 0)
			pc = NULL;
	}
	if ((f->tbl == &pool_fields || f->id == PF_GPU || f->id == PF_AVAIL ||
	     f->id == PF_INTRA_BW) && !p)
		return;
	if (f->d && !field_base(t, f))
		return;
	switch (f->id) {
	case PF_GPU: snprintf(buf, n, "%s", p->gpu.name); break;
	case PF_AVAIL: snprintf(buf, n, p->nodes_max ? "rent up to %d" : "fixed %d", p->nodes); break;
	case PF_INTRA_BW: {
		/* Unset: the catalog's rate, marked as such, as "default: "
		 * marks the other fields' values in force. */
		char v[48];
		fmt_num(v, sizeof v, pool_intra_rate(p) / 1e9);
		snprintf(buf, n, "%s%s", p->intra_gbyte_s > 0 ? "" : "catalog: ", v);
		break;
	}
	case PF_PRICE:
		if (pool_price_known(p))
			snprintf(buf, n, "%.2f", p->usd_per_node_h);
		break;
	case MF_PRESET:
		snprintf(buf, n, "%s%s", m->name, t->ws.model_is_preset ? "" : " (edited)");
		break;
	case WF_SEQ:
		if (o->seq_len)
			snprintf(buf, n, "%d", o->seq_len);
		else
			snprintf(buf, n, "model's (%d)", m->seq_len);
		break;
	case WF_TOKENS:
		hp_fmt_count(buf, n, model_train_tokens(m, o->tokens));
		if (!(o->tokens > 0))
			snprintf(buf + strlen(buf), n - strlen(buf), " (20/parameter)");
		break;
	case WF_DEADLINE:
		if (o->deadline_s > 0)
			hp_fmt_duration(buf, n, o->deadline_s);
		else
			snprintf(buf, n, "none");
		break;
	case WF_BUDGET:
		if (o->budget_usd > 0)
			snprintf(buf, n, "$%.0f", o->budget_usd);
		else
			snprintf(buf, n, "none");
		break;
	case WF_TP: snprintf(buf, n, o->fix_tp ? "%d" : "free", o->fix_tp); break;
	case WF_PP: snprintf(buf, n, o->fix_pp ? "%d" : "free", o->fix_pp); break;
	case WF_MBS: snprintf(buf, n, o->fix_mbs ? "%d" : "free", o->fix_mbs); break;
	case WF_HETERO: snprintf(buf, n, "%s", o->no_hetero ? "off" : "allowed"); break;
	default:
		if (f->d)
			setting_text(f->d, field_base(t, f), m, pc, buf, n);
		break;
	}
}

/* A pool of GPU g shaped as the catalog says, named uniquely in c. */
static int pool_make(const struct catalog *cat, const struct cluster *c,
		     const struct gpu_spec *g, struct pool *out, struct hp_err *err)
{
	struct cluster *tmp = xmalloc(sizeof *tmp);
	*tmp = *c;
	char spec[96];
	snprintf(spec, sizeof spec, "1x%dx%.*s", g->def_gpus_per_node > 0 ? g->def_gpus_per_node : 8,
		 UTF8_CUT(g->name, 40));
	if (tmp->n_pools == HP_MAX_POOLS) {
		free(tmp);
		return hp_err_set(err, HP_EXIT_USAGE, "at most %d pools", HP_MAX_POOLS);
	}
	int rc = cluster_add_pool_spec(tmp, spec, cat, err);
	if (rc == 0)
		*out = tmp->pools[tmp->n_pools - 1];
	free(tmp);
	return rc;
}

static int parse_int0(const char *s, int *v)
{
	if (!strcmp(s, "0") || !strcmp(s, "free") || !*s) {
		*v = 0;
		return 0;
	}
	return hp_parse_int(s, v);
}

/* s is written as a decimal number may be ("12", "-3", "1.5e3"): strtod
 * also takes hex ("0x10" was a price of 16), "inf" and leading spaces. */
static int is_decimal(const char *s)
{
	return *s && strspn(s, "0123456789.eE+-") == strlen(s);
}

static int parse_num(const char *s, double *v)
{
	char *end;
	if (!is_decimal(s))
		return -1;
	*v = strtod(s, &end);
	return end == s || *end || !isfinite(*v) || *v < 0 ? -1 : 0;
}

/* dv within f's setting's range, which a saved workspace is loaded with;
 * else a message naming it. A field with rules of its own checks this too:
 * a price of 1000001 and an oversubscription of 1e300 were taken and
 * saved, and the file then refused (exit 3). Returns 0 or -1. */
static int num_in_range(struct tui *t, const struct field *f, double dv, const char *s)
{
	if (!f->d || (dv >= f->d->min && dv <= f->d->max))
		return 0;
	tui_message(t, 1, "%s: expected a number from %g to %g, got '%s'", f->label, f->d->min,
		    f->d->max, s);
	return -1;
}

/* Store a parsed value: the fields with rules of their own, then any
 * setting through its descriptor. Returns 0, or -1 with a message. */
static int field_set_special(struct tui *t, const struct field *f, const char *s, int iv,
			     double dv)
{
	struct pool *p = cur_pool(t);
	struct cluster *c = &t->ws.cluster;
	struct search_opts *o = &t->ws.opts;
	char want[FIELDS_WANT_MAX];
	switch (f->id) {
	case PF_NAME: {
		/* Spaces around a name are dropped: a plan label is the pool
		 * names and keys between spaces, and a name of spaces only
		 * labelled plans "  tp8 pp2". */
		char name[sizeof p->name];
		while (*s == ' ')
			s++;
		size_t n = strlen(s);
		while (n > 0 && s[n - 1] == ' ')
			n--;
		if (!n) {
			tui_message(t, 1, "Name: a pool needs a name");
			return -1;
		}
		if (n >= sizeof name) {
			tui_message(t, 1, "Name: at most %d bytes, got %zu", (int)sizeof name - 1, n);
			return -1;
		}
		memcpy(name, s, n);
		name[n] = 0;
		for (int i = 0; i < c->n_pools; i++)
			if (&c->pools[i] != p && !strcmp(c->pools[i].name, name)) {
				tui_message(t, 1, "Name: pool '%s' exists already", name);
				return -1;
			}
		hp_strlcpy(p->name, name, sizeof p->name);
		return 0;
	}
	case PF_GPN:
		/* The largest scale-up node a TUI user builds: an NVL72 rack. */
		if (iv > 72) {
			tui_message(t, 1, "GPUs per node: at most 72");
			return -1;
		}
		p->gpus_per_node = iv;   /* tui_edited() reprices it */
		pool_derive_domain(p);   /* a domain not given follows the node */
		return 0;
	case PF_NODES:
		p->nodes = iv;
		if (p->nodes_max)
			p->nodes_max = iv;
		return 0;
	case PF_INTRA_BW:
		/* The pool key intra_gbyte_s, which the step-time model reads
		 * (comm_fabric_set_intra); 0 gives the pool back to the
		 * catalog's figure. */
		if (dv != 0 && !(dv >= 0.01 && dv <= 1e4)) {
			tui_message(t, 1, "Scale-up speed: expected 0.01 to 10000 GB/s, or 0 for the catalog's");
			return -1;
		}
		p->intra_gbyte_s = dv;
		return 0;
	case PF_PRICE:
		/* Empty hands the pool back to the price book; 0 is a price
		 * (hardware already owned), as `--pool ...,price=0` is. */
		if (!*s) {
			p->usd_per_node_h = 0;
			p->price_set = 0;
			p->price_source[0] = 0;
			return 0;
		}
		if (num_in_range(t, f, dv, s) < 0)
			return -1;
		p->usd_per_node_h = dv;
		p->price_set = 1;
		snprintf(p->price_source, sizeof p->price_source, "entered in the TUI");
		return 0;
	case CF_OVERSUB:
		if (dv < 1) {
			tui_message(t, 1, "Oversubscription: 1 or more (1 = non-blocking)");
			return -1;
		}
		if (num_in_range(t, f, dv, s) < 0)
			return -1;
		c->oversub = dv;
		return 0;
	case WF_TOP:
		if (iv > 100) {
			tui_message(t, 1, "Plans to show: at most 100");
			return -1;
		}
		o->top_k = iv;
		return 0;
	case WF_TP: o->fix_tp = iv; return 0;
	case WF_PP: o->fix_pp = iv; return 0;
	case WF_MBS: o->fix_mbs = iv; return 0;
	default: break;
	}
	void *base = f->d ? field_base(t, f) : NULL;
	if (!base)
		return -1;
	switch (f->d->kind) {
	case FK_INT:
		if (iv > f->d->max) {
			tui_message(t, 1, "%s: expected an integer from %.0f to %.0f, got '%s'",
				    f->label, f->d->min, f->d->max, s);
			return -1;
		}
		fields_set_int(f->d, base, iv);
		return 0;
	case FK_NUM:
		/* 0 from "none" or "" clears a quantity or duration */
		if ((dv != 0 || (f->kind != F_QTY && f->kind != F_DUR)) &&
		    (dv < f->d->min || dv > f->d->max)) {
			tui_message(t, 1, "%s: expected a number from %g to %g", f->label, f->d->min,
				    f->d->max);
			return -1;
		}
		fields_set_num(f->d, base, dv);
		return 0;
	case FK_STR:
	case FK_ENUM:
	case FK_CUSTOM:
		if (fields_parse_text(f->d, base, s, want, sizeof want) < 0) {
			tui_message(t, 1, "%s: expected %s, got '%s'", f->label, want, s);
			return -1;
		}
		return 0;
	default: return -1;
	}
}

/* Parse the text of a field of kind k into *iv or *dv. Returns 0, or -1
 * with *want saying what was expected. "none" and "" clear quantities and
 * durations. */
static int field_parse(enum field_kind k, const char *s, int *iv, double *dv, const char **want)
{
	int empty = !strcmp(s, "none") || !*s;
	switch (k) {
	case F_INT:
		*want = "a positive whole number";
		return hp_parse_int(s, iv) ? -1 : 0;
	case F_INT0:
		*want = "0 or a positive whole number";
		return parse_int0(s, iv);
	case F_NUM:
		*want = "a number";
		return parse_num(s, dv);
	case F_QTY:
		*want = "a number like 2T or 1.5M";
		if (empty)
			return 0;
		return hp_parse_quantity(*s == '$' ? s + 1 : s, dv) || *dv < 0 ? -1 : 0;
	case F_DUR:
		*want = "a duration like 30d, 12h or 2w";
		if (empty || !strcmp(s, "0"))
			return 0;
		return hp_parse_duration(s, dv) ? -1 : 0;
	default: return 0;
	}
}

/* After field f changed: the plan editor estimates again; anything else
 * re-plans (a model field's edit leaves the preset). */
static void field_changed(struct tui *t, const struct field *f)
{
	if (f->tbl == &plan_fields) {
		tui_planedit_changed(t);
		return;
	}
	if (is_model_field(f))
		t->ws.model_is_preset = 0;
	tui_edited(t);
}

/* A cluster edit stays only if the cluster passes the checks a cluster
 * file passes (cluster_check: a saved workspace must load again); else
 * the cluster goes back to before, the check's message shows, and the
 * planner re-plans the cluster as it was. Returns 1 when the edit stays
 * (or nothing changed). */
static int cluster_guard(struct tui *t, const struct cluster *before)
{
	if (!memcmp(before, &t->ws.cluster, sizeof *before))
		return 1;
	struct hp_err err = { 0 };
	if (cluster_check(&t->ws.cluster, &err) == 0)
		return 1;
	memcpy(&t->ws.cluster, before, sizeof *before);
	tui_list_fix(&t->lpools, t->ws.cluster.n_pools, tui_view_rows());
	tui_message(t, 1, "%s", err.msg);
	tui_edited(t);
	return 0;
}

/* 1 when p's site is the one its provider and region make (the pool key
 * site's default, pool_apply_defaults: "aws/us-east-1"), or none: a site
 * the user never gave, which follows an edit of either. */
static int site_derived(const struct pool *p)
{
	struct pool q = *p;
	q.site[0] = 0;
	pool_apply_defaults(&q);
	return !*p->site || !strcmp(p->site, q.site);
}

/* f is the pool's Provider or Region. */
static int is_where_field(const struct field *f)
{
	return f->tbl == &pool_fields && f->key &&
	       (!strcmp(f->key, "provider") || !strcmp(f->key, "region"));
}

/* Apply text to field f. Returns 0, or -1 with a message. */
static int field_set(struct tui *t, const struct field *f, const char *s)
{
	struct pool *p = cur_pool(t);
	int iv = 0;
	double dv = 0;
	const char *want = "";
	if (f->id == PF_INTRA_BW && !*s)
		s = "0";   /* empty: the catalog's rate */
	if (f->id == PF_PRICE && !*s)
		dv = 0;    /* empty: the price book's (field_set_special) */
	else if (field_parse(f->kind, s, &iv, &dv, &want) < 0) {
		/* A number out of range ("-5") names the range, as one past
		 * the top does, not "expected a number". */
		char *end;
		double v = strtod(s, &end);
		if (f->kind == F_NUM && f->d && f->d->kind == FK_NUM && end != s && !*end &&
		    isfinite(v) && is_decimal(s))
			tui_message(t, 1, "%s: expected a number from %g to %g, got '%s'", f->label,
				    f->d->min, f->d->max, s);
		else if (f->d && f->d->kind == FK_INT && *s && strspn(s, "0123456789") == strlen(s) &&
			 v > INT_MAX)
			/* digits past an int: past the range, worded as the
			 * CLI's flag words it (fields.c parse_int_text) */
			tui_message(t, 1, "%s: expected an integer from %.0f to %.0f, got '%s'",
				    f->label, f->d->min, f->d->max, s);
		else
			tui_message(t, 1, "%s: expected %s, got '%s'", f->label, want, s);
		return -1;
	}
	if ((f->tbl == &pool_fields || f->id == PF_INTRA_BW) && !p)
		return -1;
	struct cluster *before = NULL;
	if (t->view == TV_CLUSTER) {
		before = xmalloc(sizeof *before);
		memcpy(before, &t->ws.cluster, sizeof *before);
	}
	/* A site that came from the provider and region moves with them, as
	 * a workspace saved and opened again would have it: pools moved to
	 * two clouds are joined by the WAN, not a spine (before, the site
	 * stayed as the pool was made, "" or the old place). */
	int follows = p && is_where_field(f) && site_derived(p);
	int rc = field_set_special(t, f, s, iv, dv);
	if (rc == 0 && follows) {
		p->site[0] = 0;
		pool_apply_defaults(p);
	}
	if (rc == 0 && before && !cluster_guard(t, before))
		rc = -1;
	else if (rc == 0)
		field_changed(t, f);
	free(before);
	return rc;
}

/* Step a choice field by dir (+1/-1). Returns 1 if it was one. */
static int field_cycle(struct tui *t, const struct field *f, int dir)
{
	struct pool *p = cur_pool(t);
	struct search_opts *o = &t->ws.opts;
	if ((f->tbl == &pool_fields || f->id == PF_AVAIL) && !p)
		return 0;
	switch (f->id) {
	case PF_AVAIL:
		p->nodes_max = p->nodes_max ? 0 : p->nodes;
		break;
	case PF_INTRA:
		/* another fabric: a rate measured on the old one no longer holds */
		fields_cycle(f->d, p, dir);
		pool_apply_defaults(p);
		p->intra_gbyte_s = 0;
		break;
	case MF_PRESET: {
		int cur = 0;
		for (int i = 0; i < t->cat->n_models; i++)
			if (!strcmp(t->cat->models[i].name, t->ws.model.name))
				cur = i;
		cur = (cur + dir + t->cat->n_models) % t->cat->n_models;
		t->ws.model = t->cat->models[cur];
		t->ws.model_is_preset = 1;
		break;
	}
	case WF_PRECISION: {
		/* The planner's usual choices first, not the enum's order. */
		int cur = 0, np = (int)HP_ARRAY_LEN(precisions);
		for (int i = 0; i < np; i++)
			if (precisions[i] == o->precision)
				cur = i;
		o->precision = precisions[(cur + dir + np) % np];
		break;
	}
	case WF_OBJECTIVE:
		fields_cycle(f->d, o, dir);
		/* Defaults that make the new objective meaningful: a month, $5M. */
		if (o->objective == OBJ_DEADLINE && o->deadline_s <= 0)
			o->deadline_s = 30 * 86400.0;
		if (o->objective == OBJ_BUDGET && o->budget_usd <= 0)
			o->budget_usd = 5e6;
		break;
	case WF_HETERO: o->no_hetero = !o->no_hetero; break;
	default:
		if (!f->d || !field_base(t, f) || !fields_cycle(f->d, field_base(t, f), dir))
			return 0;
		break;
	}
	field_changed(t, f);
	return 1;
}

int tui_field_commit(struct tui *t, const char *text)
{
	int n;
	const struct field *fs = fields_of(t, &n);
	if (t->field < 0 || t->field >= n)
		return -1;
	return field_set(t, &fs[t->field], text);
}

/* Enter on a field: cycle a choice, pick a GPU, or prompt for text. */
static int field_enter(struct tui *t)
{
	int n;
	const struct field *fs = fields_of(t, &n);
	struct tui_list *l = field_list(t);
	const struct field *f = &fs[l->sel];
	if (f->kind == F_SEP)
		return R_NONE;
	if (f->id == MF_PRESET) {
		tui_picker_open(t, PK_MODEL);
		return R_DRAW;
	}
	if (f->kind == F_GPU) {
		t->pick_add = 0;
		tui_picker_open(t, PK_GPU);
		return R_DRAW;
	}
	if (f->kind == F_CHOICE) {
		field_cycle(t, f, 1);
		return R_DRAW;
	}
	char cur[96], title[96];
	field_get(t, f, cur, sizeof cur);
	if (f->id == WF_SEQ && !t->ws.opts.seq_len)
		*cur = 0;
	/* the catalog's rate is not offered as a value: Enter on it would
	 * pin it as a measurement */
	if (f->id == PF_INTRA_BW && !strncmp(cur, "catalog: ", 9))
		*cur = 0;
	if ((f->id == WF_DEADLINE || f->id == WF_BUDGET) && !strcmp(cur, "none"))
		*cur = 0;
	if (f->id == WF_BUDGET && *cur == '$')
		memmove(cur, cur + 1, strlen(cur));
	const char *hint = f->hint ? f->hint : f->unit;
	snprintf(title, sizeof title, "%s%s%s%s:", f->label, *hint ? " (" : "", hint,
		 *hint ? ")" : "");
	t->field = l->sel;
	tui_start_prompt(t, P_FIELD, title, cur);
	return R_DRAW;
}

/* Moving in a field list skips the separators. */
static int fields_move(struct tui *t, int action, int h)
{
	int n;
	const struct field *fs = fields_of(t, &n);
	struct tui_list *l = field_list(t);
	int before = l->sel;
	if (!tui_list_move(l, action, n, h))
		return 0;
	if (fs[l->sel].kind == F_SEP) {
		int d = l->sel < before || action == ACT_BOTTOM ? -1 : 1;
		if (l->sel + d >= 0 && l->sel + d < n)
			l->sel += d;
		else
			l->sel -= d;
		tui_list_fix(l, n, h);
	}
	return 1;
}

static void draw_fields(struct tui *t, const struct field *fs, int n, struct tui_list *l,
			int y0, int x, int w, int h, int active)
{
	tui_list_fix(l, n, h);
	int lw = w < 44 ? 18 : 19;
	for (int r = 0; r < h && l->top + r < n; r++) {
		int i = l->top + r, y = y0 + r;
		const struct field *f = &fs[i];
		if (f->kind == F_SEP) {
			tui_section(t, y, x, w, f->label);
			continue;
		}
		int sel = i == l->sel;
		int a = sel ? tui_attr(t, active ? C_SEL : C_SEL_DIM) : 0;
		if (sel)
			tui_fill(y, x, w, a);
		char v[96];
		field_get(t, f, v, sizeof v);
		tui_put(y, x + 1, lw - 1, a, f->label);
		int vx = x + lw + 1;
		int vw = tui_put(y, vx, w - lw - 1, a | A_BOLD, *v ? v : "-");
		/* "..." (a picker opens) whole: in 2 cells it read ".." */
		if (f->kind == F_CHOICE || f->kind == F_GPU)
			tui_put(y, vx + vw + 1, f->kind == F_GPU ? 3 : 2,
				a | (sel ? 0 : tui_attr(t, C_DIM)),
				f->kind == F_GPU ? "..." : tui_glyph(t, G_ARROW));
		else if (*f->unit && vx + vw + 2 + tui_width(f->unit) < x + w) {
			/* a ratio's unit joins its value: "4:1", not "4 :1" */
			int ux = vx + vw + (*f->unit == ':' ? 0 : 1);
			tui_put(y, ux, w - (ux - x), a | (sel ? 0 : tui_attr(t, C_DIM)), f->unit);
		}
	}
	if (active) {
		t->mouse_list = l;
		t->mouse_y0 = y0;
		t->mouse_rows = h;
	}
}

/* ---- the Edit plan view's key list (the rest is tui_planedit.c) */

/* The plan's keys as the editor lists them (plan_field_ui), and n. */
static const struct field *plan_fields_ui(int *n)
{
	fields_resolve_all();
	*n = fields_count(plan_field_ui);
	return plan_field_ui;
}

/* Key d differs between the planner's plan and the edited one: another
 * value, or set where the other is unset (the framework's default). */
static int plan_key_changed(const struct hp_field *d, const struct plan *was, const struct plan *now)
{
	char va[PP_LAYOUT_TEXT + 16], vb[PP_LAYOUT_TEXT + 16];
	fields_format(d, was, va, sizeof va);
	fields_format(d, now, vb, sizeof vb);
	return strcmp(va, vb) || fields_is_default(d, was) != fields_is_default(d, now);
}

void tui_plan_fields_draw(struct tui *t, int y0, int x, int w, int h)
{
	int n;
	const struct field *fs = fields_of(t, &n);
	struct tui_list *l = field_list(t);
	draw_fields(t, fs, n, l, y0, x, w, h, 1);
	const struct plan *was = tui_planedit_orig(t), *now = tui_planedit_plan(t);
	if (!was || !now)
		return;
	/* A mark before each key that differs from the planner's plan. */
	for (int r = 0; r < h && l->top + r < n; r++)
		if (plan_key_changed(fs[l->top + r].d, was, now))
			tui_put(y0 + r, x, 1, tui_attr(t, C_WARN) | A_BOLD, "*");
}

int tui_plan_changes(struct tui *t, char *buf, size_t n)
{
	const struct plan *was = tui_planedit_orig(t), *now = tui_planedit_plan(t);
	const struct cluster *c;
	const struct model_spec *m;
	const struct search_opts *o;
	int nf, count = 0;
	const struct field *fs = plan_fields_ui(&nf);
	if (n)
		*buf = 0;
	if (!was || !now || tui_planedit_inputs(t, &c, &m, &o) < 0)
		return 0;
	size_t len = 0;
	for (int i = 0; i < nf; i++) {
		if (!plan_key_changed(fs[i].d, was, now))
			continue;
		char va[PP_LAYOUT_TEXT + 16], vb[PP_LAYOUT_TEXT + 16], one[2 * PP_LAYOUT_TEXT + 96];
		setting_text(fs[i].d, was, m, c, va, sizeof va);
		setting_text(fs[i].d, now, m, c, vb, sizeof vb);
		snprintf(one, sizeof one, "%s%s %s (was %s)", count ? ", " : "", fs[i].label, vb, va);
		count++;
		/* whole characters only: a full buffer ends on the last one */
		size_t k = utf8_cut(one, len < n ? n - 1 - len : 0);
		if (len < n) {
			memcpy(buf + len, one, k);
			len += k;
			buf[len] = 0;
		}
	}
	return count;
}

int tui_plan_fields_key(struct tui *t, int action)
{
	int n;
	const struct field *fs = fields_of(t, &n);
	struct tui_list *l = field_list(t);
	if (action == ACT_NONE) {
		tui_list_fix(l, n, tui_view_rows() - 1);
		return R_DRAW;
	}
	if (fields_move(t, action, tui_view_rows() - 1))
		return R_DRAW;
	if (action == ACT_ENTER)
		return field_enter(t);
	if ((action == ACT_LEFT || action == ACT_RIGHT) &&
	    !field_cycle(t, &fs[l->sel], action == ACT_RIGHT ? 1 : -1))
		tui_message(t, 0, "%s: Enter types a value", fs[l->sel].label);
	return action == ACT_LEFT || action == ACT_RIGHT ? R_DRAW : R_NONE;
}

/* ---- Cluster view */

void cluster_row_text(struct tui *t, int row, char *buf, size_t n)
{
	const struct pool *p = &t->ws.cluster.pools[row];
	snprintf(buf, n, "%s %s %s %s", p->name, p->gpu.name, p->provider, p->region);
}


void view_cluster_draw(struct tui *t, int y0, int h)
{
	const struct cluster *c = &t->ws.cluster;
	int wide = COLS >= 120;
	int side = wide ? 42 : 0;               /* editor to the right when wide */
	int tw = COLS - side;
	/* Pools table. */
	int rows_avail = wide ? HP_MIN(c->n_pools, h - 4) : HP_MIN(c->n_pools, HP_MAX(2, h - 12));
	int y = y0;
	/* 78 columns: the fabric is scale-up plus NICs, "NVS+8x400G". */
	int gw = tw >= 100 ? 16 : 14, ww = tw >= 100 ? 20 : 12;
	/* POOL: 8 columns, more where the row has room, up to the widest
	 * name; a name cut as plan labels cut it (head~tail, pools told
	 * apart: "h100-ea~" and "h100-ea~" were h100-east-aws and
	 * h100-east-gcp, even at 200 columns). */
	int nw = 8, widest = 0;
	for (int i = 0; i < c->n_pools; i++)
		widest = HP_MAX(widest, tui_width(c->pools[i].name));
	nw = HP_MAX(8, HP_MIN(widest, 8 + (tw - 2) - (52 + 8 + gw + ww)));
	char names[HP_MAX_POOLS][PLAN_POOL_NAME_MAX];
	plan_pool_names_cols(c, nw, names);
	char hdr[200];
	snprintf(hdr, sizeof hdr, "%-*s %-*s %5s %5s %-11s %-*s %8s %-8s", nw, "POOL", gw, "GPU",
		 "NODES", "GPU/N", "FABRIC", ww, "WHERE", "$/H", "AVAIL");
	tui_put(y++, 1, tw - 2, tui_attr(t, C_TITLE), hdr);
	tui_list_fix(&t->lpools, c->n_pools, rows_avail);
	for (int r = 0; r < rows_avail && t->lpools.top + r < c->n_pools; r++) {
		int i = t->lpools.top + r;
		const struct pool *p = &c->pools[i];
		static const char *const intra_short[] = { "NVS", "NVL", "PCIe" };
		char nics[32], price[24], avail[24], where[160], line[512];
		char name_c[96], gpu_c[96], where_c[128];
		snprintf(nics, sizeof nics, "%s+%dx%.0fG", intra_short[p->intra % 3], p->nics,
			 p->nic_gbps);
		/* The pool's dollars an hour in table_usd's words, as the
		 * Plans view's $/H, in the column's 8 ("$1043.35", "$41.2k",
		 * "$20.0M"; a wider figure pushed AVAIL past the row's end). */
		double ph = p->usd_per_node_h * p->nodes;
		if (!pool_price_known(p))
			snprintf(price, sizeof price, "?");
		else
			table_usd(price, sizeof price, ph, 8);
		if (p->nodes_max)
			snprintf(avail, sizeof avail, "max %d", p->nodes_max);
		else
			snprintf(avail, sizeof avail, "fixed");
		snprintf(where, sizeof where, "%s%s%s%s", p->spot ? "spot " : "",
			 *p->provider ? p->provider : "-", *p->region ? "/" : "", p->region);
		/* Names are the user's: cut in terminal cells on a whole
		 * character ("~"), so wide or multi-byte ones keep the
		 * columns aligned. */
		tui_cell(name_c, sizeof name_c, names[i], nw);
		tui_cell(gpu_c, sizeof gpu_c, p->gpu.name, gw);
		tui_cell(where_c, sizeof where_c, where, ww);
		snprintf(line, sizeof line, "%s %s %5d %5d %-11.11s %s %8s %-8s", name_c, gpu_c,
			 p->nodes, p->gpus_per_node, nics, where_c, price, avail);
		int sel = i == t->lpools.sel;
		int a = sel ? tui_attr(t, t->cluster_pane == 0 ? C_SEL : C_SEL_DIM) : 0;
		if (sel)
			tui_fill(y, 0, tw, a);
		tui_put(y, 1, tw - 2, a, line);
		y++;
	}
	if (t->cluster_pane == 0) {
		t->mouse_list = &t->lpools;
		t->mouse_y0 = y0 + 1;
		t->mouse_rows = rows_avail;
	}
	y = y0 + 1 + rows_avail;
	/* Totals. */
	double gpus = 0, flops = 0, mem = 0, usd = 0;
	int unpriced = 0;
	for (int i = 0; i < c->n_pools; i++) {
		const struct pool *p = &c->pools[i];
		double g = (double)p->nodes * p->gpus_per_node;
		gpus += g;
		flops += g * p->gpu.flops[t->ws.opts.precision];
		/* What the Detail view's memory bars count as a GPU's
		 * capacity (perf_mem.c): the usable bytes a CUDA process
		 * sees (H100: 79.6 GiB), not the nominal "80 GB". */
		mem += g * gpu_usable_bytes(&p->gpu);
		if (pool_price_known(p))
			usd += p->usd_per_node_h * p->nodes;
		else
			unpriced++;
	}
	char mb[32], pr[32];
	hp_fmt_bytes(mb, sizeof mb, mem);
	if (usd > 0)
		table_usd(pr, sizeof pr, usd, 0);
	else
		snprintf(pr, sizeof pr, "?");
	tui_section(t, y++, 0, tw, "Totals");
	tui_putf(y, 1, tw - 2, A_BOLD, "%.0f GPUs  %.1f PFLOP/s %s peak  %s memory  %s/h%s", gpus,
		 flops / 1e15, hp_dtype_name(t->ws.opts.precision), mb, pr,
		 unpriced ? " + unpriced pools" : "");
	y++;
	/* Field editor: below when narrow, to the right when wide. */
	int fx = wide ? tw : 0, fy = wide ? y0 : y + 1, fw = wide ? side : COLS;
	int fh = wide ? h : y0 + h - fy;
	if (wide)
		for (int yy = y0; yy < y0 + h; yy++)
			tui_put(yy, fx, 1, tui_attr(t, C_DIM), tui_glyph(t, G_VLINE));
	const struct pool *p = c->n_pools ? &c->pools[t->lpools.sel] : NULL;
	char title[64];
	snprintf(title, sizeof title, "Pool %s", p ? p->name : "-");   /* 31 bytes at most */
	tui_section(t, fy, fx + (wide ? 1 : 0), fw - (wide ? 1 : 0), title);
	fields_resolve_all();
	draw_fields(t, pool_field_ui, fields_count(pool_field_ui), &t->lfields, fy + 1,
		    fx + (wide ? 1 : 0), fw - (wide ? 1 : 0), fh - 1, t->cluster_pane == 1);
}

static int cluster_fields_rows(void)
{
	return COLS >= 120 ? tui_view_rows() - 1 : 8;
}

static int cluster_key(struct tui *t, int action, int ch)
{
	struct cluster *c = &t->ws.cluster;
	int h = cluster_fields_rows();
	if (action == ACT_NONE) {
		tui_list_fix(&t->lpools, c->n_pools, tui_view_rows());
		return R_DRAW;
	}
	if (t->cluster_pane == 1) {
		int n;
		const struct field *fs = fields_of(t, &n);
		switch (action) {
		case ACT_ENTER: return field_enter(t);
		case ACT_PANE: t->cluster_pane = 0; return R_DRAW;
		case ACT_BACK: t->cluster_pane = 0; return R_DRAW;
		case ACT_LEFT:
		case ACT_RIGHT:
			if (!field_cycle(t, &fs[t->lfields.sel], action == ACT_RIGHT ? 1 : -1) &&
			    action == ACT_LEFT)
				t->cluster_pane = 0;
			return R_DRAW;
		default:
			if (fields_move(t, action, h))
				return R_DRAW;
		}
	} else {
		if (tui_list_move(&t->lpools, action, c->n_pools, tui_view_rows() - 4))
			return R_DRAW;
		switch (action) {
		case ACT_ENTER:
		case ACT_PANE:
		case ACT_RIGHT:
			if (c->n_pools)
				t->cluster_pane = 1;
			return R_DRAW;
		case ACT_BACK:
		case ACT_LEFT:
			return 4;   /* R_PASS: Esc cancels work instead */
		default:
			break;
		}
	}
	struct pool *p = cur_pool(t);
	struct hp_err err = { 0 };
	switch (action) {
	case ACT_ADD:
		if (c->n_pools == HP_MAX_POOLS) {
			tui_message(t, 1, "at most %d pools", HP_MAX_POOLS);
			return R_DRAW;
		}
		t->pick_add = 1;
		tui_picker_open(t, PK_GPU);
		return R_DRAW;
	case ACT_DUP: {
		if (!p)
			return R_NONE;
		if (c->n_pools == HP_MAX_POOLS) {
			tui_message(t, 1, "at most %d pools", HP_MAX_POOLS);
			return R_DRAW;
		}
		struct pool np = *p;
		for (int k = 2; k < 100; k++) {
			snprintf(np.name, sizeof np.name, "%.*s-%d", UTF8_CUT(p->name, 24), k % 100);
			if (cluster_pool_index(c, np.name) < 0)
				break;
		}
		c->pools[c->n_pools++] = np;
		t->lpools.sel = c->n_pools - 1;
		tui_message(t, 0, "added pool %s", np.name);
		tui_edited(t);
		return R_DRAW;
	}
	case ACT_DELETE:
		if (!p)
			return R_NONE;
		if (ch != 'y') {
			if (c->n_pools == 1) {
				tui_message(t, 1, "the last pool stays; add another first");
				return R_DRAW;
			}
			char q[96];
			snprintf(q, sizeof q, "Delete pool %.*s? (y/n)", UTF8_CUT(p->name, 40));
			tui_start_prompt(t, P_CONFIRM_DEL, q, "");
			return R_DRAW;
		}
		{
			char gone[32];
			hp_strlcpy(gone, p->name, sizeof gone);
			int i = t->lpools.sel;
			memmove(&c->pools[i], &c->pools[i + 1],
				(size_t)(c->n_pools - i - 1) * sizeof c->pools[0]);
			c->n_pools--;
			tui_list_fix(&t->lpools, c->n_pools, tui_view_rows());
			tui_message(t, 0, "deleted pool %s", gone);
			tui_edited(t);
		}
		return R_DRAW;
	case ACT_MORE:
	case ACT_LESS:
		if (!p)
			return R_NONE;
		if (action == ACT_LESS && p->nodes <= 1) {
			tui_message(t, 1, "a pool has at least one node; x deletes it");
			return R_DRAW;
		}
		p->nodes += action == ACT_MORE ? 1 : -1;
		if (p->nodes_max)
			p->nodes_max = p->nodes;
		tui_edited(t);
		return R_DRAW;
	case ACT_SEARCH:
		tui_start_prompt(t, P_SEARCH, "Find pool:", t->search);
		return R_DRAW;
	case ACT_SEARCH_NEXT:
	case ACT_SEARCH_PREV:
		tui_search(t, action == ACT_SEARCH_NEXT ? 1 : -1);
		return R_DRAW;
	}
	(void)err;
	return R_NONE;
}

/* Every key of the Cluster view (+/- node, duplicate, delete, a choice
 * cycled) leaves a cluster that passes cluster_check, or none of it. */
int view_cluster_key(struct tui *t, int action, int ch)
{
	struct cluster *before = xmalloc(sizeof *before);
	memcpy(before, &t->ws.cluster, sizeof *before);
	int r = cluster_key(t, action, ch);
	if (!cluster_guard(t, before))
		r = R_DRAW;
	free(before);
	return r;
}

/* ---- Model view */

void view_model_draw(struct tui *t, int y0, int h)
{
	int w = COLS / 2;
	const struct model_spec *m = &t->ws.model;
	struct param_count pc;
	model_params(m, &pc);
	char a[24], b[24], title[96];
	snprintf(title, sizeof title, "Model: %.*s", UTF8_CUT(m->display, 60));
	tui_section(t, y0, 0, w - 1, title);
	fields_resolve_all();
	int nm = fields_count(model_field_ui), nw = fields_count(work_field_ui);
	draw_fields(t, model_field_ui, nm, &t->lmodel[0], y0 + 1, 0, w - 1, h - 3,
		    t->model_pane == 0);
	hp_fmt_count(a, sizeof a, pc.total);
	hp_fmt_count(b, sizeof b, pc.active);
	tui_putf(y0 + h - 1, 1, w - 2, tui_attr(t, C_DIM), "%s parameters%s%s%s", a,
		 pc.active < pc.total ? ", " : "", pc.active < pc.total ? b : "",
		 pc.active < pc.total ? " active" : "");
	for (int y = y0; y < y0 + h; y++)
		tui_put(y, w - 1, 1, tui_attr(t, C_DIM), tui_glyph(t, G_VLINE));
	tui_section(t, y0, w, COLS - w, "Training workload");
	draw_fields(t, work_field_ui, nw, &t->lmodel[1], y0 + 1, w, COLS - w, h - 3,
		    t->model_pane == 1);
	const struct search_opts *o = &t->ws.opts;
	int seq = o->seq_len ? o->seq_len : m->seq_len;
	double tok = (double)o->gbs * seq, train = model_train_tokens(m, o->tokens);
	hp_fmt_count(a, sizeof a, tok);
	hp_fmt_count(b, sizeof b, search_train_steps(train, tok));
	if (o->seq_len > m->seq_len)
		tui_putf(y0 + h - 1, w + 1, COLS - w - 2, tui_attr(t, C_WARN),
			 "sequence %d > context %d: C clamps", o->seq_len, m->seq_len);
	else
		tui_putf(y0 + h - 1, w + 1, COLS - w - 2, tui_attr(t, C_DIM),
			 "%s tokens per step, %s steps", a, b);
	/* What follows from the fields, when there is room under them. */
	int y = y0 + 1 + nw + 1;
	if (y + 6 < y0 + h - 1) {
		double fpt = model_step_flops(m, tok, seq) / tok;
		char c1[24], c2[24];
		tui_section(t, y++, w, COLS - w, "Derived");
		hp_fmt_count(c1, sizeof c1, pc.total);
		hp_fmt_count(c2, sizeof c2, pc.active);
		tui_putf(y++, w + 1, COLS - w - 2, 0, "%-18s %s total, %s active", "Parameters", c1, c2);
		hp_fmt_count(c1, sizeof c1, fpt);
		tui_putf(y++, w + 1, COLS - w - 2, 0, "%-18s %s per token, forward and backward",
			 "Model FLOPs", c1);
		tui_putf(y++, w + 1, COLS - w - 2, 0, "%-18s %.3g FLOPs for %s tokens", "Training compute",
			 fpt * train, (hp_fmt_count(c2, sizeof c2, train), c2));
		hp_fmt_bytes(c1, sizeof c1, 16 * pc.total);
		tui_putf(y++, w + 1, COLS - w - 2, 0, "%-18s %s (16 bytes per parameter)",
			 "Weights + Adam", c1);
		hp_fmt_count(c1, sizeof c1, tok);
		tui_putf(y++, w + 1, COLS - w - 2, 0, "%-18s %s tokens, %s steps", "Per step", c1, b);
	}
}

int view_model_key(struct tui *t, int action, int ch)
{
	int n;
	const struct field *fs = fields_of(t, &n);
	struct tui_list *l = field_list(t);
	int h = tui_view_rows() - 3;
	if (action == ACT_NONE) {
		tui_list_fix(l, n, h);
		if (fs[l->sel].kind == F_SEP)
			l->sel++;
		return R_DRAW;
	}
	if (fields_move(t, action, h))
		return R_DRAW;
	switch (action) {
	case ACT_ENTER: return field_enter(t);
	case ACT_PANE: t->model_pane = !t->model_pane; return R_DRAW;
	case ACT_LEFT:
	case ACT_RIGHT:
		if (!field_cycle(t, &fs[l->sel], action == ACT_RIGHT ? 1 : -1))
			t->model_pane = action == ACT_RIGHT;
		return R_DRAW;
	case ACT_PRESET:
		tui_picker_open(t, PK_MODEL);
		return R_DRAW;
	case ACT_CLAMP:
		if (t->ws.opts.seq_len > t->ws.model.seq_len) {
			int was = t->ws.opts.seq_len;
			t->ws.opts.seq_len = t->ws.model.seq_len;
			tui_edited(t);
			tui_message(t, 0, "sequence length %d -> %d, the model's context", was,
				    t->ws.opts.seq_len);
		} else {
			tui_message(t, 0, "the sequence length fits the model's context");
		}
		return R_DRAW;
	}
	return R_NONE;
}

/* ---- picker: a filtered list of catalog GPUs or model presets */

static void pick_text(const struct tui *t, int i, char *buf, size_t n)
{
	if (t->picker == PK_GPU) {
		const struct gpu_spec *g = &t->cat->gpus[i];
		char price[40] = "", peak[24] = "-", r[32];
		/* in table_rate's words, as `hetplan prices` and the TUI's
		 * Prices view write a GPU-hour */
		if (g->ref_usd_per_gpu_h > 0)
			snprintf(price, sizeof price, "$%s/GPU-h",
				 table_rate(r, sizeof r, g->ref_usd_per_gpu_h, 0));
		/* The best dtype's peak, named: a part without bf16 (V100, T4)
		 * shows its fp16 rate rather than 0. */
		int best = gpu_best_dtype(g);
		if (best >= 0)
			snprintf(peak, sizeof peak, "%5.0f TF %-4s", g->flops[best] / 1e12,
				 hp_dtype_name((enum hp_dtype)best));
		snprintf(buf, n, "%-16.16s %4.0f GB %12s %-9.9s %s", g->name, g->mem_bytes / 1e9,
			 peak, hp_gen_name(g->gen), price);
	} else {
		const struct model_spec *m = &t->cat->models[i];
		struct param_count pc;
		model_params(m, &pc);
		char p[16];
		hp_fmt_count(p, sizeof p, pc.total);
		snprintf(buf, n, "%-16.16s %-26.26s %7s", m->name, m->display, p);
	}
}

/* 1 if f occurs in s at the start of a word (after '-', '.', '_', ' ' or
 * '/'), ignoring case. */
static int match_at_word(const char *s, const char *f)
{
	size_t fl = strlen(f);
	for (const char *p = s; *p; p++)
		if ((p == s || strchr("-._ /", p[-1])) && !strncasecmp(p, f, fl))
			return 1;
	return 0;
}

/* How well filter f names entry i, best 0: 0 an exact name, alias or
 * display name; 1 the start of one; 2 a word inside a name or alias
 * ("8b" in "llama3.1-8b"); 3 anywhere inside one; 4 inside the display
 * name ("GPT 1T (1008B)"); 5 elsewhere in the row (an architecture, a
 * size); -1 not at all. Case is ignored. */
static int pick_rank(const struct tui *t, int i, const char *f)
{
	const char *names[GPU_MAX_ALIASES + 2];
	int nn = 0;
	const char *display = NULL;
	if (t->picker == PK_GPU) {
		const struct gpu_spec *g = &t->cat->gpus[i];
		names[nn++] = g->name;
		for (int a = 0; a < g->n_aliases; a++)
			names[nn++] = g->aliases[a];
	} else {
		names[nn++] = t->cat->models[i].name;
		display = t->cat->models[i].display;
	}
	size_t fl = strlen(f);
	int best = 6;
	for (int k = 0; k < nn; k++) {
		if (!strcasecmp(names[k], f))
			best = HP_MIN(best, 0);
		else if (!strncasecmp(names[k], f, fl))
			best = HP_MIN(best, 1);
		else if (match_at_word(names[k], f))
			best = HP_MIN(best, 2);
		else if (tui_match(names[k], f))
			best = HP_MIN(best, 3);
	}
	if (display && best > 0) {
		if (!strcasecmp(display, f))
			best = 0;
		else if (!strncasecmp(display, f, fl))
			best = HP_MIN(best, 1);
		else if (tui_match(display, f))
			best = HP_MIN(best, 4);
	}
	if (best == 6) {
		char buf[160];
		pick_text(t, i, buf, sizeof buf);
		best = tui_match(buf, f) ? 5 : -1;
	}
	return best;
}

/* The entries the filter names, best first (exact, prefix, substring,
 * display name, elsewhere in the row), catalog order within a rank. */
static void pick_filter(struct tui *t)
{
	int total = t->picker == PK_GPU ? t->cat->n_gpus : t->cat->n_models;
	free(t->pick_idx);
	t->pick_idx = xcalloc((size_t)total + 1, sizeof *t->pick_idx);
	t->n_pick = 0;
	int *rank = xcalloc((size_t)total + 1, sizeof *rank);
	for (int i = 0; i < total; i++)
		rank[i] = *t->pick_filter ? pick_rank(t, i, t->pick_filter) : 0;
	for (int r = 0; r <= 5; r++)
		for (int i = 0; i < total; i++)
			if (rank[i] == r)
				t->pick_idx[t->n_pick++] = i;
	free(rank);
	tui_list_fix(&t->lpick, t->n_pick, 10);
}

void tui_picker_open(struct tui *t, enum picker_kind k)
{
	t->picker = k;
	*t->pick_filter = 0;
	t->lpick.sel = t->lpick.top = 0;
	pick_filter(t);
	const char *cur = k == PK_GPU ? (cur_pool(t) && !t->pick_add ? cur_pool(t)->gpu.name : "")
				      : t->ws.model.name;
	for (int i = 0; i < t->n_pick; i++) {
		const char *name = k == PK_GPU ? t->cat->gpus[t->pick_idx[i]].name
					       : t->cat->models[t->pick_idx[i]].name;
		if (!strcmp(name, cur))
			t->lpick.sel = i;
	}
}

static int picker_rows(void)
{
	return HP_MAX(3, HP_MIN(20, LINES - 10));
}

void tui_picker_draw(struct tui *t)
{
	int h = picker_rows(), w = HP_MIN(COLS - 4, 72);
	int x0 = (COLS - w) / 2, y0 = 3;
	tui_list_fix(&t->lpick, t->n_pick, h);
	int box = tui_attr(t, C_NORMAL);
	for (int y = y0; y < y0 + h + 4; y++)
		tui_fill(y, x0, w, box);
	const char *hl = tui_glyph(t, G_HLINE), *vl = tui_glyph(t, G_VLINE);
	for (int x = x0; x < x0 + w; x++) {
		tui_put(y0, x, 1, tui_attr(t, C_DIM), hl);
		tui_put(y0 + h + 3, x, 1, tui_attr(t, C_DIM), hl);
	}
	for (int y = y0 + 1; y < y0 + h + 3; y++) {
		tui_put(y, x0, 1, tui_attr(t, C_DIM), vl);
		tui_put(y, x0 + w - 1, 1, tui_attr(t, C_DIM), vl);
	}
	tui_putf(y0, x0 + 2, w - 4, tui_attr(t, C_TITLE), " %s ",
		 t->picker == PK_GPU ? (t->pick_add ? "Add a pool: pick its GPU" : "GPU")
				     : "Model preset");
	/* A filter longer than the box (a model file's path) shows its end. */
	const char *ft = t->pick_filter;
	int fw = w - 4 - 30 - 9;
	if (tui_width(ft) > fw - 1) {
		ft += strlen(ft) - (size_t)HP_MAX(0, fw - 2);
		tui_putf(y0 + 1, x0 + 2, w - 4, 0, "Filter: %s%s_", tui_glyph(t, G_MID), ft);
	} else {
		tui_putf(y0 + 1, x0 + 2, w - 4, 0, "Filter: %s_", ft);
	}
	tui_putf(y0 + 1, x0 + w - 30, 28, tui_attr(t, C_DIM), "%28s", "Enter picks, Esc cancels");
	for (int r = 0; r < h && t->lpick.top + r < t->n_pick; r++) {
		int i = t->lpick.top + r;
		char buf[160];
		pick_text(t, t->pick_idx[i], buf, sizeof buf);
		int a = i == t->lpick.sel ? tui_attr(t, C_SEL) : 0;
		if (a)
			tui_fill(y0 + 2 + r, x0 + 1, w - 2, a);
		tui_put(y0 + 2 + r, x0 + 2, w - 4, a, buf);
	}
	if (!t->n_pick)
		tui_put(y0 + 2, x0 + 2, w - 4, tui_attr(t, C_DIM),
			t->picker == PK_MODEL ? "no preset matches: Enter reads it as a model JSON file"
					      : "nothing matches");
	else if (t->picker == PK_GPU && t->lpick.sel < t->n_pick) {
		/* The highlighted part's dtypes and their dense peaks. */
		const struct gpu_spec *g = &t->cat->gpus[t->pick_idx[t->lpick.sel]];
		char line[160];
		int len = snprintf(line, sizeof line, "dense TF:");
		for (int d = 0; d < HP_DTYPE_COUNT && len > 0 && len < (int)sizeof line; d++)
			if (g->flops[d] > 0)
				len += snprintf(line + len, sizeof line - (size_t)len, " %s %.4g",
						hp_dtype_name((enum hp_dtype)d), g->flops[d] / 1e12);
		/* a part held below its rated power (catalog power_limit_w,
		 * as hetplan gpus marks it): the watts it runs at */
		if (g->power_limit_w > 0 && g->power_limit_w < g->tdp_w && len > 0 &&
		    len < (int)sizeof line)
			snprintf(line + len, sizeof line - (size_t)len, "; %.0f W of its %.0f W TDP",
				 g->power_limit_w, g->tdp_w);
		tui_put(y0 + h + 2, x0 + 2, w - 4, tui_attr(t, C_DIM), line);
	}
	t->mouse_list = &t->lpick;
	t->mouse_y0 = y0 + 2;
	t->mouse_rows = h;
}

static void pick_apply(struct tui *t, int idx)
{
	if (t->picker == PK_MODEL) {
		t->ws.model = t->cat->models[idx];
		t->ws.model_is_preset = 1;
		tui_edited(t);
		int seq = t->ws.opts.seq_len;
		if (seq > t->ws.model.seq_len)
			tui_message(t, 1, "%.*s: context %d < sequence %d; C clamps",
				    UTF8_CUT(t->ws.model.name, 20), t->ws.model.seq_len, seq);
		return;
	}
	const struct gpu_spec *g = &t->cat->gpus[idx];
	struct cluster *c = &t->ws.cluster;
	struct pool np;
	struct hp_err err = { 0 };
	/* a replacement is checked against the other pools, not the pool it
	 * replaces */
	struct cluster *others = xmalloc(sizeof *others);
	memcpy(others, c, sizeof *others);
	if (!t->pick_add && cur_pool(t)) {
		int i = t->lpools.sel;
		memmove(&others->pools[i], &others->pools[i + 1],
			(size_t)(others->n_pools - i - 1) * sizeof others->pools[0]);
		others->n_pools--;
	}
	int rc = pool_make(t->cat, others, g, &np, &err);
	free(others);
	if (rc < 0) {
		tui_message(t, 1, "%s", err.msg);
		return;
	}
	struct cluster *before = xmalloc(sizeof *before);
	memcpy(before, c, sizeof *before);
	if (t->pick_add) {
		c->pools[c->n_pools++] = np;
		t->lpools.sel = c->n_pools - 1;
		t->cluster_pane = 1;
		t->lfields.sel = 0;
		tui_message(t, 0, "added pool %s: Enter edits its fields", np.name);
	} else {
		struct pool *p = cur_pool(t);
		if (!p) {
			free(before);
			return;
		}
		hp_strlcpy(np.name, p->name, sizeof np.name);
		hp_strlcpy(np.provider, p->provider, sizeof np.provider);
		hp_strlcpy(np.region, p->region, sizeof np.region);
		hp_strlcpy(np.site, p->site, sizeof np.site);
		np.nodes = p->nodes;
		np.nodes_max = p->nodes_max;
		np.spot = p->spot;
		*p = np;
	}
	if (cluster_guard(t, before))   /* else it re-planned the old cluster */
		tui_edited(t);
	free(before);
}

/* A model JSON file, as `hetplan plan -m FILE` reads it (one model
 * object), in place of the workspace's model; a file that does not load
 * leaves the model as it was and says why. */
static void pick_model_file(struct tui *t, const char *path)
{
	struct model_spec m;
	struct hp_err err = { 0 };
	struct stat st;
	/* Neither a preset nor a file: said in the picker's words, not as
	 * cli_load_model words it for `-m` on the command line. */
	if (!catalog_model(t->cat, path) && stat(path, &st) != 0) {
		if (strchr(path, '/') || strstr(path, ".json"))
			tui_message(t, 1, "Model preset: %.*s: no such file", UTF8_CUT(path, 60));
		else {
			catalog_model_unknown(t->cat, path, "Model preset", &err);
			tui_message(t, 1, "%s", err.msg);
		}
		return;
	}
	if (cli_load_model(t->cat, path, &m, &err) < 0) {
		tui_message(t, 1, "%s", err.msg);
		return;
	}
	t->ws.model = m;
	t->ws.model_is_preset = 0;
	tui_edited(t);
	if (t->ws.opts.seq_len > m.seq_len)
		tui_message(t, 1, "%.*s: context %d < sequence %d; C clamps", UTF8_CUT(m.name, 20),
			    m.seq_len, t->ws.opts.seq_len);
	else
		tui_message(t, 0, "model %.*s from %.*s", UTF8_CUT(m.name, 24), UTF8_CUT(path, 60));
}

int tui_picker_key(struct tui *t, int ch)
{
	int h = picker_rows();
	switch (ch) {
	case 27:
		t->picker = PK_NONE;
		return R_DRAW;
	case '\n': case '\r': case KEY_ENTER:
		if (t->n_pick)
			pick_apply(t, t->pick_idx[t->lpick.sel]);
		else if (t->picker == PK_MODEL && *t->pick_filter)
			pick_model_file(t, t->pick_filter);
		else if (*t->pick_filter)
			tui_message(t, 1, "no GPU matches '%s'", t->pick_filter);
		t->picker = PK_NONE;
		return R_DRAW;
	case KEY_UP: tui_list_move(&t->lpick, ACT_UP, t->n_pick, h); return R_DRAW;
	case KEY_DOWN: tui_list_move(&t->lpick, ACT_DOWN, t->n_pick, h); return R_DRAW;
	case KEY_PPAGE: tui_list_move(&t->lpick, ACT_PGUP, t->n_pick, h); return R_DRAW;
	case KEY_NPAGE: tui_list_move(&t->lpick, ACT_PGDN, t->n_pick, h); return R_DRAW;
	case KEY_MOUSE: {
		MEVENT ev;
		if (getmouse(&ev) == OK && ev.y >= t->mouse_y0 && ev.y < t->mouse_y0 + h) {
			t->lpick.sel = t->lpick.top + ev.y - t->mouse_y0;
			tui_list_fix(&t->lpick, t->n_pick, h);
			if ((ev.bstate & BUTTON1_DOUBLE_CLICKED) && t->n_pick) {
				pick_apply(t, t->pick_idx[t->lpick.sel]);
				t->picker = PK_NONE;
			}
		}
		return R_DRAW;
	}
	case KEY_BACKSPACE: case 127: case 8: {
		size_t n = strlen(t->pick_filter);
		if (n)
			t->pick_filter[n - 1] = 0;
		pick_filter(t);
		return R_DRAW;
	}
	default:
		if (ch >= 32 && ch < 127 && strlen(t->pick_filter) + 1 < sizeof t->pick_filter) {
			size_t n = strlen(t->pick_filter);
			t->pick_filter[n] = (char)ch;
			t->pick_filter[n + 1] = 0;
			t->lpick.sel = 0;
			pick_filter(t);
		}
		return R_DRAW;
	}
}
