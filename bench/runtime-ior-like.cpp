// IOR-like end-to-end workload for bench/runtime-overhead.sh: N-to-1 shared
// file, each rank writes then reads back its segment in transfers through
// MPI-IO (independent, then collective), with a barrier between phases.
//   runtime-ior-like <MiB per rank> <transfer KiB> <dir>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const long mib = argc > 1 ? std::atol(argv[1]) : 64;
  const long xferKiB = argc > 2 ? std::atol(argv[2]) : 64;
  const std::string dir = argc > 3 ? argv[3] : ".";
  const long xfer = xferKiB * 1024, block = mib * 1024 * 1024, xfers = block / xfer;
  std::vector<char> buf(size_t(xfer), char('a' + rank));
  std::string path = dir + "/ior-like.dat";

  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  for (long i = 0; i < xfers; i++)
    MPI_File_write_at(fh, rank * block + i * xfer, buf.data(), int(xfer), MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  for (long i = 0; i < xfers; i++)
    MPI_File_read_at(fh, rank * block + i * xfer, buf.data(), int(xfer), MPI_BYTE, MPI_STATUS_IGNORE);
  for (long i = 0; i < xfers; i++)
    MPI_File_write_at_all(fh, (i * n + rank) * xfer, buf.data(), int(xfer), MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);
  MPI_Barrier(MPI_COMM_WORLD);
  double t1 = MPI_Wtime();
  if (rank == 0) {
    std::printf("io_seconds %.6f\n", t1 - t0);
    MPI_File_delete(path.c_str(), MPI_INFO_NULL);
  }
  MPI_Finalize();
}
