// mpi-tile-io (Byna et al. SC08 §VI.B), traced: the file is a dense 2-d array of
// 1024-byte elements cut into one row of tiles, one tile of 100 x 10
// elements per process (the paper's signature has tiles of 1024000 bytes; its
// text's 100 x 100 would be 10240000). Each process sets a view displaced to
// its tile's first element, i * sz_tile_x * sz_element, whose filetype picks
// the tile's 10 rows out of the array's rows, and reads its tile with one
// collective read. The file is sparse: the reads cost little.
// REQUIRES: runtime, sio-signature
// RUN: rm -rf %t.d && mkdir -p %t.d && cd %t.d && %sio-cxx-sig -O1 %s -o %t.exe
// RUN: truncate -s 4096000 %t.d/tiles.dat
// RUN: cd %t.d && env SIO_TRACE_FILE=%t.json %mpiexec -n 4 %t.exe
// RUN: %sio-signature %t.json | FileCheck %s
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const int tileX = 100, tileY = 10, element = 1024;
  MPI_Datatype elementType, tileType;
  MPI_Type_contiguous(element, MPI_BYTE, &elementType);
  MPI_Type_commit(&elementType);
  // A tile: tileY rows of tileX elements, one array row (nranks tiles) apart.
  MPI_Type_vector(tileY, tileX, tileX * nranks, elementType, &tileType);
  MPI_Type_commit(&tileType);
  std::vector<char> buf(size_t(tileX) * tileY * element);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "tiles.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  MPI_File_set_view(fh, MPI_Offset(rank) * tileX * element, elementType, tileType, "native", MPI_INFO_NULL);
  MPI_Status status;
  MPI_File_read_all(fh, buf.data(), tileX * tileY, elementType, &status);
  // The tile is all there: the file holds every process's tile.
  int got = 0;
  MPI_Get_count(&status, elementType, &got);
  if (got != tileX * tileY)
    std::fprintf(stderr, "rank %d read %d of %d elements\n", rank, got, tileX * tileY);
  MPI_File_close(&fh);
  MPI_Type_free(&tileType);
  MPI_Type_free(&elementType);
  MPI_Finalize();
  return got == tileX * tileY ? 0 : 1;
}

// CHECK:      # file f0 "tiles.dat", ranks 0-3, read, 1 access, 1024000 bytes per rank
// CHECK-NEXT: {READ, 102400*rank, 1, ([0, 1024000, 0]), 1}
// CHECK-NEXT: {Read, <no spatial pattern>, <single occurrence>, <fixed size, large>, <no temporal pattern>}
// CHECK-NOT:  {
