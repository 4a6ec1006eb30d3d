/*
 * tm_choose.c - select/topomatch's decision for one job test (tm_choose.h):
 * decode the job's pattern, collect the free PUs cons_tres leaves on the
 * candidate nodes, map (topomatch_cluster_select, TopoMatch §4.4, Fig. 3),
 * compare with cons_tres' own choice, remember the outcome.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/* Slurm's config.h (found first through -iquote SLURM_SOURCE_DIR), never
 * the project's: Slurm's structures depend on it. */
#include "config.h"

#include "tm_slurm.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tm_choose.h"

/*
 * spank_job_env entries looked through for a pattern: its most entries
 * and room for other SPANK plugins'.  Slurm accepts millions (a job of
 * 2 million cost 65 ms per job test to scan, with slurmctld's locks
 * held); a longer one is not read at all, and its job keeps cons_tres'
 * choice, noted once under this key.
 */
#define TM_MAX_ENV_ENTRIES (TOPOMATCH_BLOB_MAX_ENTRIES + 4096)
#define TM_KEY_ENV_TOO_LONG UINT64_C(0x5e5e5e5e5e5e5e5e)
/* --comm-wait's marks (cost): the job's hop-bytes on an empty cluster, and
 * whether its last start was put off (1) or not (0) */
#define TM_KEY_EMPTY UINT64_C(0xe3e3e3e3e3e3e3e3)
#define TM_KEY_WAITING UINT64_C(0x3a3a3a3a3a3a3a3a)

/*
 * The largest pattern (bytes of its TOPOMATCH_PATTERN_ values) a decision
 * maps: 64 KiB, and 64 KiB per 50 ms of a larger JobBudgetMs.  Larger ones
 * keep cons_tres' choice at once, without work: on bench/plugin_scale, a
 * dense 1,024-task pattern (512 KiB) took 18-39 ms to decode and 200 ms
 * to map, whatever the budget (its partitioning cannot be cut short); a
 * 4,096-task stencil (51 KiB) maps in 120-170 ms on 32,768 nodes.  Below
 * 64 KiB the guard cuts what runs too long.
 */
#define TM_PATTERN_BYTES 65536.0
#define TM_PATTERN_BUDGET_MS 50.0
/*
 * Jobs of more tasks than a decision maps one by one
 * (tm_plugin_task_limit) are mapped node by node (issue 20, point 5):
 * their tasks in blocks of a node's worth, each block one vertex
 * (topomatch_cluster_select_blocks), at most that many blocks; srun lays
 * their ranks out the same way.  The decoder then takes patterns of up
 * to the job's task count (tm_plugin_pattern_tasks).
 */

static int64_t tm_task_limit(const tm_chooser_t *ch)
{
	return tm_plugin_task_limit(&ch->conf);
}

bool tm_by_blocks(const tm_chooser_t *ch, int64_t ntasks)
{
	return ntasks > tm_task_limit(ch);
}

double tm_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* *field (an xmalloc'd comment) gets the line "topomatch: msg",
 * replacing its earlier one; the other lines are kept. */
static void tm_line_into(char **field, const char *msg)
{
	char *merged = tm_comment_merge(*field, msg);

	if (!merged || (*field && !strcmp(merged, *field))) {
		free(merged);
		return;
	}
	xfree(*field);
	*field = xstrdup(merged);
	free(merged);
}

/*
 * The job's SystemComment (`scontrol show job`) gets one line of the
 * plugin's, "topomatch: msg", replacing its earlier one: Slurm's own
 * lines are kept, and the line says the latest decision.
 */
void tm_comment(job_record_t *job_ptr, const char *msg)
{
	tm_line_into(&job_ptr->system_comment, msg);
}

/*
 * The same line in the job's AdminComment, an admin's lines kept: slurmctld
 * 22.05 sends AdminComment to slurmdbd with the job's start and end
 * records (SystemComment it does not send), so sacct -o AdminComment has
 * the decision without any script or RPC.
 */
void tm_admin_comment(job_record_t *job_ptr, const char *msg)
{
	tm_line_into(&job_ptr->admin_comment, msg);
}

/* Why a job keeps cons_tres' choice: in the log (debug, once per decision:
 * decisions are cached) and in the job's SystemComment. */
static void tm_note(job_record_t *job_ptr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void tm_note(job_record_t *job_ptr, const char *fmt, ...)
{
	char msg[TOPOMATCH_ERRLEN + 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	debug("%pJ: %s", job_ptr, msg);
	tm_comment(job_ptr, msg);
}

/* How much the cache saved and how often cons_tres refused a narrowed
 * set, for the log. */
void tm_chooser_stats(tm_chooser_t *ch, const char *when)
{
	if (ch->reused || ch->computed)
		info("%s: %llu decisions computed, %llu reused; %llu fell back to cons_tres' "
		     "choice; %llu waited for the next pass; %llu job tests with a pattern "
		     "took %.0f ms in all", when, ch->computed, ch->reused, ch->fallbacks,
		     ch->deferred, ch->tests, ch->test_ms);
}

void tm_chooser_unload(tm_chooser_t *ch)
{
	tm_decision_cache_clear(&ch->cache);
	topomatch_cluster_destroy(ch->cluster);
	ch->cluster = NULL;
	topomatch_memo_destroy(ch->memo);
	ch->memo = NULL;
	free(ch->cl_of);
	free(ch->slurm_of);
	free(ch->index_node);
	ch->cl_of = ch->slurm_of = NULL;
	ch->index_node = NULL;
	ch->index_table = NULL;
	tm_loads_free(ch);
}

/* Read topomatch.conf and the cluster YAML it names (slurmctld only). */
void tm_chooser_load(tm_chooser_t *ch)
{
	char path[4096], err[TOPOMATCH_ERRLEN];
	int rc;

	tm_plugin_conf_path(slurm_conf.slurm_conf, path, sizeof(path));
	rc = tm_plugin_conf_read(path, &ch->conf, err, sizeof(err));
	if (rc != 0) {
		error("%s: no topology-aware placement", err);
		return;
	}
	if (!ch->conf.enabled) {
		info("%s: Enabled=no: cons_tres' placement for every job", path);
		return;
	}
	if (!ch->conf.cluster_yaml[0]) {
		error("%s: no ClusterYAML: no topology-aware placement", path);
		return;
	}
	if (topomatch_cluster_load(ch->conf.cluster_yaml, &ch->cluster, err)) {
		error("%s", err);
		ch->cluster = NULL;
		return;
	}
	double t0 = tm_now_ms();
	if (topomatch_cluster_precompute(ch->cluster, err))
		error("%s: decisions go on without it", err);
	size_t tb = topomatch_cluster_table_bytes(ch->cluster);
	info("cluster %s from %s: %lld nodes, %lld PUs, %s network (switch tables %.1f MiB, "
	     "built in %.0f ms); budget %g ms per job",
	     topomatch_cluster_name(ch->cluster), ch->conf.cluster_yaml,
	     (long long) topomatch_cluster_nnodes(ch->cluster),
	     (long long) topomatch_cluster_npu(ch->cluster),
	     topomatch_cluster_network(ch->cluster), (double) tb / 1048576.0,
	     tm_now_ms() - t0, ch->conf.job_budget_ms);
	/* the networks whose hops are searched without them (dragonflies too) */
	const topomatch_topology_t *topo = topomatch_cluster_topology(ch->cluster);
	if (!tb && topomatch_topology_kind(topo) == TOPOMATCH_TOPO_GRAPH)
		error("cluster %s: no switch tables (over %d switches or 254 hops): every hop "
		      "count searches the network, and decisions may run out of budget and "
		      "keep cons_tres' choice", topomatch_cluster_name(ch->cluster),
		      TOPOMATCH_CLUSTER_TABLE_SWITCHES);
	tm_loads_reset(ch);
	if (topomatch_memo_create(TM_MEMO_BYTES, &ch->memo, err))
		error("%s: partitions are computed at every decision", err);
}

static uint16_t tm_cpt(const tm_test_t *t)
{
	return t->job->details->cpus_per_task > 1 ? t->job->details->cpus_per_task : 1;
}

/* The CPUs of one vertex of the job's pattern: a task's, or a group's
 * when the pattern came in groups of tasks (t->group). */
static int64_t tm_slot(const tm_test_t *t)
{
	return (int64_t) tm_cpt(t) * (t->group > 1 ? t->group : 1);
}

/*
 * The CPUs node i can give the job's tasks: what cons_tres computed for
 * it (avail_cpus: free cores, memory, GRES, --ntasks-per-node,
 * --ntasks-per-socket, -c), and with -N M no more than the tasks' share
 * of M nodes, so that the mapping spreads over at least M.
 */
static int64_t tm_node_cap(const tm_test_t *t, int i)
{
	struct job_details *d = t->job->details;
	int64_t cap = t->avail_res[i] ? t->avail_res[i]->avail_cpus : 0;

	if (t->min_nodes > 1 && d->num_tasks) {
		int64_t share = ((int64_t) d->num_tasks + t->min_nodes - 1) / t->min_nodes;
		cap = MIN(cap, share * tm_cpt(t));
	}
	return cap;
}

/*
 * The PUs of the candidate nodes the mapping may use, in cluster
 * numbering: the PUs of the cores avail_core leaves free (every PU of a
 * core when PUs are hardware threads), at most tm_node_cap() of each
 * node.
 */
static void tm_free_pus(const tm_test_t *t, int64_t *pus, int64_t *npus)
{
	tm_chooser_t *ch = t->ch;
	*npus = 0;
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node = node_record_table_ptr[i];
		int64_t cn = ch->cl_of[i], first, count, cap, kept = 0;

		if (cn < 0 || !node || !bit_test(t->node_map, i))
			continue; /* not in the YAML: never chosen by the mapper */
		first = topomatch_cluster_node_pus(ch->cluster, cn, &count);
		cap = tm_node_cap(t, i);
		for (int64_t k = 0; k < count && kept < cap; k++) {
			int64_t core = count > node->tot_cores && node->tot_cores ?
				k / (count / node->tot_cores) : k;
			if (t->avail_core && t->avail_core[i] &&
			    (core >= bit_size(t->avail_core[i]) ||
			     !bit_test(t->avail_core[i], core)))
				continue;
			pus[(*npus)++] = first + k;
			kept++;
		}
	}
}

/*
 * Tasks of several CPUs each: the free PUs become one per slot of
 * cpus_per_task PUs of a node (topomatch_cluster_slots), each task mapped
 * onto a slot's first PU.  cons_tres then gives each task its CPUs on the
 * nodes the mapping chose.
 */
static void tm_slot_firsts(const tm_chooser_t *ch, uint16_t cpus_per_task, int64_t *pus,
			   int64_t *npus)
{
	int64_t *slot = xcalloc(*npus + 1, sizeof(*slot)), nslots = 0;
	char err[TOPOMATCH_ERRLEN];

	if (topomatch_cluster_slots(ch->cluster, pus, *npus, cpus_per_task, slot,
				    &nslots, err)) {
		error("%s", err); /* the PUs come from the cluster: cannot happen */
		nslots = 0;
	}
	for (int64_t s = 0; s < nslots; s++)
		pus[s] = slot[s * cpus_per_task];
	*npus = nslots;
	xfree(slot);
}

typedef struct {
	uint64_t weight;
	int64_t cap;
} tm_weighed_t;

static int tm_cmp_weight(const void *x, const void *y)
{
	uint64_t a = ((const tm_weighed_t *) x)->weight, b = ((const tm_weighed_t *) y)->weight;
	return (a > b) - (a < b);
}

/*
 * Node weights (slurm.conf Weight, scontrol update): cons_tres takes the
 * lightest candidates that hold the job (cons_tres/job_test.c,
 * _eval_nodes: node sets broken at each weight, the lightest first).  The
 * lowest weight W whose candidates of weight <= W hold the job's CPUs on
 * at least min_nodes nodes; UINT64_MAX when that takes every candidate
 * (one weight, the common case, costs a pass over the candidates).
 */
static uint64_t tm_weight_cut(const tm_test_t *t)
{
	tm_chooser_t *ch = t->ch;
	int64_t need = (int64_t) t->job->details->num_tasks * tm_cpt(t), cap = 0, m = 0;
	tm_weighed_t *w = xcalloc(node_record_count + 1, sizeof(*w));
	uint64_t cut = UINT64_MAX;
	bool one = true;

	for (int i = 0; i < node_record_count; i++) {
		if (ch->cl_of[i] < 0 || !node_record_table_ptr[i] || !bit_test(t->node_map, i))
			continue;
		w[m].weight = node_record_table_ptr[i]->sched_weight;
		w[m].cap = tm_node_cap(t, i);
		one &= w[m].weight == w[0].weight;
		m++;
	}
	if (!one) {
		qsort(w, m, sizeof(*w), tm_cmp_weight);
		for (int64_t k = 0; k < m; k++) {
			cap += w[k].cap;
			if (cap >= need && k + 1 >= (int64_t) t->min_nodes &&
			    (k + 1 == m || w[k + 1].weight != w[k].weight)) {
				cut = k + 1 < m ? w[k].weight : UINT64_MAX;
				break;
			}
		}
	}
	xfree(w);
	return cut;
}

/* Of pus[], those of nodes of weight <= cut, into tier[]. */
static int64_t tm_tier_pus(const tm_chooser_t *ch, const int64_t *pus, int64_t npus,
			   uint64_t cut, int64_t *tier)
{
	int64_t m = 0;

	for (int64_t k = 0; k < npus; k++) {
		int64_t i = ch->slurm_of[topomatch_cluster_pu_node(ch->cluster, pus[k], NULL)];
		if (i >= 0 && node_record_table_ptr[i]->sched_weight <= cut)
			tier[m++] = pus[k];
	}
	return m;
}

/* The job's pattern from its spank_job_env, or NULL (noted why); *group
 * its tasks per vertex (topomatch_blob_info_t). */
static topomatch_affinity_t *tm_pattern(const tm_chooser_t *ch, job_record_t *job_ptr,
					int64_t *group)
{
	uint32_t ntasks = job_ptr->details ? job_ptr->details->num_tasks : 0;
	topomatch_blob_limits_t lim = tm_plugin_decode_limits(&ch->conf, ntasks);
	topomatch_affinity_t *a = NULL;
	topomatch_blob_info_t info;
	char err[TOPOMATCH_ERRLEN];
	int rc = topomatch_blob_decode_env((const char *const *) job_ptr->spank_job_env,
					   job_ptr->spank_job_env_size, NULL, &lim, &a, &info, err);

	if (rc) {
		/* sbatch keeps patterns within the edges: the API, a forged
		 * blob, or JobBudgetMs lowered since */
		bool edges = rc == TOPOMATCH_ELIMIT && info.nnz_kept > lim.max_edges;
		tm_note(job_ptr, "pattern rejected: %s%s", err,
			edges ? ", what JobBudgetMs maps (topomatch.conf)" : "");
		return NULL;
	}
	if (!a)
		return NULL;
	if (info.ntasks != (int64_t) ntasks) {
		tm_note(job_ptr, "the pattern has %lld tasks, the job %u (give -n %lld)",
			(long long) info.ntasks, ntasks, (long long) info.ntasks);
		topomatch_affinity_destroy(a);
		return NULL;
	}
	*group = info.group;
	return a;
}

/* Hop-bytes of the pattern with task k on cluster PU pu[k]; -1 on error. */
static double tm_hop_bytes(const tm_chooser_t *ch, const topomatch_affinity_t *a,
			   const int64_t *pu)
{
	int64_t n = topomatch_affinity_ntasks(a), *tpu = xcalloc(n + 1, sizeof(*tpu));
	char err[TOPOMATCH_ERRLEN];
	double hb = -1;

	for (int64_t k = 0; k < n; k++)
		tpu[k] = topomatch_cluster_pu_to_topology(ch->cluster, pu[k]);
	if (topomatch_metrics_hop_bytes(a, topomatch_cluster_topology(ch->cluster), tpu, &hb, err))
		hb = -1;
	xfree(tpu);
	return hb;
}

/*
 * cons_tres' own choice for the job, made on copies so that nothing of the
 * job test changes: the CPUs it would give the job on each Slurm node (0
 * where it chose none), or NULL when it cannot be asked that way (a job
 * with GRES: cons_tres rewrites its per-socket GRES lists as it chooses)
 * or finds no allocation.
 */
static uint16_t *tm_cons_tres_choice(const tm_test_t *t)
{
	tm_chooser_t *ch = t->ch;
	job_record_t *job = t->job;
	bool best_switch = job->best_switch;
	uint32_t req_switch = job->req_switch;
	bitstr_t *map, **cores;
	avail_res_t **res;
	uint16_t *cpus = NULL;

	if (job->gres_list_req)
		return NULL;
	map = bit_copy(t->node_map);
	cores = copy_core_array(t->avail_core);
	res = xcalloc(node_record_count, sizeof(*res));
	for (int i = 0; i < node_record_count; i++) {
		if (!t->avail_res[i])
			continue;
		res[i] = xmalloc(sizeof(**res));
		*res[i] = *t->avail_res[i];
		res[i]->sock_gres_list = NULL;
		if (t->avail_res[i]->avail_cores_per_sock) {
			size_t bytes = t->avail_res[i]->sock_cnt * sizeof(uint16_t);
			res[i]->avail_cores_per_sock = xmalloc(bytes ? bytes : 1);
			memcpy(res[i]->avail_cores_per_sock,
			       t->avail_res[i]->avail_cores_per_sock, bytes);
		}
	}
	if (ch->cons_tres(job, map, cores, t->min_nodes, t->max_nodes, t->req_nodes, res,
			  t->cr_type, t->prefer_alloc_nodes, t->tres_mc) == SLURM_SUCCESS) {
		cpus = xcalloc(node_record_count, sizeof(*cpus));
		for (int i = 0; i < node_record_count; i++)
			if (res[i] && bit_test(map, i))
				cpus[i] = res[i]->avail_cpus;
	}
	job->best_switch = best_switch; /* set by cons_tres' topology choice */
	job->req_switch = req_switch;
	for (int i = 0; i < node_record_count; i++) {
		if (res[i])
			xfree(res[i]->avail_cores_per_sock);
		xfree(res[i]);
	}
	xfree(res);
	free_core_array(&cores);
	FREE_NULL_BITMAP(map);
	return cpus;
}

/*
 * The PUs cons_tres' own choice gives the job (cpus[] per Slurm node, 0
 * where it chose none): of each node, its first PUs in pus[] (the
 * mapping's candidates, node by node), as many as the tasks it holds.
 * Ranks in this order are Slurm's block layout.  *m how many (< n when
 * those PUs do not hold every rank).
 */
static int64_t *tm_cons_pus(const tm_test_t *t, int64_t n, const int64_t *pus, int64_t npus,
			    const uint16_t *cpus, int64_t *m)
{
	tm_chooser_t *ch = t->ch;
	int64_t *pu = xcalloc(n + 1, sizeof(*pu)), prev = -1, taken = 0;

	*m = 0;
	for (int64_t k = 0; k < npus && *m < n; k++) {
		int64_t cn = topomatch_cluster_pu_node(ch->cluster, pus[k], NULL);
		int64_t i = cn >= 0 ? ch->slurm_of[cn] : -1;

		if (cn != prev)
			taken = 0;
		prev = cn;
		if (i < 0 || taken >= cpus[i] / tm_slot(t))
			continue;
		pu[(*m)++] = pus[k];
		taken++;
	}
	return pu;
}

/*
 * What the decision says in SystemComment: the mapper, the hop-bytes on
 * the chosen nodes and, the gain, those of the job without the pattern:
 * cons_tres' own nodes with the ranks in Slurm's block order (hb_block,
 * -1 when not evaluated: late when there was no time left).
 */
static void tm_decision_note(const tm_test_t *t, const topomatch_affinity_t *a, double hb,
			     double hb_block, bool late, const char *mapper, int64_t nn,
			     char *note, size_t len)
{
	int64_t n = topomatch_affinity_ntasks(a), g = t->group > 1 ? t->group : 1;
	char groups[64] = "";
	if (g > 1) /* the hop-bytes are the groups' */
		snprintf(groups, sizeof(groups), " in groups of %lld", (long long) g);
	int w = snprintf(note, len, "%s mapped %lld task%s%s onto %lld node%s%s: %.6g hop-bytes",
			 mapper, (long long) (n * g), n * g == 1 ? "" : "s", groups,
			 (long long) nn, nn == 1 ? "" : "s",
			 tm_by_blocks(t->ch, n) ? " node by node (in blocks)" : "", hb);

	if (w < 0 || (size_t) w >= len)
		return;
	if (hb_block > 0)
		snprintf(note + w, len - w, "; without the pattern (cons_tres): %.6g (x%.2f)",
			 hb_block, hb / hb_block);
	else if (hb_block == 0) /* no traffic between nodes either way */
		snprintf(note + w, len - w, "; without the pattern (cons_tres): 0");
	else
		snprintf(note + w, len - w, "; without the pattern (cons_tres): not evaluated (%s)",
			 t->job->gres_list_req ? "GRES" : late ? "no time left" :
			 "no allocation or PUs");
}

/*
 * The mapper the job asked for (sbatch --comm-mapper, TOPOMATCH_MAPPER in
 * its spank_job_env), as srun uses it, else topomatch.conf's.
 */
const char *tm_job_mapper(const tm_chooser_t *ch, job_record_t *job_ptr)
{
	static const char key[] = "TOPOMATCH_MAPPER=";

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];
		if (!e || strncmp(e, key, sizeof(key) - 1))
			continue;
		for (const char *const *m = topomatch_mapper_names(); *m; m++)
			if (!strcmp(*m, e + sizeof(key) - 1))
				return *m;
	}
	return ch->conf.mapper;
}

static int tm_cmp_pu(const void *x, const void *y)
{
	int64_t a = *(const int64_t *) x, b = *(const int64_t *) y;
	return (a > b) - (a < b);
}

/*
 * The tasks of a mapped onto o->allowed, as srun does: one by one
 * (topomatch_cluster_map), or node by node in blocks for a job over the
 * task limit (topomatch_cluster_select_blocks, as srun's layout).
 */
static int tm_map_all(const tm_chooser_t *ch, const topomatch_affinity_t *a,
		      const topomatch_map_opts_t *o, int64_t *pu, topomatch_map_result_t *res,
		      char *err)
{
	if (!tm_by_blocks(ch, topomatch_affinity_ntasks(a)))
		return topomatch_cluster_map(ch->cluster, a, o, pu, res, err);
	int64_t *nodes = xcalloc(topomatch_cluster_nnodes(ch->cluster) + 1, sizeof(*nodes));
	int64_t nn, b;
	int rc = topomatch_cluster_select_blocks(ch->cluster, a, o, 1, tm_task_limit(ch), NULL,
						 0, pu, nodes, &nn, &b, res, NULL, err);
	xfree(nodes);
	return rc;
}

/*
 * The pattern mapped onto exactly the PUs got[0 .. n-1] (sorted here, into
 * cluster order), as srun maps it onto a job's PUs
 * (topomatch_cluster_map_slots: the same pattern, mapper and options); a
 * budget only cuts a run short, never changes one that finishes.  Its hop-bytes, the PUs in
 * pu[] (may be NULL), the result in *res; -1 when it does not finish
 * within ms_left.
 */
static double tm_map_onto(const tm_chooser_t *ch, const topomatch_affinity_t *a,
			  const topomatch_map_opts_t *o, int64_t *got, double ms_left, int64_t *pu,
			  topomatch_map_result_t *res)
{
	int64_t n = topomatch_affinity_ntasks(a), *out = xcalloc(n + 1, sizeof(*out));
	topomatch_map_opts_t o2 = *o;
	topomatch_map_result_t r;
	char err[TOPOMATCH_ERRLEN];
	double hb = -1;

	qsort(got, n, sizeof(*got), tm_cmp_pu);
	o2.allowed = got;
	o2.nallowed = n;
	o2.time_budget_s = ms_left / 1e3;
	if (ms_left > 0 && !tm_map_all(ch, a, &o2, out, &r, err) && !r.fell_back) {
		hb = tm_hop_bytes(ch, a, out);
		if (pu)
			memcpy(pu, out, n * sizeof(*pu));
		*res = r;
	}
	xfree(out);
	return hb;
}

/*
 * The placement srun will run: the tasks mapped again (tm_map_onto) onto
 * the PUs cons_tres grants on the chosen nodes, the first free ones of
 * each (it hands out the lowest free cores first), as many as the mapping
 * put there.  When the job gets those, the ranks run where slurmctld
 * mapped them and SystemComment's hop-bytes are those of the placement
 * that runs.  pu[] and *res are replaced when the run finishes within
 * ms_left; its hop-bytes, else -1.
 */
static double tm_placement(const tm_chooser_t *ch, const topomatch_affinity_t *a,
			   const topomatch_map_opts_t *o, const int64_t *pus, int64_t npus,
			   int64_t *pu, double ms_left, topomatch_map_result_t *res)
{
	int64_t n = topomatch_affinity_ntasks(a), nn = topomatch_cluster_nnodes(ch->cluster);
	int64_t m = 0;
	int64_t *want = xcalloc(nn + 1, sizeof(*want));
	int64_t *granted = xcalloc(n + 1, sizeof(*granted));
	double hb = -1;

	for (int64_t k = 0; k < n; k++)
		want[topomatch_cluster_pu_node(ch->cluster, pu[k], NULL)]++;
	for (int64_t k = 0; k < npus && m < n; k++) {
		int64_t cn = topomatch_cluster_pu_node(ch->cluster, pus[k], NULL);
		if (want[cn] > 0) {
			want[cn]--;
			granted[m++] = pus[k];
		}
	}
	if (m == n)
		hb = tm_map_onto(ch, a, o, granted, ms_left, pu, res);
	xfree(want);
	xfree(granted);
	return hb;
}

/*
 * The job without the pattern's node choice: cons_tres' own nodes, with
 * the ranks in Slurm's block order (*hb_block, what the job gets without
 * --comm-pattern) and mapped there as srun would (*hb_cons, within
 * ms_left; pu_cons[], room for the tasks, that placement).  Each -1 when
 * not evaluated.
 */
static void tm_cons_tres_hop_bytes(const tm_test_t *t, const topomatch_affinity_t *a,
				   const topomatch_map_opts_t *o, const int64_t *pus,
				   int64_t npus, double ms_left, double *hb_block,
				   double *hb_cons, int64_t *pu_cons)
{
	tm_chooser_t *ch = t->ch;
	int64_t n = topomatch_affinity_ntasks(a), m = 0, *got = NULL;
	uint16_t *cons = tm_cons_tres_choice(t);
	topomatch_map_result_t res;

	*hb_block = *hb_cons = -1;
	if (cons)
		got = tm_cons_pus(t, n, pus, npus, cons, &m);
	if (got && m == n) {
		*hb_block = tm_hop_bytes(ch, a, got);
		*hb_cons = tm_map_onto(ch, a, o, got, ms_left, pu_cons, &res);
	}
	xfree(got);
	xfree(cons);
}

/*
 * The options of the node choice: the job's, except that on a tree `auto`
 * is its TOPOMATCHCONST without the refinement that follows it there.
 * The choice only needs the nodes, and the refinement mostly moves tasks
 * between the PUs of a node: on bench/plugin_scale's fat trees it took as
 * long as the mapping for 0.3-0.9 % of hop-bytes.  The placement mapped
 * on the chosen nodes afterwards (tm_placement) is auto's, srun's.
 */
static const topomatch_map_opts_t *tm_node_choice_opts(const tm_chooser_t *ch,
							const topomatch_map_opts_t *o,
							topomatch_map_opts_t *sel)
{
	*sel = *o;
	if ((!o->mapper || !strcmp(o->mapper, "auto")) &&
	    topomatch_topology_kind(topomatch_cluster_topology(ch->cluster)) ==
		    TOPOMATCH_TOPO_TREE)
		sel->mapper = "topomatch-const";
	return sel;
}

/*
 * The node choice: libtopomatch's, scored against the running jobs' link
 * loads when the table is consulted (topomatch_cluster_select_loaded:
 * hop-bytes + ContentionWeight x the load the job's traffic would meet,
 * the simulator's choice too), else topomatch_cluster_select.  *lc says
 * what was compared (zeroed without the table).
 */
static int tm_select(const tm_chooser_t *ch, const topomatch_affinity_t *a,
		     const topomatch_map_opts_t *o, bool use_loads, int64_t *pu, int64_t *nodes,
		     int64_t *nn, topomatch_map_result_t *res, topomatch_loaded_choice_t *lc,
		     char *err)
{
	bool loads = use_loads && tm_loads_active(ch);

	memset(lc, 0, sizeof(*lc));
	if (tm_by_blocks(ch, topomatch_affinity_ntasks(a))) {
		int64_t b;
		return topomatch_cluster_select_blocks(ch->cluster, a, o, 1, tm_task_limit(ch),
						       loads ? ch->loads.ll : NULL,
						       loads ? ch->conf.contention_weight : 0, pu,
						       nodes, nn, &b, res, lc, err);
	}
	if (loads)
		return topomatch_cluster_select_loaded(ch->cluster, a, o, ch->loads.ll,
						       ch->conf.contention_weight, pu, nodes, nn,
						       res, lc, err);
	return topomatch_cluster_select(ch->cluster, a, o, pu, nodes, nn, res, err);
}

/*
 * The score a placement (cluster PUs) gets against the link loads:
 * hop-bytes + ContentionWeight x the load met; its hop-bytes hb when the
 * table is not consulted or cannot score it.
 */
static double tm_score(const tm_chooser_t *ch, const topomatch_affinity_t *a,
		       const int64_t *pu, double hb)
{
	topomatch_link_score_t s;
	char err[TOPOMATCH_ERRLEN];

	if (!tm_loads_active(ch) ||
	    topomatch_cluster_link_load_score(ch->cluster, ch->loads.ll, a, pu,
					      ch->conf.contention_weight, &s, err))
		return hb;
	return s.score;
}

/*
 * Node weights: the node choice made on the lightest candidates that hold
 * the job (pu[], nodes[], *nn, its hop-bytes *hb) against one on every
 * candidate (pus[]), when ms_left allows and NodeWeightGain (percent) is
 * under 100: heavier nodes are taken only when they cut the hop-bytes by
 * at least that share, so that an admin's order of use gives way only to
 * a real gain.  True when the choice on every candidate replaced it (*hb
 * its hop-bytes, *ratio those against the lightest nodes').
 */
static bool tm_weigh(const tm_test_t *t, const topomatch_affinity_t *a,
		     const topomatch_map_opts_t *sel, const int64_t *pus, int64_t npus,
		     double ms_left, int64_t *pu, int64_t *nodes, int64_t *nn, double *hb,
		     double *ratio)
{
	tm_chooser_t *ch = t->ch;
	int64_t n = topomatch_affinity_ntasks(a), nn2 = 0;
	int64_t *pu2 = xcalloc(n + 1, sizeof(*pu2));
	int64_t *nodes2 = xcalloc(topomatch_cluster_nnodes(ch->cluster) + 1, sizeof(*nodes2));
	topomatch_map_opts_t o = *sel;
	topomatch_map_result_t res;
	char err[TOPOMATCH_ERRLEN];
	double hb2 = -1, gain = ch->conf.node_weight_gain / 100;
	bool heavier = false;

	o.allowed = pus;
	o.nallowed = npus;
	o.time_budget_s = ms_left / 1e3;
	topomatch_loaded_choice_t lc;
	if (gain < 1 && ms_left > 0 &&
	    !tm_select(ch, a, &o, true, pu2, nodes2, &nn2, &res, &lc, err) &&
	    !res.fell_back && nn2 >= t->min_nodes && nn2 <= t->max_nodes &&
	    (hb2 = tm_hop_bytes(ch, a, pu2)) >= 0 && hb2 < *hb * (1 - gain)) {
		memcpy(pu, pu2, n * sizeof(*pu));
		memcpy(nodes, nodes2, nn2 * sizeof(*nodes));
		*nn = nn2;
		heavier = true;
	}
	if (hb2 < 0)
		debug("%pJ: node weights: %.6g hop-bytes on the lightest candidates that hold "
		      "the job, kept (all of them not tried: NodeWeightGain=%g%%%s)", t->job, *hb,
		      ch->conf.node_weight_gain, gain < 1 ? ", or no time or mapping" : "");
	else
		debug("%pJ: node weights: %.6g hop-bytes on the lightest candidates that hold "
		      "the job, %.6g on all of them: %s (NodeWeightGain=%g%%)", t->job, *hb, hb2,
		      heavier ? "heavier nodes taken" : "the lightest kept",
		      ch->conf.node_weight_gain);
	if (heavier) {
		*ratio = hb2 / *hb;
		*hb = hb2;
	}
	xfree(pu2);
	xfree(nodes2);
	return heavier;
}

/*
 * Of a decision's budget, the part kept for the guard's overshoot (it
 * checks the time where the mappers allow) and the work after the last
 * mapping, so that the whole job test stays within the budget.
 */
#define TM_BUDGET_MARGIN 0.2

/* The time left until end for a mapping expected to take like_ms; 0 (do
 * not start it) when it would not fit. */
static double tm_room(double end, double like_ms)
{
	double left = end - tm_now_ms();
	return left >= like_ms ? left : 0;
}

/*
 * Map the pattern onto the free PUs within budget_ms (what is left of the
 * job test's budget); the nodes that got tasks and how many each.
 * A node choice is remembered under base (the job's, reused while it
 * stands: tm_decision_stands), cons_tres' choice under key (these
 * free PUs), a run that exceeded the job's whole budget (whole) too; one
 * cut short by what was left of the cycle's budget is not (another cycle
 * may have the time).  The node choice gets
 * the budget but its margin; srun's placement and cons_tres' choice are
 * mapped with what remains of it.
 */
static topomatch_narrow_t tm_map(const tm_test_t *t, topomatch_affinity_t *a,
				 const int64_t *pus, int64_t npus, const int64_t *tier,
				 int64_t ntier, double budget_ms, bool whole, uint64_t base,
				 uint64_t key)
{
	tm_chooser_t *ch = t->ch;
	job_record_t *job_ptr = t->job;
	int64_t n = topomatch_affinity_ntasks(a), nn = 0;
	int64_t nnodes = topomatch_cluster_nnodes(ch->cluster);
	int64_t *pu = xcalloc(n + 1, sizeof(*pu));
	int64_t *nodes = xcalloc(nnodes + 1, sizeof(*nodes));
	int64_t *tasks = xcalloc(nnodes + 1, sizeof(*tasks));
	topomatch_map_opts_t o, sel;
	topomatch_map_result_t res;
	topomatch_loaded_choice_t lc; /* what the link loads made of the choice */
	char err[TOPOMATCH_ERRLEN], note[TM_DECISION_NOTE];
	double t0 = tm_now_ms(), ms = 0;
	double end = t0 + budget_ms - TM_BUDGET_MARGIN * ch->conf.job_budget_ms;
	topomatch_narrow_t how = TOPOMATCH_KEEP;

	topomatch_map_opts_init(&o);
	o.mapper = tm_job_mapper(ch, job_ptr);
	o.memo = ch->memo;
	o.allowed = tier ? tier : pus; /* the lightest nodes first (tm_weigh) */
	o.nallowed = tier ? ntier : npus;
	o.time_budget_s = (end - t0) / 1e3;
	note[0] = 0;
	if (npus < n) {
		if (t->group > 1)
			snprintf(note, sizeof(note), "%lld groups of %lld tasks of %u CPUs, room "
				 "for %lld on the candidate nodes", (long long) n,
				 (long long) t->group, tm_cpt(t), (long long) npus);
		else if (tm_cpt(t) > 1)
			snprintf(note, sizeof(note), "%lld tasks of %u CPUs, room for %lld on the "
				 "candidate nodes", (long long) n, tm_cpt(t), (long long) npus);
		else
			snprintf(note, sizeof(note), "%lld tasks, %lld free PUs on the candidate nodes",
				 (long long) n, (long long) npus);
	} else if (o.time_budget_s > 0 && /* 0 would be no budget at all */
		   tm_select(ch, a, tm_node_choice_opts(ch, &o, &sel), true, pu, nodes, &nn,
			     &res, &lc, err)) {
		snprintf(note, sizeof(note), "mapping failed: %.200s", err);
	} else if (o.time_budget_s <= 0 || res.fell_back || (ms = tm_now_ms() - t0) > budget_ms) {
		/* the guard cuts a run short only where it checks the time.
		 * With the whole job budget, the same inputs would exceed it
		 * again: remembered under key, not mapped at every job test
		 * (until scontrol reconfigure clears the cache); cut short by
		 * what the cycle had left, another cycle may have the time */
		snprintf(note, sizeof(note), "mapping exceeded its budget of %g ms",
			 ch->conf.job_budget_ms);
		if (!whole) {
			tm_note(job_ptr, "%s", note);
			note[0] = 0;
		}
	} else if (nn > t->max_nodes || nn < t->min_nodes) {
		snprintf(note, sizeof(note), "the mapping uses %lld nodes, the job %u to %u",
			 (long long) nn, t->min_nodes, t->max_nodes);
	} else {
		double hb_tier = -1, ratio = 1;
		bool heavier = tier && (hb_tier = tm_hop_bytes(ch, a, pu)) >= 0 &&
			       tm_weigh(t, a, &sel, pus, npus, tm_room(end, ms), pu, nodes, &nn,
					&hb_tier, &ratio);
		/* tasks[k]: how many of the tasks went to nodes[k] (a vertex is
		 * t->group of them when the pattern came in groups) */
		int64_t *per_node = xcalloc(nnodes + 1, sizeof(*per_node));
		for (int64_t k = 0; k < n; k++)
			per_node[topomatch_cluster_pu_node(ch->cluster, pu[k], NULL)] +=
				t->group > 1 ? t->group : 1;
		for (int64_t k = 0; k < nn; k++)
			tasks[k] = per_node[nodes[k]];
		xfree(per_node);
		double hb, hb_block, hb_cons;
		/* srun's placement and the mapping on cons_tres' nodes are each
		 * started only when what is left could hold a mapping as long
		 * as the node choice's: one cut short is wasted time */
		hb = tm_placement(ch, a, &o, pus, npus, pu, tm_room(end, ms), &res);
		if (hb < 0) {
			debug("%pJ: no time left to compute srun's placement: SystemComment gives "
			      "the hop-bytes of the node choice's mapping", job_ptr);
			hb = tm_hop_bytes(ch, a, pu);
		}
		/* compared with cons_tres' own nodes, the ranks mapped there too,
		 * when the budget allows: the better by hop-bytes is kept, by
		 * the same score as the node choice when the link loads count
		 * (else cons_tres' nodes would win back the loaded links the
		 * choice avoided for the hop-bytes it paid) */
		bool late = tm_now_ms() >= end;
		int64_t *pu_cons = xcalloc(n + 1, sizeof(*pu_cons));
		double sc = hb, sc_cons;
		hb_block = hb_cons = -1;
		if (!late) /* cons_tres' choice costs Slurm's time */
			tm_cons_tres_hop_bytes(t, a, &o, pus, npus, tm_room(end, ms), &hb_block,
					       &hb_cons, pu_cons);
		sc_cons = hb_cons;
		if (hb_cons >= 0 && tm_loads_active(ch)) {
			sc = tm_score(ch, a, pu, hb);
			sc_cons = tm_score(ch, a, pu_cons, hb_cons);
		}
		xfree(pu_cons);
		ms = tm_now_ms() - t0;
		if (hb_cons >= 0 && sc_cons < sc * (1 - 1e-9)) {
			/* noted (tm_note) and remembered as kept, below */
			snprintf(note, sizeof(note), "cons_tres chooses: the ranks mapped on its "
				 "nodes give %.6g hop-bytes, on the nodes the pattern chose %.6g",
				 hb_cons, hb);
			if (sc != hb || sc_cons != hb_cons)
				snprintf(note + strlen(note), sizeof(note) - strlen(note),
					 " (with the links' load %.6g and %.6g)", sc_cons, sc);
		} else {
			tm_decision_note(t, a, hb, hb_block, late, res.mapper, nn, note, sizeof(note));
			if (heavier)
				snprintf(note + strlen(note), sizeof(note) - strlen(note),
					 "; heavier nodes (Weight) for x%.2f the hop-bytes of the "
					 "lightest", ratio);
			if (lc.chosen_index > 0)
				snprintf(note + strlen(note), sizeof(note) - strlen(note),
					 "; off loaded links (load met %.3g, the hop-bytes-best "
					 "nodes' %.3g)", lc.chosen.contention,
					 lc.first.contention);
			tm_loads_stash(ch, job_ptr->job_id, pu, n);
			tm_decision_store(&ch->cache, job_ptr->job_id, base, TM_DECISION_NODES, nodes,
					  tasks, nn, &t->extent, note);
			tm_decision_set_cost(&ch->cache, job_ptr->job_id, base, hb);
			how = TOPOMATCH_NARROWED;
			debug("%pJ: %lld tasks mapped by %s onto %lld node%s (of %lld free %s) in "
			      "%.1f ms; %s", job_ptr, (long long) n, res.mapper, (long long) nn,
			      nn == 1 ? "" : "s", (long long) npus,
			      tm_slot(t) > 1 ? "task slots" : "PUs", ms, note);
		}
	}
	if (note[0] && how == TOPOMATCH_KEEP) {
		tm_note(job_ptr, "%s", note);
		tm_decision_store(&ch->cache, job_ptr->job_id, key, TM_DECISION_KEEP, NULL, NULL,
				  0, NULL, note);
	}
	xfree(pu);
	xfree(nodes);
	xfree(tasks);
	return how;
}

bool tm_job_has_pattern(const job_record_t *job_ptr)
{
	uint32_t n = job_ptr->spank_job_env_size;

	for (uint32_t i = 0; i < n && i < TM_MAX_ENV_ENTRIES; i++)
		if (job_ptr->spank_job_env[i] &&
		    !strncmp(job_ptr->spank_job_env[i], TOPOMATCH_PATTERN_ENV,
			     strlen(TOPOMATCH_PATTERN_ENV)))
			return true;
	return false;
}

/*
 * A key for the job's pattern: its TOPOMATCH_PATTERN_ entries and the job
 * fields tm_pattern() checks them against.  0 when the job has none.
 * *bytes: the size of the values, 0 past the format's limits (the decoder
 * then rejects the pattern at once, saying why).
 *
 * Computed on every job test, before the cache is asked, so its cost must
 * not grow with what a user put into spank_job_env (Slurm accepts entries
 * of hundreds of MiB: hashing one of 64 MiB took 200 ms here, with
 * slurmctld's locks held, at every scheduling attempt).  It reads no
 * further than the decoder needs to reject the pattern whatever follows
 * (topomatch_blob_decode_env with the default limits): a value of
 * TOPOMATCH_BLOB_MAX_ENTRY bytes or more, a name without '=' soon after
 * the prefix, more than TOPOMATCH_BLOB_MAX_ENTRIES entries, or values of
 * more than TOPOMATCH_BLOB_MAX_TOTAL bytes in all.  The key then only
 * tells this job's rejected pattern from its other states (spank_job_env
 * does not change during a job's life anyway).
 */
static uint64_t tm_pattern_key(job_record_t *job_ptr, size_t *bytes)
{
	const size_t plen = strlen(TOPOMATCH_PATTERN_ENV), name_max = plen + 8;
	const size_t cap = name_max + TOPOMATCH_BLOB_MAX_ENTRY;
	uint64_t h = TM_HASH_INIT;
	size_t total = 0, count = 0;
	bool any = false, invalid = false;

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i], *eq;
		size_t n;

		if (!e || strncmp(e, TOPOMATCH_PATTERN_ENV, plen))
			continue;
		any = true;
		n = strnlen(e, cap);
		eq = memchr(e, '=', n < name_max ? n : name_max);
		h = tm_hash(h, e, n);
		if (n == cap || !eq || ++count > TOPOMATCH_BLOB_MAX_ENTRIES ||
		    (total += n - (size_t) (eq + 1 - e) + 1) > TOPOMATCH_BLOB_MAX_TOTAL) {
			h = tm_hash(h, "\1over", 6); /* rejected, whatever follows */
			invalid = true;
			break;
		}
		/* a value of the limit or more: the decoder rejects it */
		invalid |= n - (size_t) (eq + 1 - e) + 1 > TOPOMATCH_BLOB_MAX_ENTRY;
		h = tm_hash(h, "", 1);
	}
	*bytes = invalid ? 0 : total; /* the decoder says why, at once */
	h = tm_hash(h, &job_ptr->details->num_tasks, sizeof(job_ptr->details->num_tasks));
	h = tm_hash(h, &job_ptr->details->cpus_per_task,
		    sizeof(job_ptr->details->cpus_per_task));
	return any ? (h ? h : 1) : 0;
}

/*
 * The caller's current window, with the time left in it: the main
 * scheduler's pass and backfill's cycle (the jobs it starts: its plans do
 * not reach the chooser, select_topomatch.c tm_backfill_plan) end when
 * slurmctld counts them; the other job tests (RPCs) count in windows of
 * at most TM_CYCLE_MAX_AGE_MS, as do passes that last longer.
 */
static tm_cycle_t *tm_cycle_now(const tm_test_t *t, double *left)
{
	tm_chooser_t *ch = t->ch;
	uint32_t counter = t->caller == TM_CALLER_MAIN ? slurmctld_diag_stats.schedule_cycle_counter
			   : t->caller == TM_CALLER_BACKFILL ? slurmctld_diag_stats.bf_cycle_counter
							     : 0;

	*left = tm_cycle_left(&ch->cycles[t->caller], counter, tm_now_ms(),
			      ch->conf.cycle_budget_ms);
	return &ch->cycles[t->caller];
}

void tm_narrowed_free(tm_narrowed_t *nar)
{
	FREE_NULL_BITMAP(nar->nodes);
	xfree(nar->cpus);
}

/* A stored TM_DECISION_NODES decision in Slurm's numbering. */
static void tm_narrowed_from(const tm_test_t *t, const tm_decision_t *d, tm_narrowed_t *nar)
{
	const int64_t *slurm_of = t->ch->slurm_of;
	nar->nodes = bit_alloc(node_record_count);
	nar->cpus = xcalloc(node_record_count, sizeof(*nar->cpus));
	for (int64_t k = 0; k < d->nnodes; k++) {
		int64_t i = slurm_of[d->nodes[k]];
		if (i < 0)
			continue;
		bit_set(nar->nodes, i);
		nar->cpus[i] = (uint16_t) MIN(d->tasks ? d->tasks[k] * tm_cpt(t) : 0, UINT16_MAX);
	}
	snprintf(nar->note, sizeof(nar->note), "%s", d->note);
}

/* cons_tres' choice for this pattern, remembered (the note says why) */
static topomatch_narrow_t tm_keep(tm_chooser_t *ch, job_record_t *job_ptr, uint64_t pkey)
{
	tm_decision_store(&ch->cache, job_ptr->job_id, pkey, TM_DECISION_KEEP, NULL, NULL, 0, NULL,
			  NULL);
	return TOPOMATCH_KEEP;
}

/*
 * The job's pattern when the plugin may map it: not over PatternKiB, not
 * more tasks or KiB than the job budget maps, decoded (hostile input);
 * else NULL, with the reason noted and remembered under pkey.  *group:
 * its tasks per vertex.
 */
static topomatch_affinity_t *tm_admit(const tm_test_t *t, uint64_t pkey, int64_t *group)
{
	tm_chooser_t *ch = t->ch;
	job_record_t *job_ptr = t->job;
	topomatch_affinity_t *a;

	double most = TM_PATTERN_BYTES * MAX(1.0, ch->conf.job_budget_ms / TM_PATTERN_BUDGET_MS);
	if (t->pattern_bytes > (size_t)ch->conf.pattern_kib * 1024) {
		/* not what sbatch stores under this configuration: the API
		 * (or PatternKiB lowered since) */
		tm_note(job_ptr, "the pattern's %zu KiB are more than PatternKiB=%d allows "
			"(topomatch.conf; sbatch --comm-pattern keeps patterns within it)",
			t->pattern_bytes / 1024, ch->conf.pattern_kib);
		tm_keep(ch, job_ptr, pkey);
		return NULL;
	}
	if (t->pattern_bytes > most) {
		/* decoding alone would take much of the budget, and mapping a
		 * dense pattern runs partitioners that cannot be stopped */
		tm_note(job_ptr, "the pattern's %zu KiB are more than a budget of %g ms maps "
			"(%.0f KiB; JobBudgetMs in topomatch.conf)", t->pattern_bytes / 1024,
			ch->conf.job_budget_ms, most / 1024);
		tm_keep(ch, job_ptr, pkey);
		return NULL;
	}
	if (!(a = tm_pattern(ch, job_ptr, group)))
		tm_keep(ch, job_ptr, pkey);
	return a;
}

/* ------------------------------------------------------------ --comm-wait */

/* The job's --comm-wait in seconds (TOPOMATCH_COMM_WAIT, stored by the
 * SPANK plugin beside the pattern; any value is bounded by CommWaitMax);
 * 0 without one, or with one that is not a whole number. */
static long tm_job_comm_wait(const job_record_t *job_ptr)
{
	static const char key[] = "TOPOMATCH_COMM_WAIT=";

	for (uint32_t i = 0; i < job_ptr->spank_job_env_size && i < TM_MAX_ENV_ENTRIES; i++) {
		const char *e = job_ptr->spank_job_env[i];
		char *end;
		long secs;

		if (!e || strncmp(e, key, sizeof(key) - 1))
			continue;
		errno = 0;
		secs = strtol(e + sizeof(key) - 1, &end, 10);
		return errno || end == e + sizeof(key) - 1 || *end || secs < 0 ? 0 : secs;
	}
	return 0;
}

/* The seconds the job, which asked for `asked` (tm_job_comm_wait), may
 * still wait, counted from when it became eligible (begin_time, which
 * slurmctld keeps across its restarts). */
static long tm_comm_wait_now(const tm_chooser_t *ch, const job_record_t *job_ptr, long asked)
{
	const struct job_details *dt = job_ptr->details;
	time_t since = dt ? MAX(dt->begin_time, dt->submit_time) : 0;

	return tm_comm_wait_left(asked, ch->conf.comm_wait_max, (long) since, (long) time(NULL));
}

/*
 * --comm-wait's yardstick: the job's hop-bytes on an empty cluster, its
 * node choice and srun's placement there as tm_map makes them, over every
 * node of its partition that the cluster YAML has (each with its Slurm
 * CPU count), without link loads.  Once per job, within ms_left, kept
 * under TM_KEY_EMPTY (not when it could not be computed).
 */
static void tm_reference(const tm_test_t *t, const topomatch_affinity_t *a, double ms_left)
{
	tm_chooser_t *ch = t->ch;
	job_record_t *job_ptr = t->job;
	bitstr_t *part = job_ptr->part_ptr ? job_ptr->part_ptr->node_bitmap : NULL;
	int64_t n = topomatch_affinity_ntasks(a), nn = 0, npus = 0;
	int64_t *pus = xcalloc(topomatch_cluster_npu(ch->cluster) + 1, sizeof(*pus));
	int64_t *pu = xcalloc(n + 1, sizeof(*pu));
	int64_t *nodes = xcalloc(topomatch_cluster_nnodes(ch->cluster) + 1, sizeof(*nodes));
	topomatch_map_opts_t o, sel;
	topomatch_map_result_t res;
	topomatch_loaded_choice_t lc;
	char err[TOPOMATCH_ERRLEN];
	double t0 = tm_now_ms(), hb = -1;

	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node = node_record_table_ptr[i];
		int64_t cn = ch->cl_of[i], first, count;

		if (cn < 0 || !node || (part && (i >= bit_size(part) || !bit_test(part, i))))
			continue;
		first = topomatch_cluster_node_pus(ch->cluster, cn, &count);
		for (int64_t k = 0; k < count && k < node->cpus; k++)
			pus[npus++] = first + k;
	}
	if (tm_slot(t) > 1)
		tm_slot_firsts(ch, tm_slot(t), pus, &npus);
	topomatch_map_opts_init(&o);
	o.mapper = tm_job_mapper(ch, job_ptr);
	o.memo = ch->memo;
	o.allowed = pus;
	o.nallowed = npus;
	o.time_budget_s = ms_left / 1e3;
	if (npus >= n && ms_left > 0 &&
	    !tm_select(ch, a, tm_node_choice_opts(ch, &o, &sel), false, pu, nodes, &nn, &res,
		       &lc, err) &&
	    !res.fell_back &&
	    (hb = tm_placement(ch, a, &o, pus, npus, pu, ms_left - (tm_now_ms() - t0), &res)) < 0)
		hb = tm_hop_bytes(ch, a, pu);
	if (hb > 0) {
		tm_decision_store(&ch->cache, job_ptr->job_id, TM_KEY_EMPTY, TM_DECISION_KEEP, NULL,
				  NULL, 0, NULL, NULL);
		tm_decision_set_cost(&ch->cache, job_ptr->job_id, TM_KEY_EMPTY, hb);
		debug("%pJ: --comm-wait: %.6g hop-bytes on an empty cluster (%lld PUs of its "
		      "partition), in %.1f ms", job_ptr, hb, (long long) npus, tm_now_ms() - t0);
	} else {
		debug("%pJ: --comm-wait: no placement on an empty cluster within %.1f ms: the job "
		      "does not wait this time", job_ptr, ms_left);
	}
	xfree(pus);
	xfree(pu);
	xfree(nodes);
}

/* TM_KEY_WAITING's cost: the job's last start was put off (backfill
 * plans it on its own terms, tm_job_waiting), or one was before. */
#define TM_WAITING 1
#define TM_WAITED 2

static void tm_mark_waiting(tm_chooser_t *ch, uint32_t job_id, double mark)
{
	if (!tm_decision_find(&ch->cache, job_id, TM_KEY_WAITING) &&
	    tm_decision_store(&ch->cache, job_id, TM_KEY_WAITING, TM_DECISION_KEEP, NULL, NULL,
			      0, NULL, NULL))
		return;
	tm_decision_set_cost(&ch->cache, job_id, TM_KEY_WAITING, mark);
}

/*
 * sbatch --comm-wait=TIME, as --switches=N@TIME does for switch counts: a
 * start now (may_wait) whose placement, d, gives more than CommWaitRatio
 * x the job's hop-bytes on an empty cluster is put off while the job's
 * time lasts.  The main scheduler's pass then stops at the job as when
 * its resources are busy, and backfill plans it only on node sets that
 * suit it (tm_job_waiting, t->plan: judged the same way, nothing noted),
 * so the jobs behind it start around it.  Its
 * decision is made again when nodes are freed (tm_decision_stands) and
 * judged at each start, until the time is up.
 */
static bool tm_comm_wait(const tm_test_t *t, const tm_decision_t *d, tm_narrowed_t *nar)
{
	tm_chooser_t *ch = t->ch;
	job_record_t *job_ptr = t->job;
	const tm_decision_t *ref, *mark;
	long asked = t->may_wait ? tm_job_comm_wait(job_ptr) : 0, left;
	bool wait;

	if (!asked)
		return false;
	left = tm_comm_wait_now(ch, job_ptr, asked);
	ref = left > 0 ? tm_decision_find(&ch->cache, job_ptr->job_id, TM_KEY_EMPTY) : NULL;
	wait = ref && tm_comm_wait_worse(d->cost, ref->cost, ch->conf.comm_wait_ratio);
	mark = tm_decision_find(&ch->cache, job_ptr->job_id, TM_KEY_WAITING);
	if (t->plan) {
		return wait;
	} else if (wait) {
		tm_note(job_ptr, "waits up to %lds more for a better placement (--comm-wait): "
			"%.6g hop-bytes on the free nodes, x%.2f the %.6g of an empty cluster "
			"(CommWaitRatio=%g)", left, d->cost, d->cost / ref->cost, ref->cost,
			ch->conf.comm_wait_ratio);
	} else if (mark && mark->cost > 0) {
		snprintf(nar->note + strlen(nar->note), sizeof(nar->note) - strlen(nar->note),
			 "; after waiting for a better placement (--comm-wait)");
	}
	if (wait || (mark && mark->cost > 0))
		tm_mark_waiting(ch, job_ptr->job_id, wait ? TM_WAITING : TM_WAITED);
	return wait;
}

bool tm_job_waiting(tm_chooser_t *ch, job_record_t *job_ptr)
{
	const tm_decision_t *mark;
	long asked = tm_job_comm_wait(job_ptr);
	bool waiting;

	if (!asked) /* most jobs: no cache lookup */
		return false;
	slurm_mutex_lock(&ch->mutex);
	mark = tm_decision_find(&ch->cache, job_ptr->job_id, TM_KEY_WAITING);
	waiting = mark && mark->cost == TM_WAITING && tm_comm_wait_now(ch, job_ptr, asked) > 0;
	slurm_mutex_unlock(&ch->mutex);
	return waiting;
}

/*
 * Of pus[] (free PUs, or task slots' first PUs), the first of each run of
 * `group` of one node: a pattern in groups maps a vertex onto a group's
 * slots (tm_slot).  An xmalloc'd copy, or NULL when pus is.
 */
static int64_t *tm_group_slots(const tm_chooser_t *ch, const int64_t *pus, int64_t *npus,
			       int64_t group)
{
	int64_t *g = pus ? xcalloc(*npus + 1, sizeof(*g)) : NULL;

	if (g) {
		memcpy(g, pus, *npus * sizeof(*g));
		tm_slot_firsts(ch, group, g, npus);
	}
	return g;
}

/* Decode and map: a decision not in the cache, within the budgets. */
static topomatch_narrow_t tm_compute(const tm_test_t *test, uint64_t pkey, uint64_t base,
				     uint64_t key, const int64_t *pus, int64_t npus,
				     const int64_t *tier, int64_t ntier)
{
	tm_test_t own = *test, *t = &own; /* t->group: the decoded pattern's */
	tm_chooser_t *ch = t->ch;
	job_record_t *job_ptr = t->job;
	double left;
	tm_cycle_t *cycle = tm_cycle_now(t, &left);
	topomatch_affinity_t *a;
	topomatch_narrow_t how = TOPOMATCH_KEEP;
	/* the user's share of the cycle (tm_cycle_user_left): one user's
	 * jobs do not take the whole cycle while another user's wait.  The
	 * main scheduler's pass goes in priority order instead (below). */
	double mine = t->caller == TM_CALLER_MAIN ? left
				   : tm_cycle_user_left(cycle, job_ptr->user_id,
							ch->conf.cycle_budget_ms,
							ch->conf.job_budget_ms, t->waiting_users);
	bool by_user = mine < left;

	left = MIN(left, mine);
	/*
	 * In the main scheduler's pass, a job whose whole budget the window
	 * no longer holds waits for the next pass, as Slurm's max_sched_time
	 * ends a pass: the pass stops at it (its partition fails,
	 * ESLURM_NODES_BUSY), slurmctld's locks are released (squeue, job
	 * completions), and the next pass, asked for at once, maps it first
	 * with its whole budget.  Only once this window computed a decision:
	 * a fresh window too small for one would make the job wait for ever.
	 */
	if (t->caller == TM_CALLER_MAIN && cycle->used_ms > 0 && left < ch->conf.job_budget_ms) {
		ch->deferred++;
		debug("%pJ: the scheduling cycle's budget of %g ms is used up: the job waits for "
		      "the next pass", job_ptr, ch->conf.cycle_budget_ms);
		/* asked once a window: the next pass opens a new one (were
		 * slurmctld's counter not to move, once a second) */
		if (ch->next_pass && !cycle->next_pass_asked++)
			ch->next_pass(false);
		return TOPOMATCH_DEFER;
	}
	/* what is left cannot hold a mapping */
	if (left - (tm_now_ms() - t->start_ms) <= TM_BUDGET_MARGIN * ch->conf.job_budget_ms &&
	    left < ch->conf.job_budget_ms) {
		if (by_user)
			tm_note(job_ptr, "user %u's share of the scheduling cycle's budget of %g ms "
				"is used up (each user with pattern jobs in the cycle gets an equal "
				"share)", job_ptr->user_id, ch->conf.cycle_budget_ms);
		else
			tm_note(job_ptr, "the scheduling cycle's budget of %g ms is used up",
				ch->conf.cycle_budget_ms);
		return TOPOMATCH_KEEP;
	}
	ch->computed++;
	/* the budget counts the job test's work before the mapping */
	int64_t *gpus = NULL, *gtier = NULL;
	if ((a = tm_admit(t, pkey, &own.group)) && own.group > 1) {
		pus = gpus = tm_group_slots(ch, pus, &npus, own.group);
		tier = gtier = tm_group_slots(ch, tier, &ntier, own.group);
	}
	if (a)
		how = tm_map(t, a, pus, npus, tier, ntier,
			     MIN(left, ch->conf.job_budget_ms) - (tm_now_ms() - t->start_ms),
			     left >= ch->conf.job_budget_ms, base, key);
	/* --comm-wait's yardstick, once, with a budget of its own from the
	 * cycle's: without it the job does not wait */
	if (how == TOPOMATCH_NARROWED && t->may_wait &&
	    tm_comm_wait_now(ch, job_ptr, tm_job_comm_wait(job_ptr)) > 0 &&
	    !tm_decision_find(&ch->cache, job_ptr->job_id, TM_KEY_EMPTY))
		tm_reference(t, a, MIN(ch->conf.job_budget_ms,
				       left - (tm_now_ms() - t->start_ms)) -
					   TM_BUDGET_MARGIN * ch->conf.job_budget_ms);
	topomatch_affinity_destroy(a);
	xfree(gpus);
	xfree(gtier);
	tm_cycle_charge(cycle, job_ptr->user_id, tm_now_ms() - t->start_ms);
	return how;
}

/* Is the node index made for slurmctld's node table as it is? */
static bool tm_node_index_current(const tm_chooser_t *ch)
{
	if (!ch->cl_of || ch->index_count != node_record_count ||
	    ch->index_table != node_record_table_ptr)
		return false;
	/* a node deleted and another created in its slot (dynamic nodes):
	 * a pointer compare per node, some microseconds at 32,768 */
	for (int i = 0; i < node_record_count; i++)
		if (ch->index_node[i] != node_record_table_ptr[i])
			return false;
	return true;
}

/*
 * Slurm's node index <-> cluster node, by name: built once (the names of
 * 32,768 nodes took milliseconds to look up at every job test), again
 * when slurmctld's node table moves, grows or changes a record (dynamic
 * nodes).  -1 when out of memory (no decision).
 */
int tm_node_index(tm_chooser_t *ch)
{
	int64_t nn = topomatch_cluster_nnodes(ch->cluster);

	if (tm_node_index_current(ch))
		return 0;
	free(ch->cl_of);
	free(ch->slurm_of);
	free(ch->index_node);
	ch->cl_of = malloc(sizeof(*ch->cl_of) * (node_record_count + 1));
	ch->slurm_of = malloc(sizeof(*ch->slurm_of) * (nn + 1));
	ch->index_node = malloc(sizeof(*ch->index_node) * (node_record_count + 1));
	if (!ch->cl_of || !ch->slurm_of || !ch->index_node) {
		free(ch->cl_of);
		free(ch->slurm_of);
		free(ch->index_node);
		ch->cl_of = ch->slurm_of = NULL;
		ch->index_node = NULL;
		return -1;
	}
	for (int64_t k = 0; k < nn; k++)
		ch->slurm_of[k] = -1;
	for (int i = 0; i < node_record_count; i++) {
		node_record_t *node = node_record_table_ptr[i];
		ch->index_node[i] = node;
		ch->cl_of[i] = node ? topomatch_cluster_node_find(ch->cluster, node->name) : -1;
		if (ch->cl_of[i] >= 0)
			ch->slurm_of[ch->cl_of[i]] = i;
	}
	ch->index_count = node_record_count;
	ch->index_table = node_record_table_ptr;
	return 0;
}

static uint64_t tm_mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 29);
}

/* The key of the job's node choice: its pattern's and its node counts. */
static uint64_t tm_base_key(const tm_test_t *t, uint64_t pkey)
{
	uint64_t h = tm_mix(tm_mix(pkey, t->min_nodes), t->max_nodes);
	return h ? h : 1;
}

/*
 * The key of a job test: the job's (base) and what the free PUs are made
 * of, read from Slurm's own structures (the candidate nodes, each one's
 * free cores as bitmap words and what it can give the job), so that
 * finding cons_tres' choice remembered for them costs a pass over words,
 * not the collection of the cluster's free PUs.
 */
static uint64_t tm_test_key(const tm_test_t *t, uint64_t base)
{
	const tm_chooser_t *ch = t->ch;
	uint64_t h = base;

	for (int i = 0; i < node_record_count; i++) {
		bitstr_t *cores = t->avail_core ? t->avail_core[i] : NULL;
		int64_t nbits, w;

		if (ch->cl_of[i] < 0 || !bit_test(t->node_map, i))
			continue;
		h = tm_mix(tm_mix(h, (uint64_t) i), (uint64_t) tm_node_cap(t, i));
		if (!cores) {
			h = tm_mix(h, UINT64_MAX);
			continue;
		}
		nbits = bit_size(cores);
		for (w = 0; w < nbits / 64; w++)
			h = tm_mix(h, (uint64_t) cores[BITSTR_OVERHEAD + w]);
		if (nbits % 64) /* bits past the end are not Slurm's to keep clear */
			h = tm_mix(h, (uint64_t) cores[BITSTR_OVERHEAD + w] &
				      ((UINT64_C(1) << (nbits % 64)) - 1));
	}
	return h ? h : 1;
}

/* The candidate nodes and the CPUs they can give the job. */
static tm_extent_t tm_extent_of(const tm_test_t *t)
{
	tm_extent_t e = { 0, 0 };

	for (int i = 0; i < node_record_count; i++)
		if (bit_test(t->node_map, i)) {
			e.nodes++;
			e.cpus += tm_node_cap(t, i);
		}
	return e;
}

/*
 * Does the job's stored node choice still stand: no more candidate nodes
 * or CPUs than it was made on (jobs started elsewhere, none ended: a
 * freed node may serve the job better, so a job's end makes it again),
 * and its own nodes still candidates that can give the job the CPUs of
 * their tasks (cons_tres' avail_cpus)?  Then the mapper's choice on a
 * larger set is still its best, without mapping again: a pass over the
 * candidates' CPU counts, not a hash of their cores.
 */
static bool tm_decision_stands(const tm_test_t *t, const tm_decision_t *d)
{
	if (t->extent.nodes > d->extent.nodes || t->extent.cpus > d->extent.cpus)
		return false;
	for (int64_t k = 0; k < d->nnodes; k++) {
		int64_t i = t->ch->slurm_of[d->nodes[k]];
		if (i < 0 || i >= bit_size(t->node_map) || !bit_test(t->node_map, i) ||
		    tm_node_cap(t, (int) i) < (d->tasks ? d->tasks[k] : 1) * tm_cpt(t))
			return false;
	}
	return d->nnodes > 0;
}

/*
 * The decision for the job over these free PUs: its node choice while it
 * stands (tm_decision_stands), cons_tres' choice when it
 * was kept for the same free PUs before (cons_tres' retries, later
 * cycles, backfill's starts), else computed.
 */
static topomatch_narrow_t tm_decide(tm_test_t *t, uint64_t pkey, tm_narrowed_t *nar)
{
	tm_chooser_t *ch = t->ch;
	int64_t *pus = NULL, npus = 0, *tier = NULL, ntier = 0;
	const tm_decision_t *d;
	topomatch_narrow_t how = TOPOMATCH_KEEP;
	uint64_t base = tm_base_key(t, pkey), key;

	if (tm_decision_find(&ch->cache, t->job->job_id, pkey)) {
		ch->reused++;
		return TOPOMATCH_KEEP; /* the pattern was rejected, and noted */
	}
	if (t->check_only) {
		int64_t group;
		topomatch_affinity_destroy(tm_admit(t, pkey, &group));
		return TOPOMATCH_KEEP;
	}
	if (tm_node_index(ch)) {
		tm_note(t->job, "out of memory");
		return TOPOMATCH_KEEP;
	}
	t->extent = tm_extent_of(t);
	if ((d = tm_decision_find(&ch->cache, t->job->job_id, base)) && tm_decision_stands(t, d)) {
		ch->reused++;
		debug("%pJ: decision reused (narrowed)", t->job);
	} else if ((d = tm_decision_find(&ch->cache, t->job->job_id,
					 key = tm_test_key(t, base)))) {
		ch->reused++;
		debug("%pJ: decision reused (cons_tres chooses)", t->job);
	} else if (!(pus = malloc(sizeof(*pus) * (topomatch_cluster_npu(ch->cluster) + 1)))) {
		tm_note(t->job, "out of memory");
	} else {
		tm_free_pus(t, pus, &npus);
		uint64_t cut = tm_weight_cut(t);
		if (tm_cpt(t) > 1)
			tm_slot_firsts(ch, tm_cpt(t), pus, &npus);
		if (cut != UINT64_MAX && (tier = malloc(sizeof(*tier) * (npus + 1))) &&
		    (ntier = tm_tier_pus(ch, pus, npus, cut, tier)) < t->job->details->num_tasks) {
			free(tier); /* slots of -c fewer than its CPUs said */
			tier = NULL;
		}
		how = tm_compute(t, pkey, base, key, pus, npus, tier, ntier);
		d = how == TOPOMATCH_NARROWED ? tm_decision_find(&ch->cache, t->job->job_id, base)
					       : NULL;
	}
	if (how == TOPOMATCH_DEFER) {
		/* nothing decided */
	} else if (d && d->kind == TM_DECISION_NODES) {
		tm_narrowed_from(t, d, nar);
		how = TOPOMATCH_NARROWED;
		if (tm_comm_wait(t, d, nar)) {
			tm_narrowed_free(nar);
			how = TOPOMATCH_WAIT;
		}
	} else {
		how = TOPOMATCH_KEEP;
	}
	free(pus);
	free(tier);
	return how;
}

/* See tm_choose.h.  The budget starts here: a copy of the test holds the
 * start and the pattern's size. */
topomatch_narrow_t topomatch_narrow(const tm_test_t *test, tm_narrowed_t *nar)
{
	tm_test_t own = *test, *t = &own;
	tm_chooser_t *ch = t->ch;
	job_record_t *job_ptr = t->job;
	topomatch_narrow_t how;
	uint64_t pkey;

	own.start_ms = tm_now_ms();
	memset(nar, 0, sizeof(*nar));
	if (!ch->cluster || !job_ptr->spank_job_env_size || !job_ptr->details)
		return TOPOMATCH_KEEP;
	if (job_ptr->spank_job_env_size > TM_MAX_ENV_ENTRIES) {
		/* not even looked through for a pattern; said once per job */
		slurm_mutex_lock(&ch->mutex);
		if (!tm_decision_find(&ch->cache, job_ptr->job_id, TM_KEY_ENV_TOO_LONG)) {
			tm_note(job_ptr, "spank_job_env has %u entries, more than the %d a pattern "
				"comes with: not read", job_ptr->spank_job_env_size,
				TM_MAX_ENV_ENTRIES);
			tm_decision_store(&ch->cache, job_ptr->job_id, TM_KEY_ENV_TOO_LONG,
					  TM_DECISION_KEEP, NULL, NULL, 0, NULL, NULL);
		}
		slurm_mutex_unlock(&ch->mutex);
		return TOPOMATCH_KEEP;
	}
	if (!(pkey = tm_pattern_key(job_ptr, &own.pattern_bytes)))
		return TOPOMATCH_KEEP;
	slurm_mutex_lock(&ch->mutex);
	how = tm_decide(t, pkey, nar);
	ch->tests++;
	ch->test_ms += tm_now_ms() - own.start_ms;
	slurm_mutex_unlock(&ch->mutex);
	return how;
}

