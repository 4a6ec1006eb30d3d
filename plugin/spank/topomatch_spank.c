/*
 * topomatch_spank.c - the SPANK plugin: `--comm-pattern=FILE`,
 * `--comm-mapper=NAME` and `--comm-strict` for sbatch, salloc and srun.
 *
 * In sbatch/salloc/srun (which run as the submitting user) it reads the
 * pattern file, checks it, and stores it as TOPOMATCH_PATTERN_0, 1, ...
 * in the job's spank_job_env (topomatch_blob_encode: all under
 * topomatch.conf's PatternKiB, 48 KiB by default, sparsified further when
 * needed, with a warning saying how much communication weight was
 * dropped; srun then lays out the ranks with the whole file).  slurmctld's
 * select/topomatch decodes it; the daemons never open the user's path
 * (DESIGN.md, Security).  A bad file is refused only with --comm-strict;
 * otherwise the job gets a warning and Slurm's default placement.
 *
 * Ranks inside the allocation (srun in an allocation, S_CTX_LOCAL): the
 * --comm-pattern option callback (the option reaches an srun in a batch
 * job through the job's environment) maps the pattern's ranks onto the
 * job's PUs that its running steps do not hold (SLURM_JOB_NODELIST, or a
 * heterogeneous component's) with libtopomatch (topomatch_cluster_map, the
 * cluster of topomatch.conf's ClusterYAML, no time budget: the same result
 * as `topomatch map -w`, and as slurmctld's final placement), writes
 * a hostfile (node of each rank, mode 0600) and sets SLURM_HOSTFILE, which
 * srun reads right after its options (so it must be set from the callback:
 * slurm_spank_init_post_opt comes after), and TOPOMATCH_MAP (node and OS
 * CPU of each rank, tm_layout.h) for the tasks.  In slurmstepd,
 * slurm_spank_task_init binds each task to its CPUs (sched_setaffinity;
 * plugstack.conf argument bind=record only records them) inside the
 * step's cpuset, moving the node's ranks onto the step's CPUs when it got
 * other ones, unless the user chose a --cpu-bind; it sets TOPOMATCH_RANK,
 * TOPOMATCH_NODE, TOPOMATCH_CPUS, TOPOMATCH_BIND.  Steps that do not fit
 * the pattern (task count, a layout the user chose, a step over several
 * heterogeneous job components, no room) keep Slurm's default layout,
 * with a one-line note.
 *
 * plugstack.conf argument layout=reorder, for sites that cannot use
 * arbitrary layouts (default layout=arbitrary): srun sets no
 * SLURM_HOSTFILE and Slurm starts the tasks with its block distribution.
 * The callback predicts how many tasks that puts on each node
 * (tm_block_counts on SLURM_JOB_CPUS_PER_NODE), maps the pattern onto the
 * first that many PUs of each node, and sets TOPOMATCH_MAP version 2; in
 * slurmstepd the j-th task of node X becomes the j-th pattern rank mapped
 * to X: TOPOMATCH_RANK is that rank (the application renumbers its ranks
 * with it, e.g. contrib/mpi/topomatch_mpi.c), and the task is bound to
 * (or records) that rank's CPU.  When the prediction is not certain the
 * step gets a note and no TOPOMATCH_RANK; slurmstepd checks it again
 * against the layout Slurm really chose.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#define _GNU_SOURCE
#include <stdint.h> /* spank.h uses uint32_t without including it */
#include <dlfcn.h>
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/slurm_version.h>
#include <slurm/spank.h>

#include "topomatch.h"
#include "topomatch_cluster.h"
#include "../common/tm_plugin_conf.h"
#include "tm_layout.h"

#define TM_EXPORT __attribute__((visibility("default")))

/* SPANK_PLUGIN(topomatch, 1), with the symbols Slurm looks up exported. */
TM_EXPORT extern const char plugin_name[];
TM_EXPORT extern const char plugin_type[];
TM_EXPORT extern const unsigned int plugin_version;
TM_EXPORT extern const unsigned int spank_plugin_version;
TM_EXPORT const char plugin_name[] = "topomatch";
TM_EXPORT const char plugin_type[] = "spank";
TM_EXPORT const unsigned int plugin_version = SLURM_VERSION_NUMBER;
TM_EXPORT const unsigned int spank_plugin_version = 1;

/* Option values: SPANK calls back into a plugin instance per process, so
 * static state is the plugin's own, never shared with Slurm's. */
static char *pattern_path;
static char *mapper_name;
static long comm_wait;      /* --comm-wait, seconds (0: none) */
static int strict;
static int bind_record;     /* plugstack.conf: bind=record */
static int layout_reorder;  /* plugstack.conf: layout=reorder */
static char *hostfile;      /* the hostfile this srun wrote */
static int pattern_calls;   /* --comm-pattern callbacks seen in this srun */

static int srun_layout(void);

/* Set by srun for the tasks when the user chose a --cpu-bind: its value. */
#define USER_BIND_ENV "TOPOMATCH_USER_CPU_BIND"

static int opt_pattern(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	if (!arg || !*arg) {
		slurm_error("--comm-pattern needs a file name");
		return -1;
	}
	free(pattern_path);
	pattern_path = strdup(arg);
	if (!pattern_path)
		return -1;
	if (!remote && spank_context() == S_CTX_LOCAL)
		return srun_layout();
	return 0;
}

static int opt_mapper(int val, const char *arg, int remote)
{
	(void)val;
	(void)remote;
	for (const char *const *m = topomatch_mapper_names(); arg && *m; m++)
		if (!strcmp(*m, arg)) {
			free(mapper_name);
			mapper_name = strdup(arg);
			return mapper_name ? 0 : -1;
		}
	slurm_error("--comm-mapper: unknown mapper '%s' (auto, treematch, topomatch-const, "
		    "scotch, round-robin, random)",
		    arg ? arg : "");
	return -1;
}

/*
 * --comm-wait=TIME in Slurm's time format (minutes, MM:SS, HH:MM:SS,
 * D-HH, D-HH:MM, D-HH:MM:SS, UNLIMITED), read by the libslurm of the
 * program that loaded the plugin (sbatch, salloc and srun export
 * slurm_time_str2secs).  slurmctld bounds it by CommWaitMax.
 */
static int opt_wait(int val, const char *arg, int remote)
{
	int (*str2secs)(const char *);
	int secs;

	(void)val;
	if (remote) /* slurmd's copy: the job has its wait already */
		return 0;
	*(void **)&str2secs = dlsym(RTLD_DEFAULT, "slurm_time_str2secs");
	if (!str2secs) {
		slurm_error("--comm-wait: this program has no slurm_time_str2secs to read '%s'",
			    arg ? arg : "");
		return -1;
	}
	secs = arg && *arg ? str2secs(arg) : (int)NO_VAL;
	if (secs == (int)INFINITE) {
		comm_wait = INT32_MAX; /* as long as CommWaitMax allows */
	} else if (secs < 0) {
		slurm_error("--comm-wait: '%s' is not a time (minutes, MM:SS, HH:MM:SS, D-HH, "
			    "D-HH:MM:SS or UNLIMITED)", arg ? arg : "");
		return -1;
	} else {
		comm_wait = secs;
	}
	return 0;
}

static int opt_strict(int val, const char *arg, int remote)
{
	(void)val;
	(void)arg;
	(void)remote;
	strict = 1;
	return 0;
}

static struct spank_option options[] = {
	{ "comm-pattern", "FILE",
	  "communication pattern of the job's ranks (TopoMatch matrix, Matrix Market or "
	  "'i j w' triplets): place the job on nodes and cores that suit it",
	  1, 0, opt_pattern },
	{ "comm-mapper", "NAME",
	  "mapping algorithm for --comm-pattern (default auto; see topomatch-map(1))", 1, 0,
	  opt_mapper },
	{ "comm-wait", "TIME",
	  "wait up to TIME for nodes that suit --comm-pattern about as well as an empty "
	  "cluster would (at most CommWaitMax of topomatch.conf)",
	  1, 0, opt_wait },
	{ "comm-strict", NULL,
	  "refuse the submission when --comm-pattern cannot be used (default: warn and "
	  "use Slurm's placement)",
	  0, 0, opt_strict },
	SPANK_OPTIONS_TABLE_END
};

TM_EXPORT int slurm_spank_init(spank_t sp, int ac, char **av)
{
	for (int i = 0; i < ac; i++) {
		if (!strcmp(av[i], "bind=record"))
			bind_record = 1;
		else if (!strcmp(av[i], "bind=apply"))
			bind_record = 0;
		else if (!strcmp(av[i], "layout=reorder"))
			layout_reorder = 1;
		else if (!strcmp(av[i], "layout=arbitrary"))
			layout_reorder = 0;
		else
			slurm_info("topomatch: unknown plugstack.conf argument '%s' ignored",
				   av[i]);
	}
	for (struct spank_option *o = options; o->name; o++)
		if (spank_option_register(sp, o) != ESPANK_SUCCESS) {
			slurm_error("topomatch: cannot register --%s", o->name);
			return -1;
		}
	return 0;
}

/* A problem with the pattern: fatal with --comm-strict, a warning otherwise. */
static int pattern_problem(const char *msg)
{
	if (strict) {
		slurm_error("%s", msg);
		return -1;
	}
	slurm_info("warning: %s; the job keeps Slurm's default placement", msg);
	return 0;
}

/* ------------------------------------------------------------------ */
/* srun: the ranks' layout inside the allocation                      */
/* ------------------------------------------------------------------ */

/* A step that does not fit the pattern: a note, Slurm's layout. */
static int layout_note(const char *why)
{
	if (layout_reorder)
		slurm_info("topomatch: %s; ranks are not reordered (no TOPOMATCH_RANK)", why);
	else
		slurm_info("topomatch: %s; the step keeps Slurm's default layout", why);
	return 0;
}

/* Bad input (pattern, cluster, mapping): fatal only with --comm-strict. */
static int layout_problem(const char *why)
{
	if (strict) {
		slurm_error("topomatch: %s", why);
		return -1;
	}
	return layout_note(why);
}

/* Value of one of this plugin's options as srun sees it in a batch job's
 * environment (SLURM_SPANK__SLURM_SPANK_OPTION_<plugin>_<option>). */
static const char *env_option(const char *canon)
{
	extern char **environ;
	static const char prefix[] = "SLURM_SPANK__SLURM_SPANK_OPTION_";
	size_t cl = strlen(canon);
	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '=');
		if (!eq || strncmp(*e, prefix, sizeof(prefix) - 1))
			continue;
		size_t nl = (size_t)(eq - *e);
		if (nl > cl + 1 && !strncmp(eq - cl, canon, cl) && eq[-(long)cl - 1] == '_')
			return eq + 1;
	}
	return NULL;
}

static void forget_hostfile(void)
{
	if (hostfile) {
		unlink(hostfile);
		free(hostfile);
		hostfile = NULL;
		unsetenv("SLURM_HOSTFILE");
	}
}

/* Write the node of each rank, one a line, in a private temporary file. */
static int write_hostfile(char *const *rank_node, int64_t n, char *err, size_t errlen)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	if (!dir || !*dir || access(dir, W_OK))
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/topomatch-hostfile.XXXXXX", dir);
	int fd = mkstemp(path); /* mode 0600 */
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "cannot write a hostfile in %.200s: %s", dir, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
		return -1;
	}
	for (int64_t r = 0; r < n; r++)
		fprintf(f, "%s\n", rank_node[r]);
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "%.400s: write failed", path);
		unlink(path);
		return -1;
	}
	hostfile = strdup(path);
	if (!hostfile) {
		unlink(path);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* --ntasks-per-node from the job's environment (srun reads it), as the
 * cap it puts on each node's tasks: 0 none, -1 when srun may or may not
 * honour it (it does only when it matches the task and node counts). */
static int64_t tasks_per_node_cap(int64_t ntasks, int64_t nnodes)
{
	const char *v = getenv("SLURM_NTASKS_PER_NODE");
	if (!v)
		return 0;
	char *end;
	long long t = strtoll(v, &end, 10);
	return end != v && !*end && t > 0 && t * nnodes == ntasks ? t : -1;
}

/* Why Slurm's block distribution of this step over the allocation's
 * `nnodes` nodes cannot be predicted, into msg; 0 when it can. */
static int block_unknown(int64_t ntasks, int64_t nnodes, int64_t nodes_opt, char *msg,
			 size_t len)
{
	if (nodes_opt >= 0 && nodes_opt != nnodes)
		snprintf(msg, len, "-N other than the allocation's %lld nodes", (long long)nnodes);
	else if (ntasks < nnodes)
		snprintf(msg, len, "%lld tasks on %lld nodes (Slurm picks the step's nodes)",
			 (long long)ntasks, (long long)nnodes);
	else if (tasks_per_node_cap(ntasks, nnodes) < 0)
		snprintf(msg, len, "SLURM_NTASKS_PER_NODE=%.40s with %lld tasks on %lld nodes",
			 getenv("SLURM_NTASKS_PER_NODE"), (long long)ntasks, (long long)nnodes);
	else
		return 0;
	return 1;
}

/*
 * layout=reorder: of each node's PUs in allowed[] (node by node, in
 * SLURM_JOB_NODELIST's order), keep the first cpt x as many as Slurm's
 * block distribution will start tasks of cpt CPUs there, so that the
 * mapper puts exactly that many ranks on each node.  0; 1 with a note in msg when the
 * distribution cannot be predicted; -1 out of memory.
 */
static int reorder_pus(const topomatch_cluster_t *c, int64_t *allowed, int64_t *nallowed,
		       int64_t ntasks, int64_t cpt, int64_t nodes_opt, char *msg, size_t len)
{
	int64_t *first = malloc(((size_t)*nallowed + 1) * sizeof(*first));
	int64_t *count = malloc(((size_t)*nallowed + 1) * sizeof(*count));
	int64_t nn = 0, kept = 0, prev = -1;
	const char *cpn = getenv("SLURM_JOB_CPUS_PER_NODE");
	int rc = 1;
	if (!first || !count) {
		rc = -1;
		goto out;
	}
	for (int64_t k = 0; k < *nallowed; k++) {
		int64_t cn = topomatch_cluster_pu_node(c, allowed[k], NULL);
		if (k == 0 || cn != prev)
			first[nn++] = k;
		prev = cn;
	}
	first[nn] = *nallowed;
	if (block_unknown(ntasks, nn, nodes_opt, msg, len))
		goto out;
	if (tm_block_counts(cpn, nn, ntasks, cpt, tasks_per_node_cap(ntasks, nn), count)) {
		snprintf(msg, len, "SLURM_JOB_CPUS_PER_NODE=%.100s does not describe the %lld nodes "
			 "of SLURM_JOB_NODELIST", cpn ? cpn : "(unset)", (long long)nn);
		goto out;
	}
	for (int64_t i = 0; i < nn; i++) {
		if (count[i] * cpt > first[i + 1] - first[i]) {
			char name[256] = "?";
			topomatch_cluster_node_name(c, topomatch_cluster_pu_node(c, allowed[first[i]], NULL),
						    name, sizeof(name));
			snprintf(msg, len, "Slurm starts %lld tasks of %lld CPUs on %.100s, which has "
				 "%lld PUs", (long long)count[i], (long long)cpt, name,
				 (long long)(first[i + 1] - first[i]));
			goto out;
		}
		for (int64_t k = 0; k < count[i] * cpt; k++)
			allowed[kept++] = allowed[first[i] + k];
	}
	*nallowed = kept;
	rc = 0;
out:
	free(first);
	free(count);
	return rc;
}

/* Hand the layout to srun (SLURM_HOSTFILE, arbitrary layout only) and to
 * the tasks (TOPOMATCH_MAP); 0, or layout_problem's verdict. */
static int publish(char *const *rank_node, int64_t n, const char *map)
{
	char msg[TOPOMATCH_ERRLEN + 128];
	if (!layout_reorder) {
		if (write_hostfile(rank_node, n, msg, sizeof(msg)))
			return layout_problem(msg);
		setenv("SLURM_HOSTFILE", hostfile, 1);
	}
	if (strlen(map) <= TM_MAP_MAX_BYTES) {
		setenv("TOPOMATCH_MAP", map, 1);
		return 0;
	}
	if (layout_reorder) {
		snprintf(msg, sizeof(msg), "the map of %lld ranks does not fit the environment "
			 "(%zu bytes)", (long long)n, strlen(map));
		return layout_note(msg);
	}
	slurm_info("topomatch: the binding of %lld ranks does not fit the environment "
		   "(%zu bytes); ranks are placed on their nodes but not bound",
		   (long long)n, strlen(map));
	return 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/* The OS CPUs of the slot whose first PU is pu, into cpu[0 .. cpt-1];
 * 0, or -1 when pu starts no slot or a PU has no OS index. */
static int slot_cpus(const topomatch_cluster_t *c, const int64_t *slot, const int64_t *first,
		     int64_t nslots, int64_t cpt, int64_t pu, int *cpu)
{
	const int64_t *f = bsearch(&pu, first, (size_t)nslots, sizeof(*first), cmp_i64);
	if (!f)
		return -1;
	for (int64_t k = 0; k < cpt; k++)
		if ((cpu[k] = topomatch_cluster_pu_os_index(c, slot[(f - first) * cpt + k])) < 0)
			return -1;
	return 0;
}

/* The job's cores on node cn (Slurm's core numbers, socket by socket as
 * the cluster's PUs are) into set[0 .. ncores-1]; 0 or -1. */
static int node_job_cores(const topomatch_cluster_t *c, job_resources_t *jr, int64_t cn,
			  unsigned char *set, size_t ncores)
{
	char name[256], list[8192];
	topomatch_cluster_node_name(c, cn, name, sizeof(name));
	if (slurm_job_cpus_allocated_str_on_node(list, sizeof(list), jr, name))
		return -1;
	return tm_cpulist_parse(list, set, ncores);
}

/*
 * Of the PUs of the job's nodes in allowed[] (node by node), keep those of
 * the cores the job holds: on a node shared with other jobs, the rest
 * belongs to them.  slurmctld says which (one RPC, as `scontrol show job
 * -d` makes).  0, or 1 with a note in msg when it cannot be known.
 */
static int job_pus(const topomatch_cluster_t *c, uint32_t jobid, int64_t *allowed,
		   int64_t *nallowed, char *msg, size_t len)
{
	job_info_msg_t *info = NULL;
	int64_t kept = 0, node = -1;
	unsigned char set[4096];
	int sockets = 1, cores = 1, threads = 1, rc = 1;
	if (slurm_load_job(&info, jobid, SHOW_DETAIL) != SLURM_SUCCESS || !info ||
	    info->record_count < 1 || !info->job_array[0].job_resrcs) {
		snprintf(msg, len, "slurmctld does not say which cores job %u holds (%s)", jobid,
			 slurm_strerror(slurm_get_errno()));
		goto out;
	}
	for (int64_t k = 0; k < *nallowed; k++) {
		int64_t local, cn = topomatch_cluster_pu_node(c, allowed[k], &local);
		if (cn != node) {
			node = cn;
			if (topomatch_cluster_node_hw(c, cn, &sockets, &cores, &threads) ||
			    threads < 1 ||
			    node_job_cores(c, info->job_array[0].job_resrcs, cn, set,
					   sizeof(set))) {
				snprintf(msg, len, "cannot read job %u's cores on a node of %.100s",
					 jobid, info->job_array[0].nodes);
				goto out;
			}
		}
		if ((size_t)(local / threads) < sizeof(set) && set[local / threads])
			allowed[kept++] = allowed[k];
	}
	*nallowed = kept;
	rc = 0;
out:
	slurm_free_job_info_msg(info);
	return rc;
}

/* Add to busy[node] the CPUs one running step of the job holds on each of
 * its nodes: its tasks there times its CPUs per task. */
static void step_busy(const topomatch_cluster_t *c, const job_step_info_t *st, int64_t *busy)
{
	slurm_step_layout_t *l = slurm_job_step_layout_get((slurm_step_id_t *)&st->step_id);
	int64_t cpt = st->num_tasks ? (int64_t)(st->num_cpus / st->num_tasks) : 1;
	hostlist_t hl = l ? slurm_hostlist_create(l->node_list) : NULL;
	char *name;
	for (uint32_t i = 0; hl && i < l->node_cnt && (name = slurm_hostlist_shift(hl)); i++) {
		int64_t cn = topomatch_cluster_node_find(c, name);
		if (cn >= 0)
			busy[cn] += (int64_t)l->tasks[i] * (cpt > 0 ? cpt : 1);
		free(name);
	}
	if (hl)
		slurm_hostlist_destroy(hl);
	slurm_job_step_layout_free(l);
}

/*
 * Without --overlap, a new step gets CPUs that no running step of the job
 * holds (Slurm 22.05 steps do not share CPUs, and with --exact or on a
 * node left partly free they wait for them): of each node's PUs in
 * allowed[] (node by node), drop as many as the job's running steps use
 * there, the lowest first, as Slurm hands them out (slurmstepd then moves
 * the ranks onto the cores the step really got: fit_step).  When the step
 * does not fit in what is left (it will wait for CPUs), allowed[] stays.
 */
/* Is st one of the job's running steps (not the batch or extern step)? */
static int step_running(const job_step_info_t *st)
{
	return st->state == JOB_RUNNING && st->step_id.step_id < SLURM_MAX_NORMAL_STEP_ID;
}

/* The job's steps from slurmctld, or NULL. */
static job_step_info_response_msg_t *job_steps(uint32_t jobid)
{
	job_step_info_response_msg_t *steps = NULL;
	if (slurm_get_job_steps(0, jobid, NO_VAL, &steps, SHOW_ALL) != SLURM_SUCCESS)
		return NULL;
	return steps;
}

static void drop_busy(const topomatch_cluster_t *c, uint32_t jobid, int64_t need,
		      int64_t *allowed, int64_t *nallowed)
{
	job_step_info_response_msg_t *steps = NULL;
	int64_t nn = topomatch_cluster_nnodes(c), *busy = calloc((size_t)nn + 1, sizeof(*busy));
	int64_t *left = malloc(((size_t)*nallowed + 1) * sizeof(*left)), kept = 0, any = 0;
	if (!busy || !left || !(steps = job_steps(jobid)))
		goto out;
	for (uint32_t k = 0; k < steps->job_step_count; k++) {
		const job_step_info_t *st = &steps->job_steps[k];
		if (step_running(st)) {
			step_busy(c, st, busy);
			any = 1;
		}
	}
	for (int64_t k = 0; any && k < *nallowed; k++) {
		int64_t cn = topomatch_cluster_pu_node(c, allowed[k], NULL);
		if (cn >= 0 && busy[cn] > 0)
			busy[cn]--;
		else
			left[kept++] = allowed[k];
	}
	if (any && kept >= need && kept < *nallowed) {
		slurm_verbose("topomatch: %lld of the job's %lld CPUs are held by its running steps",
			      (long long)(*nallowed - kept), (long long)*nallowed);
		memcpy(allowed, left, (size_t)kept * sizeof(*left));
		*nallowed = kept;
	}
out:
	if (steps)
		slurm_free_job_step_info_response_msg(steps);
	free(left);
	free(busy);
}

/* Does the job have running steps (0 when slurmctld does not say)? */
static int steps_running(uint32_t jobid)
{
	job_step_info_response_msg_t *steps = job_steps(jobid);
	int any = 0;
	for (uint32_t k = 0; steps && k < steps->job_step_count && !any; k++)
		any = step_running(&steps->job_steps[k]);
	if (steps)
		slurm_free_job_step_info_response_msg(steps);
	return any;
}

/* topomatch.conf beside the slurm.conf this command uses (its path in
 * path[4096]): 0, 1 (no file: the defaults) or -1 (a bad line), err
 * filled, as tm_plugin_conf_read. */
static int read_conf(tm_plugin_conf_t *conf, char *path, char *err)
{
	const char *slurm_conf = getenv("SLURM_CONF");
	tm_plugin_conf_path(slurm_conf ? slurm_conf : "/etc/slurm/slurm.conf", path, 4096);
	return tm_plugin_conf_read(path, conf, err, TOPOMATCH_ERRLEN);
}

/* Encode a as sbatch stores it in the job (PatternKiB, and the pairs
 * slurmctld decodes within JobBudgetMs). */
static int encode(const tm_plugin_conf_t *conf, const topomatch_affinity_t *a, char ***entries,
		  int *n, topomatch_blob_info_t *info, char *err)
{
	topomatch_blob_limits_t lim = tm_plugin_encode_limits(conf);
	return topomatch_blob_encode(a, TM_PLUGIN_SPARSE_FACTOR, &lim, entries, n, info, err);
}

/* 1 when entries are the job's SLURM_SPANK_TOPOMATCH_PATTERN_0.. n-1 */
static int job_carries(char **entries, int n)
{
	char name[64];
	for (int k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "SLURM_SPANK_%s%d", TOPOMATCH_PATTERN_ENV, k);
		const char *v = getenv(name);
		if (!v || strcmp(v, entries[k]))
			return 0;
	}
	snprintf(name, sizeof(name), "SLURM_SPANK_%s%d", TOPOMATCH_PATTERN_ENV, n);
	return !getenv(name);
}

/*
 * The pattern of a step of ntasks ranks: the one the job carries, which is
 * what slurmctld mapped (sbatch and salloc pass the job's spank_job_env
 * to its environment as SLURM_SPANK_TOPOMATCH_PATTERN_k), so that srun
 * and slurmctld decide on the same data; the --comm-pattern file only
 * when the job has none of the step's size (or it does not decode).  A
 * job whose pattern was reduced to fit PatternKiB lays out its ranks with
 * the whole pattern from the file when the file still encodes to what the
 * job carries (the same pattern: slurmctld chose the nodes with its
 * reduced form); one the job carries in groups of ranks (format 3), always
 * with the file's.  Returns where it came from, or NULL with err.
 */
static const char *step_pattern(const tm_plugin_conf_t *conf, int64_t ntasks,
				topomatch_affinity_t **a, char *err)
{
	extern char **environ;
	/* a step over the task limit is laid out node by node: its pattern
	 * read up to its task count */
	int64_t most = tm_plugin_pattern_tasks(conf, ntasks);
	topomatch_blob_limits_t blim = { .max_tasks = most };
	topomatch_limits_t lim = { .max_bytes = TM_PLUGIN_PATTERN_MAX_BYTES, .max_tasks = most };
	topomatch_blob_info_t info;
	size_t nenv = 0;
	while (environ && environ[nenv])
		nenv++;
	*a = NULL;
	if (topomatch_blob_decode_env((const char *const *)environ, nenv,
				      "SLURM_SPANK_" TOPOMATCH_PATTERN_ENV, &blim, a, &info, err)) {
		slurm_verbose("topomatch: the job's pattern: %s; reading %s", err, pattern_path);
	} else if (*a && info.group > 1) {
		slurm_verbose("topomatch: the job carries its pattern in groups of %lld ranks; "
			      "ranks laid out with the whole pattern, from %s",
			      (long long)info.group, pattern_path);
	} else if (*a && topomatch_affinity_ntasks(*a) == ntasks) {
		if (info.nnz_kept == info.nnz_input)
			return "the job's pattern";
		topomatch_affinity_t *full = NULL;
		char **entries = NULL, ferr[TOPOMATCH_ERRLEN];
		int n = 0, same = 0;
		topomatch_blob_info_t finfo;
		if (!topomatch_affinity_read_file(pattern_path, TOPOMATCH_FORMAT_AUTO, &lim, &full,
						  ferr) &&
		    !encode(conf, full, &entries, &n, &finfo, ferr))
			same = job_carries(entries, n);
		topomatch_blob_free(entries, n);
		if (!same) {
			slurm_info("topomatch: the job carries %lld of %lld pairs of its pattern; "
				   "%s is not that pattern now: ranks laid out with the job's",
				   (long long)info.nnz_kept, (long long)info.nnz_input, pattern_path);
			topomatch_affinity_destroy(full);
			return "the job's pattern";
		}
		slurm_info("topomatch: the job carries %lld of %lld pairs of its pattern; ranks "
			   "laid out with all of them, from %s", (long long)info.nnz_kept,
			   (long long)info.nnz_input, pattern_path);
		topomatch_affinity_destroy(*a);
		*a = full;
		return pattern_path;
	}
	topomatch_affinity_destroy(*a);
	*a = NULL;
	if (topomatch_affinity_read_file(pattern_path, TOPOMATCH_FORMAT_AUTO, &lim, a, err))
		return NULL;
	return pattern_path;
}

/* Map the pattern's ranks onto the allocation (the CPUs its running steps
 * do not hold, unless overlap); 0 with a note when the step keeps Slurm's
 * layout.  cpt: CPUs per task; nodes_opt: srun's -N (tm_srun_args_t). */
static int map_ranks(const char *nodelist, uint32_t jobid, int64_t ntasks, int64_t cpt,
		     const char *mapper, int64_t nodes_opt, int overlap)
{
	char err[TOPOMATCH_ERRLEN], msg[TOPOMATCH_ERRLEN + 128], path[4096];
	tm_plugin_conf_t conf;
	topomatch_affinity_t *a = NULL;
	topomatch_cluster_t *c = NULL;
	int64_t *allowed = NULL, nallowed = 0, *pu = NULL, *node = NULL, *index = NULL;
	int64_t *slot = NULL, *first = NULL, nslots = 0;
	int *cpu = NULL;
	char **names = NULL, **rank_node = NULL, *map = NULL;
	int64_t nnames = 0;
	int rc = 0;

	if (read_conf(&conf, path, err)) {
		snprintf(msg, sizeof(msg), "%s", err);
		return layout_problem(msg);
	}
	if (!conf.enabled)
		return layout_note("disabled in topomatch.conf");
	if (!conf.cluster_yaml[0]) {
		snprintf(msg, sizeof(msg), "%.400s has no ClusterYAML", path);
		return layout_problem(msg);
	}
	if (!mapper || !*mapper)
		mapper = conf.mapper[0] ? conf.mapper : NULL;

	const char *from = step_pattern(&conf, ntasks, &a, err);
	if (!from) {
		snprintf(msg, sizeof(msg), "--comm-pattern: %s", err);
		return layout_problem(msg);
	}
	int64_t n = topomatch_affinity_ntasks(a);
	if (n != ntasks) {
		snprintf(msg, sizeof(msg), "the pattern has %lld tasks, the step %lld",
			 (long long)n, (long long)ntasks);
		topomatch_affinity_destroy(a);
		return layout_note(msg);
	}
	if (topomatch_cluster_load(conf.cluster_yaml, &c, err) ||
	    topomatch_cluster_hostlist_pus(c, nodelist, &allowed, &nallowed, err)) {
		snprintf(msg, sizeof(msg), "%s", err);
		rc = layout_problem(msg);
		goto out;
	}
	int kept = job_pus(c, jobid, allowed, &nallowed, msg, sizeof(msg));
	if (!kept && !overlap && !layout_reorder)
		drop_busy(c, jobid, n * cpt, allowed, &nallowed);
	if (!kept && layout_reorder && !overlap && steps_running(jobid)) {
		/* Slurm gives the step the nodes and CPUs those steps left:
		 * not the block layout of SLURM_JOB_CPUS_PER_NODE */
		snprintf(msg, sizeof(msg), "the job's running steps hold CPUs, so Slurm's layout "
			 "of this step cannot be predicted (layout=reorder)");
		kept = 1;
	}
	if (!kept && layout_reorder)
		kept = reorder_pus(c, allowed, &nallowed, n, cpt, nodes_opt, msg, sizeof(msg));
	if (kept) {
		rc = kept < 0 ? layout_problem("out of memory") : layout_note(msg);
		goto out;
	}
	int64_t nn = topomatch_cluster_nnodes(c);
	slot = malloc((size_t)nallowed * sizeof(*slot) + 1);
	first = malloc((size_t)(nallowed / cpt) * sizeof(*first) + 1);
	pu = malloc((size_t)n * sizeof(*pu) + 1);
	node = malloc((size_t)n * sizeof(*node) + 1);
	cpu = malloc((size_t)(n * cpt) * sizeof(*cpu) + 1);
	index = malloc((size_t)nn * sizeof(*index) + 1);
	names = calloc((size_t)nn + 1, sizeof(*names));
	rank_node = calloc((size_t)n + 1, sizeof(*rank_node));
	if (!slot || !first || !pu || !node || !cpu || !index || !names || !rank_node) {
		rc = layout_problem("out of memory");
		goto out;
	}
	topomatch_map_result_t res;
	int64_t limit = tm_plugin_task_limit(&conf);
	int mrc = n > limit ? topomatch_cluster_map_slots_blocks(c, a, allowed, nallowed, cpt,
								 mapper, limit, slot, first,
								 &nslots, pu, &res, err)
			    : topomatch_cluster_map_slots(c, a, allowed, nallowed, cpt, mapper,
							  slot, first, &nslots, pu, &res, err);
	if (mrc == TOPOMATCH_ELIMIT) {
		snprintf(msg, sizeof(msg), "%.300s of %.200s", err, nodelist);
		rc = layout_note(msg);
		goto out;
	}
	if (mrc) {
		snprintf(msg, sizeof(msg), "mapping failed: %s", err);
		rc = layout_problem(msg);
		goto out;
	}
	/* the allocation's nodes, in SLURM_JOB_NODELIST's order */
	for (int64_t i = 0; i < nn; i++)
		index[i] = -1;
	for (int64_t k = 0; k < nallowed; k++) {
		int64_t cn = topomatch_cluster_pu_node(c, allowed[k], NULL);
		if (cn >= 0 && index[cn] < 0) {
			char name[256];
			topomatch_cluster_node_name(c, cn, name, sizeof(name));
			index[cn] = nnames;
			if (!(names[nnames++] = strdup(name))) {
				rc = layout_problem("out of memory");
				goto out;
			}
		}
	}
	for (int64_t r = 0; r < n; r++) {
		int64_t cn = topomatch_cluster_pu_node(c, pu[r], NULL);
		if (cn < 0 || index[cn] < 0 ||
		    slot_cpus(c, slot, first, nslots, cpt, pu[r], cpu + r * cpt)) {
			rc = layout_problem("the mapping left the allocation");
			goto out;
		}
		node[r] = index[cn];
		rank_node[r] = names[node[r]];
	}
	map = tm_map_encode_v(layout_reorder ? TM_MAP_REORDER : TM_MAP_ARBITRARY, jobid, n,
			      (const char *const *)names, nnames, node, cpu, (int)cpt);
	if (!map) {
		rc = layout_problem("out of memory");
		goto out;
	}
	rc = publish(rank_node, n, map);
	slurm_verbose("topomatch: %lld ranks of %s mapped onto %s by %s%s%s", (long long)n, from,
		      nodelist, res.mapper, n > limit ? " node by node" : "",
		      layout_reorder ? " (reorder)" : "");
out:
	free(map);
	for (int64_t i = 0; names && i < nnames; i++)
		free(names[i]);
	free(names);
	free(rank_node);
	free(index);
	free(cpu);
	free(node);
	free(pu);
	free(first);
	free(slot);
	free(allowed);
	topomatch_cluster_destroy(c);
	topomatch_affinity_destroy(a);
	return rc;
}

/* layout=reorder: why Slurm may not use its default block distribution
 * for the step, into msg; 0 when it does. */
static int dist_unknown(char *msg, size_t len)
{
	const char *dist = getenv("SLURM_DISTRIBUTION"), *conf = getenv("SLURM_CONF");
	if (!conf)
		conf = "/etc/slurm/slurm.conf";
	int pack = tm_conf_pack_nodes(conf);
	if (!tm_dist_is_default(dist))
		snprintf(msg, len, "SLURM_DISTRIBUTION=%.60s chooses the layout", dist);
	else if (pack < 0)
		snprintf(msg, len, "cannot read %.200s (SelectTypeParameters)", conf);
	else if (pack)
		snprintf(msg, len, "CR_Pack_Nodes packs the block distribution");
	else
		return 0;
	return 1;
}

/*
 * --comm-pattern in srun.  Its callback runs once for the job's
 * environment (an srun in a batch job of `sbatch --comm-pattern`) and once
 * per occurrence on srun's command line, before srun reads SLURM_HOSTFILE;
 * the last one decides, with srun's other options as its command line says.
 */
static int srun_layout(void)
{
	tm_srun_args_t args;
	char msg[256];
	tm_srun_args_scan_self(&args);
	pattern_calls++;
	if (pattern_calls < (env_option("comm_pattern") ? 1 : 0) + args.npattern)
		return 0;
	if (args.strict || env_option("comm_strict"))
		strict = 1;
	const char *mapper = args.mapper[0] ? args.mapper
			     : mapper_name   ? mapper_name
					     : env_option("comm_mapper");
	forget_hostfile();
	unsetenv("TOPOMATCH_MAP");
	unsetenv(USER_BIND_ENV);

	const char *jobid = getenv("SLURM_JOB_ID"), *nodelist = getenv("SLURM_JOB_NODELIST");
	if (!jobid || !nodelist)
		return 0; /* srun allocates: slurmctld places the job, Slurm the ranks */
	if (getenv("SLURM_HOSTFILE"))
		return layout_note("SLURM_HOSTFILE is set");
	if (args.het)
		return layout_note("a step over several heterogeneous job components is not "
				   "supported");
	if (getenv("SLURM_HET_SIZE")) {
		/* a step of one component (--het-group=N, default 0): its own
		 * job id and nodes, a pattern of its own size */
		char key[64];
		long long g = args.het_group >= 0 ? args.het_group : 0;
		snprintf(key, sizeof(key), "SLURM_JOB_ID_HET_GROUP_%lld", g);
		jobid = getenv(key);
		snprintf(key, sizeof(key), "SLURM_JOB_NODELIST_HET_GROUP_%lld", g);
		nodelist = getenv(key);
		if (!jobid || !nodelist) {
			snprintf(msg, sizeof(msg), "no SLURM_JOB_ID/NODELIST_HET_GROUP_%lld", g);
			return layout_note(msg);
		}
	} else if (args.het_group > 0) {
		return layout_note("--het-group outside a heterogeneous job");
	}
	if (args.layout_opt[0]) {
		snprintf(msg, sizeof(msg), "%s chooses the layout", args.layout_opt);
		return layout_note(msg);
	}
	if (args.ntasks < 1)
		return layout_note("the step's task count is not known (give -n)");
	if (layout_reorder && dist_unknown(msg, sizeof(msg)))
		return layout_note(msg);
	if (args.cpus_per_task < 1 || args.cpus_per_task > TM_MAP_MAX_CPUS) {
		snprintf(msg, sizeof(msg), "--cpus-per-task=%lld", (long long)args.cpus_per_task);
		return layout_note(msg);
	}
	int user_bind = tm_cpu_bind_chooses(args.cpu_bind);
	if (user_bind && strict) {
		slurm_error("topomatch: --cpu-bind=%s chooses the CPUs, so the pattern's binding "
			    "cannot be applied (--comm-strict)",
			    args.cpu_bind);
		return -1;
	}
	int rc = map_ranks(nodelist, (uint32_t)strtoul(jobid, NULL, 10), args.ntasks,
			   args.cpus_per_task, mapper, args.nodes, args.overlap);
	if (!rc && user_bind && getenv("TOPOMATCH_MAP")) {
		/* the user's binding wins: slurmstepd sees this and binds nothing */
		setenv(USER_BIND_ENV, args.cpu_bind, 1);
		slurm_info("topomatch: --cpu-bind=%s chooses the CPUs: the pattern's binding is "
			   "not applied (%s)",
			   args.cpu_bind,
			   layout_reorder ? "ranks are still renumbered, TOPOMATCH_RANK"
					  : "ranks are still placed on the pattern's nodes");
	}
	return rc;
}

/* ------------------------------------------------------------------ */
/* slurmstepd: bind each task                                          */
/* ------------------------------------------------------------------ */

/* A task's place in the map: pattern rank, node name, OS CPUs. */
typedef struct {
	uint32_t jobid, ntasks, global, nlocal;
	int local;          /* S_TASK_ID is an int */
	char here[256];     /* the node the task runs on */
	int64_t rank;       /* its pattern rank */
	char node[256];     /* the node the map gives that rank */
	tm_cpus_t cpus;     /* and the CPUs */
} task_place_t;

/* TM_MAP_ARBITRARY: task g is rank g; srun placed it on its node unless
 * the step did not follow the hostfile.  0, or -1 (not bound). */
static int place_arbitrary(const char *map, task_place_t *t)
{
	if (tm_map_lookup(map, t->jobid, t->ntasks, t->global, t->node, sizeof(t->node), &t->cpus))
		return -1; /* a map made for another step */
	t->rank = t->global;
	if (strcmp(t->here, t->node)) {
		if (t->local == 0)
			slurm_info("topomatch: rank %u runs on %s, mapped to %s: the step keeps "
				   "Slurm's layout, tasks not bound",
				   t->global, t->here, t->node);
		return -1;
	}
	return 0;
}

/* TM_MAP_REORDER: the local-th task of this node is its local-th rank,
 * provided Slurm laid the step out as srun predicted.  0 or -1. */
static int place_reorder(const char *map, task_place_t *t)
{
	int rc = tm_map_lookup_local(map, t->jobid, t->ntasks, t->here, t->local, t->nlocal,
				     t->global, &t->rank, &t->cpus);
	if (rc == TM_MAP_MISMATCH && t->local == 0)
		slurm_info("topomatch: Slurm started %u tasks from task %u on %s, not the layout "
			   "srun predicted: ranks are not reordered (no TOPOMATCH_RANK)",
			   t->nlocal, t->global, t->here);
	if (rc)
		return -1;
	snprintf(t->node, sizeof(t->node), "%s", t->here);
	return 0;
}

/* This task's place from TOPOMATCH_MAP, whose text goes to *map (to
 * free); 0, or -1 when it has none. */
static int task_place(spank_t sp, task_place_t *t, char **map)
{
	size_t maplen = TM_MAP_MAX_BYTES + 1; /* a longer map is not read */
	int rc = -1;
	*map = malloc(maplen);
	memset(t, 0, sizeof(*t));
	if (!*map || spank_getenv(sp, "TOPOMATCH_MAP", *map, (int)maplen) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_ID, &t->jobid) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_TOTAL_TASK_COUNT, &t->ntasks) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_GLOBAL_ID, &t->global) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_TASK_ID, &t->local) != ESPANK_SUCCESS ||
	    spank_get_item(sp, S_JOB_LOCAL_TASK_COUNT, &t->nlocal) != ESPANK_SUCCESS ||
	    spank_getenv(sp, "SLURMD_NODENAME", t->here, sizeof(t->here)) != ESPANK_SUCCESS)
		return -1;
	switch (tm_map_version(*map)) {
	case TM_MAP_ARBITRARY: rc = place_arbitrary(*map, t); break;
	case TM_MAP_REORDER: rc = place_reorder(*map, t); break;
	default: break; /* malformed, or a version this plugin does not know */
	}
	return rc;
}

/* The OS CPUs of this task's cpuset cgroup (task/cgroup confines a step to
 * its cores there) into set[0 .. n-1], and their list into list; 0, or -1
 * when there is none to read (no cgroup hierarchy with cpusets). */
static int step_cpus(unsigned char *set, size_t n, char *list, size_t len)
{
	char path[4096];
	char *mounts = tm_read_text("/proc/self/mountinfo", NULL),
	     *cg = tm_read_text("/proc/self/cpuset", NULL);
	char *cpus = NULL;
	int rc = -1;
	if (mounts && cg && !tm_cpuset_file(mounts, cg, path, sizeof(path)) &&
	    (cpus = tm_read_text(path, NULL))) {
		cpus[strcspn(cpus, "\n")] = 0;
		if (!tm_cpulist_parse(cpus, set, n)) {
			snprintf(list, len, "%s", cpus);
			rc = 0;
		}
	}
	free(cpus);
	free(cg);
	free(mounts);
	return rc;
}

/*
 * Keep this task's CPUs inside the step's cpuset: when the step holds other
 * CPUs than the mapped ones on this node (--exact or concurrent steps),
 * the node's ranks move onto those, in their mapped order
 * (tm_map_fit_cpus).  0, or -1 when they do not fit (a note once a node).
 */
static int fit_step(const char *map, task_place_t *t)
{
	unsigned char set[CPU_SETSIZE];
	char list[1024] = "";
	if (step_cpus(set, sizeof(set), list, sizeof(list)))
		return 0; /* no cpuset: nothing confines the step */
	int rc = tm_map_fit_cpus(map, t->jobid, t->ntasks, t->node, t->rank, set, sizeof(set),
				 &t->cpus);
	if (rc < 0) {
		if (t->local == 0)
			slurm_info("topomatch: the ranks mapped to %s do not fit the step's CPUs "
				   "there (%s): tasks not bound, Slurm's binding kept",
				   t->here, list);
		return -1;
	}
	if (rc == 1 && t->local == 0)
		slurm_verbose("topomatch: the step holds CPUs %s of %s: its ranks keep their "
			      "mapped order on them",
			      list, t->here);
	return 0;
}

/* Bind this process to the CPUs; 0, or -1 with errno. */
static int bind_cpus(const tm_cpus_t *c)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	for (int k = 0; k < c->n; k++) {
		if (c->cpu[k] < 0 || c->cpu[k] >= CPU_SETSIZE) {
			errno = EINVAL;
			return -1;
		}
		CPU_SET(c->cpu[k], &set);
	}
	return sched_setaffinity(getpid(), sizeof(set), &set);
}

TM_EXPORT int slurm_spank_task_init(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	if (spank_context() != S_CTX_REMOTE)
		return 0;
	task_place_t t;
	char cpus[8 * TM_MAP_MAX_CPUS], num[32], user[64];
	char *map = NULL;
	const char *how = bind_record ? "recorded" : "applied";
	int rc = 0;
	if (task_place(sp, &t, &map))
		goto out;
	cpus[0] = 0;
	if (spank_getenv(sp, USER_BIND_ENV, user, sizeof(user)) == ESPANK_SUCCESS) {
		how = "user"; /* srun said so on its stderr */
	} else if (!bind_record && fit_step(map, &t)) {
		how = "failed";
		rc = strict ? -1 : 0;
	} else if (tm_cpulist(t.cpus.cpu, t.cpus.n, cpus, sizeof(cpus)) ||
		   (!bind_record && bind_cpus(&t.cpus))) {
		slurm_info("topomatch: rank %lld: cannot bind to CPUs %s on %s: %s",
			   (long long)t.rank, cpus, t.node, strerror(errno ? errno : EINVAL));
		how = "failed";
		rc = strict ? -1 : 0;
		cpus[0] = 0;
	}
	/* the environment is informative: never fail the task for it */
	snprintf(num, sizeof(num), "%lld", (long long)t.rank);
	spank_setenv(sp, "TOPOMATCH_RANK", num, 1);
	spank_setenv(sp, "TOPOMATCH_NODE", t.node, 1);
	if (cpus[0])
		spank_setenv(sp, "TOPOMATCH_CPUS", cpus, 1);
	spank_setenv(sp, "TOPOMATCH_BIND", how, 1);
out:
	free(map);
	return rc;
}

static int store(spank_t sp, char **entries, int n)
{
	char name[64];
	for (int k = 0; k < n; k++) {
		snprintf(name, sizeof(name), "%s%d", TOPOMATCH_PATTERN_ENV, k);
		if (spank_job_control_setenv(sp, name, entries[k], 1) != ESPANK_SUCCESS)
			return -1;
	}
	if (mapper_name && spank_job_control_setenv(sp, "TOPOMATCH_MAPPER", mapper_name, 1) !=
				   ESPANK_SUCCESS)
		return -1;
	if (comm_wait > 0) {
		snprintf(name, sizeof(name), "%ld", comm_wait);
		if (spank_job_control_setenv(sp, "TOPOMATCH_COMM_WAIT", name, 1) != ESPANK_SUCCESS)
			return -1;
	}
	return 0;
}

/* Read, check and encode the pattern as the submitting user. */
static int submit_pattern(spank_t sp)
{
	char err[TOPOMATCH_ERRLEN], msg[TOPOMATCH_ERRLEN + 64];
	topomatch_limits_t lim = { .max_bytes = TM_PLUGIN_PATTERN_MAX_BYTES };
	topomatch_affinity_t *a = NULL;
	char **entries = NULL;
	int n = 0, rc = 0, stored = 0;
	topomatch_blob_info_t info;
	tm_plugin_conf_t conf;
	char path[4096];
	if (read_conf(&conf, path, err) < 0) /* slurmctld logs it too */
		slurm_verbose("topomatch: %s; patterns of up to %d KiB", err, conf.pattern_kib);
	if (topomatch_affinity_read_file(pattern_path, TOPOMATCH_FORMAT_AUTO, &lim, &a, err) ||
	    encode(&conf, a, &entries, &n, &info, err)) {
		snprintf(msg, sizeof(msg), "--comm-pattern: %s", err);
		rc = pattern_problem(msg);
	} else if (store(sp, entries, n)) {
		rc = pattern_problem("--comm-pattern: cannot store the pattern in the job");
	} else {
		stored = 1;
		slurm_verbose("--comm-pattern: %lld tasks, %lld pairs, %.1f KiB in the job "
			      "(at most PatternKiB=%d)", (long long)info.ntasks,
			      (long long)info.nnz_kept, info.bytes / 1024.0, conf.pattern_kib);
	}
	if (stored && info.group > 1) {
		slurm_info("--comm-pattern: %lld tasks do not fit PatternKiB=%d one by one: the "
			   "nodes are chosen with the pattern in groups of %lld consecutive ranks "
			   "(%lld of the %lld pairs between groups); srun lays out the ranks with "
			   "all of it from %s",
			   (long long)info.ntasks, conf.pattern_kib, (long long)info.group,
			   (long long)info.nnz_kept, (long long)info.nnz_input, pattern_path);
	} else if (stored && info.weight_kept < info.weight_input * (1 - 1e-9)) {
		slurm_info("--comm-pattern: %lld tasks; the nodes are chosen with %lld of its %lld "
			   "pairs (%.1f%% of the communication weight dropped to fit PatternKiB=%d); "
			   "srun lays out the ranks with all of them from %s",
			   (long long)info.ntasks, (long long)info.nnz_kept,
			   (long long)info.nnz_input,
			   100.0 * (1 - info.weight_kept / info.weight_input), conf.pattern_kib,
			   pattern_path);
	}
	topomatch_blob_free(entries, n);
	topomatch_affinity_destroy(a);
	return rc;
}

TM_EXPORT int slurm_spank_init_post_opt(spank_t sp, int ac, char **av)
{
	(void)ac;
	(void)av;
	spank_context_t ctx = spank_context();
	if (ctx == S_CTX_LOCAL && hostfile) {
		/* srun has read it (SLURM_HOSTFILE is read with the options) */
		unlink(hostfile);
		free(hostfile);
		hostfile = NULL;
		unsetenv("SLURM_HOSTFILE");
	}
	if (comm_wait > 0 && !pattern_path && ctx == S_CTX_ALLOCATOR)
		slurm_info("warning: --comm-wait has no effect without --comm-pattern");
	if (!pattern_path || (ctx != S_CTX_ALLOCATOR && ctx != S_CTX_LOCAL))
		return 0;
	if (ctx == S_CTX_LOCAL && getenv("SLURM_JOB_ID") && getenv("SLURM_JOB_NODELIST"))
		return 0; /* a step: the job has its pattern, srun_layout read this one */
	return submit_pattern(sp);
}

TM_EXPORT int slurm_spank_exit(spank_t sp, int ac, char **av)
{
	(void)sp;
	(void)ac;
	(void)av;
	if (hostfile) {
		unlink(hostfile);
		free(hostfile);
		hostfile = NULL;
	}
	free(pattern_path);
	free(mapper_name);
	pattern_path = mapper_name = NULL;
	comm_wait = 0;
	return 0;
}
