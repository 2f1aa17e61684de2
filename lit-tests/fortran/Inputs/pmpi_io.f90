! The calls of Inputs/mpi_io.f90 through the Fortran profiling names
! (PMPI_FILE_OPEN, ... : pmpi_file_open_ and friends, f08.test), which MPICH's
! libmpichfort defines next to mpi_file_open_; they call the C MPI_ names.
program pmpi_io
  use mpi
  implicit none
  integer :: fh, row, strided, ierr
  integer :: rank, nranks, i, total
  integer(kind=MPI_OFFSET_KIND) :: off
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  integer :: buf(256)
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  call PMPI_File_open(MPI_COMM_WORLD, 'f.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh, ierr)
  do i = 0, 3
    buf = rank * 1000 + i
    off = int((i * nranks + rank) * 1024, MPI_OFFSET_KIND)
    call PMPI_File_write_at_all(fh, off, buf, 256, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  end do
  call PMPI_Type_contiguous(256, MPI_INTEGER, row, ierr)
  lb = 0
  extent = int(nranks * 1024, MPI_ADDRESS_KIND)
  call PMPI_Type_create_resized(row, lb, extent, strided, ierr)
  call PMPI_Type_commit(strided, ierr)
  off = int(rank * 1024, MPI_OFFSET_KIND)
  call PMPI_File_set_view(fh, off, MPI_INTEGER, strided, 'native', MPI_INFO_NULL, ierr)
  total = 0
  do i = 0, 3
    off = int(i * 256, MPI_OFFSET_KIND)
    call PMPI_File_read_at_all(fh, off, buf, 256, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    total = total + sum(buf)
  end do
  call PMPI_Type_free(strided, ierr)
  call PMPI_Type_free(row, ierr)
  call PMPI_File_close(fh, ierr)
  print '(a,i0,a,i0)', 'rank ', rank, ' sum ', total
  call MPI_Finalize(ierr)
end program
