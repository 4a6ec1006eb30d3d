/*
 * tmtest.h - helpers shared by the Check unit tests.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TMTEST_H
#define TMTEST_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topomatch.h"

/* Path of a file under tests/data (top_srcdir comes from the harness). */
static inline const char *tm_data(const char *rel)
{
	static char buf[4096]; /* test code only: single-threaded */
	const char *top = getenv("top_srcdir");
	snprintf(buf, sizeof(buf), "%s/tests/data/%s", top ? top : ".", rel);
	return buf;
}

/* Assert that `hay` contains `needle`, showing both on failure. */
#define ck_assert_contains(hay, needle)                                                 \
	ck_assert_msg(strstr((hay), (needle)) != NULL, "'%s' does not contain '%s'", (hay), \
		      (needle))

/* Run one suite; exit status for the automake harness. */
static inline int tm_run_suite(Suite *s)
{
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_ENV);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif /* TMTEST_H */
