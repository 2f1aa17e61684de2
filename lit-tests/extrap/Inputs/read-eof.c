/* Strong scaling with reads past the end of the file, in every read form
 * whose result sio-extrap computes from the file's extent (docs/extrap.md,
 * Read results): the ranks write a fixed total (96000 bytes a file, divided
 * by n), then each reads the chunk of 12000 bytes at rank*12000 (or a chunk
 * further): ranks 8 and up read past the end (0 bytes), rank 7 too in the
 * shifted forms, and half a chunk in the POSIX ones that start half a chunk
 * further. (MPI-IO reads are either full or empty: ROMIO retries a partial
 * read, which adds inner events at some rank counts and not at others.)
 * At 4 ranks every read is full, at 8, 12 and 16 some are short or empty;
 * at 32 most are.
 *
 *   pre=1   instead: read a file that existed before the run (pre.dat,
 *           made by the test): its size is not in the trace. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { kTotal = 96000, kChunk = 12000 };
static char buf[kTotal];

static void fail(const char *what) {
  perror(what);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Rank 0 creates (truncates) the file, then every rank writes its part:
 * with pwrite, or lseek + two writes at the descriptor's offset. */
static void posixWrite(const char *name, int rank, int n, int sequential) {
  const long part = kTotal / n;
  if (rank == 0) {
    int fd = open(name, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    if (fd < 0)
      fail(name);
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  int fd = open(name, O_WRONLY);
  if (fd < 0)
    fail(name);
  if (sequential) {
    lseek(fd, rank * part, SEEK_SET);
    if (write(fd, buf, part / 2) != part / 2 || write(fd, buf, part - part / 2) != part - part / 2)
      fail("write");
  } else if (pwrite(fd, buf, part, rank * part) != part) {
    fail("pwrite");
  }
  close(fd);
  MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  memset(buf, 'a' + rank % 26, sizeof buf);
  long got = 0;
  if (argc > 1 && !strcmp(argv[1], "pre=1")) {
    int fd = open("pre.dat", O_RDONLY);
    if (fd < 0)
      fail("pre.dat");
    got += pread(fd, buf, kChunk, (off_t)rank * kChunk);
    close(fd);
  } else {
    /* POSIX: pread past the end, and read at the offset of lseek + earlier reads. */
    posixWrite("p.dat", rank, n, 0);
    int fd = open("p.dat", O_RDONLY);
    got += pread(fd, buf, kChunk, (off_t)rank * kChunk + kChunk / 2);
    close(fd);
    posixWrite("s.dat", rank, n, 1);
    fd = open("s.dat", O_RDONLY);
    lseek(fd, (off_t)rank * kChunk, SEEK_SET);
    for (int i = 0; i < 3; ++i)
      got += read(fd, buf, kChunk / 2);
    close(fd);

    /* MPI-IO: explicit offsets, and the individual file pointer (after a
     * seek, and from the start of a contiguous view with a displacement). */
    MPI_File fh;
    MPI_Status st;
    int c = 0;
    MPI_File_open(MPI_COMM_WORLD, "m.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
    MPI_File_write_at_all(fh, (MPI_Offset)rank * (kTotal / n), buf, kTotal / n, MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_read_at(fh, (MPI_Offset)rank * kChunk, buf, kChunk, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_read_at_all(fh, (MPI_Offset)(rank + 1) * kChunk, buf, kChunk, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_seek(fh, (MPI_Offset)rank * kChunk, MPI_SEEK_SET);
    MPI_File_read(fh, buf, kChunk / 2, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    /* After a short read the pointer is where the MPI library left it, which
     * the trace does not say: a seek first. */
    MPI_File_seek(fh, (MPI_Offset)rank * kChunk + kChunk / 2, MPI_SEEK_SET);
    MPI_File_read_all(fh, buf, kChunk / 2, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_seek(fh, (MPI_Offset)(rank + 1) * kChunk, MPI_SEEK_SET);
    MPI_File_read_all(fh, buf, kChunk, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    /* Full reads move the pointer by what they read. */
    MPI_File_seek(fh, (MPI_Offset)rank * 1000, MPI_SEEK_SET);
    MPI_File_read(fh, buf, 1000, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_read_all(fh, buf, 1000, MPI_BYTE, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_set_view(fh, (MPI_Offset)rank * kChunk, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);
    MPI_File_read_all(fh, buf, kChunk / 8, MPI_INT, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_seek(fh, kChunk / 8, MPI_SEEK_SET);
    MPI_File_read(fh, buf, kChunk / 8, MPI_INT, &st);
    MPI_Get_count(&st, MPI_BYTE, &c), got += c;
    MPI_File_close(&fh);
  }
  long all = 0;
  MPI_Reduce(&got, &all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("read %ld bytes\n", all);
  MPI_Finalize();
  return 0;
}
