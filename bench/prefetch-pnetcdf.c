/* PnetCDF reading program for the prefetch benchmark (issue 31; Byna et al.
 * SC08 §VI read BTIO's solution back, here through PnetCDF as a netCDF code
 * would). Two record variables A and B of {16, 16P, 512} doubles; rank r
 * owns {16, 16, 512} at {0, 16r, 0}. Per record: A with a collective
 * ncmpi_get_vara_double_all, B with ncmpi_iget_vara_double + ncmpi_wait_all
 * (PnetCDF sets a new view, a struct filetype, before each read); B's
 * buffer is the interior of a ghost-celled {18, 18, 514} array passed as a
 * subarray MPI datatype (ncmpi_iget_vara with a buffer type). Every value
 * is compared with the one written (exit 3 on a wrong one).
 *
 *   prefetch-pnetcdf create FILE RECORDS
 *   prefetch-pnetcdf run FILE [--compute-us N]
 *
 * run prints "total_s read_s compute_s reads" (slowest rank's loop, mean
 * time in reads and in computation, reads per rank), as prefetch-pio does. */
#include <mpi.h>
#include <pnetcdf.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks;

static double value(int var, MPI_Offset t, MPI_Offset z, MPI_Offset y, MPI_Offset x) {
  return (double)(var ? -1 : 1) * (double)(((t * 16 + z) * 4096 + y) * 1024 + x);
}

static void check(int rc, const char *what) {
  if (rc != NC_NOERR) {
    fprintf(stderr, "rank %d: %s: %s\n", rank, what, ncmpi_strerror(rc));
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 3) {
    if (rank == 0)
      fprintf(stderr, "usage: prefetch-pnetcdf create FILE RECORDS | run FILE [--compute-us N]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *file = argv[2];
  const MPI_Offset ny = 16 * (MPI_Offset)nranks, y0 = 16 * (MPI_Offset)rank;
  double *buf = malloc(sizeof(double) * 16 * 16 * 512);
  if (!strcmp(argv[1], "create")) {
    const int records = argc > 3 ? atoi(argv[3]) : 20;
    int nc, dims[4], va, vb;
    check(ncmpi_create(MPI_COMM_WORLD, file, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &nc), "create");
    check(ncmpi_def_dim(nc, "t", NC_UNLIMITED, &dims[0]), "def_dim");
    check(ncmpi_def_dim(nc, "z", 16, &dims[1]), "def_dim");
    check(ncmpi_def_dim(nc, "y", ny, &dims[2]), "def_dim");
    check(ncmpi_def_dim(nc, "x", 512, &dims[3]), "def_dim");
    check(ncmpi_def_var(nc, "A", NC_DOUBLE, 4, dims, &va), "def_var");
    check(ncmpi_def_var(nc, "B", NC_DOUBLE, 4, dims, &vb), "def_var");
    check(ncmpi_enddef(nc), "enddef");
    for (int t = 0; t < records; ++t)
      for (int v = 0; v < 2; ++v) {
        for (int z = 0; z < 16; ++z)
          for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 512; ++x)
              buf[(z * 16 + y) * 512 + x] = value(v, t, z, y0 + y, x);
        MPI_Offset start[4] = {t, 0, y0, 0}, count[4] = {1, 16, 16, 512};
        check(ncmpi_put_vara_double_all(nc, v ? vb : va, start, count, buf), "put");
      }
    check(ncmpi_close(nc), "close");
    MPI_Finalize();
    return 0;
  }
  int computeUs = 0;
  for (int i = 3; i + 1 < argc; i += 2)
    if (!strcmp(argv[i], "--compute-us"))
      computeUs = atoi(argv[i + 1]);
  if (rank == 0) { /* cold file: evict its pages */
    int fd = open(file, O_RDONLY);
    if (fd < 0) {
      perror(file);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    fdatasync(fd);
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int nc, va, vb, tdim;
  MPI_Offset records = 0;
  check(ncmpi_open(MPI_COMM_WORLD, file, NC_NOWRITE, MPI_INFO_NULL, &nc), "open");
  check(ncmpi_inq_varid(nc, "A", &va), "inq_varid");
  check(ncmpi_inq_varid(nc, "B", &vb), "inq_varid");
  check(ncmpi_inq_unlimdim(nc, &tdim), "inq_unlimdim");
  check(ncmpi_inq_dimlen(nc, tdim, &records), "inq_dimlen");
  int gsizes[3] = {18, 18, 514}, subs[3] = {16, 16, 512}, gstarts[3] = {1, 1, 1};
  MPI_Datatype ghost;
  MPI_Type_create_subarray(3, gsizes, subs, gstarts, MPI_ORDER_C, MPI_DOUBLE, &ghost);
  MPI_Type_commit(&ghost);
  double *ghosted = malloc(sizeof(double) * 18 * 18 * 514);
  double io = 0, comp = 0;
  long reads = 0;
  MPI_Barrier(MPI_COMM_WORLD);
  const double start = MPI_Wtime();
  for (MPI_Offset t = 0; t < records; ++t) {
    MPI_Offset st[4] = {t, 0, y0, 0}, count[4] = {1, 16, 16, 512};
    double t0 = MPI_Wtime();
    check(ncmpi_get_vara_double_all(nc, va, st, count, buf), "get_vara_all");
    io += MPI_Wtime() - t0;
    ++reads;
    for (int z = 0; z < 16; ++z)
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 512; ++x)
          if (buf[(z * 16 + y) * 512 + x] != value(0, t, z, y0 + y, x)) {
            fprintf(stderr, "rank %d: A wrong at %lld %d %d %d\n", rank, (long long)t, z, y, x);
            MPI_Abort(MPI_COMM_WORLD, 3);
          }
    if (computeUs > 0) {
      const double c0 = MPI_Wtime();
      usleep((useconds_t)computeUs);
      comp += MPI_Wtime() - c0;
    }
    int req, status;
    t0 = MPI_Wtime();
    check(ncmpi_iget_vara(nc, vb, st, count, ghosted, 1, ghost, &req), "iget_vara");
    check(ncmpi_wait_all(nc, 1, &req, &status), "wait_all");
    check(status, "iget status");
    io += MPI_Wtime() - t0;
    ++reads;
    for (int z = 0; z < 16; ++z)
      for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 512; ++x)
          if (ghosted[((z + 1) * 18 + y + 1) * 514 + x + 1] != value(1, t, z, y0 + y, x)) {
            fprintf(stderr, "rank %d: B wrong at %lld %d %d %d\n", rank, (long long)t, z, y, x);
            MPI_Abort(MPI_COMM_WORLD, 3);
          }
    if (computeUs > 0) {
      const double c0 = MPI_Wtime();
      usleep((useconds_t)computeUs);
      comp += MPI_Wtime() - c0;
    }
  }
  const double total = MPI_Wtime() - start;
  check(ncmpi_close(nc), "close");
  MPI_Type_free(&ghost);
  double mine[2] = {io, comp}, sums[2] = {0, 0}, slowest = 0;
  MPI_Reduce(mine, sums, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&total, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%.4f %.4f %.4f %ld\n", slowest, sums[0] / nranks, sums[1] / nranks, reads);
  free(ghosted);
  free(buf);
  MPI_Finalize();
  return 0;
}
