/*
 * convert_ring.c - a ring whose exact traffic the convert tests know in
 * advance (tests/mpi/convert.sh, tests/cli/convert.sh).
 *
 * Rank r of n sends RIGHT_MSGS messages of (r + 1) * RIGHT_BYTES bytes to
 * rank (r + 1) mod n, then LEFT_MSGS messages of (r + 1) * LEFT_BYTES bytes
 * to rank (r - 1) mod n, all with MPI_BYTE and user tags (Open MPI's "E"
 * lines).  Every sender has its own sizes and the two directions differ,
 * so a transposed or mis-attributed matrix cannot pass:
 *   C(r, r+1) = 10 * 1000 * (r + 1)  bytes,  10 messages
 *   C(r, r-1) =  5 *  100 * (r + 1)  bytes,   5 messages
 * (summed when n = 2, where both neighbours are the same rank).
 * With the argument "coll" it ends with an MPI_Allreduce and an
 * MPI_Barrier, so that the monitoring output also has collective lines
 * (I with pml_monitoring_enable 2, and C), whose volumes depend on Open
 * MPI's algorithms and are not part of the expected matrix.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RIGHT_MSGS 10
#define RIGHT_BYTES 1000
#define LEFT_MSGS 5
#define LEFT_BYTES 100

static void check(int rc, const char *what)
{
	if (rc != MPI_SUCCESS) {
		fprintf(stderr, "convert_ring: %s failed\n", what);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

/* count messages of `bytes` bytes to `to`, as many received from `from`
 * (whose size is its own (rank + 1) x unit, hence the big receive buffer) */
static void exchange(char *sbuf, char *rbuf, int bytes, int cap, int to, int from, int count,
		     int tag)
{
	for (int k = 0; k < count; k++)
		check(MPI_Sendrecv(sbuf, bytes, MPI_BYTE, to, tag, rbuf, cap, MPI_BYTE, from, tag,
				   MPI_COMM_WORLD, MPI_STATUS_IGNORE),
		      "MPI_Sendrecv");
}

int main(int argc, char **argv)
{
	int rank, n;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	int cap = n * RIGHT_BYTES; /* the largest message: rank n-1's */
	char *sbuf = calloc((size_t)cap, 1), *rbuf = malloc((size_t)cap);
	if (!sbuf || !rbuf) {
		fprintf(stderr, "convert_ring: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	if (n > 1) {
		int right = (rank + 1) % n, left = (rank + n - 1) % n;
		exchange(sbuf, rbuf, (rank + 1) * RIGHT_BYTES, cap, right, left, RIGHT_MSGS, 1);
		exchange(sbuf, rbuf, (rank + 1) * LEFT_BYTES, cap, left, right, LEFT_MSGS, 2);
	}
	if (argc > 1 && !strcmp(argv[1], "coll")) {
		int x = rank, sum = 0;
		check(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
		check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
