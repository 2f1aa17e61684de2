/* One template for the property test of extrapolation
 * (lit-tests/extrap/property.test, bench/extrap-property.py): each "program"
 * is a parameter set given as KEY=VALUE arguments, so the binary is built
 * once. Every rank count of a program must run the same code path:
 *
 *   grid=1|2|3        dimensions of the process grid
 *   dims=create|given|cols|rows|square
 *                     MPI_Dims_create(n, grid) or dims by hand: given
 *                     {n}, {n/4, 4}, {n/4, 2, 2} (n a multiple of 4);
 *                     cols {n}, {2, n/2}, {2, 2, n/4}; rows {n}, {n/2, 2},
 *                     {n/4, 2, 2}; square {n}, {q, q},
 *                     {q, q, 1} with q = sqrt(n) (n a square: the runner
 *                     traces such programs at 4, 9, 16, 25)
 *   decomp=block|cyclic|darray|subarray
 *                     block: rank r writes its own contiguous range;
 *                     cyclic: step i writes at (i*n + r)*B; darray and
 *                     subarray: a file view over the grid, write_at_all
 *   scale=weak|strong weak: B bytes (or E ints a dimension) a rank; strong:
 *                     a fixed total divided by n
 *   rem=0|1|2|3       strong scaling with a total that n does not divide:
 *                     the first total % n ranks get one more element (1:
 *                     96007 bytes or 30 ints a dimension; 2: 96506 bytes,
 *                     50 ints, whose remainders leave two ranks or more on
 *                     each side; 3: 96047 bytes, 47 ints, a remainder over
 *                     2, 3 and 4 grid planes where n/p + (c < n % p) and
 *                     ROMIO's ceil split agree, as a 3-d grid needs from
 *                     inputs whose dims(N,3) are at most 4)
 *   loop=const|inv|lin
 *                     the step count: 3, 96/n, n/4
 *   eof=0|1           afterwards every rank reads the chunk at
 *                     rank*(size/8): ranks 8 and up read past the end (0
 *                     bytes)
 *   more=none|first|last|kth2|kth4
 *                     one rank that does more: every rank writes 9 blocks
 *                     of another file through one helper, and the owner
 *                     (rank 0, rank n-1, every 2nd or 4th rank) then its
 *                     header through the same helper: its loop runs once
 *                     more (lit-tests/extrap/Inputs/onemore.c) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *arg(int argc, char **argv, const char *key, const char *dflt) {
  size_t k = strlen(key);
  for (int i = 1; i < argc; ++i)
    if (!strncmp(argv[i], key, k) && argv[i][k] == '=')
      return argv[i] + k + 1;
  return dflt;
}

static int is(const char *a, const char *b) { return !strcmp(a, b); }

static void put(MPI_File fh, MPI_Offset offset, const char *buf, int count) {
  MPI_File_write_at(fh, offset, buf, count, MPI_BYTE, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, n;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  const int nd = atoi(arg(argc, argv, "grid", "1"));
  const char *dimsFrom = arg(argc, argv, "dims", "create");
  const char *decomp = arg(argc, argv, "decomp", "block");
  const int strong = is(arg(argc, argv, "scale", "weak"), "strong");
  const int rem = atoi(arg(argc, argv, "rem", "0"));
  const char *loop = arg(argc, argv, "loop", "const");
  const int eof = atoi(arg(argc, argv, "eof", "0"));
  const char *more = arg(argc, argv, "more", "none");

  int dims[3] = {0, 0, 0};
  int q = 1;
  while ((q + 1) * (q + 1) <= n)
    ++q;
  if (is(dimsFrom, "create")) {
    MPI_Dims_create(n, nd, dims);
  } else if (is(dimsFrom, "cols")) {
    dims[0] = nd == 1 ? n : 2;
    dims[1] = nd == 2 ? n / 2 : 2;
    dims[2] = n / 4;
  } else if (is(dimsFrom, "rows")) {
    dims[0] = nd == 1 ? n : nd == 2 ? n / 2 : n / 4;
    dims[1] = dims[2] = 2;
  } else if (is(dimsFrom, "square")) {
    dims[0] = nd == 1 ? n : q;
    dims[1] = q;
    dims[2] = 1;
  } else {
    dims[0] = nd == 1 ? n : n / 4;
    if (nd == 2)
      dims[1] = 4;
    if (nd == 3)
      dims[1] = dims[2] = 2;
  }
  const int steps = is(loop, "inv") ? 96 / n : is(loop, "lin") ? n / 4 : 3;

  static char buf[1 << 20];
  memset(buf, 'a' + rank % 26, sizeof buf);
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "gen.dat", MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  if (is(decomp, "block") || is(decomp, "cyclic")) {
    /* Bytes a rank a step; with rem, the first total % n ranks one more. */
    const long total = rem == 3 ? 96000 + 47 : rem == 2 ? 96000 + 506 : rem ? 96000 + 7 : 96000;
    const long mine = strong ? total / n + (rank < total % n) : 1000;
    const long before = strong ? rank * (total / n) + (rank < total % n ? rank : total % n) : rank * 1000L;
    const long all = strong ? total : 1000L * n;
    for (int i = 0; i < steps; ++i) {
      const long off = is(decomp, "block") ? before * steps + i * mine : i * all + before;
      MPI_File_write_at(fh, off, buf, (int)mine, MPI_BYTE, MPI_STATUS_IGNORE);
    }
  } else {
    int gsizes[3], sub[3], starts[3], coords[3];
    /* 30, 50, 47: not multiples of every grid dimension */
    const int E = 8, G = rem == 3 ? 47 : rem == 2 ? 50 : rem ? 30 : 48;
    int rest = rank;
    for (int k = nd - 1; k >= 0; --k) { /* C order: the last dimension varies fastest */
      coords[k] = rest % dims[k];
      rest /= dims[k];
    }
    for (int k = 0; k < nd; ++k) {
      gsizes[k] = strong ? G : E * dims[k];
      const int q = gsizes[k] / dims[k], r = gsizes[k] % dims[k];
      sub[k] = q + (coords[k] < r);
      starts[k] = coords[k] * q + (coords[k] < r ? coords[k] : r);
    }
    MPI_Datatype ft;
    if (is(decomp, "darray")) {
      int distribs[3] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
      int dargs[3] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
      MPI_Type_create_darray(n, rank, nd, gsizes, distribs, dargs, dims, MPI_ORDER_C, MPI_INT, &ft);
    } else {
      MPI_Type_create_subarray(nd, gsizes, sub, starts, MPI_ORDER_C, MPI_INT, &ft);
    }
    MPI_Type_commit(&ft);
    int size = 0;
    MPI_Type_size(ft, &size);
    const int count = size / (int)sizeof(int);
    MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL);
    for (int i = 0; i < steps; ++i)
      MPI_File_write_at_all(fh, (MPI_Offset)i * count, buf, count, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    MPI_Type_free(&ft);
  }
  MPI_File_close(&fh);
  if (eof) {
    MPI_Offset size = 0;
    MPI_File_open(MPI_COMM_WORLD, "gen.dat", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
    MPI_File_get_size(fh, &size);
    const MPI_Offset chunk = size / 8;
    MPI_File_read_at(fh, rank * chunk, buf, (int)(chunk < (1 << 20) ? chunk : (1 << 20)), MPI_BYTE, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
  }
  if (!is(more, "none")) {
    const int k = is(more, "kth2") ? 2 : 4;
    const int first = is(more, "first"), last = is(more, "last");
    const int owner = first ? rank == 0 : last ? rank == n - 1 : rank % k == 0;
    const MPI_Offset header = first || last ? 0 : (MPI_Offset)(rank / k) * 32;
    const MPI_Offset data = (MPI_Offset)n * 32;
    MPI_File_open(MPI_COMM_WORLD, "more.dat", MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh);
    for (int i = 0; i < 9 + owner; ++i)
      put(fh, i < 9 ? data + ((MPI_Offset)rank * 9 + i) * 64 : header, buf, i < 9 ? 64 : 32);
    MPI_File_close(&fh);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("done\n");
  MPI_Finalize();
  return 0;
}
