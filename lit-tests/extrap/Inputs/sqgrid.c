/* A square process grid, NAS BT/SP style (issue "Elastic models for real
 * decompositions", item 1): N = q*q ranks, rank (rank / q, rank % q) owns a
 * tile of b = 120/q rows and columns of a 120x120 int array. Each rank writes
 * its tile row by row (a loop of b write_at calls), then once more through a
 * vector filetype (b blocks of b ints, stride 120) with a collective write,
 * and reads back one row through an indexed type of q entries (one block per
 * grid column: a datatype table whose length is q). Rank counts that are not
 * squares are refused by the program itself. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int q = (int)lround(sqrt((double)n));
  if (q * q != n) {
    if (rank == 0)
      fprintf(stderr, "sqgrid: %d ranks is not a square\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  enum { G = 120 };
  const int b = G / q, row0 = (rank / q) * b, col0 = (rank % q) * b;
  static int buf[G * G];
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "sq.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (int i = 0; i < b; ++i)
    MPI_File_write_at(fh, ((MPI_Offset)(row0 + i) * G + col0) * 4, buf, b, MPI_INT, MPI_STATUS_IGNORE);

  MPI_Datatype tile;
  MPI_Type_vector(b, b, G, MPI_INT, &tile);
  MPI_Type_commit(&tile);
  MPI_File_set_view(fh, ((MPI_Offset)row0 * G + col0) * 4, MPI_INT, tile, "native", MPI_INFO_NULL);
  MPI_File_write_all(fh, buf, b * b, MPI_INT, MPI_STATUS_IGNORE);

  int lens[64], displs[64];
  for (int k = 0; k < q; ++k) {
    lens[k] = 1;
    displs[k] = k * b;
  }
  MPI_Datatype cols;
  MPI_Type_indexed(q, lens, displs, MPI_INT, &cols);
  MPI_Type_commit(&cols);
  MPI_File_set_view(fh, (MPI_Offset)row0 * G * 4, MPI_INT, cols, "native", MPI_INFO_NULL);
  MPI_File_read_all(fh, buf, q, MPI_INT, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Type_free(&cols);
  MPI_Type_free(&tile);
  MPI_Finalize();
  return 0;
}
