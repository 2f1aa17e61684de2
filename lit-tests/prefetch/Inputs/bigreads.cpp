// Reads larger than the prefetch cache (issue "The traced application never
// crashes, hangs or loses data", item 6): each rank writes its part of
// big.bin (COUNT reads of SIZE bytes), then reads it back in SIZE-byte
// MPI_File_read_at calls, contiguous, and checks every byte.
//   bigreads SIZE COUNT
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

static unsigned char expected(long long i) { return (unsigned char)(i * 7 + i / 4093); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const long long size = argc > 1 ? std::atoll(argv[1]) : 1 << 20;
  const int count = argc > 2 ? std::atoi(argv[2]) : 4;
  const long long base = (long long)rank * size * count;
  std::vector<unsigned char> buf((size_t)size);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "big.bin", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int r = 0; r < count; ++r) {
    const long long at = base + r * size;
    for (long long i = 0; i < size; ++i)
      buf[(size_t)i] = expected(at + i);
    MPI_File_write_at(fh, at, buf.data(), (int)size, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_File_open(MPI_COMM_WORLD, "big.bin", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  long long wrong = 0;
  for (int r = 0; r < count; ++r) {
    const long long at = base + r * size;
    MPI_File_read_at(fh, at, buf.data(), (int)size, MPI_BYTE, MPI_STATUS_IGNORE);
    for (long long i = 0; i < size; ++i)
      wrong += buf[(size_t)i] != expected(at + i);
  }
  MPI_File_close(&fh);
  std::printf("rank %d: %d reads of %lld bytes, %lld wrong bytes\n", rank, count, size, wrong);
  MPI_Finalize();
  return wrong != 0;
}
