/*
 * fuzz_common.h - helpers shared by the libFuzzer harnesses of tests/fuzz/.
 *
 * Each harness defines LLVMFuzzerTestOneInput(); it is linked either with
 * clang's -fsanitize=fuzzer (libFuzzer's main) or with replay_main.c (a
 * plain driver that runs the inputs given on the command line once each).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_FUZZ_COMMON_H
#define TM_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topomatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A property of the code under test failed: say which, then abort so that
 * libFuzzer saves the input as a crash. */
#define FZ_ASSERT(cond)                                                                    \
	do {                                                                               \
		if (!(cond)) {                                                             \
			fprintf(stderr, "%s:%d: fuzz property failed: %s\n", __FILE__,     \
				__LINE__, #cond);                                          \
			abort();                                                           \
		}                                                                          \
	} while (0)

/*
 * The error-message contract of topomatch.h: on failure, err holds one
 * non-empty line without a newline, NUL-terminated inside TOPOMATCH_ERRLEN.
 * The buffer is filled with a marker first so that a message that was
 * never written shows.
 */
static inline void fz_err_init(char *err)
{
	memset(err, 0x7f, TOPOMATCH_ERRLEN);
}

static inline void fz_check_err(int rc, const char *err)
{
	if (rc == TOPOMATCH_OK)
		return;
	const char *nul = memchr(err, '\0', TOPOMATCH_ERRLEN);
	if (!nul || nul == err || err[0] == 0x7f || memchr(err, '\n', (size_t)(nul - err))) {
		fprintf(stderr, "fuzz: status %d with a bad message: '%.*s'\n", rc,
			TOPOMATCH_ERRLEN, err);
		abort();
	}
	FZ_ASSERT(rc > 0 && rc <= TOPOMATCH_EUNSUPPORTED);
}

/* A NUL-terminated copy (malloc'd, exactly size + 1 bytes). */
static inline char *fz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input cut at `sep` bytes into at most `max` malloc'd copies, each
 * exactly as long as its piece (no NUL added unless nul != 0); returns the
 * number of pieces, lengths in len[]. */
static inline int fz_split(const uint8_t *data, size_t size, uint8_t sep, int max, int nul,
			   char **piece, size_t *len)
{
	int n = 0;
	size_t b = 0;
	for (size_t i = 0; i <= size && n < max; i++) {
		if (i < size && data[i] != sep)
			continue;
		size_t l = i - b;
		piece[n] = malloc(l + (nul ? 1 : 0) + (l == 0 && !nul));
		if (!piece[n])
			abort();
		if (l)
			memcpy(piece[n], data + b, l);
		if (nul)
			piece[n][l] = '\0';
		len[n++] = l;
		b = i + 1;
	}
	return n;
}

/* A mkdtemp() template under $TMPDIR (run.sh points it into the build
 * directory, so that a crash leaves nothing in /tmp), else /tmp. */
static inline void fz_tmpdir(char *buf, size_t len, const char *what)
{
	const char *t = getenv("TMPDIR");
	if ((size_t)snprintf(buf, len, "%s/tm-fuzz-%s-XXXXXX", t && *t ? t : "/tmp", what) >= len)
		abort();
}

#endif /* TM_FUZZ_COMMON_H */
