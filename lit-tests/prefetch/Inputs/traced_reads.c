/* Strided collective reads for traced-and-prefetched runs (traced.test):
 * each rank writes its rows of a file, then reads them back twice with
 * MPI_File_read_at_all, first at explicit strided offsets, then through a
 * strided view (set_view), and prints a checksum per rank and phase (from
 * rank 0, in rank order), so that the output shows the data each rank read.
 * Rank 0 also writes those lines to sums.txt with POSIX calls of its own,
 * which a trace must hold whatever else is in the process. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char g_sums[4096];
static size_t g_len;

enum { kRow = 4096, kRows = 16 };

static unsigned long sum(const unsigned char *b, int n) {
  unsigned long s = 0;
  for (int i = 0; i < n; ++i)
    s = s * 31 + b[i];
  return s;
}

static void report(const char *phase, unsigned long s, int rank, int size) {
  unsigned long all[64];
  MPI_Gather(&s, 1, MPI_UNSIGNED_LONG, all, 1, MPI_UNSIGNED_LONG, 0, MPI_COMM_WORLD);
  if (rank == 0)
    for (int r = 0; r < size; ++r) {
      printf("%s rank %d checksum %lu\n", phase, r, all[r]);
      g_len += (size_t)snprintf(g_sums + g_len, sizeof g_sums - g_len, "%s %d %lu\n", phase, r, all[r]);
    }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static unsigned char buf[kRow];
  MPI_File fh;

  MPI_File_open(MPI_COMM_WORLD, "rows.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  for (int i = 0; i < kRows; ++i) {
    for (int j = 0; j < kRow; ++j)
      buf[j] = (unsigned char)(j * 7 + i * 13 + rank * 101);
    MPI_File_write_at_all(fh, (MPI_Offset)(i * size + rank) * kRow, buf, kRow, MPI_BYTE, MPI_STATUS_IGNORE);
  }
  MPI_File_close(&fh);

  MPI_File_open(MPI_COMM_WORLD, "rows.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  unsigned long s = 0;
  for (int i = 0; i < kRows; ++i) {
    MPI_File_read_at_all(fh, (MPI_Offset)(i * size + rank) * kRow, buf, kRow, MPI_BYTE, MPI_STATUS_IGNORE);
    s = s * 7 + sum(buf, kRow);
  }
  report("offsets", s, rank, size);

  /* The same rows through a view: one row every `size` rows from the rank's. */
  MPI_Datatype row, strided;
  MPI_Type_contiguous(kRow, MPI_BYTE, &row);
  MPI_Type_create_resized(row, 0, (MPI_Aint)size * kRow, &strided);
  MPI_Type_commit(&strided);
  MPI_File_set_view(fh, (MPI_Offset)rank * kRow, MPI_BYTE, strided, "native", MPI_INFO_NULL);
  s = 0;
  for (int i = 0; i < kRows; ++i) {
    MPI_File_read_at_all(fh, (MPI_Offset)i * kRow, buf, kRow, MPI_BYTE, MPI_STATUS_IGNORE);
    s = s * 7 + sum(buf, kRow);
  }
  report("view", s, rank, size);
  MPI_File_close(&fh);
  MPI_Type_free(&strided);
  MPI_Type_free(&row);
  if (rank == 0) {
    int fd = open("sums.txt", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0 || write(fd, g_sums, g_len) != (ssize_t)g_len || close(fd) != 0)
      perror("sums.txt");
  }
  MPI_Finalize();
  return 0;
}
