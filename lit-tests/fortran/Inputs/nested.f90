! A nest of two loops writing with MPI_File_write_at at offsets affine in both
! indices and the rank: offset = 1200*rank + 400*i + 100*j (the Fortran twin
! of lit-tests/runtime/nested.cpp). MPICH's mpi.mod is gfortran's, so the
! program includes mpif.h (docs/fortran.md).
program nested
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, fh, i, j
  integer(kind=MPI_OFFSET_KIND) :: off
  character :: buf(100)

  buf = 'x'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'nested.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, &
                     MPI_INFO_NULL, fh, ierr)
  do i = 0, 2
    do j = 0, 3
      off = 1200_MPI_OFFSET_KIND * rank + 400 * i + 100 * j
      call MPI_File_write_at(fh, off, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
    end do
  end do
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program nested
