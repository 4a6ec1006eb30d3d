/*
 * topomatch_mpi.c - see topomatch_mpi.h.
 *
 * The check needs no array of size `size`: every process first says
 * whether its TOPOMATCH_RANK is a number in 0 .. size-1; then
 * MPI_Comm_split(comm, 0, key) orders the processes by key (ties by their
 * rank in comm), and the keys are distinct exactly when every process's
 * new rank equals its key.  Two MPI_Allreduce of one int, one split.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include "topomatch_mpi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TOPOMATCH_RANK when it is a canonical decimal number below size (no
 * sign, blank or leading zero: what the SPANK plugin writes), else -1. */
static int env_rank(int size)
{
	const char *v = getenv("TOPOMATCH_RANK");
	long r = 0;
	if (!v || !*v || (v[0] == '0' && v[1]))
		return -1;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return -1;
		r = r * 10 + (*v - '0');
		if (r >= size)
			return -1;
	}
	return (int)r;
}

/* Why ranks are not reordered, from rank 0 of comm, with
 * TOPOMATCH_MPI_VERBOSE set (and not 0). */
static void say(MPI_Comm comm, const char *why, int nbad, int size)
{
	const char *v = getenv("TOPOMATCH_MPI_VERBOSE");
	int me = -1;
	MPI_Comm_rank(comm, &me);
	if (me != 0 || !v || !*v || !strcmp(v, "0"))
		return;
	if (nbad)
		fprintf(stderr, "topomatch_mpi: %s on %d of %d processes; ranks not reordered\n",
			why, nbad, size);
	else
		fprintf(stderr, "topomatch_mpi: %s; ranks not reordered\n", why);
}

/* The fallback: the same order as comm, on every process. */
static int same_order(MPI_Comm comm, MPI_Comm *newcomm)
{
	int rc = MPI_Comm_dup(comm, newcomm);
	if (rc != MPI_SUCCESS) {
		*newcomm = MPI_COMM_NULL;
		return rc;
	}
	return TOPOMATCH_MPI_NOT_REORDERED;
}

/* The number of processes of comm where `bad` is set, into *count. */
static int count_bad(MPI_Comm comm, int bad, int *count)
{
	return MPI_Allreduce(&bad, count, 1, MPI_INT, MPI_SUM, comm);
}

int topomatch_mpi_comm(MPI_Comm comm, MPI_Comm *newcomm)
{
	int size, newrank, nbad, rc;
	*newcomm = MPI_COMM_NULL;
	if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
		return rc;
	int key = env_rank(size);
	if ((rc = count_bad(comm, key < 0, &nbad)) != MPI_SUCCESS)
		return rc;
	if (nbad) {
		say(comm, "TOPOMATCH_RANK missing or not in 0 .. size-1", nbad, size);
		return same_order(comm, newcomm);
	}
	if ((rc = MPI_Comm_split(comm, 0, key, newcomm)) != MPI_SUCCESS) {
		*newcomm = MPI_COMM_NULL;
		return rc;
	}
	if ((rc = MPI_Comm_rank(*newcomm, &newrank)) != MPI_SUCCESS ||
	    (rc = count_bad(comm, newrank != key, &nbad)) != MPI_SUCCESS) {
		MPI_Comm_free(newcomm);
		*newcomm = MPI_COMM_NULL;
		return rc;
	}
	if (!nbad)
		return TOPOMATCH_MPI_REORDERED;
	/* some keys repeat: their order would be comm's, not the mapping's */
	say(comm, "TOPOMATCH_RANK values are not distinct", 0, size);
	MPI_Comm_free(newcomm);
	return same_order(comm, newcomm);
}

int topomatch_mpi_comm_fint(MPI_Fint comm, MPI_Fint *newcomm)
{
	MPI_Comm c;
	int rc = topomatch_mpi_comm(MPI_Comm_f2c(comm), &c);
	*newcomm = MPI_Comm_c2f(c);
	return rc;
}
