! commprof_test_f.f90 - tests/mpi/commprof.sh's Fortran program (`use mpi`,
! the same entry points as mpif.h): the modes of commprof_test.c that move
! the same bytes, so the script expects the same matrices.
!   ring ITER   1000 bytes (250 INTEGERs) to rank+1, ITER times, plus a send
!               to MPI_PROC_NULL; receives with MPI_ANY_SOURCE
!   alltoall    MPI_Alltoall of 3 DOUBLE PRECISION twice; MPI_Alltoallv of
!               (i+1)*(j+1) INTEGERs from i to j, normal and MPI_IN_PLACE
!               (with zero send counts, which MPI_IN_PLACE makes ignored)
!   bcast ROOT  MPI_Bcast of 100 INTEGERs from ROOT
!   halo ITER   persistent halo: 100 bytes left (MPI_Ssend_init), 200 right
!               (MPI_Send_init); MPI_Startall, then MPI_Start for the last 2
! Copyright (C) 2026 The slurm-topomatch authors.
! SPDX-License-Identifier: GPL-2.0-or-later
program commprof_test_f
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, arg
  character(len=32) :: mode, argstr

  call get_command_argument(1, mode)
  call get_command_argument(2, argstr)
  arg = 0
  if (len_trim(argstr) > 0) read (argstr, *) arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  select case (trim(mode))
  case ('ring')
    call ring(arg)
  case ('alltoall')
    call alltoall()
  case ('bcast')
    call bcast(arg)
  case ('halo')
    call halo(arg)
  case default
    if (rank == 0) write (0, '(3A)') "commprof_test_f: unknown mode '", trim(mode), "'"
  end select
  call MPI_Finalize(ierr)

contains

  subroutine ring(iter)
    integer, intent(in) :: iter
    integer :: sbuf(250), rbuf(250), req, it
    sbuf = 0
    do it = 1, iter
      call MPI_Isend(sbuf, 250, MPI_INTEGER, mod(rank + 1, nprocs), it, MPI_COMM_WORLD, req, ierr)
      call MPI_Send(sbuf, 250, MPI_INTEGER, MPI_PROC_NULL, it, MPI_COMM_WORLD, ierr)
      call MPI_Recv(rbuf, 250, MPI_INTEGER, MPI_ANY_SOURCE, it, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
    end do
  end subroutine ring

  subroutine alltoall()
    double precision, allocatable :: d(:), e(:)
    integer, allocatable :: sc(:), sd(:), zc(:), a(:), b(:)
    integer :: j, total, it
    allocate (d(3 * nprocs), e(3 * nprocs), sc(nprocs), sd(nprocs), zc(nprocs))
    d = 0
    zc = 0
    do it = 1, 2
      call MPI_Alltoall(d, 3, MPI_DOUBLE_PRECISION, e, 3, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, ierr)
    end do
    total = 0
    do j = 1, nprocs
      sc(j) = (rank + 1) * j
      sd(j) = total
      total = total + sc(j)
    end do
    allocate (a(total), b(total))
    a = 0
    call MPI_Alltoallv(a, sc, sd, MPI_INTEGER, b, sc, sd, MPI_INTEGER, MPI_COMM_WORLD, ierr)
    call MPI_Alltoallv(MPI_IN_PLACE, zc, zc, MPI_INTEGER, b, sc, sd, MPI_INTEGER, &
                       MPI_COMM_WORLD, ierr)
  end subroutine alltoall

  subroutine bcast(root)
    integer, intent(in) :: root
    integer :: buf(100)
    buf = 0
    call MPI_Bcast(buf, 100, MPI_INTEGER, root, MPI_COMM_WORLD, ierr)
  end subroutine bcast

  subroutine halo(iter)
    integer, intent(in) :: iter
    character :: sl(100), sr(200), rl(200), rr(100)
    integer :: req(4), left, right, it, k
    sl = 'a'
    sr = 'b'
    left = mod(rank + nprocs - 1, nprocs)
    right = mod(rank + 1, nprocs)
    call MPI_Ssend_init(sl, 100, MPI_CHARACTER, left, 1, MPI_COMM_WORLD, req(1), ierr)
    call MPI_Send_init(sr, 200, MPI_CHARACTER, right, 2, MPI_COMM_WORLD, req(2), ierr)
    call MPI_Recv_init(rl, 200, MPI_CHARACTER, left, 2, MPI_COMM_WORLD, req(3), ierr)
    call MPI_Recv_init(rr, 100, MPI_CHARACTER, right, 1, MPI_COMM_WORLD, req(4), ierr)
    do it = 1, iter
      if (it <= iter - 2) then
        call MPI_Startall(4, req, ierr)
      else
        do k = 4, 1, -1
          call MPI_Start(req(k), ierr)
        end do
      end if
      call MPI_Waitall(4, req, MPI_STATUSES_IGNORE, ierr)
    end do
    do k = 1, 4
      call MPI_Request_free(req(k), ierr)
    end do
  end subroutine halo
end program commprof_test_f
