/*
 * tm_spank_env.h - a job's spank_job_env made safe for slurmctld 22.05.
 *
 * slurmctld builds the environment of PrologSlurmctld, EpilogSlurmctld and
 * MailProg with job_common_env_vars() (src/slurmctld/job_mgr.c): it merges
 * spank_job_env into a new array with env_array_merge(), which skips an
 * entry without '=', with a name of 256 characters or more or a value of
 * ENV_BUFSIZE (256 KiB) or more, and keeps one entry per name; then
 * valid_spank_job_env() walks spank_job_env_size entries of that shorter
 * array, past its end: slurmctld crashes (seen: SIGSEGV in setenvpf while
 * starting EpilogSlurmctld).  Any user can submit such entries.
 * select/topomatch removes them from a job before it starts: they never
 * reach any environment anyway (the merge drops them).
 *
 * Plain C, no Slurm header, so that the unit tests call it.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TM_SPANK_ENV_H
#define TM_SPANK_ENV_H

#include <stdint.h>

/* env_array_merge's limits (src/common/env.c, 22.05): name[256] and
 * ENV_BUFSIZE bytes for the value, each with its NUL */
#define TM_SPANK_ENV_NAME_MAX 255
#define TM_SPANK_ENV_VALUE_MAX (256 * 1024 - 1)

/*
 * The merge also costs slurmctld time that grows with the square of the
 * entry count (each name is looked up in the array built so far) and the
 * copy of every value, under the job write lock: 65,535 entries froze it
 * for longer than clients wait.  Legitimate jobs carry a few entries (the
 * pattern takes at most 8 of 64 KiB); the caps below keep the merge to
 * milliseconds.
 */
#define TM_SPANK_ENV_MAX_ENTRIES 4096

/* select/topomatch's decision line, for EpilogSlurmctld (which sees it
 * as SPANK_TOPOMATCH_DECISION): set by the plugin as the job starts, a
 * user's own removed */
#define TM_DECISION_ENV "TOPOMATCH_DECISION="
#define TM_SPANK_ENV_MAX_BYTES (4 * 1024 * 1024)

/*
 * Reorder env[0 .. n-1] so that its first entries are those kept, in their
 * order: each well-formed entry within the limits whose name no later
 * entry has (the merge keeps the last value of a name), as long as there
 * are at most max_entries of them with at most max_bytes of text in all;
 * NULL entries (the merge would stop there) are dropped.  Returns how many
 * (the entries from there to n-1 are the dropped ones, for the caller to
 * free), or -1 when out of memory (env unchanged).
 */
int64_t tm_spank_env_repair(char **env, int64_t n, int64_t max_entries, int64_t max_bytes);

#endif /* TM_SPANK_ENV_H */
