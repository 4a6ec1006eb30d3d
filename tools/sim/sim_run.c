/*
 * sim_run.c - one policy's replay of the job stream: the scheduler asks
 * for starts, each start builds the job's pattern, lets the policy choose
 * nodes and place tasks, and turns the placement's hop-bytes into a run
 * time; and the reference pass that gives every job its pattern kind and
 * compact hop-bytes (shared by the policies, computed once).
 *
 * Runs share nothing they write: policies run in parallel threads, each
 * with its own free-node state, random stream and results.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static int oom(char *err)
{
	return sim_err(err, TOPOMATCH_ENOMEM, "out of memory");
}

/* -------------------------------------------------------- reference */

static int dump(const char *dir, const sim_job_t *j, const topomatch_affinity_t *a, char *err)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/job-%lld.mtx", dir, (long long)j->id);
	FILE *f = fopen(path, "w");
	if (!f)
		return sim_err(err, TOPOMATCH_EIO, "%s: cannot write", path);
	int rc = topomatch_affinity_write(a, f, TOPOMATCH_FORMAT_MM, err);
	if (fclose(f) && !rc)
		rc = sim_err(err, TOPOMATCH_EIO, "%s: write failed", path);
	return rc;
}

static int reference_one(const sim_config_t *c, sim_job_t *j, int64_t *pu, char *err)
{
	topomatch_affinity_t *a;
	j->kind = sim_mix_draw(c->mix, c->seed, j->id, j->procs);
	j->hb_ref = 0;
	if (j->kind < 0)
		return TOPOMATCH_OK;
	int rc = sim_pattern_make(c->mix, j->kind, j->procs, c->seed, j->id, &a, err);
	if (rc)
		return rc;
	rc = sim_place_block(c->m, c->m->compact, j->nodes, j->procs, pu, err);
	if (!rc)
		rc = sim_hop_bytes(c->m->cl, a, pu, &j->hb_ref, err);
	if (!rc && c->dump_dir)
		rc = dump(c->dump_dir, j, a, err);
	topomatch_affinity_destroy(a);
	return rc;
}

int sim_reference(const sim_config_t *c, sim_job_t *jobs, int64_t from, int64_t to, char *err)
{
	int64_t most = 1;
	for (int64_t j = from; j < to; j++)
		most = jobs[j].procs > most ? jobs[j].procs : most;
	int64_t *pu = malloc((size_t)most * sizeof(*pu));
	int rc = pu ? TOPOMATCH_OK : oom(err);
	for (int64_t j = from; !rc && j < to; j++) {
		rc = reference_one(c, &jobs[j], pu, err);
		if (c->progress)
			__atomic_fetch_add(c->progress, 1, __ATOMIC_RELAXED);
		if (rc)
			sim_err_prefix(err, rc, "job %lld: ", (long long)jobs[j].id);
	}
	free(pu);
	return rc;
}

/* ------------------------------------------------------------- a run */

/*
 * A job's traffic going into the topomatch policy's link loads on a
 * spare thread (sim_config_t.spare) while the replay goes on: nothing
 * reads the loads before the next node choice or the next job end, which
 * wait for it (ll_settle).  The same loads as adding them in place.
 */
typedef struct ll_pending {
	pthread_t th;
	bool busy;
	const topomatch_cluster_t *cl;
	topomatch_link_load_t *ll;
	int64_t j;
	topomatch_affinity_t *a; /* owned until settled */
	int64_t *pu;             /* a copy */
	double activity;
	int rc;
	char err[TOPOMATCH_ERRLEN];
} ll_pending_t;

typedef struct run_ctx {
	const sim_config_t *c;
	sim_result_t *r;
	sim_free_t f;
	topomatch_rng_t rng;
	int64_t *nodes, *pu; /* scratch */
	/* contention model: each running job's progress (fraction of its
	 * work done at t_last), its current run time at today's loads, the
	 * HB_c it runs at, and the end it was given */
	sim_net_t *net;
	double *done, *t_last, *T, *hbc_now, *end;
	/* the topomatch policy's contention-aware choice: the link loads of
	 * the running jobs whose pattern the plugin knows (in_ll[j] = 1) */
	topomatch_link_load_t *ll;
	unsigned char *in_ll;
	ll_pending_t pend;
	topomatch_affinity_t *a;   /* the starting job's pattern, NULL once handed to pend */
	int ll_rc;                 /* a failed add, reported at the next start or at the end */
	char ll_err[TOPOMATCH_ERRLEN + 32];
	/* --comm-wait: the empty machine, each job's hop-bytes there (0: not
	 * yet, -1: none), whether it was put off; scratch for that choice */
	sim_free_t empty;
	double *ref_tm;
	unsigned char *waited;
	int64_t *nodes2, *pu2;
	topomatch_memo_t *memo;    /* the topomatch policy's partitions */
} run_ctx_t;

bool sim_spare_take(int *spare)
{
	int n = spare ? __atomic_load_n(spare, __ATOMIC_RELAXED) : 0;
	while (n > 0)
		if (__atomic_compare_exchange_n(spare, &n, n - 1, false, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			return true;
	return false;
}

void sim_spare_give(int *spare)
{
	if (spare)
		__atomic_fetch_add(spare, 1, __ATOMIC_RELAXED);
}

static void *ll_add_run(void *arg)
{
	ll_pending_t *p = arg;
	p->rc = topomatch_cluster_link_load_add(p->cl, p->ll, (uint64_t)p->j, p->a, p->pu,
						p->activity, p->err);
	return NULL;
}

/* The pending add done; its failure kept in ll_rc. */
static void ll_settle(run_ctx_t *x)
{
	ll_pending_t *p = &x->pend;
	if (!p->busy)
		return;
	pthread_join(p->th, NULL);
	sim_spare_give(x->c->spare);
	p->busy = false;
	x->in_ll[p->j] = !p->rc;
	if (p->rc && !x->ll_rc) {
		x->ll_rc = p->rc;
		snprintf(x->ll_err, sizeof(x->ll_err), "job %lld: %s",
			 (long long)x->c->s->job[p->j].id, p->err);
	}
	topomatch_affinity_destroy(p->a);
	free(p->pu);
}

/* Job j's traffic (x->a at x->pu, n tasks) into the link loads: on a
 * spare thread when there is one, else here. */
static int ll_add(run_ctx_t *x, int64_t j, int64_t n, double activity, char *err)
{
	ll_pending_t *p = &x->pend;
	if (x->c->s->job[j].nodes >= SIM_SPARE_MIN_NODES && sim_spare_take(x->c->spare)) {
		*p = (ll_pending_t){ .cl = x->c->m->cl, .ll = x->ll, .j = j, .a = x->a,
				     .pu = malloc((size_t)n * sizeof(*p->pu) + 1),
				     .activity = activity };
		if (p->pu) {
			memcpy(p->pu, x->pu, (size_t)n * sizeof(*p->pu));
			if (!pthread_create(&p->th, NULL, ll_add_run, p)) {
				p->busy = true;
				x->a = NULL;
				x->in_ll[j] = 1; /* settled before anyone looks */
				return TOPOMATCH_OK;
			}
		}
		free(p->pu);
		sim_spare_give(x->c->spare);
	}
	int rc = topomatch_cluster_link_load_add(x->c->m->cl, x->ll, (uint64_t)j, x->a, x->pu,
						 activity, err);
	x->in_ll[j] = !rc;
	return rc;
}

/* The model's run time for hop-bytes hb, uncut. */
static double model_time(const sim_config_t *c, const sim_job_t *job, double hb)
{
	return job->hb_ref > 0 ? job->run * (1 - c->share + c->share * hb / job->hb_ref)
			       : job->run;
}

static int keep_nodes(sim_result_t *r, int64_t j, const int64_t *nodes, int64_t k, char *err)
{
	if (r->nodes_len + k > r->nodes_cap) {
		int64_t cap = 2 * (r->nodes_len + k);
		int64_t *p = realloc(r->nodes, (size_t)cap * sizeof(*p));
		if (!p)
			return oom(err);
		r->nodes = p;
		r->nodes_cap = cap;
	}
	r->node_off[j] = r->nodes_len;
	memcpy(r->nodes + r->nodes_len, nodes, (size_t)k * sizeof(*nodes));
	r->nodes_len += k;
	return TOPOMATCH_OK;
}

/*
 * --comm-wait, as select/topomatch's tm_comm_wait: a start within the
 * job's wait whose mapping (pu[]) gives more than CommWaitRatio x the
 * job's hop-bytes on the empty machine (the same policy's choice there,
 * without link loads; once per job) is put off (*wait).
 */
static int put_off(run_ctx_t *x, int64_t j, const topomatch_affinity_t *a, const int64_t *pu,
		   bool *wait, char *err)
{
	const sim_config_t *c = x->c;
	const sim_job_t *job = &c->s->job[j];
	double hb;
	int rc = TOPOMATCH_OK;
	*wait = false;
	if (x->ref_tm[j] == 0) {
		sim_tm_stats_t st = { 0 };
		topomatch_rng_t rng = x->rng; /* the run's own draws unchanged */
		sim_pick_t p = { .policy = SIM_TOPOMATCH, .m = c->m, .f = &x->empty, .a = a,
				 .ntasks = job->procs, .k = job->nodes, .rng = &rng, .tm = &c->tm,
				 .stats = &st, .no_check = true, .memo = x->memo };
		rc = sim_policy_select(&p, x->nodes2, x->pu2, err);
		if (!rc && st.narrowed)
			rc = sim_hop_bytes(c->m->cl, a, x->pu2, &x->ref_tm[j], err);
		if (!rc && x->ref_tm[j] <= 0)
			x->ref_tm[j] = -1; /* no mapping there: the job never waits */
	}
	if (!rc && x->ref_tm[j] > 0)
		rc = sim_hop_bytes(c->m->cl, a, pu, &hb, err);
	if (!rc && x->ref_tm[j] > 0)
		*wait = hb > c->tm.comm_wait_ratio * x->ref_tm[j];
	return rc;
}

/* Place job j and give the scheduler its run time under the model, or
 * SIM_NOT_NOW (--comm-wait) with the end of its wait in *run. */
static int place(run_ctx_t *x, int64_t j, const topomatch_affinity_t *a, double now,
		 double *run, char *err)
{
	const sim_config_t *c = x->c;
	const sim_job_t *job = &c->s->job[j];
	sim_tm_stats_t st = x->r->tm; /* counted once the job starts */
	sim_pick_t p = { .policy = x->r->policy, .m = c->m, .f = &x->f, .a = a,
			 .ntasks = job->procs, .k = job->nodes, .rng = &x->rng, .tm = &c->tm,
			 .stats = &st, .ll = x->ll, .spare = c->spare, .memo = x->memo };
	int killed;
	double until = job->submit + c->tm.comm_wait;
	ll_settle(x);
	if (x->ll_rc)
		return sim_err(err, x->ll_rc, "%s", x->ll_err);
	int rc = sim_policy_select(&p, x->nodes, x->pu, err);
	if (!rc && x->ref_tm && a && now < until && st.narrowed > x->r->tm.narrowed) {
		bool wait;
		rc = put_off(x, j, a, x->pu, &wait, err);
		if (!rc && wait) {
			x->waited[j] = 1;
			*run = until;
			return SIM_NOT_NOW;
		}
	}
	if (rc)
		return rc;
	x->r->tm = st;
	if (x->ref_tm && x->waited[j]) {
		x->r->tm.waited++;
		x->r->tm.wait_expired += now >= until;
	}
	bool netted = x->net && a && job->hb_ref > 0; /* its traffic on the links */
	if (!rc && netted)
		rc = sim_net_start(x->net, j, a, x->pu, job->hb_ref, &x->r->hb[j], err);
	else if (!rc && a)
		rc = sim_hop_bytes(c->m->cl, a, x->pu, &x->r->hb[j], err);
	if (!rc)
		rc = keep_nodes(x->r, j, x->nodes, job->nodes, err);
	if (!rc && x->ll && a && job->hb_ref > 0) {
		/* slurmctld adds the job from its blob and allocation (a job
		 * over MaxTasks too, placed in blocks); its activity is the
		 * model's sigma (sim_net.c) */
		double r = x->r->hb[j] / job->hb_ref, s = c->share;
		double sigma = 1 - s + s * r > 0 ? s * r / (1 - s + s * r) : 0;
		rc = ll_add(x, j, job->procs, sigma > 1 ? 1 : sigma, err);
	}
	if (rc)
		return rc;
	x->r->hbc[j] = x->r->hb[j];
	if (netted) {
		x->hbc_now[j] = sim_net_hop_bytes(x->net, j);
		x->done[j] = 0;
		x->r->hbc[j] = 0; /* accumulated over the job's progress */
	} else if (x->net) {
		x->hbc_now[j] = x->r->hb[j];
	}
	*run = sim_model_runtime(job->run, c->share,
				 x->net ? x->hbc_now[j] : x->r->hb[j], job->hb_ref, job->req,
				 &killed);
	x->r->run[j] = *run;
	x->r->killed[j] = (unsigned char)killed;
	x->r->nkilled += killed;
	x->r->switches[j] = sim_switches_spanned(c->m, x->nodes, job->nodes);
	sim_free_take(&x->f, c->m, x->nodes, job->nodes);
	return TOPOMATCH_OK;
}

static int on_start(void *ctx, int64_t j, double now, double *run, char *err)
{
	run_ctx_t *x = ctx;
	const sim_job_t *job = &x->c->s->job[j];
	x->a = NULL;
	int rc = job->kind < 0 ? TOPOMATCH_OK
			       : sim_pattern_make(x->c->mix, job->kind, job->procs, x->c->seed,
						  job->id, &x->a, err);
	if (!rc)
		rc = place(x, j, x->a, now, run, err);
	topomatch_affinity_destroy(x->a); /* unless ll_add took it */
	x->a = NULL;
	if (rc == SIM_NOT_NOW)
		return rc;
	if (rc)
		sim_err_prefix(err, rc, "%s: job %lld: ", sim_policy_name(x->r->policy),
			       (long long)job->id);
	if (x->c->run_progress)
		__atomic_fetch_add(&x->c->run_progress[x->r->policy], 1, __ATOMIC_RELAXED);
	if (!rc && x->net) {
		x->t_last[j] = now;
		x->T[j] = model_time(x->c, job, x->hbc_now[j]);
		x->end[j] = now + *run;
	}
	return rc;
}

/* Progress of job j from t_last to now at its current pace; HB_c
 * averaged over progress: each stretch weighs by the work done in it. */
static void advance(run_ctx_t *x, int64_t j, double now)
{
	double d = x->T[j] > 0 ? (now - x->t_last[j]) / x->T[j] : 1;
	if (d > 1 - x->done[j])
		d = 1 - x->done[j];
	x->r->hbc[j] += d * x->hbc_now[j];
	x->done[j] += d;
	x->t_last[j] = now;
}

static void on_finish(void *ctx, int64_t j)
{
	run_ctx_t *x = ctx;
	const sim_job_t *job = &x->c->s->job[j];
	sim_free_give(&x->f, x->c->m, x->r->nodes + x->r->node_off[j], job->nodes);
	ll_settle(x);
	if (x->ll && x->in_ll[j]) {
		topomatch_link_load_remove(x->ll, (uint64_t)j, NULL); /* it is there */
		x->in_ll[j] = 0;
	}
	if (!x->net)
		return;
	if (job->kind >= 0 && job->hb_ref > 0) {
		advance(x, j, x->end[j]);
		if (x->done[j] > 0)
			x->r->hbc[j] /= x->done[j]; /* killed: over what it did */
		sim_net_finish(x->net, j);
	}
	x->r->run[j] = x->end[j] - x->r->start[j];
}

/*
 * Contention: the jobs whose links' loads changed at `now` go on at a
 * new pace.  Work left (1 - done) at the new run time T gives the new
 * end; past the requested time Slurm kills the job there.
 */
static int on_retime(void *ctx, double now, double *end, int64_t *changed, int64_t *nchanged,
		     char *err)
{
	run_ctx_t *x = ctx;
	int64_t n;
	const int64_t *dirty = sim_net_dirty(x->net, &n);
	(void)err;
	*nchanged = 0;
	for (int64_t k = 0; k < n; k++) {
		int64_t j = dirty[k];
		const sim_job_t *job = &x->c->s->job[j];
		advance(x, j, now);
		x->hbc_now[j] = sim_net_hop_bytes(x->net, j);
		x->T[j] = model_time(x->c, job, x->hbc_now[j]);
		double e = now + (1 - x->done[j]) * x->T[j], limit = x->r->start[j] + job->req;
		int killed = job->req > 0 && e > limit;
		if (killed)
			e = limit > now ? limit : now;
		x->r->nkilled += killed - x->r->killed[j];
		x->r->killed[j] = (unsigned char)killed;
		if (e != end[j]) {
			end[j] = x->end[j] = e;
			changed[(*nchanged)++] = j;
		}
	}
	return TOPOMATCH_OK;
}

void sim_result_free(sim_result_t *r)
{
	free(r->start);
	free(r->end);
	free(r->run);
	free(r->hb);
	free(r->hbc);
	free(r->switches);
	free(r->killed);
	free(r->node_off);
	free(r->nodes);
	memset(r, 0, sizeof(*r));
}

static int result_init(sim_result_t *r, int policy, int64_t n)
{
	size_t d = (size_t)n * sizeof(double) + 1, i = (size_t)n * sizeof(int64_t) + 1;
	memset(r, 0, sizeof(*r));
	r->policy = policy;
	r->start = malloc(d);
	r->end = malloc(d);
	r->run = malloc(d);
	r->hb = calloc(1, d);
	r->hbc = calloc(1, d);
	r->switches = malloc(i);
	r->killed = calloc((size_t)n + 1, 1);
	r->node_off = malloc(i);
	if (!r->start || !r->end || !r->run || !r->hb || !r->hbc || !r->switches || !r->killed ||
	    !r->node_off) {
		sim_result_free(r);
		return TOPOMATCH_ENOMEM;
	}
	return TOPOMATCH_OK;
}

static int64_t most_procs(const sim_stream_t *s)
{
	int64_t most = 1;
	for (int64_t j = 0; j < s->n; j++)
		most = s->job[j].procs > most ? s->job[j].procs : most;
	return most;
}

int sim_run(const sim_config_t *c, int policy, sim_result_t *r, char *err)
{
	run_ctx_t x = { .c = c, .r = r };
	if (result_init(r, policy, c->s->n))
		return oom(err);
	topomatch_rng_seed(&x.rng, c->seed ^ (UINT64_C(0x5851F42D4C957F2D) * (uint64_t)(policy + 1)));
	x.nodes = malloc((size_t)c->m->nnodes * sizeof(*x.nodes) + 1);
	x.pu = malloc((size_t)most_procs(c->s) * sizeof(*x.pu) + 1);
	int rc = x.nodes && x.pu && !sim_free_init(&x.f, c->m) ? TOPOMATCH_OK : oom(err);
	if (!rc && c->model == SIM_MODEL_CONTENTION) {
		size_t d = (size_t)c->s->n * sizeof(double) + 1;
		rc = sim_net_create(c->m, c->share, c->s->n, &x.net, err);
		x.done = malloc(d);
		x.t_last = malloc(d);
		x.T = malloc(d);
		x.hbc_now = malloc(d);
		x.end = malloc(d);
		if (!rc && (!x.done || !x.t_last || !x.T || !x.hbc_now || !x.end))
			rc = oom(err);
	}
	if (!rc && policy == SIM_TOPOMATCH)
		rc = topomatch_memo_create(SIM_MEMO_BYTES, &x.memo, err);
	if (!rc && policy == SIM_TOPOMATCH && c->tm.contention_weight > 0) {
		rc = topomatch_cluster_link_load_create(c->m->cl, 0, &x.ll, err);
		if (!rc && !(x.in_ll = calloc((size_t)c->s->n + 1, 1)))
			rc = oom(err);
	}
	if (!rc && policy == SIM_TOPOMATCH && c->tm.comm_wait > 0) {
		x.ref_tm = calloc((size_t)c->s->n + 1, sizeof(*x.ref_tm));
		x.waited = calloc((size_t)c->s->n + 1, 1);
		x.nodes2 = malloc((size_t)c->m->nnodes * sizeof(*x.nodes2) + 1);
		x.pu2 = malloc((size_t)most_procs(c->s) * sizeof(*x.pu2) + 1);
		if (!x.ref_tm || !x.waited || !x.nodes2 || !x.pu2 || sim_free_init(&x.empty, c->m))
			rc = oom(err);
	}
	if (!rc) {
		sim_sched_ops_t ops = { on_start, on_finish, &x, x.net ? on_retime : NULL,
					c->bf_depth, c->bf_window };
		rc = sim_sched_run(c->s->job, c->s->n, c->m->nnodes, &ops, r->start, r->end, err);
	}
	ll_settle(&x);
	if (!rc && x.ll_rc)
		rc = sim_err(err, x.ll_rc, "%s", x.ll_err);
	sim_net_destroy(x.net);
	topomatch_link_load_destroy(x.ll);
	topomatch_memo_destroy(x.memo);
	free(x.in_ll);
	free(x.done);
	free(x.t_last);
	free(x.T);
	free(x.hbc_now);
	free(x.end);
	sim_free_free(&x.f);
	sim_free_free(&x.empty);
	free(x.ref_tm);
	free(x.waited);
	free(x.nodes2);
	free(x.pu2);
	free(x.nodes);
	free(x.pu);
	if (rc)
		sim_result_free(r);
	return rc;
}
