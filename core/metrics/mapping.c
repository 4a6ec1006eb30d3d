/*
 * mapping.c - reading lists of PU ids: constraint files (allowed PUs) and
 * mapping files (the PU of each task, in task order).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "base/textscan.h"
#include "base/tm_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A constraint file lists at most every PU, a mapping file every task:
 * both are small next to a pattern, so 1 GiB of text is plenty. */
#define ID_LIST_MAX_BYTES (INT64_C(1) << 30)

static int push_id(int64_t **ids, int64_t *n, int64_t *cap, int64_t v)
{
	if (*n == *cap) {
		int64_t ncap = *cap ? *cap * 2 : 256;
		int64_t *p = tm_alloc(ncap, sizeof(*p));
		if (!p)
			return TOPOMATCH_ENOMEM;
		if (*n)
			memcpy(p, *ids, (size_t)*n * sizeof(*p));
		free(*ids);
		*ids = p;
		*cap = ncap;
	}
	(*ids)[(*n)++] = v;
	return TOPOMATCH_OK;
}

/* Parse the tokens; `seen` (bound bits) detects repeats when non-NULL. */
static int parse_ids(tm_scan_t *sc, int64_t bound, unsigned char *seen, int64_t max_count,
		     int64_t **ids, int64_t *n, char *err)
{
	int64_t cap = 0;
	tm_token_t tok;
	char shown[64];
	while (tm_scan_skip_empty(sc)) {
		while (tm_scan_token(sc, &tok)) {
			int64_t v;
			if (!tm_tok_int64(&tok, &v))
				return tm_err(err, TOPOMATCH_EPARSE, "%s:%lld: not a PU id: '%s'",
					      sc->name, (long long)tok.line,
					      tm_tok_str(&tok, shown, sizeof(shown)));
			if (v < 0 || v >= bound)
				return tm_err(err, TOPOMATCH_EPARSE,
					      "%s:%lld: PU id %lld out of range [0, %lld)", sc->name,
					      (long long)tok.line, (long long)v, (long long)bound);
			if (seen) {
				if (seen[v / 8] & (1u << (v % 8)))
					return tm_err(err, TOPOMATCH_EPARSE,
						      "%s:%lld: PU id %lld listed twice", sc->name,
						      (long long)tok.line, (long long)v);
				seen[v / 8] |= (unsigned char)(1u << (v % 8));
			}
			if (*n >= max_count)
				return tm_err(err, TOPOMATCH_ELIMIT,
					      "%s:%lld: more ids than expected (%lld)", sc->name,
					      (long long)tok.line, (long long)max_count);
			if (push_id(ids, n, &cap, v) != TOPOMATCH_OK)
				return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", sc->name);
		}
		if (!tm_scan_next_line(sc))
			break;
	}
	return TOPOMATCH_OK;
}

int topomatch_read_id_list(const char *path, int64_t bound, int unique, int64_t max_count,
			   int64_t **out, int64_t *count, char *err)
{
	*out = NULL;
	*count = 0;
	if (bound <= 0)
		return tm_err(err, TOPOMATCH_EINVAL, "%s: no PU ids are valid", path);
	FILE *in = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
	if (!in)
		return tm_err(err, TOPOMATCH_EIO, "%s: %s", path, strerror(errno));
	char *buf;
	size_t len;
	int rc = tm_read_all(in, path, ID_LIST_MAX_BYTES, &buf, &len, err);
	if (in != stdin)
		fclose(in);
	if (rc != TOPOMATCH_OK)
		return rc;
	unsigned char *seen = NULL;
	if (unique && !(seen = tm_zalloc(bound / 8 + 1, 1))) {
		free(buf);
		return tm_err(err, TOPOMATCH_ENOMEM, "%s: out of memory", path);
	}
	tm_scan_t sc;
	tm_scan_init(&sc, buf, len, path, "#");
	int64_t *ids = NULL, n = 0;
	rc = parse_ids(&sc, bound, seen, max_count > 0 ? max_count : bound, &ids, &n, err);
	free(seen);
	free(buf);
	if (rc == TOPOMATCH_OK && n == 0)
		rc = tm_err(err, TOPOMATCH_EPARSE, "%s:1: no PU ids in the file", path);
	if (rc != TOPOMATCH_OK) {
		free(ids);
		return rc;
	}
	*out = ids;
	*count = n;
	return TOPOMATCH_OK;
}
