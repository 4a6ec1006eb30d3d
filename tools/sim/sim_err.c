/*
 * sim_err.c - error messages of the simulator's modules: one line into
 * the caller's TOPOMATCH_ERRLEN buffer, truncated to fit (as the library's
 * messages are), optionally in front of a message already there.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "sim.h"

#include <stdarg.h>
#include <string.h>

int sim_err(char *err, int status, const char *fmt, ...)
{
	va_list ap;
	if (!err)
		return status;
	va_start(ap, fmt);
	vsnprintf(err, TOPOMATCH_ERRLEN, fmt, ap);
	va_end(ap);
	return status;
}

int sim_err_prefix(char *err, int status, const char *fmt, ...)
{
	char head[TOPOMATCH_ERRLEN], tail[TOPOMATCH_ERRLEN];
	va_list ap;
	if (!err)
		return status;
	snprintf(tail, sizeof(tail), "%s", err);
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	size_t n = strlen(head);
	snprintf(err, TOPOMATCH_ERRLEN, "%s", head);
	if (n + 1 < TOPOMATCH_ERRLEN)
		snprintf(err + n, TOPOMATCH_ERRLEN - n, "%s", tail);
	return status;
}
