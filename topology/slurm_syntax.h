/*
 * slurm_syntax.h - what Slurm's config parser (src/common/parse_config.c)
 * does with a line, shared by the slurm.conf and topology.conf readers.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SLURM_SYNTAX_H
#define TM_SLURM_SYNTAX_H

#include <stddef.h>

/* End of s[b, e) once its comment is cut: a '#' after an even run of
 * backslashes starts a comment. */
static inline size_t tm_slurm_cut_comment(const char *s, size_t b, size_t e)
{
	size_t bs = 0;

	for (size_t i = b; i < e; i++) {
		if (s[i] == '#' && bs % 2 == 0)
			return i;
		bs = s[i] == '\\' ? bs + 1 : 0;
	}
	return e;
}

#endif /* TM_SLURM_SYNTAX_H */
