/* An S3D-I/O-kind writer for bench/partitioning.sh (Son et al. 2013 §IV-B
 * evaluated partitioning with S3D-I/O): a 3-D block decomposition of a
 * global X x Y x Z grid (MPI_Dims_create), each rank N^3 points, and one
 * checkpoint of S3D's four arrays in netCDF's C order:
 *   yspecies(species = 11, z, y, x)   double
 *   u(three = 3, z, y, x)             double, the short leading dimension
 *   pressure(z, y, x), temp(z, y, x)  double
 * written as S3D-I/O does, with ncmpi_iput_vara_double and one
 * ncmpi_wait_all. Prints "bytes B seconds S" (S: the longest rank's time from
 * ncmpi_create to the end of ncmpi_close), as partition-collperf.c.
 *   usage: partition-s3d FILE N [KEY=VALUE ...]   (MPI_Info hints) */
#include "sio/part/NcProgram.h"

#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3) {
    if (rank == 0)
      fprintf(stderr, "usage: partition-s3d FILE N [KEY=VALUE ...]\n");
    MPI_Finalize();
    return 2;
  }
  const MPI_Offset n = atol(argv[2]);
  MPI_Info info = sio_nc_hints(argc, argv, 3);
  int dims[3] = {0, 0, 0}, periods[3] = {0, 0, 0}, coords[3];
  MPI_Dims_create(nprocs, 3, dims); /* dims[0] over z, dims[1] over y, dims[2] over x */
  MPI_Comm cart;
  MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
  MPI_Cart_coords(cart, rank, 3, coords);
  const int nsp = 11;
  const MPI_Offset pts = n * n * n;
  double *ys = malloc(sizeof(double) * (size_t)(nsp * pts)), *u = malloc(sizeof(double) * (size_t)(3 * pts));
  double *p = malloc(sizeof(double) * (size_t)pts), *t = malloc(sizeof(double) * (size_t)pts);
  for (MPI_Offset i = 0; i < nsp * pts; ++i)
    ys[i] = rank + 1e-6 * (double)i;
  for (MPI_Offset i = 0; i < 3 * pts; ++i)
    u[i] = -rank - 1e-6 * (double)i;
  for (MPI_Offset i = 0; i < pts; ++i) {
    p[i] = 1e5 + (double)i;
    t[i] = 300 + (double)rank;
  }

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  int ncid, dz, dy, dx, dsp, d3, vys, vu, vp, vt;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, argv[1], NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "z_g", n * dims[0], &dz));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y_g", n * dims[1], &dy));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x_g", n * dims[2], &dx));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "nsp", nsp, &dsp));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "three", 3, &d3));
  int d4[4] = {dsp, dz, dy, dx}, du[4] = {d3, dz, dy, dx}, d3d[3] = {dz, dy, dx};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "yspecies", NC_DOUBLE, 4, d4, &vys));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "u", NC_DOUBLE, 4, du, &vu));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "pressure", NC_DOUBLE, 3, d3d, &vp));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "temp", NC_DOUBLE, 3, d3d, &vt));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  MPI_Offset s4[4] = {0, coords[0] * n, coords[1] * n, coords[2] * n}, c4[4] = {nsp, n, n, n};
  int req[4], st[4];
  SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, vys, s4, c4, ys, &req[0]));
  c4[0] = 3;
  SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, vu, s4, c4, u, &req[1]));
  SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, vp, s4 + 1, c4 + 1, p, &req[2]));
  SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, vt, s4 + 1, c4 + 1, t, &req[3]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 4, req, st));
  for (int i = 0; i < 4; ++i)
    SIO_NC_CHECK(st[i]);
  SIO_NC_CHECK(ncmpi_close(ncid));
  double el = MPI_Wtime() - t0, tmax;
  MPI_Reduce(&el, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("bytes %lld seconds %.4f\n", (long long)((nsp + 3 + 2) * pts * nprocs * (MPI_Offset)sizeof(double)), tmax);
  MPI_Info_free(&info);
  MPI_Comm_free(&cart);
  free(ys);
  free(u);
  free(p);
  free(t);
  MPI_Finalize();
  return 0;
}
