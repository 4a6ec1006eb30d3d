/*
 * commprof_test.c - the C program that tests/mpi/commprof.sh runs under
 * contrib/commprof's profiler; the script knows the bytes each mode moves
 * and compares the written matrices with them.
 *
 *   ring ITER    each rank sends 1000 bytes (25 elements of a 40-byte
 *                vector type) to rank+1, ITER times, plus a send to
 *                MPI_PROC_NULL; receives with MPI_ANY_SOURCE
 *   alltoall     MPI_Alltoall of 3 doubles twice; MPI_Alltoallv of
 *                (i+1)*(j+1) ints from i to j, once normal, once in place
 *   bcast ROOT   MPI_Bcast of 100 ints from ROOT
 *   halo ITER    persistent halo on a periodic line: 100 bytes to the left
 *                (MPI_Ssend_init), 200 to the right (MPI_Send_init),
 *                MPI_Startall for the first ITER-2 iterations, MPI_Start
 *                one by one for the last 2
 *   persist      many persistent requests (the profiler's table grows,
 *                loses entries, sees freed handles reused): 300 sends of 1
 *                byte to rank+1 started; every other one freed; 300 new
 *                ones of 2 bytes; the 150 left and the new ones started:
 *                1050 bytes to rank+1
 *   coll ROOT    MPI_Reduce of 10 ints to ROOT, MPI_Allreduce of 7 doubles,
 *                MPI_Allgather of 5 ints, MPI_Gather of 3 ints to ROOT,
 *                MPI_Scatter of 2 ints from ROOT, MPI_Barrier
 *   split        (even size) the even and the odd ranks in a communicator
 *                each, in reverse order: sub-rank 0 sends 77 bytes to
 *                sub-rank 1 and broadcasts 10 bytes; MPI_COMM_WORLD
 *                broadcasts 1000 bytes from 0; over an intercommunicator
 *                between the two, sub-rank k sends 5 bytes to remote rank
 *                k; a barrier on the intercommunicator
 * Prints nothing; exits 0.
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size;

static void ring(int iter)
{
	MPI_Datatype vec;
	int *sbuf = calloc(25 * 20, sizeof(int)), *rbuf = calloc(25 * 20, sizeof(int));
	MPI_Request req;

	/* 5 blocks of 2 ints, stride 4: 40 bytes of data, extent 72 */
	MPI_Type_vector(5, 2, 4, MPI_INT, &vec);
	MPI_Type_commit(&vec);
	for (int it = 0; it < iter; it++) {
		MPI_Isend(sbuf, 25, vec, (rank + 1) % size, it, MPI_COMM_WORLD, &req);
		MPI_Send(sbuf, 25, vec, MPI_PROC_NULL, it, MPI_COMM_WORLD);
		MPI_Recv(rbuf, 25, vec, MPI_ANY_SOURCE, it, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Wait(&req, MPI_STATUS_IGNORE);
	}
	MPI_Type_free(&vec);
	free(sbuf);
	free(rbuf);
}

static void alltoall(void)
{
	double *d = calloc((size_t)size * 3, sizeof(double)), *e = calloc((size_t)size * 3, sizeof(double));
	int *sc = malloc((size_t)size * sizeof(int)), *sd = malloc((size_t)size * sizeof(int));
	int total = 0;

	for (int it = 0; it < 2; it++)
		MPI_Alltoall(d, 3, MPI_DOUBLE, e, 3, MPI_DOUBLE, MPI_COMM_WORLD);
	/* symmetric counts, as MPI_IN_PLACE requires */
	for (int j = 0; j < size; j++) {
		sc[j] = (rank + 1) * (j + 1);
		sd[j] = total;
		total += sc[j];
	}
	int *a = calloc((size_t)total, sizeof(int)), *b = calloc((size_t)total, sizeof(int));
	MPI_Alltoallv(a, sc, sd, MPI_INT, b, sc, sd, MPI_INT, MPI_COMM_WORLD);
	MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, sc, sd, MPI_INT,
		      MPI_COMM_WORLD);
	free(a);
	free(b);
	free(d);
	free(e);
	free(sc);
	free(sd);
}

static void bcast(int root)
{
	int buf[100] = { 0 };

	MPI_Bcast(buf, 100, MPI_INT, root, MPI_COMM_WORLD);
}

static void halo(int iter)
{
	char sl[100] = { 0 }, sr[200] = { 0 }, rl[200], rr[100];
	int left = (rank + size - 1) % size, right = (rank + 1) % size;
	MPI_Request req[4];

	MPI_Ssend_init(sl, 100, MPI_CHAR, left, 1, MPI_COMM_WORLD, &req[0]);
	MPI_Send_init(sr, 200, MPI_CHAR, right, 2, MPI_COMM_WORLD, &req[1]);
	MPI_Recv_init(rl, 200, MPI_CHAR, left, 2, MPI_COMM_WORLD, &req[2]);
	MPI_Recv_init(rr, 100, MPI_CHAR, right, 1, MPI_COMM_WORLD, &req[3]);
	for (int it = 0; it < iter; it++) {
		if (it < iter - 2) {
			MPI_Startall(4, req);
		} else {
			for (int k = 3; k >= 0; k--)
				MPI_Start(&req[k]);
		}
		MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
	}
	for (int k = 0; k < 4; k++)
		MPI_Request_free(&req[k]);
}

static void persist(void)
{
	enum { K = 300 };
	MPI_Request s[K], s2[K], r[K], r2[K];
	char out[2 * K] = { 0 }, in[2 * K];
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	for (int k = 0; k < K; k++) {
		MPI_Send_init(out + k, 1, MPI_CHAR, right, k, MPI_COMM_WORLD, &s[k]);
		MPI_Recv_init(in + k, 1, MPI_CHAR, left, k, MPI_COMM_WORLD, &r[k]);
	}
	MPI_Startall(K, r);
	MPI_Startall(K, s);
	MPI_Waitall(K, s, MPI_STATUSES_IGNORE);
	MPI_Waitall(K, r, MPI_STATUSES_IGNORE);
	for (int k = 0; k < K; k += 2) {
		MPI_Request_free(&s[k]);
		MPI_Request_free(&r[k]);
	}
	for (int k = 0; k < K; k++) {
		MPI_Send_init(out + 2 * k, 2, MPI_CHAR, right, K + k, MPI_COMM_WORLD, &s2[k]);
		MPI_Recv_init(in + 2 * k, 2, MPI_CHAR, left, K + k, MPI_COMM_WORLD, &r2[k]);
	}
	for (int k = 1; k < K; k += 2) {
		MPI_Start(&r[k]);
		MPI_Start(&s[k]);
	}
	MPI_Startall(K, r2);
	MPI_Startall(K, s2);
	for (int k = 1; k < K; k += 2) {
		MPI_Wait(&s[k], MPI_STATUS_IGNORE);
		MPI_Wait(&r[k], MPI_STATUS_IGNORE);
		MPI_Request_free(&s[k]);
		MPI_Request_free(&r[k]);
	}
	MPI_Waitall(K, s2, MPI_STATUSES_IGNORE);
	MPI_Waitall(K, r2, MPI_STATUSES_IGNORE);
	for (int k = 0; k < K; k++) {
		MPI_Request_free(&s2[k]);
		MPI_Request_free(&r2[k]);
	}
}

static void coll(int root)
{
	int a[10] = { 0 }, b[10], *g = calloc((size_t)size * 5, sizeof(int));
	double x[7] = { 0 }, y[7];

	MPI_Reduce(a, b, 10, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
	MPI_Allreduce(x, y, 7, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allgather(a, 5, MPI_INT, g, 5, MPI_INT, MPI_COMM_WORLD);
	if (rank == root)
		MPI_Gather(MPI_IN_PLACE, 3, MPI_INT, g, 3, MPI_INT, root, MPI_COMM_WORLD);
	else
		MPI_Gather(a, 3, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD);
	MPI_Scatter(g, 2, MPI_INT, b, 2, MPI_INT, root, MPI_COMM_WORLD);
	MPI_Barrier(MPI_COMM_WORLD);
	free(g);
}

static void split(void)
{
	MPI_Comm sub, inter;
	char buf[1000] = { 0 };
	int srank;

	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &sub);
	MPI_Comm_rank(sub, &srank);
	if (srank == 0)
		MPI_Send(buf, 77, MPI_BYTE, 1, 0, sub);
	else if (srank == 1)
		MPI_Recv(buf, 77, MPI_BYTE, 0, 0, sub, MPI_STATUS_IGNORE);
	MPI_Bcast(buf, 10, MPI_BYTE, 0, sub);
	MPI_Bcast(buf, 1000, MPI_BYTE, 0, MPI_COMM_WORLD);
	/* the other group's leader: its sub-rank 0, the highest rank of the
	 * other parity */
	int other = rank % 2 ? size - 2 : size - 1;
	MPI_Intercomm_create(sub, 0, MPI_COMM_WORLD, other, 9, &inter);
	MPI_Request req;
	MPI_Isend(buf, 5, MPI_BYTE, srank, 3, inter, &req);
	MPI_Recv(buf + 100, 5, MPI_BYTE, srank, 3, inter, MPI_STATUS_IGNORE);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Barrier(inter);
	MPI_Comm_free(&inter);
	MPI_Comm_free(&sub);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	int arg = argc > 2 ? atoi(argv[2]) : 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (strcmp(mode, "ring") == 0)
		ring(arg);
	else if (strcmp(mode, "alltoall") == 0)
		alltoall();
	else if (strcmp(mode, "bcast") == 0)
		bcast(arg);
	else if (strcmp(mode, "halo") == 0)
		halo(arg);
	else if (strcmp(mode, "persist") == 0)
		persist();
	else if (strcmp(mode, "coll") == 0)
		coll(arg);
	else if (strcmp(mode, "split") == 0)
		split();
	else if (rank == 0)
		fprintf(stderr, "commprof_test: unknown mode '%s'\n", mode);
	MPI_Finalize();
	return 0;
}
