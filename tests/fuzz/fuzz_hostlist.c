/*
 * fuzz_hostlist.c - libFuzzer harness of Slurm host lists
 * (topology/hostlist.c: "n[001-128,130],gpu[1-4]-ib"), as they come from
 * topology.conf, slurm.conf, cluster YAML files and SLURM_JOB_NODELIST.
 * A list that parses must name each of a few of its names at the index
 * find() gives back, agree with the duplicate search, and compress back
 * into a list that parses to the same names.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "fuzz_common.h"

#include "hostlist.h"

#define MAX_NAMES 4096 /* names expanded for the compress round trip */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[TOPOMATCH_ERRLEN];
	tm_hostlist_t *h = NULL, *h2 = NULL;
	size_t cap = size + 64; /* a name is at most the input plus 18 digits */
	char *name = malloc(cap);
	char *text = fz_strdup(data, size);

	fz_err_init(err);
	/* the bound slurm.conf uses (TM_SLURM_MAX_NODES): the callers all pass
	 * one, and the duplicate search is linear in the names */
	int rc = tm_hostlist_parse(text, INT64_C(1) << 20, &h, err);
	fz_check_err(rc, err);
	if (rc == TOPOMATCH_OK) {
		int64_t n = tm_hostlist_count(h), i, j;
		FZ_ASSERT(n >= 0);
		int dup = tm_hostlist_duplicate(h, &i, &j);
		FZ_ASSERT(dup == 0 || dup == 1 || dup == -TOPOMATCH_ELIMIT ||
			  dup == -TOPOMATCH_ENOMEM);
		if (dup == 1)
			FZ_ASSERT(0 <= i && i < j && j < n);
		int64_t pick[] = { 0, 1, n / 2, n - 1 };
		for (int k = 0; k < 4; k++) {
			if (pick[k] < 0 || pick[k] >= n)
				continue;
			if (tm_hostlist_name(h, pick[k], name, cap) != TOPOMATCH_OK)
				continue;
			int64_t f = tm_hostlist_find(h, name);
			FZ_ASSERT(f >= 0 && f <= pick[k]);
			FZ_ASSERT(dup != 0 || f == pick[k]);
		}
		FZ_ASSERT(tm_hostlist_name(h, n, name, cap) == TOPOMATCH_EINVAL);
		if (n > 0 && n <= MAX_NAMES) {
			char **names = calloc((size_t)n, sizeof(*names)), *c = NULL;
			FZ_ASSERT(names != NULL);
			for (i = 0; i < n; i++) {
				FZ_ASSERT(tm_hostlist_name(h, i, name, cap) == TOPOMATCH_OK);
				names[i] = strdup(name);
			}
			fz_err_init(err);
			rc = tm_hostlist_compress((const char *const *)names, n, &c, err);
			fz_check_err(rc, err);
			FZ_ASSERT(rc == TOPOMATCH_OK);
			fz_err_init(err);
			rc = tm_hostlist_parse(c, 0, &h2, err);
			if (rc != TOPOMATCH_OK)
				fprintf(stderr, "fuzz: '%s' compresses to '%s': %s\n", text, c, err);
			FZ_ASSERT(rc == TOPOMATCH_OK && tm_hostlist_count(h2) == n);
			for (i = 0; i < n; i++) {
				FZ_ASSERT(tm_hostlist_name(h2, i, name, cap) == TOPOMATCH_OK);
				if (strcmp(name, names[i]) != 0)
					fprintf(stderr, "fuzz: '%s' compresses to '%s': name %lld "
						"'%s' became '%s'\n", text, c, (long long)i,
						names[i], name);
				FZ_ASSERT(strcmp(name, names[i]) == 0);
			}
			tm_hostlist_destroy(h2);
			for (i = 0; i < n; i++)
				free(names[i]);
			free(names);
			free(c);
		}
		tm_hostlist_destroy(h);
	}
	free(text);
	free(name);
	return 0;
}
