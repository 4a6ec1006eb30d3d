/*
 * tm_decision.c - select/topomatch's decision cache and per-cycle budget
 * (see tm_decision.h).
 *
 * The cache is a small array searched linearly: slurmctld considers a
 * few hundred pending jobs per cycle at most (bf_max_job_test defaults to
 * 500), and a linear scan of a few hundred keys costs far less than one
 * decode of a pattern.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tm_decision.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t tm_hash(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * UINT64_C(0x100000001b3);
	return h;
}

int tm_decision_cache_init(tm_decision_cache_t *c, size_t cap)
{
	memset(c, 0, sizeof(*c));
	c->slot = calloc(cap ? cap : 1, sizeof(*c->slot));
	if (!c->slot)
		return -1;
	c->cap = cap ? cap : 1;
	return 0;
}

void tm_decision_cache_clear(tm_decision_cache_t *c)
{
	for (size_t i = 0; i < c->used; i++)
		free(c->slot[i].nodes);
	if (c->slot)
		memset(c->slot, 0, c->cap * sizeof(*c->slot));
	c->used = 0;
}

void tm_decision_cache_fini(tm_decision_cache_t *c)
{
	tm_decision_cache_clear(c);
	free(c->slot);
	memset(c, 0, sizeof(*c));
}

static tm_decision_t *lookup(tm_decision_cache_t *c, uint32_t job_id, uint64_t key)
{
	for (size_t i = 0; i < c->used; i++)
		if (c->slot[i].job_id == job_id && c->slot[i].key == key)
			return &c->slot[i];
	return NULL;
}

const tm_decision_t *tm_decision_find(tm_decision_cache_t *c, uint32_t job_id, uint64_t key)
{
	tm_decision_t *d = c->slot ? lookup(c, job_id, key) : NULL;

	if (d)
		d->last_use = ++c->tick;
	return d;
}

/* The slot a new decision goes to: a free one, else the least recently used. */
static tm_decision_t *victim(tm_decision_cache_t *c)
{
	tm_decision_t *v;

	if (c->used < c->cap)
		return &c->slot[c->used++];
	v = &c->slot[0];
	for (size_t i = 1; i < c->used; i++)
		if (c->slot[i].last_use < v->last_use)
			v = &c->slot[i];
	return v;
}

int tm_decision_store(tm_decision_cache_t *c, uint32_t job_id, uint64_t key,
		      tm_decision_kind_t kind, const int64_t *nodes, const int64_t *tasks,
		      int64_t nnodes, const tm_extent_t *extent, const char *note)
{
	int64_t *copy = NULL;
	tm_decision_t *d;

	if (!c->slot || nnodes < 0 || (nnodes && !nodes))
		return -1;
	/* nodes, then tasks, in one block */
	if (nnodes && !(copy = malloc((size_t)nnodes * 2 * sizeof(*copy))))
		return -1;
	if (nnodes) {
		memcpy(copy, nodes, (size_t)nnodes * sizeof(*copy));
		if (tasks)
			memcpy(copy + nnodes, tasks, (size_t)nnodes * sizeof(*copy));
	}
	d = lookup(c, job_id, key);
	if (!d)
		d = victim(c);
	free(d->nodes);
	*d = (tm_decision_t){ .job_id = job_id, .key = key, .kind = kind, .nodes = copy,
			      .tasks = copy && tasks ? copy + nnodes : NULL, .nnodes = nnodes,
			      .extent = extent ? *extent : (tm_extent_t){ 0, 0 },
			      .cost = -1, .last_use = ++c->tick };
	snprintf(d->note, sizeof(d->note), "%s", note ? note : "");
	return 0;
}

void tm_decision_set_cost(tm_decision_cache_t *c, uint32_t job_id, uint64_t key, double cost)
{
	tm_decision_t *d = c->slot ? lookup(c, job_id, key) : NULL;

	if (d)
		d->cost = cost;
}

long tm_comm_wait_left(long asked_s, long max_s, long since, long now)
{
	long wait = asked_s < max_s ? asked_s : max_s;

	/* a clock set back counts as no time waited */
	if (wait <= 0 || now - since >= wait)
		return 0;
	return now > since ? wait - (now - since) : wait;
}

int tm_comm_wait_worse(double hb, double ref, double ratio)
{
	return ref > 0 && hb >= 0 && hb > ratio * ref;
}

char *tm_comment_merge(const char *old, const char *msg)
{
	static const char tag[] = "topomatch: ";
	size_t cap = (old ? strlen(old) : 0) + strlen(tag) + strlen(msg) + 2, n = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	for (const char *p = old; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);

		if (strncmp(p, tag, sizeof(tag) - 1)) {
			memcpy(out + n, p, len);
			n += len;
			out[n++] = '\n';
		}
		p += len + (nl ? 1 : 0);
	}
	snprintf(out + n, cap - n, "%s%s", tag, msg);
	return out;
}

void tm_comment_sql_safe(char *s)
{
	char *out = s;

	for (; *s; s++)
		if (*s != '\'' && *s != '"' && *s != '\\' && (unsigned char) *s >= 0x20 && *s != 0x7f)
			*out++ = *s;
	*out = 0;
}

double tm_cycle_left(tm_cycle_t *w, uint32_t counter, double now_ms, double budget_ms)
{
	if (!w->open || w->counter != counter || now_ms - w->start_ms > TM_CYCLE_MAX_AGE_MS ||
	    now_ms < w->start_ms) {
		int prev = w->open ? w->nusers : 0;
		*w = (tm_cycle_t){ .open = 1, .counter = counter, .start_ms = now_ms,
				   .prev_users = prev };
	}
	return budget_ms - w->used_ms;
}

/* The slot of uid among the window's users, -1 when it has none yet; the
 * last slot is shared by the users past TM_CYCLE_USERS - 1. */
static int user_slot(const tm_cycle_t *w, uint32_t uid)
{
	for (int k = 0; k < w->nusers && k < TM_CYCLE_USERS - 1; k++)
		if (w->uid[k] == uid)
			return k;
	return w->nusers == TM_CYCLE_USERS ? TM_CYCLE_USERS - 1 : -1;
}

double tm_cycle_user_left(const tm_cycle_t *w, uint32_t uid, double budget_ms, double floor_ms,
			  int waiting)
{
	int k = user_slot(w, uid);
	int users = w->nusers + (k < 0);
	double share;

	if (users < w->prev_users)
		users = w->prev_users;
	if (users < waiting)
		users = waiting;
	share = budget_ms / (users > 0 ? users : 1);
	if (share < floor_ms)
		share = floor_ms;
	return share - (k < 0 ? 0 : w->user_ms[k]);
}

void tm_cycle_charge(tm_cycle_t *w, uint32_t uid, double ms)
{
	int k = user_slot(w, uid);

	if (ms <= 0)
		return;
	w->used_ms += ms;
	if (k < 0) {
		k = w->nusers++;
		w->uid[k] = uid;
		w->user_ms[k] = 0;
	}
	w->user_ms[k] += ms;
}
