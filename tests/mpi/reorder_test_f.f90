! reorder_test_f.f90 - tests/mpi/reorder.sh through the Fortran module:
! prints "fortran world=W new=N rc=R" per process.
! Copyright (C) 2026 The slurm-topomatch authors.
! SPDX-License-Identifier: GPL-2.0-or-later
program reorder_test_f
  use mpi
  use topomatch_mpi
  implicit none
  integer :: ierr, world, newcomm, newrank, rc
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, world, ierr)
  call topomatch_mpi_comm(MPI_COMM_WORLD, newcomm, rc)
  call MPI_Comm_rank(newcomm, newrank, ierr)
  write (*, '(A,I0,A,I0,A,I0)') 'fortran world=', world, ' new=', newrank, ' rc=', rc
  call MPI_Comm_free(newcomm, ierr)
  call MPI_Finalize(ierr)
end program reorder_test_f
