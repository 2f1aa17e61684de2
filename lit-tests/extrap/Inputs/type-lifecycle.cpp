// Datatype constructors as creation events (issue 14 item 3): the classes
// that identification by first use got wrong.
// - Time steps that each make a subarray whose start depends on the step,
//   use it as the file view and free it: MPI hands the freed handle out
//   again, so a type cached by handle would be recorded as step 0's type.
// - Time steps that re-make the same contiguous type and free it: one
//   table entry, however many steps.
// - Two subarrays made at different call sites that coincide on rank 0
//   (starts 64*rank and 0): two entries on every rank.
// - Every other constructor, int and large-count (_c) forms, each with a
//   rank-dependent argument, committed and freed; the dup of the vector is
//   a view (MPICH 4.0's ROMIO cannot flatten large-count types for views).
#include <mpi.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  static int buf[256] = {};
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "steps.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int step = 0; step < 3; ++step) {
    const int sizes[1] = {64 * n * 3}, subsizes[1] = {64}, starts[1] = {64 * (step * n + rank)};
    MPI_Datatype part;
    MPI_Type_create_subarray(1, sizes, subsizes, starts, MPI_ORDER_C, MPI_INT, &part);
    MPI_Type_commit(&part);
    MPI_File_set_view(fh, 0, MPI_INT, part, "native", MPI_INFO_NULL);
    MPI_File_write_all(fh, buf, 64, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Type_free(&part);

    MPI_Datatype block;
    MPI_Type_contiguous(16, MPI_INT, &block);
    MPI_Type_commit(&block);
    MPI_File_write_at_all(fh, 64 * rank, buf, 1, block, MPI_STATUS_IGNORE);
    MPI_Type_free(&block);
  }
  MPI_File_close(&fh);

  const int sizes[1] = {64 * n}, subsizes[1] = {64}, mine[1] = {64 * rank}, first[1] = {0};
  MPI_Datatype own, head;
  MPI_Type_create_subarray(1, sizes, subsizes, mine, MPI_ORDER_C, MPI_INT, &own);
  MPI_Type_create_subarray(1, sizes, subsizes, first, MPI_ORDER_C, MPI_INT, &head);
  MPI_Type_commit(&own);
  MPI_Type_commit(&head);
  MPI_File_open(MPI_COMM_WORLD, "coincide.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, 0, MPI_INT, own, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 64, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_set_view(fh, 0, MPI_INT, head, "native", MPI_INFO_NULL);
  if (rank == 0)
    MPI_File_write(fh, buf, 64, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&own);
  MPI_Type_free(&head);

  // Every other constructor: the view of the last one is written.
  MPI_Datatype t[14];
  MPI_Type_vector(4, 2, 2 * n, MPI_INT, &t[0]);
  MPI_Type_create_hvector(4, 2, MPI_Aint(8) * n, MPI_INT, &t[1]);
  const int lengths[2] = {1, 3}, displs[2] = {rank, n + rank};
  MPI_Type_indexed(2, lengths, displs, MPI_INT, &t[2]);
  const MPI_Aint hdispls[2] = {MPI_Aint(4) * rank, MPI_Aint(4) * (n + rank)};
  MPI_Type_create_hindexed(2, lengths, hdispls, MPI_INT, &t[3]);
  MPI_Type_create_indexed_block(2, 2, displs, MPI_INT, &t[4]);
  MPI_Type_create_hindexed_block(2, 2, hdispls, MPI_INT, &t[5]);
  MPI_Type_dup(t[0], &t[6]);
  MPI_Type_contiguous_c(MPI_Count(8) + rank, MPI_INT, &t[7]);
  MPI_Type_vector_c(4, 2, MPI_Count(2) * n, MPI_INT, &t[8]);
  const MPI_Count csizes[1] = {MPI_Count(64) * n}, csubsizes[1] = {64}, cstarts[1] = {MPI_Count(64) * rank};
  MPI_Type_create_subarray_c(1, csizes, csubsizes, cstarts, MPI_ORDER_C, MPI_INT, &t[9]);
  MPI_Type_create_resized_c(t[2], 0, MPI_Count(8) * n, &t[10]);
  const MPI_Count clengths[2] = {1, 3}, cdispls[2] = {MPI_Count(4) * rank, MPI_Count(4) * (n + rank)};
  MPI_Type_create_hindexed_c(2, clengths, cdispls, MPI_INT, &t[11]);
  MPI_Type_indexed_c(2, clengths, clengths, MPI_INT, &t[12]);
  MPI_Type_create_hvector_c(2, 1, MPI_Count(4) * n, t[7], &t[13]);
  for (MPI_Datatype &x : t)
    MPI_Type_commit(&x);
  MPI_File_open(MPI_COMM_WORLD, "others.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, MPI_Offset(8) * rank, MPI_INT, t[6], "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, 8, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  for (MPI_Datatype &x : t)
    MPI_Type_free(&x);
  MPI_Finalize();
}
