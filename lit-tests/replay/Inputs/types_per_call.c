/* Objects made again by each call of a helper (ROMIO's noncontig_coll2
 * makes its file type in test_file(), called once per hint setting): the
 * application's trace has one datatype entry per constructor site and
 * contents, whatever the number of calls; the replay must make them so
 * that its own trace identifies them the same way (issue "A peer's test
 * suite", objects created per iteration). The helper is called from three
 * places of main, and once with other contents. */
#include <mpi.h>
#include <string.h>

static void write_with_type(MPI_File fh, int rank, int blocks, MPI_Offset at) {
  MPI_Datatype vec, st;
  MPI_Type_vector(blocks, 1, 4, MPI_INT, &vec);
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {(MPI_Aint)rank * 4, 0};
  MPI_Datatype types[2] = {vec, MPI_UB};
  MPI_Type_extent(vec, &disp[1]);
  disp[1] += 64;
  MPI_Type_create_struct(2, bl, disp, types, &st);
  MPI_Type_commit(&st);
  MPI_Type_free(&vec);
  MPI_File_set_view(fh, at, MPI_INT, st, "native", MPI_INFO_NULL);
  int buf[64];
  memset(buf, 7, sizeof buf);
  MPI_File_write_at_all(fh, 0, buf, blocks, MPI_INT, MPI_STATUS_IGNORE);
  MPI_Type_free(&st);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "per_call.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  /* Sized first: the data-sieving reads find the same bytes whichever rank
   * writes first. */
  MPI_File_set_size(fh, 65536);
  write_with_type(fh, rank, 16, 0);
  MPI_Barrier(MPI_COMM_WORLD);
  write_with_type(fh, rank, 16, 4096);
  MPI_Barrier(MPI_COMM_WORLD);
  write_with_type(fh, rank, 8, 8192);
  MPI_Barrier(MPI_COMM_WORLD);
  write_with_type(fh, rank, 16, 12288);
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
