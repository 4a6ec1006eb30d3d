/*
 * reorder_test.c - one process of tests/mpi/reorder.sh: calls
 * topomatch_mpi_comm(MPI_COMM_WORLD) and prints, per process,
 *   world=W env=E new=N rc=R size=S same=Y|N ok=Y|N
 * E is TOPOMATCH_RANK ("-" when unset); `same` says whether every process
 * got the same return code; `ok` whether the new communicator works: the
 * process of new rank 0 broadcasts its world rank, and an allreduce over
 * it sums to 0 + 1 + ... + size-1 when it is used in rank order.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <stdio.h>
#include <stdlib.h>

#include "topomatch_mpi.h"

int main(int argc, char **argv)
{
	MPI_Comm nc;
	int world, size, newrank = -1, newsize = -1, rcmin, rcmax, root = -1, w0 = -1, sum = -1;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &world);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int rc = topomatch_mpi_comm(MPI_COMM_WORLD, &nc);
	MPI_Allreduce(&rc, &rcmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&rc, &rcmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	int ok = nc != MPI_COMM_NULL;
	if (ok) {
		MPI_Comm_rank(nc, &newrank);
		MPI_Comm_size(nc, &newsize);
		/* world rank of new rank 0, and the sum of new ranks */
		root = newrank == 0 ? world : -1;
		w0 = root;
		MPI_Bcast(&w0, 1, MPI_INT, 0, nc);
		MPI_Allreduce(&newrank, &sum, 1, MPI_INT, MPI_SUM, nc);
		ok = newsize == size && sum == size * (size - 1) / 2 && w0 >= 0;
	}
	const char *env = getenv("TOPOMATCH_RANK");
	printf("world=%d env=%s new=%d rc=%d size=%d same=%s ok=%s w0=%d\n", world,
	       env ? (*env ? env : "''") : "-", newrank, rc, size, rcmin == rcmax ? "Y" : "N",
	       ok ? "Y" : "N", w0);
	fflush(stdout);
	if (nc != MPI_COMM_NULL)
		MPI_Comm_free(&nc);
	MPI_Finalize();
	return 0;
}
