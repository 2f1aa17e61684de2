! A grid given by the program (issue "Elastic models for real
! decompositions", item 3), in Fortran: a Cartesian communicator from the
! explicit dims (2, N/2), each rank locating its 16x16 tile of integers with
! MPI_Cart_coords and writing it through a subarray view with a collective
! write. The column coordinate has the period N/2 (the Fortran twin of
! lit-tests/extrap/Inputs/tiles.c). Includes mpif.h (docs/fortran.md).
program tiles
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, n, crank, cart, tile, fh
  integer :: dims(2), coords(2), gsizes(2), lsizes(2), starts(2)
  logical :: periods(2)
  integer :: buf(256)
  integer(kind=MPI_OFFSET_KIND) :: disp

  buf = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, n, ierr)
  dims = (/ 2, n / 2 /)
  periods = .false.
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call MPI_Comm_rank(cart, crank, ierr)
  call MPI_Cart_coords(cart, crank, 2, coords, ierr)
  gsizes = 16 * dims
  lsizes = (/ 16, 16 /)
  starts = 16 * coords
  call MPI_Type_create_subarray(2, gsizes, lsizes, starts, MPI_ORDER_C, MPI_INTEGER, tile, ierr)
  call MPI_Type_commit(tile, ierr)
  call MPI_File_open(cart, 'ftiles.dat', MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh, ierr)
  disp = 0
  call MPI_File_set_view(fh, disp, MPI_INTEGER, tile, 'native', MPI_INFO_NULL, ierr)
  call MPI_File_write_all(fh, buf, 256, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Type_free(tile, ierr)
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)
end program tiles
