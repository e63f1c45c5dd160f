/* dispatch.c — plans onto nodes (see dispatch.h). */
#include "dispatch.h"

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
							  "dispatch: pool '%s' runs out of GPUs placing replica group %d stage %d (%d GPUs)",
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
			const struct dispatch_stage *a = &d->st[base + k], *b = &d->st[base + k + 1];
			if (a->pool != b->pool) {
				pair[HP_MIN(a->pool, b->pool)][HP_MAX(a->pool, b->pool)] = 1;
			} else if (a->n_nodes != b->n_nodes || a->nodes[0] != b->nodes[0] ||
				   c->pools[a->pool].gpus_per_node < rep->stages[k].tp * p->cp * 2) {
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
	char link[96];
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

/* The PP label: the link the boundaries inside each pool cross, and the
 * link between each pair of pools a boundary joins. A boundary between
 * pools runs at the slower pool's NICs through the spine (perf_memo.c
 * build_link: comm_fabric_min of the two), or over the WAN when the
 * pools are at two sites. One kind of boundary on one pool is named
 * without its pool, as before. A label longer than n ends in "...". */
static void links_pp(const struct cluster *c, const struct plan *p, const struct dispatch *d,
		     char *buf, size_t n)
{
	static const char *const intra[] = { "NVSwitch", "NVLink", "PCIe" };
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
			snprintf(link, sizeof link, "%s (same node)", intra[pa->intra]);
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
			const struct pool *pa = &c->pools[a], *pb = &c->pools[b];
			const struct pool *slow = pb->nics * pb->nic_gbps < pa->nics * pa->nic_gbps ? pb : pa;
			if (!cluster_same_site(c, a, b))
				snprintf(link, sizeof link, "WAN %gG between sites", c->inter_pool_gbps);
			else
				snprintf(link, sizeof link, "%dx%gG NIC, leaf and spine", slow->nics,
					 slow->nic_gbps);
			snprintf(where, sizeof where, "%.31s-%.31s", pa->name, pb->name);
			group_add(g, &ng, link, where);
		}
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < ng; i++) {
		char one[300];
		int w = snprintf(one, sizeof one, "%s%s%s: %s", i ? "; " : "", g[i].inside ? "in " : "",
				 g[i].where, g[i].link);
		if (w < 0 || len + (size_t)w + 4 >= n) {
			snprintf(buf + len, n - len, "%s", len + 4 < n ? "..." : "");
			return;
		}
		memcpy(buf + len, one, (size_t)w + 1);
		len += (size_t)w;
	}
}

/* The links each dimension's collectives cross, as text in d->links. */
static void dispatch_links(const struct cluster *c, const struct plan *p, struct dispatch *d)
{
	static const char *const intra[] = { "NVSwitch", "NVLink", "PCIe" };
	int used[HP_MAX_POOLS], max_pp = 1, max_tp = 1;
	plan_gpus(p, used);
	for (int r = 0; r < p->n_replicas; r++) {
		max_pp = HP_MAX(max_pp, p->replicas[r].n_stages);
		for (int k = 0; k < p->replicas[r].n_stages; k++)
			max_tp = HP_MAX(max_tp, p->replicas[r].stages[k].tp);
	}
	int sites = 0, first = -1;
	for (int i = 0; i < c->n_pools; i++)
		if (used[i]) {
			if (first < 0)
				first = i;
			if (!cluster_same_site(c, first, i))
				sites = 1;
		}
	const struct pool *pf = &c->pools[first < 0 ? 0 : first];
	char nic[48];
	snprintf(nic, sizeof nic, "%dx%gG NIC", pf->nics, pf->nic_gbps);
	/* TP links: each pool's own scale-up link (PCIe on L40S) */
	int tp_intra[3] = { 0 };
	for (int r = 0; r < p->n_replicas; r++)
		for (int k = 0; k < p->replicas[r].n_stages; k++)
			if (p->replicas[r].stages[k].tp > 1)
				tp_intra[c->pools[p->replicas[r].stages[k].pool].intra] = 1;
	for (int i = 0; i < 3; i++)
		if (tp_intra[i]) {
			size_t l = strlen(d->links[DIM_TP]);
			snprintf(d->links[DIM_TP] + l, sizeof d->links[DIM_TP] - l, "%s%s",
				 l ? " or " : "", intra[i]);
		}
	if (d->links[DIM_TP][0]) {
		size_t l = strlen(d->links[DIM_TP]);
		snprintf(d->links[DIM_TP] + l, sizeof d->links[DIM_TP] - l, " (inside a node)");
	}
	if (max_pp > 1)
		links_pp(c, p, d, d->links[DIM_PP], sizeof d->links[DIM_PP]);
	int dp = plan_dp(p) * p->cp;
	if (dp > 1) {
		if (sites)
			snprintf(d->links[DIM_DP], sizeof d->links[DIM_DP],
				 "%.40s, spine%s, WAN %gG between sites", nic,
				 c->oversub > 1 ? " (oversubscribed)" : "", c->inter_pool_gbps);
		else
			snprintf(d->links[DIM_DP], sizeof d->links[DIM_DP], "%.40s, leaf and spine%s",
				 nic, c->oversub > 1 ? " (oversubscribed)" : "");
	}
	if (p->cp > 1)
		snprintf(d->links[DIM_CP], sizeof d->links[DIM_CP], "%s",
			 max_tp * p->cp <= pf->gpus_per_node ? intra[pf->intra] : nic);
	if (p->ep > 1)
		snprintf(d->links[DIM_EP], sizeof d->links[DIM_EP], "%s",
			 max_tp * p->ep <= pf->gpus_per_node ? intra[pf->intra] : nic);
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
