/*
 * tm_contention.c - select/topomatch's table of the link loads of the
 * running pattern jobs (tm_choose.h, tm_loads_t), which the node choice
 * scores candidate node sets against (topomatch_cluster_select_loaded,
 * the simulator's choice too: topomatch-sim(1), "CONTENTION-AWARE NODE
 * CHOICE").  Each job's load is the link load of TopoMapping (Jeannot,
 * Mercier, Tessier: ICS 2017, Eq. 5) of its pattern at its ranks' PUs,
 * over its busiest link, times its activity (ContentionShare).
 *
 * Runs in slurmctld with its job write lock held (job start and end,
 * reconfigure): bounded time (a mapping of a job's ranks within
 * JobBudgetMs, a rebuild within CycleBudgetMs, Slurm's block order
 * beyond), bounded memory (ContentionEntries), never an abort: a job that
 * cannot be added is left out of the table, said at debug level.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */

/* Slurm's config.h (found first through -iquote SLURM_SOURCE_DIR), never
 * the project's: Slurm's structures depend on it. */
#include "config.h"

#include "tm_slurm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tm_choose.h"

bool tm_loads_active(const tm_chooser_t *ch)
{
	/* entries, not jobs: jobs within one node load no link, and a
	 * table of only those changes no score */
	return ch->loads.ll && ch->conf.contention_weight > 0 &&
	       topomatch_link_load_entries(ch->loads.ll) > 0;
}

void tm_loads_free(tm_chooser_t *ch)
{
	topomatch_link_load_destroy(ch->loads.ll);
	free(ch->loads.stash_pu);
	memset(&ch->loads, 0, sizeof(ch->loads));
}

void tm_loads_reset(tm_chooser_t *ch)
{
	char err[TOPOMATCH_ERRLEN];

	tm_loads_free(ch);
	if (!ch->cluster || !(ch->conf.contention_weight > 0))
		return; /* ContentionWeight=0: the choice never reads it */
	if (topomatch_cluster_link_load_create(ch->cluster, ch->conf.contention_entries,
					       &ch->loads.ll, err)) {
		error("%s: node choice without the running jobs' link loads", err);
		ch->loads.ll = NULL;
	}
}

void tm_loads_stash(tm_chooser_t *ch, uint32_t job_id, const int64_t *pu, int64_t n)
{
	int64_t *p;

	if (!ch->loads.ll || n <= 0)
		return;
	if (!(p = realloc(ch->loads.stash_pu, sizeof(*p) * n))) {
		ch->loads.stash_job = 0; /* it would be mapped again at its start */
		return;
	}
	memcpy(p, pu, sizeof(*p) * n);
	ch->loads.stash_pu = p;
	ch->loads.stash_n = n;
	ch->loads.stash_job = job_id;
}

/*
 * The job's pattern, decoded as the job test decodes it (hostile input,
 * MaxTasks or, for a job mapped node by node, its task count; the edges
 * JobBudgetMs maps), or NULL with why in err.  A pattern
 * over PatternKiB is not decoded (the job test kept cons_tres' choice
 * for it without decoding either); the bytes are counted no further than
 * that limit, whatever a user put into spank_job_env.  *group: its tasks
 * per vertex.
 */
static topomatch_affinity_t *tm_loads_pattern(const tm_chooser_t *ch, job_record_t *job_ptr,
					      int64_t *group, char *err)
{
	const size_t plen = strlen(TOPOMATCH_PATTERN_ENV);
	const size_t most = (size_t) ch->conf.pattern_kib * 1024;
	topomatch_blob_limits_t lim =
		tm_plugin_decode_limits(&ch->conf, job_ptr->details ? job_ptr->details->num_tasks : 0);
	topomatch_affinity_t *a = NULL;
	topomatch_blob_info_t info;
	size_t total = 0;

	/* as the job test (tm_choose.c, topomatch_narrow): a longer
	 * spank_job_env is not looked through (Slurm takes millions) */
	if (job_ptr->spank_job_env_size > TOPOMATCH_BLOB_MAX_ENTRIES + 4096) {
		snprintf(err, TOPOMATCH_ERRLEN, "spank_job_env has %u entries: not read",
			 job_ptr->spank_job_env_size);
		return NULL;
	}
	for (uint32_t i = 0; i < job_ptr->spank_job_env_size; i++) {
		const char *e = job_ptr->spank_job_env[i];
		if (e && !strncmp(e, TOPOMATCH_PATTERN_ENV, plen) &&
		    (total += strnlen(e, most + 1)) > most) {
			snprintf(err, TOPOMATCH_ERRLEN, "the pattern is over PatternKiB=%d",
				 ch->conf.pattern_kib);
			return NULL;
		}
	}
	if (topomatch_blob_decode_env((const char *const *) job_ptr->spank_job_env,
				      job_ptr->spank_job_env_size, NULL, &lim, &a, &info, err))
		return NULL;
	if (!a) {
		snprintf(err, TOPOMATCH_ERRLEN, "no pattern");
		return NULL;
	}
	if (!job_ptr->details || info.ntasks != job_ptr->details->num_tasks) {
		snprintf(err, TOPOMATCH_ERRLEN, "the pattern has %lld tasks, the job %u",
			 (long long) info.ntasks, job_ptr->details ? job_ptr->details->num_tasks : 0);
		topomatch_affinity_destroy(a);
		return NULL;
	}
	*group = info.group;
	return a;
}

/* Is every PU of the stash on a node the job was allocated? */
static bool tm_stash_fits(const tm_chooser_t *ch, job_record_t *job_ptr, int64_t n)
{
	const tm_loads_t *l = &ch->loads;

	if (l->stash_job != job_ptr->job_id || l->stash_n != n || !job_ptr->node_bitmap)
		return false;
	for (int64_t k = 0; k < n; k++) {
		int64_t cn = topomatch_cluster_pu_node(ch->cluster, l->stash_pu[k], NULL);
		int64_t i = cn >= 0 ? ch->slurm_of[cn] : -1;
		if (i < 0 || i >= bit_size(job_ptr->node_bitmap) ||
		    !bit_test(job_ptr->node_bitmap, i))
			return false;
	}
	return true;
}

/*
 * The cluster PUs of the cores slurmctld allocated to the job
 * (job_resrcs: its nodes, each node's cores in core_bitmap, socket by
 * socket), node by node in Slurm's order: every PU of a core when PUs are
 * hardware threads, as tm_choose.c's tm_free_pus counts them.  *npus how
 * many; NULL (err says why) when a node is not in the cluster YAML or
 * the record is not as Slurm builds it.
 */
static int64_t *tm_job_pus(const tm_chooser_t *ch, job_record_t *job_ptr, int64_t *npus,
			   char *err)
{
	job_resources_t *jr = job_ptr->job_resrcs;
	int64_t *pus, bit = 0, j = 0;
	uint32_t rep = 0, rep_left;

	*npus = 0;
	if (!jr || !jr->node_bitmap || !jr->core_bitmap || !jr->sock_core_rep_count ||
	    !jr->sockets_per_node || !jr->cores_per_socket || !jr->nhosts) {
		snprintf(err, TOPOMATCH_ERRLEN, "no job resources");
		return NULL;
	}
	pus = malloc(sizeof(*pus) * (topomatch_cluster_npu(ch->cluster) + 1));
	if (!pus) {
		snprintf(err, TOPOMATCH_ERRLEN, "out of memory");
		return NULL;
	}
	rep_left = jr->sock_core_rep_count[0];
	for (int i = 0; i < bit_size(jr->node_bitmap) && j < jr->nhosts; i++) {
		node_record_t *node;
		int64_t cn, first, count, cores, per;

		if (!bit_test(jr->node_bitmap, i))
			continue;
		while (!rep_left && rep + 1 < jr->nhosts)
			rep_left = jr->sock_core_rep_count[++rep];
		cores = (int64_t) jr->sockets_per_node[rep] * jr->cores_per_socket[rep];
		node = i < node_record_count ? node_record_table_ptr[i] : NULL;
		cn = node && i < ch->index_count ? ch->cl_of[i] : -1;
		if (cn < 0 || bit + cores > bit_size(jr->core_bitmap)) {
			snprintf(err, TOPOMATCH_ERRLEN, "node %s is not in the cluster YAML, or the "
				 "job's core bitmap is short", node ? node->name : "?");
			free(pus);
			return NULL;
		}
		first = topomatch_cluster_node_pus(ch->cluster, cn, &count);
		per = node->tot_cores && count > node->tot_cores ? count / node->tot_cores : 1;
		for (int64_t c = 0; c < cores; c++)
			for (int64_t t = 0; bit_test(jr->core_bitmap, bit + c) && t < per; t++)
				if (c * per + t < count)
					pus[(*npus)++] = first + c * per + t;
		bit += cores;
		j++;
		rep_left--;
	}
	return pus;
}

/*
 * The job's ranks' PUs: the node choice's placement when it is this
 * job's on the job's nodes (srun's, tm_placement), else the pattern
 * mapped onto the first PU of each task slot of the allocated cores (as
 * srun maps it) within budget_ms, else Slurm's block order over the
 * slots (a job mapped node by node: its tasks are more than a mapping
 * one by one takes within the budget).  A pattern in groups of `group`
 * tasks: a vertex per slot of the group's CPUs.  pu[] has room for the
 * vertices; *mapped says whether a mapping ran.  0, or -1 with why in err.
 */
static int tm_job_placement(tm_chooser_t *ch, job_record_t *job_ptr,
			    const topomatch_affinity_t *a, int64_t group, double budget_ms,
			    int64_t *pu, bool *mapped, char *err)
{
	int64_t n = topomatch_affinity_ntasks(a), npus = 0, nslots = 0, *pus, *slot;
	int64_t cpt = (job_ptr->details->cpus_per_task > 1 ? job_ptr->details->cpus_per_task : 1) *
		      group;
	topomatch_map_opts_t o;
	topomatch_map_result_t res;
	char why[TOPOMATCH_ERRLEN];
	int rc = 0;

	*mapped = false;
	if (tm_stash_fits(ch, job_ptr, n)) {
		memcpy(pu, ch->loads.stash_pu, sizeof(*pu) * n);
		return 0;
	}
	if (!(pus = tm_job_pus(ch, job_ptr, &npus, err)))
		return -1;
	if (!(slot = malloc(sizeof(*slot) * (npus + 1)))) {
		free(pus);
		snprintf(err, TOPOMATCH_ERRLEN, "out of memory");
		return -1;
	}
	if (topomatch_cluster_slots(ch->cluster, pus, npus, cpt, slot, &nslots, err)) {
		rc = -1;
	} else if (nslots < n) {
		snprintf(err, TOPOMATCH_ERRLEN, "%lld %s of %lld CPUs, %lld slots allocated",
			 (long long) n, group > 1 ? "groups of tasks" : "tasks", (long long) cpt,
			 (long long) nslots);
		rc = -1;
	} else {
		for (int64_t s = 0; s < nslots; s++)
			pus[s] = slot[s * cpt];
		topomatch_map_opts_init(&o);
		o.mapper = tm_job_mapper(ch, job_ptr);
		o.memo = ch->memo;
		o.allowed = pus;
		o.nallowed = nslots;
		o.time_budget_s = budget_ms / 1e3;
		if (budget_ms > 0 && !tm_by_blocks(ch, n) &&
		    !topomatch_cluster_map(ch->cluster, a, &o, pu, &res, why) && !res.fell_back) {
			*mapped = true;
		} else {
			for (int64_t k = 0; k < n; k++) /* Slurm's block distribution */
				pu[k] = pus[k];
		}
	}
	free(slot);
	free(pus);
	return rc;
}

void tm_loads_job_start(tm_chooser_t *ch, job_record_t *job_ptr, double budget_ms)
{
	topomatch_affinity_t *a;
	char err[TOPOMATCH_ERRLEN];
	int64_t *pu;
	bool mapped = false;
	int rc;

	if (!ch->loads.ll || !IS_JOB_RUNNING(job_ptr) || !tm_job_has_pattern(job_ptr))
		return;
	if (tm_node_index(ch)) {
		debug("%pJ: out of memory: left out of the link loads", job_ptr);
		return;
	}
	int64_t group = 1;
	if (!(a = tm_loads_pattern(ch, job_ptr, &group, err))) {
		debug("%pJ: left out of the link loads: %s", job_ptr, err);
		return;
	}
	pu = malloc(sizeof(*pu) * (topomatch_affinity_ntasks(a) + 1));
	if (!pu) {
		snprintf(err, sizeof(err), "out of memory");
		rc = -1;
	} else {
		rc = tm_job_placement(ch, job_ptr, a, group, budget_ms, pu, &mapped, err);
	}
	/* a job already in the table (started again: requeue, restart of
	 * the table's rebuild) is counted once */
	topomatch_link_load_remove(ch->loads.ll, job_ptr->job_id, NULL);
	if (!rc)
		rc = topomatch_cluster_link_load_add(ch->cluster, ch->loads.ll, job_ptr->job_id, a,
						     pu, ch->conf.contention_share, err);
	if (rc == TOPOMATCH_ELIMIT) {
		ch->loads.refused++;
		if (!ch->loads.full_said)
			info("link loads: %lld (job, link) entries, no room for %pJ's within "
			     "ContentionEntries=%lld: jobs are left out of the table until others "
			     "end (said once)",
			     (long long) topomatch_link_load_entries(ch->loads.ll), job_ptr,
			     (long long) ch->conf.contention_entries);
		ch->loads.full_said = true;
	} else if (rc) {
		ch->loads.refused++;
		debug("%pJ: left out of the link loads: %s", job_ptr, err);
	} else {
		ch->loads.added++;
		ch->loads.blocked += !mapped && ch->loads.stash_job != job_ptr->job_id;
		debug("%pJ: its traffic joins the link loads (%s; %lld jobs, %lld entries)",
		      job_ptr, ch->loads.stash_job == job_ptr->job_id ? "the node choice's placement"
		      : mapped ? "mapped on its cores" : "block order",
		      (long long) topomatch_link_load_jobs(ch->loads.ll),
		      (long long) topomatch_link_load_entries(ch->loads.ll));
	}
	if (ch->loads.stash_job == job_ptr->job_id)
		ch->loads.stash_job = 0;
	free(pu);
	topomatch_affinity_destroy(a);
}

void tm_loads_job_end(tm_chooser_t *ch, job_record_t *job_ptr)
{
	if (!ch->loads.ll || topomatch_link_load_remove(ch->loads.ll, job_ptr->job_id, NULL))
		return; /* not in the table: no pattern, or left out */
	ch->loads.removed++;
	debug("%pJ: its traffic leaves the link loads (%lld jobs)", job_ptr,
	      (long long) topomatch_link_load_jobs(ch->loads.ll));
}
