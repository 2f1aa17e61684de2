! One write per rank with MPI-IO: sio-fc compiles it from the moved tree.
! MPICH's mpi.mod is gfortran's, so the program includes mpif.h.
program app
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, fh
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=16) :: buf
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  buf = 'sio fortran test'
  call MPI_File_open(MPI_COMM_WORLD, 'f.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  off = rank * 16
  call MPI_File_write_at(fh, off, buf, 16, MPI_CHARACTER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program app
