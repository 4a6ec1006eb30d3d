/*
 * sim_policy.c - the node-selection policies the simulator compares, and
 * where each puts a job's tasks:
 *   slurm-linear  cons_tres without a topology plugin: best fit among
 *                 runs of consecutive free nodes;
 *   slurm-tree    cons_tres with topology/tree (sim_policy_tree.c);
 *   topomatch     select/topomatch: libtopomatch's node selection
 *                 (topomatch_cluster_select, the function the plugin
 *                 calls) over the free PUs, then cons_tres within what it
 *                 chose, as plugin/select/select_topomatch.c does;
 *   random        k free nodes drawn uniformly.
 * Tasks go in block order over the allocation's PUs (Slurm's default
 * block layout), except under topomatch, where they go where the mapping
 * put them.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"
#include "tm_plugin_conf.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char *const policy_name[SIM_NPOLICIES] = {
	"slurm-linear", "slurm-tree", "topomatch", "random",
};

const char *sim_policy_name(int p)
{
	return p >= 0 && p < SIM_NPOLICIES ? policy_name[p] : "?";
}

static int policy_id(const char *name, size_t len)
{
	for (int p = 0; p < SIM_NPOLICIES; p++)
		if (strlen(policy_name[p]) == len && !strncmp(policy_name[p], name, len))
			return p;
	return -1;
}

int sim_policy_parse(const char *list, int *ids, int *n, char *err)
{
	*n = 0;
	for (const char *p = list;; p++) {
		size_t len = strcspn(p, ",");
		int id = policy_id(p, len);
		if (id < 0) {
			return sim_err(err, TOPOMATCH_EINVAL, "--policy: unknown policy '%.*s' "
				 "(slurm-linear, slurm-tree, topomatch, random)", (int)len, p);
		}
		for (int k = 0; k < *n; k++)
			if (ids[k] == id) {
				return sim_err(err, TOPOMATCH_EINVAL, "--policy: '%s' is listed twice",
					 policy_name[id]);
			}
		ids[(*n)++] = id;
		p += len;
		if (!*p)
			return TOPOMATCH_OK;
	}
}

static int oom(char *err)
{
	return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
}

int sim_place_block(const sim_machine_t *m, const int64_t *nodes, int64_t k, int64_t ntasks,
		    int64_t *pu, char *err)
{
	int64_t *pus, npus;
	int rc = sim_nodes_pus(m, nodes, k, &pus, &npus, err);
	if (rc)
		return rc;
	if (npus < ntasks) {
		free(pus);
		return sim_err(err, TOPOMATCH_EINVAL, "%lld tasks on %lld PUs", (long long)ntasks,
			 (long long)npus);
	}
	memcpy(pu, pus, (size_t)ntasks * sizeof(*pu));
	free(pus);
	return TOPOMATCH_OK;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/*
 * cons_tres' choice without a topology plugin (Slurm 22.05,
 * src/plugins/select/cons_tres/job_test.c, _eval_nodes): the free nodes
 * in runs of consecutive node indices; while
 * nodes are missing, the run that holds them most tightly (the first of
 * the smallest that suffice), else the first of the largest, gives its
 * nodes from its start, and leaves the choice.  Nodes are equal here
 * (weight, cores), so runs compare by node count as by CPUs.
 */
static int linear(const sim_machine_t *m, const sim_free_t *f, int64_t k, int64_t *nodes,
		  char *err)
{
	int64_t got = 0, nruns = 0, nfree = 0;
	int64_t *start = malloc(((size_t)m->nnodes + 1) * 2 * sizeof(*start));
	if (!start)
		return oom(err);
	int64_t *len = start + m->nnodes + 1;
	for (int64_t i = 0; i < m->nnodes; i++) {
		if (!f->free[i])
			continue;
		if (!nruns || start[nruns - 1] + len[nruns - 1] != i) {
			start[nruns] = i;
			len[nruns++] = 0;
		}
		len[nruns - 1]++;
		nfree++;
	}
	while (got < k && nfree >= k) {
		int64_t best = -1, need = k - got;
		for (int64_t r = 0; r < nruns; r++) {
			if (!len[r])
				continue;
			bool fits = len[r] >= need, best_fits = best >= 0 && len[best] >= need;
			if (best < 0 || (fits && (!best_fits || len[r] < len[best])) ||
			    (!fits && !best_fits && len[r] > len[best]))
				best = r;
		}
		for (int64_t i = 0; i < len[best] && got < k; i++)
			nodes[got++] = start[best] + i;
		len[best] = 0;
	}
	free(start);
	if (got == k) {
		qsort(nodes, (size_t)k, sizeof(*nodes), cmp_i64);
		return TOPOMATCH_OK;
	}
	return sim_err(err, TOPOMATCH_EINVAL, "%lld nodes wanted, %lld free", (long long)k,
		       (long long)nfree);
}

/* k distinct free nodes, uniformly (a partial Fisher-Yates shuffle). */
static int random_nodes(const sim_pick_t *p, int64_t *nodes, char *err)
{
	int64_t *pool = malloc((size_t)p->m->nnodes * sizeof(*pool) + 1), n = 0;
	if (!pool)
		return oom(err);
	for (int64_t i = 0; i < p->m->nnodes; i++)
		if (p->f->free[i])
			pool[n++] = i;
	if (n < p->k) {
		free(pool);
		return linear(p->m, p->f, p->k, nodes, err); /* says why */
	}
	for (int64_t j = 0; j < p->k; j++) {
		int64_t r = j + (int64_t)topomatch_rng_below(p->rng, (uint64_t)(n - j));
		int64_t t = pool[j];
		pool[j] = pool[r];
		pool[r] = t;
		nodes[j] = pool[j];
	}
	free(pool);
	qsort(nodes, (size_t)p->k, sizeof(*nodes), cmp_i64);
	return TOPOMATCH_OK;
}

/* cons_tres' own choice among the free nodes: with topology/tree on a
 * tree, else without a topology plugin (linear). */
static int cons_tres(const sim_machine_t *m, const sim_free_t *f, int64_t k, int64_t *nodes,
		     char *err)
{
	if (m->levels > 0)
		return sim_slurm_tree(m, f, NULL, k, nodes, err);
	return linear(m, f, k, nodes, err);
}

/* ------------------------------------------------------------ topomatch */

/* The plugin's mapping options over the PUs pus[0..npus-1]. */
static void plugin_opts(const sim_pick_t *p, const int64_t *pus, int64_t npus,
			topomatch_map_opts_t *o)
{
	topomatch_map_opts_init(o);
	o->mapper = p->tm->mapper;
	o->seed = p->tm->seed;
	o->allowed = pus;
	o->nallowed = npus;
	o->memo = p->memo;
}

/* The topomatch.conf the options stand for: --max-tasks, --pattern-kib,
 * --time-budget as JobBudgetMs. */
static tm_plugin_conf_t plugin_conf(const sim_tm_opts_t *tm)
{
	tm_plugin_conf_t c;
	tm_plugin_conf_defaults(&c);
	c.max_tasks = tm->max_tasks;
	if (tm->pattern_kib > 0)
		c.pattern_kib = (int)tm->pattern_kib;
	c.job_budget_ms = tm->time_budget_s * 1e3;
	return c;
}

/*
 * The most tasks the plugin maps one by one, and blocks node by node
 * (tm_plugin_task_limit): MaxTasks, and with a time budget no more than
 * 1,024 tasks per 50 ms of it.
 */
static int64_t task_limit(const sim_tm_opts_t *tm)
{
	tm_plugin_conf_t c = plugin_conf(tm);
	return tm->time_budget_s > 0 ? tm_plugin_task_limit(&c) : tm->max_tasks;
}

/* A pattern of more tasks (or groups) than that: mapped node by node,
 * in blocks. */
static bool by_blocks(const sim_pick_t *p, const topomatch_affinity_t *a)
{
	return a && topomatch_affinity_ntasks(a) > task_limit(p->tm);
}

/* The most pairs sbatch stores and slurmctld decodes
 * (tm_plugin_pattern_edges): 65,536 per 50 ms of the budget; without one,
 * the format's default (0). */
static int64_t edge_limit(const sim_tm_opts_t *tm)
{
	tm_plugin_conf_t c = plugin_conf(tm);
	return tm->time_budget_s > 0 ? tm_plugin_pattern_edges(&c) : 0;
}

/*
 * The pattern as select/topomatch sees it: sbatch's SPANK plugin encodes
 * it into the job's spank_job_env (tm_plugin_encode_limits: PatternKiB,
 * and the pairs of edge_limit()) and the plugin decodes it, up to the
 * job's task count for a job mapped node by node; large patterns lose
 * their lightest edges there, or go in groups of tasks (*group, 1 when
 * not), so the simulator maps what the plugin would.  NULL (and no error)
 * when sbatch would refuse it.
 */
static topomatch_affinity_t *as_plugin_sees(const sim_pick_t *p, int64_t *group)
{
	char **entries = NULL, err[TOPOMATCH_ERRLEN];
	int n = 0;
	topomatch_affinity_t *out = NULL;
	tm_plugin_conf_t c = plugin_conf(p->tm);
	topomatch_blob_limits_t cap = tm_plugin_encode_limits(&c);
	topomatch_blob_limits_t lim = {
		.max_tasks = by_blocks(p, p->a) ? topomatch_affinity_ntasks(p->a) : task_limit(p->tm),
		.max_edges = edge_limit(p->tm)
	};
	topomatch_blob_info_t info = { .group = 1 };
	cap.max_edges = lim.max_edges;
	if (topomatch_blob_encode(p->a, TM_PLUGIN_SPARSE_FACTOR, &cap, &entries, &n, NULL, err) ==
	    TOPOMATCH_OK)
		topomatch_blob_decode((const char *const *)entries, n, &lim, &out, &info, err);
	topomatch_blob_free(entries, n);
	*group = out ? info.group : 1;
	return out;
}

/*
 * The PUs a pattern's vertices are mapped onto on nodes[0..k-1]
 * (sim_nodes_pus): every PU, or for a pattern in groups of tasks the
 * first of each slot of `group` PUs of a node (topomatch_cluster_slots),
 * as the plugin maps a group onto its CPUs.  *pus malloc'd (not on error).
 */
static int vertex_pus(const sim_pick_t *p, const int64_t *nodes, int64_t k, int64_t group,
		      int64_t **pus, int64_t *npus, char *err)
{
	int rc = sim_nodes_pus(p->m, nodes, k, pus, npus, err);
	if (rc || group <= 1)
		return rc;
	int64_t *slot = malloc((size_t)*npus * sizeof(*slot) + 1), nslots = 0;
	rc = slot ? topomatch_cluster_slots(p->m->cl, *pus, *npus, group, slot, &nslots, err)
		  : oom(err);
	for (int64_t s = 0; rc == TOPOMATCH_OK && s < nslots; s++)
		(*pus)[s] = slot[s * group];
	if (rc == TOPOMATCH_OK)
		*npus = nslots;
	free(slot);
	if (rc) {
		free(*pus);
		*pus = NULL;
	}
	return rc;
}

/* topomatch_cluster_select_blocks over pus[] with the plugin's limits: at
 * most task_limit() blocks, the link loads when the node choice weighs
 * them (weigh_loads: srun's mapping has none; info: what was compared,
 * may be NULL). */
static int select_blocks(const sim_pick_t *p, const topomatch_affinity_t *a,
			 const topomatch_map_opts_t *o, bool weigh_loads, int64_t *pu, int64_t *used,
			 int64_t *nused, topomatch_map_result_t *res,
			 topomatch_loaded_choice_t *info, char *err)
{
	bool loads = weigh_loads && p->ll && p->tm->contention_weight > 0;
	int64_t b;
	return topomatch_cluster_select_blocks(p->m->cl, a, o, 1, task_limit(p->tm),
					       loads ? p->ll : NULL,
					       loads ? p->tm->contention_weight : 0, pu, used,
					       nused, &b, res, info, err);
}

/* Pattern a (in groups of `group` tasks) mapped onto PUs of the given
 * nodes, as srun maps it inside the allocation (tm_map_all in
 * tm_choose.c): one by one, node by node in blocks for a job over
 * MaxTasks. */
static int map_onto(const sim_pick_t *p, const topomatch_affinity_t *a, int64_t group,
		    const int64_t *nodes, int64_t *pu, char *err)
{
	int64_t *pus, npus, *used = NULL, nused;
	int rc = vertex_pus(p, nodes, p->k, group, &pus, &npus, err);
	if (rc)
		return rc;
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	plugin_opts(p, pus, npus, &o);
	if (!by_blocks(p, a))
		rc = topomatch_cluster_map(p->m->cl, a, &o, pu, &res, err);
	else if (!(used = malloc((size_t)p->m->nnodes * sizeof(*used) + 1)))
		rc = oom(err);
	else
		rc = select_blocks(p, a, &o, false, pu, used, &nused, &res, NULL, err);
	free(used);
	free(pus);
	return rc;
}

/* The job's tasks where srun maps them on the nodes it got; block order
 * if that fails. */
static int remap(const sim_pick_t *p, const int64_t *nodes, int64_t *pu, char *err)
{
	if (map_onto(p, p->a, 1, nodes, pu, err))
		return sim_place_block(p->m, nodes, p->k, p->ntasks, pu, err);
	return TOPOMATCH_OK;
}

/* topomatch_cluster_select over every free PU (each slot of a group's
 * PUs): the nodes it used. */
static int tm_select(const sim_pick_t *p, const topomatch_affinity_t *seen, int64_t group,
		     int64_t *pu, int64_t *used, int64_t *nused, char *err)
{
	int64_t *pus, npus, *freen = malloc((size_t)p->m->nnodes * sizeof(*freen) + 1), nf = 0;
	if (!freen)
		return oom(err);
	for (int64_t i = 0; i < p->m->nnodes; i++)
		if (p->f->free[i])
			freen[nf++] = i;
	int rc = vertex_pus(p, freen, nf, group, &pus, &npus, err);
	free(freen);
	if (rc)
		return rc;
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	plugin_opts(p, pus, npus, &o);
	o.time_budget_s = p->tm->time_budget_s;
	topomatch_loaded_choice_t info = { 0 };
	if (by_blocks(p, seen)) {
		rc = select_blocks(p, seen, &o, true, pu, used, nused, &res, &info, err);
	} else if (p->ll && p->tm->contention_weight > 0) {
		rc = topomatch_cluster_select_loaded(p->m->cl, seen, &o, p->ll,
						     p->tm->contention_weight, pu, used, nused,
						     &res, &info, err);
	} else {
		rc = topomatch_cluster_select(p->m->cl, seen, &o, pu, used, nused, &res, err);
	}
	p->stats->loaded += info.candidates > 0 && info.first.contention > 0;
	p->stats->compared += info.candidates > 1;
	p->stats->moved += info.chosen_index > 0;
	if (rc == TOPOMATCH_OK && res.fell_back)
		rc = TOPOMATCH_EBUDGET; /* the plugin keeps cons_tres' choice then */
	free(pus);
	return rc;
}

/* Placement pu[] of pattern a scored as the plugin compares placements
 * (tm_score in tm_choose.c): hop-bytes, plus the contention weight x the
 * load it meets when running jobs' traffic is on the links; -1 on error. */
static double placement_score(const sim_pick_t *p, const topomatch_affinity_t *a,
			      const int64_t *pu, char *err)
{
	double hb;
	topomatch_link_score_t s;
	if (p->ll && p->tm->contention_weight > 0 && topomatch_link_load_entries(p->ll) > 0)
		return topomatch_cluster_link_load_score(p->m->cl, p->ll, a, pu,
							 p->tm->contention_weight, &s, err)
			       ? -1 : s.score;
	return sim_hop_bytes(p->m->cl, a, pu, &hb, err) ? -1 : hb;
}

/* seen (in groups of `group` tasks) mapped on nodes[] as srun would
 * (into pu[]) and that placement's score; -1 when a step failed. */
static double score_on(const sim_pick_t *p, const topomatch_affinity_t *seen, int64_t group,
		       const int64_t *nodes, int64_t *pu, char *err)
{
	return map_onto(p, seen, group, nodes, pu, err) ? -1 : placement_score(p, seen, pu, err);
}

/*
 * Whether the k nodes of a[] and of b[] are alike for a mapping: on a
 * tree, each set under one leaf switch, every node of one hardware.  The
 * tree is symmetric there, so a pattern mapped on either (map_onto) costs
 * the same (measured: the same score on the 1,800 such pairs of the Curie
 * trace's first 3,000 jobs), and neither meets load: a free node's link
 * carries no running job's traffic.
 */
static bool alike_leaf_sets(const sim_machine_t *m, const int64_t *a, const int64_t *b,
			    int64_t k)
{
	int s0, c0, t0, s, c, t;
	if (sim_switches_spanned(m, a, k) != 1 || sim_switches_spanned(m, b, k) != 1 ||
	    topomatch_cluster_node_hw(m->cl, a[0], &s0, &c0, &t0))
		return false;
	for (int64_t i = 0; i < 2 * k; i++)
		if (topomatch_cluster_node_hw(m->cl, i < k ? a[i] : b[i - k], &s, &c, &t) ||
		    s != s0 || c != c0 || t != t0)
			return false;
	return true;
}

/*
 * The plugin's last check (tm_map in tm_choose.c), its part that does not
 * depend on the node choice: cons_tres' own k nodes for the job, the
 * pattern the plugin saw mapped there as srun would, and that placement's
 * score (-1 when a step failed).  On a spare thread it runs beside the
 * node choice (speculative: the node choice may make it moot), which
 * changes nothing but the wall time: both only read the machine, the free
 * nodes and the link loads.
 */
typedef struct cons_check {
	const sim_pick_t *p;
	const topomatch_affinity_t *seen;
	int64_t group;      /* seen's tasks per vertex */
	int64_t *cons, *pu; /* k nodes, the seen pattern's tasks */
	int rc;             /* cons_tres' */
	double score;
	char err[TOPOMATCH_ERRLEN];
} cons_check_t;

static void *cons_check_run(void *arg)
{
	cons_check_t *c = arg;
	c->rc = cons_tres(c->p->m, c->p->f, c->p->k, c->cons, c->err);
	c->score = c->rc ? -1 : score_on(c->p, c->seen, c->group, c->cons, c->pu, c->err);
	return NULL;
}

/* The check's first half started on a spare thread (*th), or false. */
static bool cons_check_spawn(const sim_pick_t *p, const topomatch_affinity_t *seen,
			     int64_t group, cons_check_t *c, pthread_t *th)
{
	if (!seen || p->no_check || p->k < SIM_SPARE_MIN_NODES || !sim_spare_take(p->spare))
		return false;
	*c = (cons_check_t){ .p = p, .seen = seen, .group = group,
			     .cons = malloc((size_t)p->k * sizeof(*c->cons)),
			     .pu = malloc((size_t)topomatch_affinity_ntasks(seen) * sizeof(*c->pu)) };
	if (c->cons && c->pu && !pthread_create(th, NULL, cons_check_run, c))
		return true;
	free(c->cons);
	free(c->pu);
	sim_spare_give(p->spare);
	return false;
}

static void cons_check_join(const sim_pick_t *p, pthread_t th)
{
	pthread_join(th, NULL);
	sim_spare_give(p->spare);
}

/*
 * Whether cons_tres' own nodes (cons[]) score lower than the chosen
 * placement pu[] on used[] (the check's second half, with its first from
 * the spare thread when `pre` is not NULL).  Not mapped where the plugin
 * finds a tie: the same nodes (both lists in increasing order, as
 * topomatch_cluster_select and cons_tres give them), or nodes alike
 * (alike_leaf_sets).  The chosen placement is the node choice's mapping;
 * the plugin maps the tasks again on the chosen nodes (tm_placement), the
 * same but for what the refinement moves.
 */
static bool cons_tres_scores_lower(const sim_pick_t *p, const topomatch_affinity_t *seen,
				   int64_t group, const int64_t *used, const int64_t *pu,
				   int64_t *cons, const cons_check_t *pre, char *err)
{
	double sc = -1, sc_cons = -1;
	if (pre) {
		if (pre->rc)
			return false;
		memcpy(cons, pre->cons, (size_t)p->k * sizeof(*cons));
	} else if (cons_tres(p->m, p->f, p->k, cons, err)) {
		return false;
	}
	if (!memcmp(cons, used, (size_t)p->k * sizeof(*cons)) ||
	    alike_leaf_sets(p->m, cons, used, p->k))
		return false;
	if (pre) {
		sc_cons = pre->score;
	} else {
		int64_t *pu_cons = malloc((size_t)topomatch_affinity_ntasks(seen) * sizeof(*pu_cons) + 1);
		if (pu_cons)
			sc_cons = score_on(p, seen, group, cons, pu_cons, err);
		free(pu_cons);
	}
	if (sc_cons >= 0)
		sc = placement_score(p, seen, pu, err);
	return sc >= 0 && sc_cons < sc * (1 - 1e-9);
}

/*
 * What select/topomatch makes of the mapping (tm_map in tm_choose.c):
 * exactly k nodes are the job's unless cons_tres' own nodes score lower
 * (the check, not made for --comm-wait's yardstick); on more or fewer
 * ("the mapping uses M nodes, the job k to k") the plugin keeps cons_tres'
 * choice among all the free nodes.  Outside the narrowed case srun maps
 * the tasks inside the allocation it got, and in it too for a pattern
 * that came in groups (the node choice placed groups, srun places tasks
 * with the whole pattern from the file).
 */
static int narrow(const sim_pick_t *p, const topomatch_affinity_t *seen, int64_t group,
		  const int64_t *used, int64_t nused, int64_t *nodes, int64_t *pu,
		  const cons_check_t *pre, char *err)
{
	if (nused == p->k && !p->no_check &&
	    cons_tres_scores_lower(p, seen, group, used, pu, nodes, pre, err)) {
		p->stats->cons_better++;
		return remap(p, nodes, pu, err);
	}
	if (nused == p->k) {
		memcpy(nodes, used, (size_t)p->k * sizeof(*nodes));
		p->stats->narrowed++;
		p->stats->blocked += by_blocks(p, seen);
		p->stats->grouped += group > 1;
		return group > 1 ? remap(p, nodes, pu, err) : TOPOMATCH_OK;
	}
	if (nused > p->k)
		p->stats->overflow++;
	else
		p->stats->underflow++;
	int rc = cons_tres(p->m, p->f, p->k, nodes, err);
	return rc ? rc : remap(p, nodes, pu, err);
}

static int topomatch_policy(const sim_pick_t *p, int64_t *nodes, int64_t *pu, char *err)
{
	int64_t group = 1;
	topomatch_affinity_t *seen = p->a ? as_plugin_sees(p, &group) : NULL;
	int64_t *used = malloc((size_t)p->m->nnodes * sizeof(*used) + 1), nused = 0;
	int rc = used ? TOPOMATCH_OK : oom(err), sel = TOPOMATCH_EINVAL;
	cons_check_t pre;
	pthread_t th;
	bool spec = !rc && cons_check_spawn(p, seen, group, &pre, &th);
	if (!rc && seen)
		sel = tm_select(p, seen, group, pu, used, &nused, err);
	if (spec)
		cons_check_join(p, th);
	if (!rc && sel == TOPOMATCH_OK)
		rc = narrow(p, seen, group, used, nused, nodes, pu, spec ? &pre : NULL, err);
	else if (!rc) {
		/* cons_tres chooses, as in the plugin: say why */
		p->stats->fallback++;
		if (!p->a)
			p->stats->no_pattern++;
		else if (!seen)
			p->stats->over_kib++;
		else if (by_blocks(p, seen) && sel == TOPOMATCH_ELIMIT)
			p->stats->over_max++;
		else if (sel == TOPOMATCH_EBUDGET)
			p->stats->over_budget++;
		else
			p->stats->map_failed++;
		rc = cons_tres(p->m, p->f, p->k, nodes, err);
		if (!rc)
			rc = sim_place_block(p->m, nodes, p->k, p->ntasks, pu, err);
	}
	if (spec) {
		free(pre.cons);
		free(pre.pu);
	}
	free(used);
	topomatch_affinity_destroy(seen);
	return rc;
}

int sim_policy_select(const sim_pick_t *p, int64_t *nodes, int64_t *pu, char *err)
{
	int rc;
	switch (p->policy) {
	case SIM_TOPOMATCH:
		return topomatch_policy(p, nodes, pu, err);
	case SIM_SLURM_TREE:
		rc = sim_slurm_tree(p->m, p->f, NULL, p->k, nodes, err);
		break;
	case SIM_RANDOM_NODES:
		rc = random_nodes(p, nodes, err);
		break;
	default:
		rc = linear(p->m, p->f, p->k, nodes, err);
	}
	return rc ? rc : sim_place_block(p->m, nodes, p->k, p->ntasks, pu, err);
}
