! Derived buffer types from Fortran (Inputs/ghost.c is the C twin): 3-D
! fields with 2 ghost cells on each side (FLASH-IO's unknowns pattern),
! handed to PnetCDF's Fortran flexible API as an MPI_Type_create_subarray of
! MPI_DOUBLE_PRECISION in MPI_ORDER_FORTRAN. Written with
! nfmpi_put_vara_all (a double and a float variable) and nfmpi_iput_vara +
! nfmpi_wait_all, read back (each rank its neighbour's slab) with
! nfmpi_get_vara_all and nfmpi_iget_vara + nfmpi_wait_all into ghost-celled
! arrays. Prints per file the wrong values (ghosts included, which must stay
! untouched) and the put/get sizes of each rank (the gets' bytes).
!   usage: ghostf DIR K [K ...]     (K = 0: the plain file DIR/plain.nc,
!                                    else DIR/partK.nc over DIR/ta,tb,tc)
program ghostf
  use mpi
  use pnetcdf
  implicit none
  integer, parameter :: nx = 6, ny = 5, nzl = 4, g = 2
  double precision :: a(1-g:nx+g, 1-g:ny+g, 1-g:nzl+g), r(1-g:nx+g, 1-g:ny+g, 1-g:nzl+g)
  integer :: rank, nprocs, err, i, narg, k
  character(len=512) :: dir, arg, path, targets
  integer :: sizes(3), subsizes(3), starts(3), subtype
  integer :: ncid, dimids(3), varu, varv, varw, info, req(2), st(2)
  integer(kind=MPI_OFFSET_KIND) :: start(3), cnt(3), gz, putsz, getsz, getsz0
  integer(kind=MPI_OFFSET_KIND), allocatable :: allsz(:)
  integer :: wrong, total, other

  call MPI_Init(err)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, err)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, err)
  narg = command_argument_count()
  if (narg < 2) then
    if (rank == 0) print '(A)', 'usage: ghostf DIR K [K ...]'
    call MPI_Abort(MPI_COMM_WORLD, 2, err)
  end if
  call get_command_argument(1, dir)
  allocate(allsz(2 * nprocs))

  sizes = (/ nx + 2*g, ny + 2*g, nzl + 2*g /)
  subsizes = (/ nx, ny, nzl /)
  starts = (/ g, g, g /)
  call MPI_Type_create_subarray(3, sizes, subsizes, starts, MPI_ORDER_FORTRAN, &
                                MPI_DOUBLE_PRECISION, subtype, err)
  call MPI_Type_commit(subtype, err)
  gz = int(nzl, MPI_OFFSET_KIND) * nprocs

  do i = 2, narg
    call get_command_argument(i, arg)
    read (arg, *) k
    call MPI_Info_create(info, err)
    if (k == 0) then
      path = trim(dir) // '/plain.nc'
    else
      write (path, '(A,A,I0,A)') trim(dir), '/part', k, '.nc'
      targets = trim(dir) // '/ta,' // trim(dir) // '/tb,' // trim(dir) // '/tc'
      write (arg, '(I0)') k
      call MPI_Info_set(info, 'nc_partitioning_enabled', 'true', err)
      call MPI_Info_set(info, 'nc_num_partitions', trim(arg), err)
      call MPI_Info_set(info, 'sio_part_targets', trim(targets), err)
      call MPI_Info_set(info, 'sio_part_threshold', '-99%', err)
    end if

    call check(nfmpi_create(MPI_COMM_WORLD, trim(path), ior(NF_CLOBBER, NF_64BIT_DATA), info, ncid), 'create')
    call MPI_Info_free(info, err)
    call check(nfmpi_def_dim(ncid, 'x', int(nx, MPI_OFFSET_KIND), dimids(1)), 'def_dim x')
    call check(nfmpi_def_dim(ncid, 'y', int(ny, MPI_OFFSET_KIND), dimids(2)), 'def_dim y')
    call check(nfmpi_def_dim(ncid, 'z', gz, dimids(3)), 'def_dim z')
    call check(nfmpi_def_var(ncid, 'u', NF_DOUBLE, 3, dimids, varu), 'def_var u')
    call check(nfmpi_def_var(ncid, 'v', NF_DOUBLE, 3, dimids, varv), 'def_var v')
    call check(nfmpi_def_var(ncid, 'w', NF_FLOAT, 3, dimids, varw), 'def_var w')
    call check(nfmpi_enddef(ncid), 'enddef')

    start = (/ 1_MPI_OFFSET_KIND, 1_MPI_OFFSET_KIND, int(rank * nzl + 1, MPI_OFFSET_KIND) /)
    cnt = (/ int(nx, MPI_OFFSET_KIND), int(ny, MPI_OFFSET_KIND), int(nzl, MPI_OFFSET_KIND) /)
    call fill(a, rank, 0)
    call check(nfmpi_put_vara_all(ncid, varu, start, cnt, a, 1_MPI_OFFSET_KIND, subtype), 'put_vara_all u')
    call fill(a, rank, 1)
    call check(nfmpi_put_vara_all(ncid, varw, start, cnt, a, 1_MPI_OFFSET_KIND, subtype), 'put_vara_all w')
    call fill(a, rank, 2)
    call check(nfmpi_iput_vara(ncid, varv, start, cnt, a, 1_MPI_OFFSET_KIND, subtype, req(1)), 'iput_vara v')
    ! The buffer of an iput must stay until the wait: overwrite it after.
    call check(nfmpi_wait_all(ncid, 1, req, st), 'wait_all put')
    call check(st(1), 'iput status')
    a = -5
    call check(nfmpi_inq_put_size(ncid, putsz), 'inq_put_size')
    call check(nfmpi_close(ncid), 'close')

    ! Read the neighbour's slab back through the master.
    other = mod(rank + 1, nprocs)
    start(3) = int(other * nzl + 1, MPI_OFFSET_KIND)
    wrong = 0
    call check(nfmpi_open(MPI_COMM_WORLD, trim(path), NF_NOWRITE, MPI_INFO_NULL, ncid), 'open')
    ! The header read at open counts the master's header (a documented
    ! difference, docs/partitioning.md): count the gets' bytes only.
    call check(nfmpi_inq_get_size(ncid, getsz0), 'inq_get_size at open')
    r = -7
    call check(nfmpi_get_vara_all(ncid, varu, start, cnt, r, 1_MPI_OFFSET_KIND, subtype), 'get_vara_all u')
    wrong = wrong + compare(r, other, 0)
    r = -7
    call check(nfmpi_get_vara_all(ncid, varw, start, cnt, r, 1_MPI_OFFSET_KIND, subtype), 'get_vara_all w')
    wrong = wrong + compare(r, other, 1)
    r = -7
    call check(nfmpi_iget_vara(ncid, varv, start, cnt, r, 1_MPI_OFFSET_KIND, subtype, req(2)), 'iget_vara v')
    call check(nfmpi_wait_all(ncid, 1, req(2:2), st(2:2)), 'wait_all get')
    call check(st(2), 'iget status')
    wrong = wrong + compare(r, other, 2)
    call check(nfmpi_inq_get_size(ncid, getsz), 'inq_get_size')
    getsz = getsz - getsz0
    call check(nfmpi_close(ncid), 'close read')

    call MPI_Allreduce(MPI_IN_PLACE, wrong, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, err)
    total = wrong
    call MPI_Gather((/ putsz, getsz /), 2, MPI_INTEGER8, allsz, 2, MPI_INTEGER8, 0, MPI_COMM_WORLD, err)
    if (rank == 0) then
      if (k == 0) then
        write (*, '(A)', advance='no') 'plain'
      else
        write (*, '(A,I0)', advance='no') 'K=', k
      end if
      write (*, '(A,I0,A)', advance='no') ': wrong ', total, '; put/get bytes per rank:'
      do other = 0, nprocs - 1
        write (*, '(A,I0,A,I0)', advance='no') ' ', allsz(2*other+1), '/', allsz(2*other+2)
      end do
      write (*, '(A)') ''
    end if
  end do
  call MPI_Type_free(subtype, err)
  call MPI_Finalize(err)

contains

  ! Interior (i, j, z) of rank q's slab holds 10000*var + 100*zglobal + 10*j + i;
  ! ghost cells hold -1.
  subroutine fill(buf, q, var)
    double precision, intent(out) :: buf(1-g:nx+g, 1-g:ny+g, 1-g:nzl+g)
    integer, intent(in) :: q, var
    integer :: ii, jj, kk
    buf = -1
    do kk = 1, nzl
      do jj = 1, ny
        do ii = 1, nx
          buf(ii, jj, kk) = 10000 * var + 100 * (q * nzl + kk) + 10 * jj + ii
        end do
      end do
    end do
  end subroutine fill

  ! Wrong elements of a buffer read from rank q's slab: the interior as
  ! fill wrote it, every ghost cell still -7.
  integer function compare(buf, q, var)
    double precision, intent(in) :: buf(1-g:nx+g, 1-g:ny+g, 1-g:nzl+g)
    integer, intent(in) :: q, var
    double precision :: want(1-g:nx+g, 1-g:ny+g, 1-g:nzl+g)
    call fill(want, q, var)
    where (want == -1) want = -7
    compare = count(buf /= want)
  end function compare

  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    integer :: ierr
    if (status /= NF_NOERR) then
      print '(A,I0,A,A,A,A)', 'rank ', rank, ': ', what, ': ', trim(nfmpi_strerror(status))
      call MPI_Abort(MPI_COMM_WORLD, 2, ierr)
    end if
  end subroutine check

end program ghostf
