! topomatch_mpi_f.f90 - Fortran interface of topomatch_mpi.c (module
! topomatch_mpi): renumber the ranks as slurm-topomatch mapped them
! (TOPOMATCH_RANK).  Handles are default INTEGERs, as with `use mpi`;
! with `use mpi_f08`, pass comm%MPI_VAL and build the result with
! type(MPI_Comm) :: c; c%MPI_VAL = newcomm.  See topomatch_mpi(3).
!
! Copyright (C) 2026 The slurm-topomatch authors.
! SPDX-License-Identifier: GPL-2.0-or-later
module topomatch_mpi
  use, intrinsic :: iso_c_binding, only: c_int
  implicit none
  private
  public :: topomatch_mpi_comm, TOPOMATCH_MPI_REORDERED, TOPOMATCH_MPI_NOT_REORDERED

  integer, parameter :: TOPOMATCH_MPI_REORDERED = 0
  integer, parameter :: TOPOMATCH_MPI_NOT_REORDERED = -1

  interface
    ! MPI_Fint is a C int with default Fortran INTEGERs (4 bytes)
    function comm_fint(comm, newcomm) bind(C, name="topomatch_mpi_comm_fint") result(rc)
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: newcomm
      integer(c_int) :: rc
    end function comm_fint
  end interface

contains

  ! call topomatch_mpi_comm(MPI_COMM_WORLD, newcomm, ierr): ierr is
  ! TOPOMATCH_MPI_REORDERED, TOPOMATCH_MPI_NOT_REORDERED or an MPI error.
  subroutine topomatch_mpi_comm(comm, newcomm, ierr)
    integer, intent(in) :: comm
    integer, intent(out) :: newcomm, ierr
    integer(c_int) :: nc
    ierr = int(comm_fint(int(comm, c_int), nc))
    newcomm = int(nc)
  end subroutine topomatch_mpi_comm

end module topomatch_mpi
