/*
 * topomatch.c - the `topomatch` command: dispatch to subcommands.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "config.h"
#include "cli.h"

#include <malloc.h>
#include <string.h>

int cmd_map(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_topo(int argc, char **argv);
int cmd_rankfile(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_explain(int argc, char **argv);

static const struct {
	const char *name;
	int (*run)(int, char **);
	const char *summary;
} commands[] = {
	{ "map", cmd_map, "compute a mapping of a pattern's tasks onto a topology" },
	{ "eval", cmd_eval, "metrics of a given mapping" },
	{ "gen", cmd_gen, "generate communication patterns" },
	{ "convert", cmd_convert, "Open MPI monitoring output to a pattern" },
	{ "topo", cmd_topo, "check, show, export and import cluster descriptions" },
	{ "rankfile", cmd_rankfile, "an Open MPI rankfile for the ranks of a pattern" },
	{ "sim", cmd_sim, "replay a job trace and compare node-selection policies" },
	{ "explain", cmd_explain,
	  "where a Slurm job's ranks run and the traffic between its switches" },
};

static void usage(FILE *out)
{
	fprintf(out, "Usage: topomatch COMMAND [OPTIONS]\n"
		     "Topology-aware process mapping (slurm-topomatch %s).\n\nCommands:\n",
		topomatch_version());
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'topomatch COMMAND --help' and 'man topomatch-COMMAND' tell more.\n");
}

/*
 * A mapping allocates and frees arrays of the task count at every level
 * and in every Scotch call; glibc gives the larger ones back to the
 * kernel at each free (mmap, heap trimming), and every new one then
 * faults its pages in again: 7 to 14 % of auto's samples on a 2-core VM
 * (bench/README.md, budget.sh).  A command runs one mapping and exits,
 * so it keeps freed memory for reuse instead (up to glibc's largest mmap
 * threshold, 32 MiB a block); its peak RSS does not grow, since what is
 * kept is reused.  slurmctld, a long-lived process, gets the same from
 * glibc's own dynamic thresholds after its first decisions.
 */
static void keep_freed_memory(void)
{
#if defined(M_MMAP_THRESHOLD) && defined(M_TRIM_THRESHOLD)
	mallopt(M_MMAP_THRESHOLD, 32 << 20);
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

int main(int argc, char **argv)
{
	keep_freed_memory();
	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	const char *c = argv[1];
	if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
		if (!strcmp(c, "help") && argc > 2) {
			char *sub[] = { argv[2], "--help", NULL };
			c = argv[2];
			for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
				if (!strcmp(c, commands[i].name))
					return commands[i].run(2, sub);
		}
		usage(stdout);
		return CLI_OK;
	}
	if (!strcmp(c, "--version") || !strcmp(c, "-V")) {
		printf("topomatch (slurm-topomatch) %s\n", topomatch_version());
		return CLI_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(c, commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "topomatch: unknown command '%s' (", c);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(stderr, "%s%s", i ? ", " : "", commands[i].name);
	fprintf(stderr, ")\n");
	usage(stderr);
	return CLI_USAGE;
}
