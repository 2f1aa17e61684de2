! A time-step loop around a cell loop, cells interleaved by rank, each step
! after a header gap, nothing called between the steps (issue 15 item 2):
! offset = 512 + t*step + (c*nranks + rank)*100, step = 4*nranks*100 + 512.
! Built with plain mpifort (no plugin, no markers) and traced through
! LD_PRELOAD, the runtime must find the nest on its own.
program nest_nomarkers
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nranks, fh, t, c
  integer(kind=MPI_OFFSET_KIND) :: off, step
  character :: buf(100)

  buf = 'x'
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call MPI_File_open(MPI_COMM_WORLD, 'nest.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, &
                     MPI_INFO_NULL, fh, ierr)
  step = 400_MPI_OFFSET_KIND * nranks + 512
  do t = 0, 2
    do c = 0, 3
      off = 512 + t * step + (c * nranks + rank) * 100_MPI_OFFSET_KIND
      call MPI_File_write_at(fh, off, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE, ierr)
    end do
  end do
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program nest_nomarkers
