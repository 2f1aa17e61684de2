/* One rank that does more. Every rank writes its 9 data
 * blocks through put(); the rank that owns the header writes it through the
 * same helper right after its data, so its write loop runs 10 times where
 * every other rank's runs 9. Who owns the header: WHO_FIRST (rank 0),
 * WHO_LAST (rank N-1) or WHO_KTH (every K-th rank, rank % K == 0, each
 * writing the header of its group of K ranks). */
#include <mpi.h>
#include <string.h>

#define BLOCK 64
#define NBLOCKS 9
#define HEADER 32
#ifndef K
#define K 4
#endif

static void put(MPI_File fh, MPI_Offset offset, const char *buf, int count) {
  MPI_File_write_at(fh, offset, buf, count, MPI_BYTE, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, nranks;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
#if defined(WHO_FIRST)
  const int owner = rank == 0;
  const MPI_Offset header = 0;
#elif defined(WHO_LAST)
  const int owner = rank == nranks - 1;
  const MPI_Offset header = 0;
#else
  const int owner = rank % K == 0;
  const MPI_Offset header = (MPI_Offset)(rank / K) * HEADER;
#endif
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "onemore.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
  char buf[BLOCK];
  memset(buf, 'a' + rank % 26, sizeof buf);
  const MPI_Offset data = (MPI_Offset)nranks * HEADER; /* room for every header */
  const int writes = NBLOCKS + owner;
  for (int i = 0; i < writes; ++i) {
    if (i < NBLOCKS)
      put(fh, data + ((MPI_Offset)rank * NBLOCKS + i) * BLOCK, buf, BLOCK);
    else
      put(fh, header, buf, HEADER);
  }
  MPI_File_close(&fh);
  MPI_Finalize();
  return 0;
}
