/* Helpers shared by the C programs that drive PnetCDF in sio's tests and
 * benchmarks (lit-tests/pnetcdf, bench/partition-collperf.c); not part of
 * libsio-pnetcdf. */
#pragma once

#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <string.h>

/* Aborts the MPI job (exit status 2) when a PnetCDF call fails, naming the
 * rank, the line, the call and PnetCDF's message. */
#define SIO_NC_CHECK(call)                                                                                             \
  do {                                                                                                                 \
    int err_ = (call);                                                                                                 \
    if (err_ != NC_NOERR) {                                                                                            \
      int rank_ = 0;                                                                                                   \
      MPI_Comm_rank(MPI_COMM_WORLD, &rank_);                                                                           \
      fprintf(stderr, "rank %d line %d: %s: %s\n", rank_, __LINE__, #call, ncmpi_strerror(err_));                      \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                                                    \
    }                                                                                                                  \
  } while (0)

/* An MPI_Info holding the hints given as KEY=VALUE arguments argv[first..argc-1]
 * (an argument without '=' is left out). The caller frees it. */
static inline MPI_Info sio_nc_hints(int argc, char **argv, int first) {
  MPI_Info info;
  MPI_Info_create(&info);
  for (int i = first; i < argc; ++i) {
    char *eq = strchr(argv[i], '=');
    if (!eq)
      continue;
    *eq = '\0';
    MPI_Info_set(info, argv[i], eq + 1);
    *eq = '=';
  }
  return info;
}
