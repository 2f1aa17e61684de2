// Existence checks and other calls that fail (issue 14 item 4): each rank
// probes a shared file with MPI_File_open read-only (missing: it fails with
// MPI_ERR_NO_SUCH_FILE, files return errors by default) and its own file with
// open() and fopen() (ENOENT), then creates the shared file and writes its
// part; reopened read-only, a write fails with MPI_ERR_READ_ONLY and a pwrite
// on a read-only descriptor with EBADF. Creating a file, a stream and a
// directory under a directory that does not exist fails with ENOENT (the
// replay must not make that directory for them), opening the working
// directory for writing with EISDIR (it writes nothing: the replay's
// overwrite check must not refuse to start for it). Prints what each call
// returned.
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/stat.h>
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

  std::string missingDir = "nodir_" + std::to_string(rank);
  int created = open((missingDir + "/out.dat").c_str(), O_WRONLY | O_CREAT, 0644);
  int createdErrno = errno;
  FILE *log = fopen((missingDir + "/log.txt").c_str(), "w");
  int logErrno = errno;
  int made = mkdir((missingDir + "/sub").c_str(), 0755);
  int mkdirErrno = errno;
  int dot = open(".", O_WRONLY);
  int dotErrno = errno;
  bool noDir =
      created < 0 && createdErrno == ENOENT && log == nullptr && logErrno == ENOENT && made < 0 && mkdirErrno == ENOENT;

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
      std::printf("rank %d: probe=%s open=%d %s fopen=%s %s write_at=%s pwrite=%zd %s nodir=%s dot=%s\n", rank,
                  mpiClass(probe), fd, openErrno == ENOENT ? "ENOENT" : "?", stream ? "file" : "null",
                  fopenErrno == ENOENT ? "ENOENT" : "?", mpiClass(readOnly), pw, pwErrno == EBADF ? "EBADF" : "?",
                  noDir ? "ENOENT" : "?", dot < 0 && dotErrno == EISDIR ? "EISDIR" : "?");
      std::fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
