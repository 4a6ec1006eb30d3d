/*
 * select/topomatch - topology-aware node selection for Slurm 22.05.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * The plugin is select/cons_tres, whose sources (cons_tres + cons_common of
 * the installed Slurm version, see plugin/select/slurm/) are compiled in, with
 * one change: cons_tres chooses the nodes of a job through
 * cons_common_callbacks.choose_nodes, and init() wraps that callback.  The
 * wrapper asks topomatch_narrow() for a subset of the candidate nodes that
 * suits the job's communication pattern, lets cons_tres choose within that
 * subset, and falls back to cons_tres' own choice among all the candidates
 * when there is no subset or cons_tres cannot use it.  The subset is
 * libtopomatch's node selection for the job's pattern (TopoMatch §4.4,
 * Fig. 3) over the cluster described by topomatch.conf's ClusterYAML.
 *
 * Runs inside slurmctld with its job and node locks held: no RPC to
 * slurmctld, no blocking I/O, bounded time.  Clients (srun, sbatch, ...)
 * load every select plugin of the plugin directory too: there init() does
 * what cons_tres' does and nothing else, silently.
 *
 * Slurm finds the symbols below with dlsym: plugin_name, plugin_type,
 * plugin_id, plugin_version, init, fini (here) and the select_p_* functions
 * (cons_tres' own).  select_topomatch.map exports those and nothing else but
 * the slurmctld globals that cons_common defines for clients.
 */

/* Slurm's config.h (found first through -iquote SLURM_SOURCE_DIR), never
 * the project's: Slurm's structures depend on it. */
#include "config.h"

#include "tm_slurm.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "topomatch.h"
#include "topomatch_cluster.h"
#include "tm_choose.h"
#include "tm_spank_env.h"

#define TM_EXPORT __attribute__((visibility("default")))

/* Not in Slurm's enum select_plugin_type (100-110); unique among the select
 * plugins of a plugin directory, which slurmctld and clients check. */
#define SELECT_PLUGIN_TOPOMATCH 190

TM_EXPORT const char plugin_name[] = "Topology-aware node selection (TopoMatch)";
TM_EXPORT const char plugin_type[] = "select/topomatch";
TM_EXPORT const uint32_t plugin_id = SELECT_PLUGIN_TOPOMATCH;
TM_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

/* cons_tres' init and fini (plugin/select/slurm/tres_select_cons_tres.c). */
extern int cons_tres_init(void);
extern int cons_tres_fini(void);

TM_EXPORT int init(void);
TM_EXPORT int fini(void);

/* cons_common's select_p_reconfigure (plugin/select/slurm/common_cons_common.c). */
extern int cons_common_reconfigure(void);
TM_EXPORT int select_p_reconfigure(void);

/* cons_common's select_p_select_nodeinfo_set and select_p_job_fini
 * (plugin/select/slurm/common_cons_common.c). */
extern int cons_common_select_nodeinfo_set(job_record_t *job_ptr);
extern int cons_common_job_fini(job_record_t *job_ptr);
TM_EXPORT int select_p_select_nodeinfo_set(job_record_t *job_ptr);
TM_EXPORT int select_p_job_fini(job_record_t *job_ptr);

/* cons_tres' select_p_job_test (plugin/select/slurm/tres_select_cons_tres.c). */
extern int cons_tres_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			      uint32_t min_nodes, uint32_t max_nodes,
			      uint32_t req_nodes, uint16_t mode,
			      List preemptee_candidates, List *preemptee_job_list,
			      bitstr_t *exc_core_bitmap);
TM_EXPORT int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
				uint32_t min_nodes, uint32_t max_nodes,
				uint32_t req_nodes, uint16_t mode,
				List preemptee_candidates, List *preemptee_job_list,
				bitstr_t *exc_core_bitmap);

/*
 * slurmctld's statistics, whose cycle counters delimit the per-cycle
 * budget.  Defined here too, like the globals cons_common.c defines, so
 * that the plugin loads in clients; in slurmctld the dynamic linker binds
 * the plugin's references to slurmctld's own (select_topomatch.map keeps
 * the symbol global, and default visibility keeps it in the dynamic
 * symbol table: under -fvisibility=hidden the plugin read its own copy,
 * whose counters never moved, so a window lasted a second, not a pass).
 */
__attribute__((visibility("default"))) diag_stats_t slurmctld_diag_stats;


/* The plugin's decisions (tm_choose.c): settings, cluster, cache, budgets. */
static tm_chooser_t tm_ch = { .mutex = PTHREAD_MUTEX_INITIALIZER };

/* The mode of the select_p_job_test in progress on this thread. */
static __thread uint16_t tm_job_test_mode = SELECT_MODE_RUN_NOW;

/* Is this thread the one slurmctld named so (prctl PR_SET_NAME)? */
static bool tm_thread_is(const char *want)
{
	char name[17] = "";

	return !prctl(PR_GET_NAME, name, 0, 0, 0) && !strcmp(name, want);
}

/*
 * Is this sched/backfill's thread (22.05's backfill_agent names itself
 * "bckfl")?  Its WILL_RUN tests plan when and where each pending job could
 * start, every cycle for every job on another set of nodes (those free at
 * that time): mapped, they were most of the plugin's time in slurmctld
 * (bench/slurm_scale.sh).  They keep cons_tres' plan; a job backfill
 * starts is mapped then (its RUN_NOW test, within the nodes the plan left
 * it).  WILL_RUN tests of other threads (sbatch --test-only) are mapped.
 */
static bool tm_backfill_plan(void)
{
	return tm_job_test_mode == SELECT_MODE_WILL_RUN && tm_thread_is("bckfl");
}

/*
 * Does this call only ask whether the job could ever fit on the candidate
 * nodes?  cons_common's job test (job_test.c, _job_test) first offers the
 * cores of the candidates whether or not jobs hold them ("test 0") and
 * drops that choice, then offers their free cores (test 1): mapping both
 * was two mappings per job test, the first onto PUs that other jobs use.
 * Test 0 is told by a candidate node with jobs (not idle): the cores
 * offered overlap those its jobs hold in the partitions' rows
 * (select_part_record); in the tests on free cores they do not.  The
 * first such node decides, so a test on free cores costs a pass over
 * idle candidates.  With CR_MEMORY, test 0 allocates.  Not told from
 * test 0: OverSubscribe rows and preemption (cores of jobs to preempt are
 * offered), whose jobs then get cons_tres' choice.
 */
static bool tm_fit_only(const tm_test_t *t)
{
	if (t->cr_type == CR_MEMORY || !t->avail_core || !idle_node_bitmap)
		return false;
	for (int i = 0; i < node_record_count; i++) {
		bool held = false;

		if (!bit_test(t->node_map, i) || bit_test(idle_node_bitmap, i) ||
		    !t->avail_core[i])
			continue;
		for (part_res_record_t *p = select_part_record; p; p = p->next)
			for (int r = 0; p->row && r < p->num_rows; r++) {
				bitstr_t **rb = p->row[r].row_bitmap;
				if (!rb || !rb[i])
					continue;
				if (bit_overlap_any(t->avail_core[i], rb[i]))
					return true;
				held = true;
			}
		if (held)
			return false;
	}
	return false;
}

/* Does the subset of topomatch_narrow() keep what cons_tres needs? */
static bool tm_subset_usable(const tm_test_t *t, bitstr_t *narrowed)
{
	bitstr_t *req = t->job->details ? t->job->details->req_node_bitmap : NULL;

	if (bit_size(narrowed) != bit_size(t->node_map))
		return false;
	bit_and(narrowed, t->node_map); /* a subset of the candidates only */
	if ((uint32_t) bit_set_count(narrowed) < t->min_nodes)
		return false;
	if (req && !bit_super_set(req, narrowed))
		return false;
	return true;
}

/*
 * cons_tres could not allocate the narrowed set: counted, logged at debug
 * and said in SystemComment (the job's start line says it once, at info).
 */
static void tm_fell_back(job_record_t *job_ptr, const char *why)
{
	slurm_mutex_lock(&tm_ch.mutex);
	tm_ch.fallbacks++;
	slurm_mutex_unlock(&tm_ch.mutex);
	debug("%pJ: %s: cons_tres chooses among all the candidates", job_ptr, why);
	tm_comment(job_ptr, why);
}

/*
 * Each narrowed node offers cons_tres the CPUs of the tasks mapped there
 * (whole cores), so that cons_tres allocates every narrowed node and
 * gives each the mapped task count, instead of filling the first nodes
 * with all their free CPUs.  Whole-node jobs get whole nodes anyway.
 * saved[] receives the values to put back.
 */
static void tm_offer(const tm_test_t *t, const tm_narrowed_t *nar, uint16_t *saved)
{
	for (int i = 0; i < node_record_count; i++) {
		avail_res_t *r = t->avail_res[i];
		uint16_t want, tpc;

		saved[i] = r ? r->avail_cpus : 0;
		if (!r || !bit_test(nar->nodes, i) || t->job->details->whole_node == 1)
			continue;
		tpc = r->tpc ? r->tpc : 1;
		want = (uint16_t) MIN((nar->cpus[i] + tpc - 1) / tpc * tpc, UINT16_MAX);
		if (want && want < r->avail_cpus) {
			r->avail_res_cnt -= r->avail_cpus - want;
			r->avail_cpus = want;
		}
	}
}

static void tm_offer_undo(const tm_test_t *t, const uint16_t *saved)
{
	for (int i = 0; i < node_record_count; i++) {
		avail_res_t *r = t->avail_res[i];
		if (r && r->avail_cpus != saved[i]) {
			r->avail_res_cnt += saved[i] - r->avail_cpus;
			r->avail_cpus = saved[i];
		}
	}
}

static int tm_cons_tres(const tm_test_t *t)
{
	return tm_ch.cons_tres(t->job, t->node_map, t->avail_core, t->min_nodes,
					 t->max_nodes, t->req_nodes, t->avail_res, t->cr_type,
					 t->prefer_alloc_nodes, t->tres_mc);
}

/*
 * The users with pending jobs that carry a pattern, so that each gets an
 * equal share of a scheduling cycle's budget from the cycle's first
 * decision on (tm_cycle_user_left), not only once its own jobs were
 * tested: the jobs of the user first in priority order would otherwise
 * spend the whole cycle.  A pass over slurmctld's job list (its locks
 * are held around job tests), at most once a second, counting up to
 * TM_CYCLE_USERS users; 0 (not known) without the list (clients).
 */
static int tm_waiting_users(void)
{
	uint32_t uid[TM_CYCLE_USERS];
	time_t now = time(NULL);
	ListIterator it;
	job_record_t *job;
	int n = 0;

	slurm_mutex_lock(&tm_ch.mutex);
	if (now == tm_ch.waiting_at || !job_list) {
		n = tm_ch.waiting_users;
		slurm_mutex_unlock(&tm_ch.mutex);
		return n;
	}
	it = list_iterator_create(job_list);
	while ((job = list_next(it)) && n < TM_CYCLE_USERS) {
		int k = 0;
		/* held jobs (priority 0) are not tested until released */
		if (!IS_JOB_PENDING(job) || !job->priority || !tm_job_has_pattern(job))
			continue;
		while (k < n && uid[k] != job->user_id)
			k++;
		if (k == n)
			uid[n++] = job->user_id;
	}
	list_iterator_destroy(it);
	tm_ch.waiting_at = now;
	tm_ch.waiting_users = n;
	slurm_mutex_unlock(&tm_ch.mutex);
	return n;
}

/* The wrapper of cons_common_callbacks.choose_nodes (same contract). */
static int tm_choose_nodes(job_record_t *job_ptr, bitstr_t *node_map,
			   bitstr_t **avail_core, uint32_t min_nodes,
			   uint32_t max_nodes, uint32_t req_nodes,
			   avail_res_t **avail_res_array, uint16_t cr_type,
			   bool prefer_alloc_nodes, gres_mc_data_t *tres_mc_ptr)
{
	tm_test_t t = { .ch = &tm_ch, .job = job_ptr, .node_map = node_map, .avail_core = avail_core,
			.avail_res = avail_res_array, .min_nodes = min_nodes,
			.max_nodes = max_nodes, .req_nodes = req_nodes, .cr_type = cr_type,
			.prefer_alloc_nodes = prefer_alloc_nodes, .tres_mc = tres_mc_ptr };
	bitstr_t *saved_nodes;
	bitstr_t **saved_cores;
	uint16_t *saved_cpus;
	tm_narrowed_t nar;
	char why[TM_DECISION_NOTE + 64];
	int rc, want;

	/* cons_tres lowers it so too, before it chooses */
	if (job_ptr->details && job_ptr->details->num_tasks &&
	    t.max_nodes > job_ptr->details->num_tasks)
		t.max_nodes = MAX(job_ptr->details->num_tasks, min_nodes);
	/* at submission (SELECT_MODE_TEST_ONLY), whether the job could ever
	 * run: its pattern is checked, a refusal said at once, not mapped */
	t.check_only = tm_job_test_mode == SELECT_MODE_TEST_ONLY;
	/*
	 * A job that waits for a better placement (--comm-wait) is planned
	 * only on node sets that suit it (plan: its own decision, judged as
	 * a start), never on cons_tres' choice: backfill then holds no nodes
	 * back for a start it would refuse, and starts it, or keeps nodes for
	 * it, where and when its placement is good enough.
	 */
	bool bf_plan = tm_backfill_plan();
	t.plan = bf_plan && tm_job_waiting(&tm_ch, job_ptr);
	if (bf_plan && !t.plan)
		return tm_cons_tres(&t);
	if (!t.plan && !t.check_only && tm_fit_only(&t))
		return tm_cons_tres(&t);
	t.waiting_users = tm_waiting_users();
	t.may_wait = t.plan || tm_job_test_mode == SELECT_MODE_RUN_NOW;
	/* 22.05's _sched_agent names itself "sched_agent" */
	if (tm_job_test_mode == SELECT_MODE_RUN_NOW && tm_thread_is("sched_agent"))
		t.caller = TM_CALLER_MAIN;
	else if (t.plan || (tm_job_test_mode == SELECT_MODE_RUN_NOW && tm_thread_is("bckfl")))
		t.caller = TM_CALLER_BACKFILL;
	switch (topomatch_narrow(&t, &nar)) {
	case TOPOMATCH_NARROWED:
		break;
	case TOPOMATCH_DEFER:
		/* not now (tm_choose.c, tm_compute): the main scheduler
		 * stops this pass at the job, as when resources are busy */
		return SLURM_ERROR;
	case TOPOMATCH_WAIT:
		/* not now (tm_choose.c, tm_comm_wait): the same, as for a
		 * job that waits for --switches */
		debug("%pJ: waits for a better placement (--comm-wait)", job_ptr);
		return SLURM_ERROR;
	case TOPOMATCH_KEEP:
		tm_narrowed_free(&nar);
		if (t.plan) /* no node set judged: none planned */
			return SLURM_ERROR;
		debug("%pJ: %d candidate nodes, %u-%u wanted: no narrowing, cons_tres chooses",
		      job_ptr, bit_set_count(node_map), min_nodes, max_nodes);
		return tm_cons_tres(&t);
	}
	if (!tm_subset_usable(&t, nar.nodes)) {
		tm_narrowed_free(&nar);
		if (t.plan)
			return SLURM_ERROR;
		tm_fell_back(job_ptr, "the chosen nodes are no longer candidates, or miss "
			     "required nodes");
		return tm_cons_tres(&t);
	}

	/*
	 * cons_tres only clears bits of node_map and avail_core while it
	 * chooses (its own retries restore them with bit_or/core_array_or
	 * and evaluate the same avail_res_array again): do the same to fall
	 * back to the full candidate set.
	 */
	want = bit_set_count(nar.nodes);
	saved_nodes = bit_copy(node_map);
	saved_cores = copy_core_array(avail_core);
	saved_cpus = xcalloc(node_record_count + 1, sizeof(*saved_cpus));
	debug("%pJ: %d candidate nodes narrowed to %d", job_ptr, bit_set_count(node_map), want);
	tm_offer(&t, &nar, saved_cpus);
	bit_and(node_map, nar.nodes);
	rc = tm_cons_tres(&t);
	if (rc != SLURM_SUCCESS) {
		tm_offer_undo(&t, saved_cpus);
		bit_or(node_map, saved_nodes);
		if (saved_cores)
			core_array_or(avail_core, saved_cores);
		if (!t.plan) { /* a plan is never cons_tres' own choice */
			snprintf(why, sizeof(why), "cons_tres cannot allocate the %d nodes of "
				 "the mapping (%s)", want, nar.note);
			tm_fell_back(job_ptr, why);
			rc = tm_cons_tres(&t);
		}
	} else if (t.plan) {
		/* a plan: SystemComment keeps why the job waits */
	} else if (bit_set_count(node_map) != want) {
		snprintf(why, sizeof(why), "%s; cons_tres took %d of the %d nodes", nar.note,
			 bit_set_count(node_map), want);
		tm_comment(job_ptr, why);
	} else {
		tm_comment(job_ptr, nar.note);
	}
	tm_narrowed_free(&nar);
	FREE_NULL_BITMAP(saved_nodes);
	free_core_array(&saved_cores);
	xfree(saved_cpus);
	return rc;
}

/* Called when the plugin is loaded, in slurmctld and in clients. */
extern int init(void)
{
	int rc = cons_tres_init();

	if (rc != SLURM_SUCCESS)
		return rc;
	/* cons_common sets it only for cons_tres' own plugin_id (109). */
	is_cons_tres = true;
	if (cons_common_callbacks.choose_nodes != tm_choose_nodes) {
		tm_ch.cons_tres = cons_common_callbacks.choose_nodes;
		cons_common_callbacks.choose_nodes = tm_choose_nodes;
	}
	if (running_in_slurmctld()) { /* silent and idle in clients */
		info("cons_tres (Slurm %s) with TopoMatch node narrowing",
		     SLURM_VERSION_STRING);
		/*
		 * slurmctld's schedule() (job_scheduler.c: asks its
		 * sched_agent thread for a pass): a job that waits for the
		 * next pass (TOPOMATCH_DEFER) gets one even when no other
		 * event comes.  Looked up, not linked: clients have no such
		 * function, and must load the plugin whatever the binding.
		 */
		*(void **) &tm_ch.next_pass = dlsym(RTLD_DEFAULT, "schedule");
		if (!tm_ch.next_pass)
			error("slurmctld's schedule() not found: a job that waits for the next "
			      "scheduling pass waits for Slurm's own next one");
		if (tm_decision_cache_init(&tm_ch.cache, TM_CACHE_DECISIONS))
			error("out of memory: decisions are not cached");
		tm_chooser_load(&tm_ch);
	}
	return SLURM_SUCCESS;
}

/*
 * The link loads rebuilt from slurmctld's running jobs (its job list:
 * here, not in tm_contention.c, which bench/plugin_scale links without
 * slurmctld), their ranks mapped within CycleBudgetMs in all, in Slurm's
 * block order beyond.
 */
static void tm_loads_rebuild(tm_chooser_t *ch)
{
	double t0 = tm_now_ms(), end = t0 + ch->conf.cycle_budget_ms;
	ListIterator it;
	job_record_t *job;

	if (!ch->loads.ll || !job_list)
		return;
	it = list_iterator_create(job_list);
	while ((job = list_next(it))) {
		double left = end - tm_now_ms();
		if (IS_JOB_RUNNING(job))
			tm_loads_job_start(ch, job, MIN(left, ch->conf.job_budget_ms));
	}
	list_iterator_destroy(it);
	info("link loads rebuilt from the running jobs: %lld pattern jobs, %lld entries, in "
	     "%.0f ms (ContentionWeight=%g, ContentionShare=%g)",
	     (long long) topomatch_link_load_jobs(ch->loads.ll),
	     (long long) topomatch_link_load_entries(ch->loads.ll), tm_now_ms() - t0,
	     ch->conf.contention_weight, ch->conf.contention_share);
}

/* `scontrol reconfigure`: cons_common's, then topomatch.conf and the
 * cluster description again (an admin's files, as slurm.conf is). */
extern int select_p_reconfigure(void)
{
	int rc = cons_common_reconfigure();

	if (running_in_slurmctld()) {
		slurm_mutex_lock(&tm_ch.mutex);
		tm_chooser_stats(&tm_ch, "reconfigure");
		tm_chooser_unload(&tm_ch);
		tm_chooser_load(&tm_ch);
		/* slurmctld calls it at its start too, once the jobs' state
		 * is restored (read_slurm_conf): the running jobs' link loads
		 * come back from their records */
		tm_loads_rebuild(&tm_ch);
		slurm_mutex_unlock(&tm_ch.mutex);
	}
	return rc;
}

/*
 * The one info line of a job the plugin had a say in (its decisions, each
 * test of each cycle, are logged at debug): as it starts, its nodes and
 * SystemComment's "topomatch: " line, the mapping or why it was not used.
 * The line goes to AdminComment too, which slurmdbd records (sacct).
 */
static void tm_outcome(job_record_t *job_ptr, bitstr_t *nodes)
{
	const char *line = job_ptr->system_comment ?
		strstr(job_ptr->system_comment, "topomatch: ") : NULL;
	char *names, *msg;
	int len;
	uint32_t n = job_ptr->spank_job_env_size;

	if (!line)
		return; /* no pattern: not ours to report */
	len = (int) strcspn(line, "\n");
	names = bitmap2node_name(nodes);
	info("%pJ: starts on %s; %.*s", job_ptr, names, len, line);
	xfree(names);
	msg = xstrndup(line + strlen("topomatch: "), len - strlen("topomatch: "));
	tm_comment_sql_safe(msg);
	tm_admin_comment(job_ptr, msg);
	xfree(msg);
	/* the line for EpilogSlurmctld (SPANK_TOPOMATCH_DECISION in its
	 * environment, job_common_env_vars), which stores it for sacct
	 * without asking slurmctld for the job; the array stays
	 * NULL-terminated, as Slurm's merge reads it */
	if (n >= TM_SPANK_ENV_MAX_ENTRIES)
		return;
	xrealloc(job_ptr->spank_job_env, sizeof(char *) * (n + 2));
	job_ptr->spank_job_env[n] = xstrdup_printf("%s%.*s", TM_DECISION_ENV, len, line);
	job_ptr->spank_job_env[n + 1] = NULL;
	job_ptr->spank_job_env_size = n + 1;
}

/*
 * Before a job starts, drop the entries of its spank_job_env that make
 * slurmctld 22.05 crash or stall when it builds the environment of
 * PrologSlurmctld, EpilogSlurmctld (the decision's way to sacct) or
 * MailProg (tm_spank_env.h).
 * Costs one pass over the entries, once per job start, as Slurm's own
 * merge does at each of those scripts.
 */
static void tm_spank_env_guard(job_record_t *job_ptr)
{
	int64_t n = job_ptr->spank_job_env_size, kept;

	if (!job_ptr->spank_job_env || n <= 0)
		return;
	/* the decision line is the plugin's alone (tm_outcome sets it
	 * again): a user's own would reach sacct as the system's */
	kept = 0;
	for (int64_t i = 0; i < n; i++) {
		char *e = job_ptr->spank_job_env[i];
		if (e && !strncmp(e, TM_DECISION_ENV, strlen(TM_DECISION_ENV)))
			xfree(e);
		else
			job_ptr->spank_job_env[kept++] = e;
	}
	for (int64_t i = kept; i < n; i++)
		job_ptr->spank_job_env[i] = NULL;
	job_ptr->spank_job_env_size = n = kept;
	if (n <= 0)
		return;
	kept = tm_spank_env_repair(job_ptr->spank_job_env, n, TM_SPANK_ENV_MAX_ENTRIES,
				   TM_SPANK_ENV_MAX_BYTES);
	if (kept < 0 || kept == n)
		return;
	for (int64_t i = kept; i < n; i++) {
		xfree(job_ptr->spank_job_env[i]);
	}
	job_ptr->spank_job_env_size = kept;
	info("%pJ: %lld of its %lld spank_job_env entries dropped (no '=', a name or "
	     "value over Slurm's limits, a name given again, or beyond %d entries or %d "
	     "bytes): slurmctld would crash or stall building its scripts' environment",
	     job_ptr, (long long) (n - kept), (long long) n, TM_SPANK_ENV_MAX_ENTRIES,
	     TM_SPANK_ENV_MAX_BYTES);
}

extern int select_p_job_test(job_record_t *job_ptr, bitstr_t *node_bitmap,
			     uint32_t min_nodes, uint32_t max_nodes,
			     uint32_t req_nodes, uint16_t mode,
			     List preemptee_candidates, List *preemptee_job_list,
			     bitstr_t *exc_core_bitmap)
{
	uint16_t outer = tm_job_test_mode;
	int rc;

	tm_job_test_mode = mode;
	rc = cons_tres_job_test(job_ptr, node_bitmap, min_nodes, max_nodes,
				req_nodes, mode, preemptee_candidates,
				preemptee_job_list, exc_core_bitmap);
	tm_job_test_mode = outer;
	if (rc == SLURM_SUCCESS && mode == SELECT_MODE_RUN_NOW) {
		/* it starts now */
		tm_spank_env_guard(job_ptr);
		tm_outcome(job_ptr, node_bitmap);
		slurm_mutex_lock(&tm_ch.mutex);
		tm_ch.loads.starting = job_ptr->job_id;
		slurm_mutex_unlock(&tm_ch.mutex);
	}
	return rc;
}

/*
 * slurmctld calls it as a job starts (select_nodes, once the job runs on
 * the resources the job test chose) and for every job as it rebuilds its
 * state (read_slurm_conf).  The job the last RUN_NOW test allowed joins
 * the link loads here, not at its job test: slurmctld may still fail to
 * start it after the test (burst buffers, select_g_job_begin).  The
 * others come back at select_p_reconfigure, which follows each rebuild.
 */
extern int select_p_select_nodeinfo_set(job_record_t *job_ptr)
{
	int rc = cons_common_select_nodeinfo_set(job_ptr);

	if (!running_in_slurmctld())
		return rc;
	slurm_mutex_lock(&tm_ch.mutex);
	if (job_ptr->job_id == tm_ch.loads.starting && IS_JOB_RUNNING(job_ptr)) {
		tm_ch.loads.starting = 0;
		tm_loads_job_start(&tm_ch, job_ptr, tm_ch.conf.job_budget_ms);
	}
	slurm_mutex_unlock(&tm_ch.mutex);
	return rc;
}

/* A job ends (or is requeued): its traffic leaves the link loads. */
extern int select_p_job_fini(job_record_t *job_ptr)
{
	int rc = cons_common_job_fini(job_ptr);

	if (running_in_slurmctld()) {
		slurm_mutex_lock(&tm_ch.mutex);
		tm_loads_job_end(&tm_ch, job_ptr);
		slurm_mutex_unlock(&tm_ch.mutex);
	}
	return rc;
}

extern int fini(void)
{
	if (running_in_slurmctld())
		tm_chooser_stats(&tm_ch, "shutdown");
	tm_chooser_unload(&tm_ch);
	tm_decision_cache_fini(&tm_ch.cache);
	if (tm_ch.cons_tres) {
		cons_common_callbacks.choose_nodes = tm_ch.cons_tres;
		tm_ch.cons_tres = NULL;
	}
	return cons_tres_fini();
}
