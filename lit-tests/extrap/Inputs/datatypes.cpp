// Rank-dependent derived datatypes as file views: a darray over the
// MPI_Dims_create grid (16x16 ints per rank, weak scaling), a struct whose
// displacement is 1024*rank, and a subarray whose start depends on rank.
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  int dims[2] = {0, 0};
  MPI_Dims_create(n, 2, dims);
  const int gsizes[2] = {16 * dims[0], 16 * dims[1]};
  const int distribs[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
  const int dargs[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
  MPI_Datatype grid;
  MPI_Type_create_darray(n, rank, 2, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_INT, &grid);
  MPI_Type_commit(&grid);
  static int buf[1024] = {};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "darray.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, grid, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 256, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  const int lengths[2] = {16, 8};
  const MPI_Aint displs[2] = {MPI_Aint(1024) * rank, MPI_Aint(1024) * rank + 512};
  const MPI_Datatype types[2] = {MPI_CHAR, MPI_DOUBLE};
  MPI_Datatype rec, recs;
  MPI_Type_create_struct(2, lengths, displs, types, &rec);
  MPI_Type_create_resized(rec, 0, MPI_Aint(1024) * n, &recs);
  MPI_Type_commit(&recs);
  MPI_File_open(MPI_COMM_WORLD, "struct.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_BYTE, recs, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 160, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  const int sizes[1] = {64 * n}, subsizes[1] = {64}, starts[1] = {64 * rank};
  MPI_Datatype part;
  MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &part);
  MPI_Type_commit(&part);
  MPI_File_open(MPI_COMM_WORLD, "subarray.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, part, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 64, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&part);
  MPI_Type_free(&recs);
  MPI_Type_free(&rec);
  MPI_Type_free(&grid);
  MPI_Finalize();
}
