! MPI-IO through the mpi_f08 module (f08.test): MPICH's mpi_f08 bindings
! call the C library through PMPI_ names (PMPI_File_open, PMPI_Type_commit,
! ...), unlike `use mpi`, whose bindings call MPI_ names. The same calls as
! Inputs/mpi_io.f90: strided collective writes, a strided view, collective
! reads, all with contiguous buffers.
program f08_io
  use mpi_f08
  implicit none
  type(MPI_File) :: fh
  type(MPI_Datatype) :: row, strided
  integer :: rank, nranks, i, total
  integer(kind=MPI_OFFSET_KIND) :: off
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  integer :: buf(256)
  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  call MPI_File_open(MPI_COMM_WORLD, 'f.dat', MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, fh)
  do i = 0, 3
    buf = rank * 1000 + i
    off = int((i * nranks + rank) * 1024, MPI_OFFSET_KIND)
    call MPI_File_write_at_all(fh, off, buf, 256, MPI_INTEGER, MPI_STATUS_IGNORE)
  end do
  call MPI_Type_contiguous(256, MPI_INTEGER, row)
  lb = 0
  extent = int(nranks * 1024, MPI_ADDRESS_KIND)
  call MPI_Type_create_resized(row, lb, extent, strided)
  call MPI_Type_commit(strided)
  off = int(rank * 1024, MPI_OFFSET_KIND)
  call MPI_File_set_view(fh, off, MPI_INTEGER, strided, 'native', MPI_INFO_NULL)
  total = 0
  do i = 0, 3
    off = int(i * 256, MPI_OFFSET_KIND)
    call MPI_File_read_at_all(fh, off, buf, 256, MPI_INTEGER, MPI_STATUS_IGNORE)
    total = total + sum(buf)
  end do
  call MPI_Type_free(strided)
  call MPI_Type_free(row)
  call MPI_File_close(fh)
  print '(a,i0,a,i0)', 'rank ', rank, ' sum ', total
  call MPI_Finalize()
end program
