// Existence checks and other calls that fail (issue 14 item 4): each rank
// probes a shared file with MPI_File_open read-only (missing: it fails with
// MPI_ERR_NO_SUCH_FILE, files return errors by default) and its own file with
// open() and fopen() (ENOENT), then creates the shared file and writes its
// part; reopened read-only, a write fails with MPI_ERR_READ_ONLY and a pwrite
// on a read-only descriptor with EBADF. Prints what each call returned.
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <unistd.h>

static const char *mpiClass(int rc) {
  int cls = rc;
  MPI_Error_class(rc, &cls);
  return cls == MPI_SUCCESS            ? "ok"
         : cls == MPI_ERR_NO_SUCH_FILE ? "MPI_ERR_NO_SUCH_FILE"
         : cls == MPI_ERR_READ_ONLY    ? "MPI_ERR_READ_ONLY"
                                       : "other";
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char buf[100];
  std::memset(buf, 'p', sizeof buf);

  MPI_File fh = MPI_FILE_NULL;
  int probe = MPI_File_open(MPI_COMM_WORLD, "probe.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  std::string mine = "probe_" + std::to_string(rank) + ".txt";
  errno = 0;
  int fd = open(mine.c_str(), O_RDONLY);
  int openErrno = errno;
  FILE *stream = fopen(mine.c_str(), "r");
  int fopenErrno = errno;

  if (probe != MPI_SUCCESS)
    MPI_File_open(MPI_COMM_WORLD, "probe.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  MPI_File_write_at(fh, 100 * rank, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  MPI_File_open(MPI_COMM_WORLD, "probe.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  int readOnly = MPI_File_write_at(fh, 100 * rank, buf, 100, MPI_BYTE, MPI_STATUS_IGNORE);
  MPI_File_close(&fh);

  int rd = open("probe.dat", O_RDONLY);
  ssize_t pw = pwrite(rd, buf, 100, 0);
  int pwErrno = errno;
  close(rd);

  for (int r = 0; r < size; r++) {
    if (r == rank) {
      std::printf("rank %d: probe=%s open=%d %s fopen=%s %s write_at=%s pwrite=%zd %s\n", rank, mpiClass(probe), fd,
                  openErrno == ENOENT ? "ENOENT" : "?", stream ? "file" : "null", fopenErrno == ENOENT ? "ENOENT" : "?",
                  mpiClass(readOnly), pw, pwErrno == EBADF ? "EBADF" : "?");
      std::fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
