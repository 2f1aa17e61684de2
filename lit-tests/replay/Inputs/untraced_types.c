/* Datatypes made by calls the runtime does not intercept (a library that
 * calls the MPI library's own functions, bypassing interposition; an MPI
 * constructor sio does not intercept, MPI_Type_create_f90_integer), then
 * committed with MPI_Type_commit and used for a file view and a write:
 *   (no argument)  a vector: described at its first use, rebuilt exactly;
 *   deep           a vector over 18 nested contiguous levels: the runtime
 *                  describes 16 levels, the innermost is unknown;
 *   f90            MPI_Type_create_f90_integer: approximated by its bytes.
 * The runtime records PMPI_ calls like MPI_ ones (docs/runtime.md), so the
 * library's calls go to the MPI library's own PMPI_ functions, found in it
 * with dlsym, as a library linked with -Bsymbolic against MPI would make
 * them. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The MPI library's own definition of NAME (MPI_Comm_size is not
 * intercepted, so its address is in the MPI library). */
static void *mpiOwn(const char *name) {
  Dl_info info;
  void *lib = dladdr((void *)&MPI_Comm_size, &info) ? dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD) : NULL;
  void *f = lib ? dlsym(lib, name) : NULL;
  if (!f) {
    fprintf(stderr, "%s not found in the MPI library\n", name);
    exit(1);
  }
  return f;
}

typedef int (*ContiguousFn)(int, MPI_Datatype, MPI_Datatype *);
typedef int (*VectorFn)(int, int, int, MPI_Datatype, MPI_Datatype *);
typedef int (*FreeFn)(MPI_Datatype *);

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const char *mode = argc > 1 ? argv[1] : "";
  ContiguousFn libContiguous = (ContiguousFn)mpiOwn("PMPI_Type_contiguous");
  VectorFn libVector = (VectorFn)mpiOwn("PMPI_Type_vector");
  FreeFn libFree = (FreeFn)mpiOwn("PMPI_Type_free");
  MPI_Datatype elem = MPI_INT, made[18], view;
  int levels = 0;
  if (!strcmp(mode, "deep")) {
    for (levels = 0; levels < 18; ++levels) {
      libContiguous(1, levels ? made[levels - 1] : MPI_INT, &made[levels]);
    }
    elem = made[levels - 1];
  } else if (!strcmp(mode, "f90")) {
    MPI_Type_create_f90_integer(9, &elem);
  }
  libVector(4, 2, 2 * n, elem, &view);
  MPI_Type_commit(&view);
  static int buf[64];
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "untraced.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, rank * 8, MPI_INT, view, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&view);
  for (int k = levels - 1; k >= 0; --k)
    libFree(&made[k]);
  if (rank == 0)
    printf("done %s\n", mode);
  MPI_Finalize();
  return 0;
}
