/*
 * topomatch_mpi.h - renumber an MPI application's ranks as slurm-topomatch
 * mapped them (TOPOMATCH_RANK), for sites whose Slurm starts the tasks
 * with its default layout (SPANK plugin argument layout=reorder).
 *
 * Two files, no other dependency than MPI: compile topomatch_mpi.c with
 * the application (mpicc -c topomatch_mpi.c), see README.md and
 * topomatch_mpi(3).
 *
 * Copyright (C) 2026 The slurm-topomatch authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef TOPOMATCH_MPI_H
#define TOPOMATCH_MPI_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* *newcomm numbers the processes by their TOPOMATCH_RANK. */
#define TOPOMATCH_MPI_REORDERED 0
/* Some process of comm has no valid TOPOMATCH_RANK, or two have the same:
 * *newcomm is MPI_Comm_dup(comm), the same order as comm, on every
 * process.  (Negative: MPI error codes are never negative.) */
#define TOPOMATCH_MPI_NOT_REORDERED (-1)

/*
 * Collective over comm: a new communicator with the same processes in
 * which each process's rank is its TOPOMATCH_RANK (a decimal number in
 * 0 .. size-1, distinct over comm; checked on every process).  Returns
 * TOPOMATCH_MPI_REORDERED, TOPOMATCH_MPI_NOT_REORDERED (every process
 * returns the same), or an MPI error code (only when comm's error
 * handler returns errors) with *newcomm = MPI_COMM_NULL.  Free *newcomm
 * with MPI_Comm_free.  Set TOPOMATCH_MPI_VERBOSE=1 to have rank 0 of comm
 * say on stderr why ranks were not reordered.
 */
int topomatch_mpi_comm(MPI_Comm comm, MPI_Comm *newcomm);

/* The same on Fortran handles (module topomatch_mpi, topomatch_mpi_f.f90). */
int topomatch_mpi_comm_fint(MPI_Fint comm, MPI_Fint *newcomm);

#ifdef __cplusplus
}
#endif

#endif /* TOPOMATCH_MPI_H */
