/*
 * tm_spank_env.c - see tm_spank_env.h.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "tm_spank_env.h"

#include <stdlib.h>
#include <string.h>

/* Length of an entry's name (before '='), -1 when the merge skips it. */
static int64_t name_len(const char *e)
{
	const char *eq = e ? memchr(e, '=', strnlen(e, TM_SPANK_ENV_NAME_MAX + 1)) : NULL;
	if (!eq)
		return -1; /* no '=' within a name's limit */
	if (strnlen(eq + 1, TM_SPANK_ENV_VALUE_MAX + 1) > TM_SPANK_ENV_VALUE_MAX)
		return -1;
	return eq - e;
}

static uint64_t name_hash(const char *e, int64_t len)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */
	for (int64_t k = 0; k < len; k++)
		h = (h ^ (unsigned char)e[k]) * 1099511628211ULL;
	return h;
}

int64_t tm_spank_env_repair(char **env, int64_t n, int64_t max_entries, int64_t max_bytes)
{
	if (n <= 0 || !env)
		return n > 0 ? n : 0;
	/* names seen, from the last entry back: open addressing on indices */
	int64_t cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	int64_t *slot = malloc((size_t)cap * sizeof(*slot));
	unsigned char *keep = calloc((size_t)n, 1);
	char **out = malloc((size_t)n * sizeof(*out));
	if (!slot || !keep || !out) {
		free(slot);
		free(keep);
		free(out);
		return -1;
	}
	for (int64_t s = 0; s < cap; s++)
		slot[s] = -1;
	for (int64_t i = n - 1; i >= 0; i--) {
		int64_t len = name_len(env[i]);
		if (len < 0)
			continue;
		int64_t s = (int64_t)(name_hash(env[i], len) & (uint64_t)(cap - 1));
		for (; slot[s] >= 0; s = (s + 1) & (cap - 1)) {
			const char *o = env[slot[s]];
			if (!strncmp(o, env[i], (size_t)len) && o[len] == '=')
				break; /* a later entry has this name */
		}
		if (slot[s] < 0) {
			slot[s] = i;
			keep[i] = 1;
		}
	}
	int64_t kept = 0, dropped = n, bytes = 0;
	for (int64_t i = 0; i < n; i++) {
		if (!keep[i])
			continue;
		int64_t len = (int64_t)strlen(env[i]) + 1; /* within the limits: bounded */
		if (kept >= max_entries || bytes + len > max_bytes) {
			keep[i] = 0;
			continue;
		}
		bytes += len;
		out[kept++] = env[i];
	}
	for (int64_t i = n - 1; i >= 0; i--)
		if (!keep[i])
			out[--dropped] = env[i];
	memcpy(env, out, (size_t)n * sizeof(*env));
	free(slot);
	free(keep);
	free(out);
	return kept;
}
