/* dispatch.c — plans onto nodes (see dispatch.h). */
#include "dispatch.h"
#include "perf_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dispatch_free(struct dispatch *d)
{
	for (int i = 0; i < d->n_stages; i++)
		free(d->st[i].nodes);
	free(d->st);
	memset(d, 0, sizeof *d);
}

static void add_node(struct dispatch_stage *s, int node, int *cap)
{
	for (int i = 0; i < s->n_nodes; i++)
		if (s->nodes[i] == node)
			return;
	if (s->n_nodes == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		s->nodes = xrealloc(s->nodes, (size_t)*cap * sizeof *s->nodes);
	}
	s->nodes[s->n_nodes++] = node;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* Which dimension goes inward: DP peers when they move more bytes per
 * step than pipeline neighbours. */
static int dp_goes_inner(const struct model_spec *m, const struct plan *p)
{
	double s = p->seq_len ? p->seq_len : m->seq_len;
	double act = (double)p->mbs * s / p->cp * m->hidden * 2;
	double pp_bytes = 2.0 * act * ((double)p->gbs / p->mbs) / (plan_dp(p) ? plan_dp(p) : 1);
	struct param_count pc;
	model_params(m, &pc);
	int max_pp = 1, max_tp = 1;
	for (int r = 0; r < p->n_replicas; r++) {
		max_pp = HP_MAX(max_pp, p->replicas[r].n_stages);
		for (int k = 0; k < p->replicas[r].n_stages; k++)
			max_tp = HP_MAX(max_tp, p->replicas[r].stages[k].tp);
	}
	double dp_bytes = pc.total / max_pp / max_tp * 4;
	return dp_bytes > pp_bytes;
}

/* Take GPUs for every stage of every replica, in index order (d->st and
 * d->dp_inner set). Returns 0, or -1 with err when a pool runs out. */
static int place_stages(const struct cluster *c, const struct plan *p, struct dispatch *d,
			int *caps, struct hp_err *err)
{
	int next_gpu[HP_MAX_POOLS] = { 0 };
	int base = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rep = &p->replicas[r];
		for (int k = 0; k < rep->n_stages; k++) {
			d->st[base + k].group = r;
			d->st[base + k].stage = k;
			d->st[base + k].pool = rep->stages[k].pool;
			d->st[base + k].first_gpu = -1;
		}
		int outer = d->dp_inner ? rep->n_stages : rep->count;
		int inner = d->dp_inner ? rep->count : rep->n_stages;
		for (int a = 0; a < outer; a++)
			for (int b = 0; b < inner; b++) {
				int k = d->dp_inner ? a : b;
				const struct stage *st = &rep->stages[k];
				const struct pool *pl = &c->pools[st->pool];
				int need = st->tp * p->cp;
				int have = pl->nodes * pl->gpus_per_node;
				/* a TP group never straddles a node */
				int g = next_gpu[st->pool];
				if (g % pl->gpus_per_node + st->tp > pl->gpus_per_node)
					g += pl->gpus_per_node - g % pl->gpus_per_node;
				if (g + need > have)
					return hp_err_set(err, HP_EXIT_INPUT,
						  "dispatch: pool '%s' runs out of GPUs placing "
						  "replica group %d stage %d (%d GPUs)",
						  pl->name, r, k, have);
				struct dispatch_stage *ds = &d->st[base + k];
				if (ds->first_gpu < 0)
					ds->first_gpu = g;
				for (int q = g; q < g + need; q += pl->gpus_per_node)
					add_node(ds, q / pl->gpus_per_node, &caps[base + k]);
				add_node(ds, (g + need - 1) / pl->gpus_per_node, &caps[base + k]);
				next_gpu[st->pool] = g + need;
			}
		base += rep->n_stages;
	}
	for (int i = 0; i < d->n_stages; i++)
		qsort(d->st[i].nodes, (size_t)d->st[i].n_nodes, sizeof *d->st[i].nodes, cmp_int);
	return 0;
}

/* Where pipeline neighbours meet: inpool[q] 1 when neighbours on pool q
 * share a node, 2 when some sit on different nodes; pair[a][b] (a < b) 1
 * when a boundary joins pools a and b. */
static void pp_neighbours(const struct cluster *c, const struct plan *p,
			  const struct dispatch *d, int *inpool,
			  unsigned char pair[HP_MAX_POOLS][HP_MAX_POOLS])
{
	int base = 0;
	for (int r = 0; r < p->n_replicas; r++) {
		const struct replica *rep = &p->replicas[r];
		for (int k = 0; k + 1 < rep->n_stages; k++) {
			const struct dispatch_stage *a = &d->st[base + k];
			const struct dispatch_stage *b = &d->st[base + k + 1];
			if (a->pool != b->pool) {
				pair[HP_MIN(a->pool, b->pool)][HP_MAX(a->pool, b->pool)] = 1;
			} else if (a->n_nodes != b->n_nodes || a->nodes[0] != b->nodes[0] ||
				   c->pools[a->pool].gpus_per_node <
					   rep->stages[k].tp * p->cp * 2) {
				inpool[a->pool] = 2;
			} else if (!inpool[a->pool]) {
				inpool[a->pool] = 1;
			}
		}
		base += rep->n_stages;
	}
}

/* Boundaries alike in their link, with the pools (or pool pairs) they
 * join: "in h100, a100: 8x400G NIC, leaf". */
struct link_group {
	char link[128];
	char where[160];
	int n, inside;   /* inside: boundaries within the pools named */
};

static void group_add(struct link_group *g, int *ng, const char *link, const char *where)
{
	int i = 0;
	while (i < *ng && strcmp(g[i].link, link))
		i++;
	if (i == *ng) {
		snprintf(g[i].link, sizeof g[i].link, "%s", link);
		g[i].where[0] = '\0';
		g[i].n = 0;
		g[i].inside = 0;
		(*ng)++;
	}
	size_t l = strlen(g[i].where);
	if (l + 1 < sizeof g[i].where)
		snprintf(g[i].where + l, sizeof g[i].where - l, "%s%s", g[i].n ? ", " : "", where);
	g[i].n++;
}

/* Join the groups (the PP, DP, CP and EP labels): with `alone`, one group
 * is named by its link only; else each by where it is ("in h100: ...;
 * h100-a100: ..."). A label longer than n ends in "...". */
static void groups_text(const struct link_group *g, int ng, int alone, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	if (ng == 1 && alone) {
		snprintf(buf, n, "%.127s", g[0].link);
		return;
	}
	for (int i = 0; i < ng; i++) {
		char one[300];
		int w = snprintf(one, sizeof one, "%s%s%s: %s", i ? "; " : "",
				 g[i].inside ? "in " : "", g[i].where, g[i].link);
		if (w < 0 || len + (size_t)w + 4 >= n) {
			snprintf(buf + len, n - len, "%s", len + 4 < n ? "..." : "");
			return;
		}
		memcpy(buf + len, one, (size_t)w + 1);
		len += (size_t)w;
	}
}

/* The link a group on the pools in mask crosses when it leaves the node,
 * costed on pools a and b (b -1: a alone; perf_dp_peer): their NICs as
 * comm_fabric_min keeps them (perf_link_nic_text, the one text of the
 * communication table's link too) through the leaf and spine, and the
 * WAN when two pools of mask are at two sites. On two pools or more the
 * label marks the costed link the bottleneck (the NICs, or the WAN
 * between sites), as the communication table does (perf_link_names). */
static void pair_link(const struct cluster *c, unsigned mask, int a, int b, char *buf,
		      size_t n)
{
	int first = -1, sites = 0;
	for (int i = 0; i < c->n_pools; i++) {
		if (!(mask >> i & 1))
			continue;
		if (first < 0)
			first = i;
		else if (!cluster_same_site(c, first, i))
			sites = 1;
	}
	char nic[40];
	perf_link_nic_text(c, a, b, nic, sizeof nic);
	const char *over = c->oversub > 1 ? " (oversubscribed)" : "";
	const char *neck = mask & (mask - 1) ? " (bottleneck)" : "";
	if (sites)
		snprintf(buf, n, "%s, spine%s, WAN %gG between sites%s", nic, over,
			 c->inter_pool_gbps, neck);
	else
		snprintf(buf, n, "%s%s, leaf and spine%s", nic, neck, over);
}

/* The PP label: the link the boundaries inside each pool cross, and the
 * link between each pair of pools a boundary joins, which is costed at
 * the slower pool's NICs through the spine, or the WAN when the pools are
 * at two sites (pair_link). One kind of boundary on one pool is named
 * without its pool, as before. A label longer than n ends in "...". */
static void links_pp(const struct cluster *c, const struct plan *p, const struct dispatch *d,
		     char *buf, size_t n)
{
	enum { MAX_GROUPS = 2 * HP_MAX_POOLS };
	int inpool[HP_MAX_POOLS] = { 0 }, n_kinds = 0, ng = 0;
	unsigned char pair[HP_MAX_POOLS][HP_MAX_POOLS];
	struct link_group g[MAX_GROUPS];
	memset(pair, 0, sizeof pair);
	pp_neighbours(c, p, d, inpool, pair);
	for (int a = 0; a < c->n_pools; a++) {
		n_kinds += inpool[a] != 0;
		for (int b = a + 1; b < c->n_pools; b++)
			n_kinds += pair[a][b];
	}
	char link[96], where[72];
	for (int a = 0; a < c->n_pools && ng < MAX_GROUPS; a++) {
		const struct pool *pa = &c->pools[a];
		if (!inpool[a])
			continue;
		if (inpool[a] == 2)
			snprintf(link, sizeof link, "%dx%gG NIC, leaf", pa->nics, pa->nic_gbps);
		else
			snprintf(link, sizeof link, "%s (same node)", perf_scaleup_label(pa));
		if (n_kinds == 1) {
			snprintf(buf, n, "%s", link);
			return;
		}
		snprintf(where, sizeof where, "%.31s", pa->name);
		group_add(g, &ng, link, where);
		g[ng - 1].inside = 1;
	}
	for (int a = 0; a < c->n_pools; a++)
		for (int b = a + 1; b < c->n_pools && ng < MAX_GROUPS; b++) {
			if (!pair[a][b])
				continue;
			pair_link(c, 1u << a | 1u << b, a, b, link, sizeof link);
			snprintf(where, sizeof where, "%.31s-%.31s", c->pools[a].name,
				 c->pools[b].name);
			group_add(g, &ng, link, where);
		}
	groups_text(g, ng, 0, buf, n);
}

/* The pools in mask as "h100" or "h100-a100". */
static void mask_names(const struct cluster *c, unsigned mask, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < c->n_pools && len + 1 < n; i++)
		if (mask >> i & 1) {
			int w = snprintf(buf + len, n - len, "%s%.31s", len ? "-" : "",
					 c->pools[i].name);
			if (w < 0 || (size_t)w >= n - len)
				break;
			len += (size_t)w;
		}
}

/* The pools whose stages hold some layer of stage k of replica group r
 * (replica groups of one replica or more, as perf_dp_peer counts them):
 * a layer's DP group takes its ranks from every replica group, so it
 * spans the pools of every stage that holds it. */
static unsigned layer_pools(const struct plan *p, int r, int k)
{
	const struct stage *s = &p->replicas[r].stages[k];
	unsigned mask = 1u << s->pool;
	for (int r2 = 0; r2 < p->n_replicas; r2++)
		for (int k2 = 0; k2 < p->replicas[r2].n_stages && p->replicas[r2].count > 0; k2++) {
			const struct stage *t = &p->replicas[r2].stages[k2];
			if (t->first_layer <= s->last_layer && s->first_layer <= t->last_layer)
				mask |= 1u << t->pool;
		}
	return mask;
}

int dispatch_group_link(const struct cluster *c, const struct plan *p, int r, int k,
			enum perf_dim dim, struct dispatch_link *out)
{
	const struct stage *st = &p->replicas[r].stages[k];
	const struct pool *q = &c->pools[st->pool];
	int dom = perf_domain_gpus(q), tp = st->tp, cp = p->cp;
	long ranks;
	int per_node;
	memset(out, 0, sizeof *out);
	out->pool = st->pool;
	out->peer = -1;
	if (dim == DIM_DP) {
		ranks = (long)plan_dp(p) * cp;
		per_node = dom / (tp * cp);
		out->peer = perf_dp_peer(c, p, r, k);
	} else if (dim == DIM_CP) {
		ranks = cp;   /* the ring's neighbours: a node holds tp x cp or not */
		per_node = tp * cp <= dom ? cp : 1;
	} else if (dim == DIM_EP) {
		int etp = plan_etp(p, tp);
		ranks = p->ep;
		per_node = HP_MAX(1, dom / etp);
		/* inside the node when it fits, else the DP group's pools (perf_int.h) */
		out->peer = ranks <= per_node ? -1 : perf_dp_peer(c, p, r, k);
	} else {
		return -1;
	}
	if (ranks <= 1)
		return -1;
	out->mask = out->peer < 0 ? 1u << st->pool : layer_pools(p, r, k);
	out->in_node = out->peer < 0 && ranks <= per_node;
	char in[48];
	perf_link_names(c, st->pool, out->peer, in, out->costed, sizeof out->costed);
	if (out->in_node) {
		snprintf(out->costed, sizeof out->costed, "%s", in);
		snprintf(out->crosses, sizeof out->crosses, "%s (inside %s)",
			 perf_scaleup_label(q),
			 q->nvl_domain > q->gpus_per_node ? "an NVLink domain" : "a node");
	} else {
		pair_link(c, out->mask, st->pool, out->peer, out->crosses, sizeof out->crosses);
	}
	return 0;
}

/* One stage's group: its link, on the pools in mask. */
struct stage_link {
	unsigned mask;
	char link[128];
};

/* File one stage's link under where it runs (one pool: inside it; several:
 * between them), a (mask, link) already filed not again. seen holds
 * *n_seen of max. */
static void file_link(struct link_group *g, int *ng, int max_groups, struct stage_link *seen,
		      int *n_seen, int max_seen, const struct cluster *c, unsigned mask,
		      const char *link)
{
	for (int i = 0; i < *n_seen; i++)
		if (seen[i].mask == mask && !strcmp(seen[i].link, link))
			return;
	if (*n_seen < max_seen) {   /* when full, a where may be listed twice */
		seen[*n_seen].mask = mask;
		snprintf(seen[*n_seen].link, sizeof seen[*n_seen].link, "%s", link);
		(*n_seen)++;
	}
	int single = (mask & (mask - 1)) == 0;
	int i = 0;
	while (i < *ng && (strcmp(g[i].link, link) || g[i].inside != single))
		i++;
	if (i == *ng) {
		if (*ng >= max_groups)
			return;
		snprintf(g[i].link, sizeof g[i].link, "%s", link);
		g[i].where[0] = '\0';
		g[i].n = 0;
		g[i].inside = single;
		(*ng)++;
	}
	char where[72];
	mask_names(c, mask, where, sizeof where);
	size_t l = strlen(g[i].where);
	if (l + 1 < sizeof g[i].where)
		snprintf(g[i].where + l, sizeof g[i].where - l, "%s%s", g[i].n ? ", " : "", where);
	g[i].n++;
}

/* The DP, CP and EP labels, stage by stage, from dispatch_group_link:
 * each stage's group filed under the pools it spans. */
static void links_dp_cp_ep(const struct cluster *c, const struct plan *p, struct dispatch *d)
{
	enum { MAX_GROUPS = 2 * HP_MAX_POOLS, MAX_SEEN = 64 };
	struct link_group g[3][MAX_GROUPS];
	int ng[3] = { 0 };
	const enum perf_dim dims[3] = { DIM_DP, DIM_CP, DIM_EP };
	struct stage_link seen[3][MAX_SEEN];
	int ns[3] = { 0 };
	struct dispatch_link dl;
	for (int r = 0; r < p->n_replicas; r++)
		for (int k = 0; k < p->replicas[r].n_stages; k++)
			for (int i = 0; i < 3; i++)
				if (!dispatch_group_link(c, p, r, k, dims[i], &dl))
					file_link(g[i], &ng[i], MAX_GROUPS, seen[i], &ns[i],
						  MAX_SEEN, c, dl.mask, dl.crosses);
	for (int i = 0; i < 3; i++)
		if (ng[i])
			groups_text(g[i], ng[i], 1, d->links[dims[i]], sizeof d->links[dims[i]]);
}

/* The links each dimension's collectives cross, as text in d->links. */
static void dispatch_links(const struct cluster *c, const struct plan *p, struct dispatch *d)
{
	int max_pp = 1;
	for (int r = 0; r < p->n_replicas; r++)
		max_pp = HP_MAX(max_pp, p->replicas[r].n_stages);
	/* TP links: each pool's own scale-up link (PCIe on L40S), each name
	 * once, in the order of the kinds (perf_scaleup_label) */
	int tp_pool[HP_MAX_POOLS] = { 0 };
	for (int r = 0; r < p->n_replicas; r++)
		for (int k = 0; k < p->replicas[r].n_stages; k++)
			if (p->replicas[r].stages[k].tp > 1)
				tp_pool[p->replicas[r].stages[k].pool] = 1;
	const char *seen[HP_MAX_POOLS];
	int n_seen = 0;
	for (int kind = 0; kind < 3; kind++)
		for (int i = 0; i < c->n_pools; i++) {
			if (!tp_pool[i] || (int)c->pools[i].intra != kind)
				continue;
			const char *name = perf_scaleup_label(&c->pools[i]);
			int dup = 0;
			for (int j = 0; j < n_seen && !dup; j++)
				dup = !strcmp(seen[j], name);
			if (dup)
				continue;
			seen[n_seen++] = name;
			size_t l = strlen(d->links[DIM_TP]);
			snprintf(d->links[DIM_TP] + l, sizeof d->links[DIM_TP] - l, "%s%s",
				 l ? " or " : "", name);
		}
	if (d->links[DIM_TP][0]) {
		size_t l = strlen(d->links[DIM_TP]);
		snprintf(d->links[DIM_TP] + l, sizeof d->links[DIM_TP] - l, " (inside a node)");
	}
	if (max_pp > 1)
		links_pp(c, p, d, d->links[DIM_PP], sizeof d->links[DIM_PP]);
	links_dp_cp_ep(c, p, d);
}

int dispatch_plan(const struct cluster *c, const struct model_spec *m, const struct plan *p,
		  struct dispatch *d, struct hp_err *err)
{
	memset(d, 0, sizeof *d);
	int total = 0;
	for (int r = 0; r < p->n_replicas; r++)
		total += p->replicas[r].n_stages;
	d->st = xcalloc((size_t)(total ? total : 1), sizeof *d->st);
	d->n_stages = total;
	int *caps = xcalloc((size_t)(total ? total : 1), sizeof *caps);
	d->dp_inner = dp_goes_inner(m, p);
	int rc = place_stages(c, p, d, caps, err);
	free(caps);
	if (rc < 0) {
		dispatch_free(d);
		return -1;
	}
	dispatch_links(c, p, d);
	return 0;
}

char *dispatch_nodes_text(const struct dispatch_stage *s, char *buf, size_t n)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < s->n_nodes && len + 1 < n;) {
		int j = i;
		while (j + 1 < s->n_nodes && s->nodes[j + 1] == s->nodes[j] + 1)
			j++;
		int w = j > i ? snprintf(buf + len, n - len, "%s%d-%d", len ? "," : "", s->nodes[i],
					 s->nodes[j])
			      : snprintf(buf + len, n - len, "%s%d", len ? "," : "", s->nodes[i]);
		if (w < 0 || (size_t)w >= n - len)
			break;
		len += (size_t)w;
		i = j + 1;
	}
	return buf;
}
