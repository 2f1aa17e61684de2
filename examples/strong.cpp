// The strong-scaling program of ScalaIOExtrap Table 1 (and ARCHITECTURE.md): each
// rank writes its share of 960 bytes per step into one shared file, then reads
// some back. The total work is fixed, so each rank's share is 960/nranks.
//
//   sio-cxx -O2 strong.cpp -o strong && mpiexec -n 4 ./strong
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  const char *path = argc > 1 ? argv[1] : "strong.dat";
  const int steps = 3;
  const int share = 960 / nranks;
  std::vector<char> buffer(960, static_cast<char>('a' + rank % 26));

  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
    std::fprintf(stderr, "strong: cannot open %s\n", path);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  for (int i = 0; i < steps; i++) {
    MPI_Offset offset = static_cast<MPI_Offset>(rank) * share + 960 * i;
    MPI_File_write_at(fh, offset, buffer.data(), share, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  // The reads below reach 320*nranks bytes: the file is made long enough, so
  // every read gets its 64 bytes at every rank count (the trace records what
  // each call moved; a read past the end would move nothing).
  MPI_File_set_size(fh, static_cast<MPI_Offset>(320) * nranks + 960 * steps);
  for (int i = 0; i < 5; i++) {
    MPI_Offset offset = static_cast<MPI_Offset>(rank) * 320 + 64 * i;
    MPI_File_read_at(fh, offset, buffer.data(), 64, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
