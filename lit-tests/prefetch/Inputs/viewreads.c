/* Reads through derived filetypes and memory types, the way PnetCDF and
 * BTIO-class codes issue them (issue 31, prefetching):
 *
 *   struct-all      a new view before every read (a struct filetype of two
 *                   variables' subarrays in one record, as PnetCDF builds for
 *                   ncmpi_get_vara_all / a wait_all of two iget requests),
 *                   MPI_File_read_all into a contiguous buffer
 *   struct-mem-all  the same into a derived memory type (a struct of two
 *                   ghost-celled arrays' interiors)
 *   struct-at       the same memory type, independent MPI_File_read_at
 *   struct-iread    the same, MPI_File_iread_at + MPI_Wait
 *   struct-pnetcdf  the same, MPI_File_read_at_all, and rank 0's view has
 *                   the header (--header bytes) before the variables and
 *                   it reads after it, as PnetCDF's ncmpio_file_set_view
 *   subarray-all    BTIO: one subarray view of the 3-D array, one
 *                   MPI_File_read_all per step into a subarray of a
 *                   ghost-celled array (the next step follows in the file)
 *   subarray-iread  the same with MPI_File_iread + MPI_Wait
 *   random-types    generated: per case (--cases N, seed --seed S) a random
 *                   filetype (hindexed, struct, vector, subarray or resized
 *                   nests, increasing offsets) and a random memory type of as
 *                   many ints (blocks at shuffled places, holes), read 12
 *                   times on through the view with read_all, read, iread_at
 *                   or read_at_all; each read is compared byte for byte (holes
 *                   included) and by status with the same read on a second
 *                   handle opened with sio_prefetch=disable (MPI's own read)
 *
 *   viewreads MODE [--steps N] [--compute-us N] [--cells N]
 *                  [--header BYTES] [--rows N] [--reset-view 1]
 *
 * --reset-view 1: struct modes set the default view (MPI_BYTE) again after
 * each read, as PnetCDF does after each request.
 *
 * VIEWREADS_SETTLE_US=N: subarray modes sleep N µs between the open and the
 * set_view.
 * Rank 0 writes view.bin (POSIX, before a barrier): int32 element i holds
 * value(i). Every element read is compared with value(its file index); ghost
 * cells must keep their sentinel; status counts are checked. Prints
 * "MODE: R reads, W wrong" from rank 0; exits 1 on a wrong value. */
#include <mpi.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks, steps = 24, computeUs = 2000, cells = 64, cases = 12;
/* struct modes: bytes before the first record (PnetCDF's header: its
 * variables start at 512, off every block boundary), rows per rank (default
 * cells / 2) */
static int header = 0, rows = 0, resetView = 0;
static unsigned seed = 1;
static long reads, wrong;
static const int kSentinel = -7;

static int value(int64_t i) { return (int)((uint64_t)i * 2654435761u >> 3); }

static void create(int64_t elems) {
  if (rank == 0) {
    int *buf = malloc((size_t)elems * sizeof(int));
    for (int64_t i = 0; i < elems; ++i)
      buf[i] = value(i);
    int fd = open("view.bin", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf, (size_t)elems * sizeof(int)) != (ssize_t)(elems * (int64_t)sizeof(int))) {
      perror("view.bin");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
    free(buf);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

static void compute(void) {
  if (computeUs > 0)
    usleep((useconds_t)computeUs);
}

static void expectCount(MPI_Status *st, MPI_Datatype t, int want) {
  int got = -1;
  MPI_Get_count(st, t, &got);
  if (got != want) {
    fprintf(stderr, "rank %d: status count %d, expected %d\n", rank, got, want);
    ++wrong;
  }
}

/* Two 2-D variables A and B of ny x nx ints per record; record t holds A[t]
 * then B[t]. Ranks form a py x px grid; each reads its ly x lx block of A[t]
 * and B[t] with one read. */
static void structReads(const char *mode) {
  int px = 1, py = nranks;
  while (px * 2 <= py && py % 2 == 0) {
    px *= 2;
    py /= 2;
  }
  const int lx = cells, ly = rows > 0 ? rows : cells / 2, nx = lx * px, ny = ly * py;
  const int rx = rank % px, ry = rank / px;
  const int64_t varElems = (int64_t)nx * ny, recElems = 2 * varElems, h = header / 4;
  create(h + recElems * steps);
  const int memOf = strcmp(mode, "struct-all") != 0; /* ghost-celled memory */
  const int gx = lx + 2, gy = ly + 2;
  int *mem = malloc(sizeof(int) * (size_t)(2 * gx * gy));
  MPI_Datatype memType = MPI_INT;
  int memCount = 2 * lx * ly;
  if (memOf) {
    int sizes[2] = {gy, gx}, subs[2] = {ly, lx}, starts[2] = {1, 1};
    MPI_Datatype interior, two;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &interior);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {0, (MPI_Aint)(sizeof(int) * (size_t)(gx * gy))};
    MPI_Datatype types[2] = {interior, interior};
    MPI_Type_create_struct(2, bl, disp, types, &two);
    MPI_Type_commit(&two);
    MPI_Type_free(&interior);
    memType = two;
    memCount = 1;
  }
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "view.bin", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  for (int t = 0; t < steps; ++t) {
    /* PnetCDF's view: a struct of the variables' subarrays at their byte
     * offsets, displacement 0, etype MPI_BYTE. */
    int sizes[2] = {ny, nx}, subs[2] = {ly, lx}, starts[2] = {ry * ly, rx * lx};
    MPI_Datatype sub, file;
    MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_C, MPI_INT, &sub);
    int bl[2] = {1, 1};
    MPI_Aint disp[2] = {(MPI_Aint)((h + t * recElems) * 4), (MPI_Aint)((h + t * recElems + varElems) * 4)};
    MPI_Datatype types[2] = {sub, sub};
    MPI_Type_create_struct(2, bl, disp, types, &file);
    MPI_Type_commit(&file);
    MPI_Offset at = 0;
    if (!strcmp(mode, "struct-pnetcdf") && rank == 0 && header > 0) {
      /* PnetCDF's root keeps the whole header in its view */
      int rbl[2] = {header, 1};
      MPI_Aint rdisp[2] = {0, 0};
      MPI_Datatype rtypes[2] = {MPI_BYTE, file}, root;
      MPI_Type_create_struct(2, rbl, rdisp, rtypes, &root);
      MPI_Type_commit(&root);
      MPI_Type_free(&file);
      file = root;
      at = header;
    }
    MPI_File_set_view(fh, 0, MPI_BYTE, file, "native", MPI_INFO_NULL);
    MPI_Type_free(&sub);
    MPI_Type_free(&file);
    for (int i = 0; i < 2 * gx * gy; ++i)
      mem[i] = kSentinel;
    MPI_Status st;
    int rc;
    if (!strcmp(mode, "struct-at")) {
      rc = MPI_File_read_at(fh, 0, mem, memCount, memType, &st);
    } else if (!strcmp(mode, "struct-pnetcdf")) {
      rc = MPI_File_read_at_all(fh, at, mem, memCount, memType, &st);
    } else if (!strcmp(mode, "struct-iread")) {
      MPI_Request req;
      rc = MPI_File_iread_at(fh, 0, mem, memCount, memType, &req);
      if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, &st);
    } else {
      rc = MPI_File_read_all(fh, mem, memCount, memType, &st);
    }
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "rank %d: read failed\n", rank);
      ++wrong;
    }
    expectCount(&st, memType, memCount);
    ++reads;
    if (resetView)
      MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL);
    for (int v = 0; v < 2; ++v)
      for (int y = 0; y < ly; ++y)
        for (int x = 0; x < lx; ++x) {
          const int64_t fi = h + t * recElems + v * varElems + (int64_t)(ry * ly + y) * nx + rx * lx + x;
          const int got = memOf ? mem[v * gx * gy + (y + 1) * gx + x + 1] : mem[(v * ly + y) * lx + x];
          wrong += got != value(fi);
        }
    if (memOf) /* the ghost cells are not the read's */
      for (int v = 0; v < 2; ++v)
        for (int y = 0; y < gy; ++y)
          for (int x = 0; x < gx; ++x)
            if (y == 0 || x == 0 || y == gy - 1 || x == gx - 1)
              wrong += mem[v * gx * gy + y * gx + x] != kSentinel;
    compute();
  }
  MPI_File_close(&fh);
  if (memOf)
    MPI_Type_free(&memType);
  free(mem);
}

/* BTIO: the global nz x ny x nx array (ints) of each step follows the
 * previous one; ranks split y and x; one subarray view, one read per step
 * into the interior of a ghost-celled (lz+2)(ly+2)(lx+2) array. */
static void subarrayReads(const char *mode) {
  int px = 1, py = nranks;
  while (px * 2 <= py && py % 2 == 0) {
    px *= 2;
    py /= 2;
  }
  const int lz = 8, ly = cells / 4, lx = cells / 2, nz = lz, ny = ly * py, nx = lx * px;
  const int rx = rank % px, ry = rank / px;
  const int64_t stepElems = (int64_t)nz * ny * nx;
  create(stepElems * steps);
  int fsizes[3] = {nz, ny, nx}, fsubs[3] = {lz, ly, lx}, fstarts[3] = {0, ry * ly, rx * lx};
  MPI_Datatype file, memType;
  MPI_Type_create_subarray(3, fsizes, fsubs, fstarts, MPI_ORDER_C, MPI_INT, &file);
  MPI_Type_commit(&file);
  const int gz = lz + 2, gy = ly + 2, gx = lx + 2;
  int msizes[3] = {gz, gy, gx}, mstarts[3] = {1, 1, 1};
  MPI_Type_create_subarray(3, msizes, fsubs, mstarts, MPI_ORDER_C, MPI_INT, &memType);
  MPI_Type_commit(&memType);
  int *mem = malloc(sizeof(int) * (size_t)(gz * gy * gx));
  MPI_File fh;
  MPI_File_open(MPI_COMM_WORLD, "view.bin", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  if (getenv("VIEWREADS_SETTLE_US")) /* time for a prefetcher between open and set_view */
    usleep((useconds_t)atoi(getenv("VIEWREADS_SETTLE_US")));
  MPI_File_set_view(fh, 0, MPI_INT, file, "native", MPI_INFO_NULL);
  for (int t = 0; t < steps; ++t) {
    for (int i = 0; i < gz * gy * gx; ++i)
      mem[i] = kSentinel;
    MPI_Status st;
    int rc;
    if (!strcmp(mode, "subarray-iread")) {
      MPI_Request req;
      rc = MPI_File_iread(fh, mem, 1, memType, &req);
      if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, &st);
    } else {
      rc = MPI_File_read_all(fh, mem, 1, memType, &st);
    }
    if (rc != MPI_SUCCESS) {
      fprintf(stderr, "rank %d: read failed\n", rank);
      ++wrong;
    }
    expectCount(&st, memType, 1);
    ++reads;
    for (int z = 0; z < gz; ++z)
      for (int y = 0; y < gy; ++y)
        for (int x = 0; x < gx; ++x) {
          const int got = mem[(z * gy + y) * gx + x];
          if (z == 0 || y == 0 || x == 0 || z == gz - 1 || y == gy - 1 || x == gx - 1) {
            wrong += got != kSentinel;
            continue;
          }
          const int64_t fi = t * stepElems + (int64_t)(z - 1) * ny * nx + (int64_t)(ry * ly + y - 1) * nx + rx * lx + x - 1;
          wrong += got != value(fi);
        }
    compute();
  }
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  if (pos != (MPI_Offset)steps * lz * ly * lx) {
    fprintf(stderr, "rank %d: file position %lld\n", rank, (long long)pos);
    ++wrong;
  }
  MPI_File_close(&fh);
  MPI_Type_free(&file);
  MPI_Type_free(&memType);
  free(mem);
}

static unsigned next(void) { /* xorshift */
  seed ^= seed << 13;
  seed ^= seed >> 17;
  seed ^= seed << 5;
  return seed;
}

/* Block lengths (ints) of a random layout: 1..6 blocks of 1..40 ints. */
static int blocks(int *len) {
  const int n = 1 + (int)(next() % 6);
  for (int i = 0; i < n; ++i)
    len[i] = 1 + (int)(next() % 40);
  return n;
}

/* A filetype of the blocks `len`, at increasing offsets with gaps, wrapped
 * in one of several constructors; *ints its data ints. */
static MPI_Datatype randomFiletype(const int *len, int n) {
  MPI_Aint disp[8];
  MPI_Aint at = (MPI_Aint)(next() % 3) * 4;
  for (int i = 0; i < n; ++i) {
    disp[i] = at;
    at += (MPI_Aint)(len[i] + (int)(next() % 50)) * 4;
  }
  MPI_Datatype inner, t;
  const unsigned kind = next() % 4;
  if (kind == 0) {
    MPI_Type_create_hindexed(n, len, disp, MPI_INT, &t);
  } else if (kind == 1) { /* struct of contiguous blocks */
    MPI_Datatype types[8];
    int ones[8];
    for (int i = 0; i < n; ++i) {
      MPI_Type_contiguous(len[i], MPI_INT, &types[i]);
      ones[i] = 1;
    }
    MPI_Type_create_struct(n, ones, disp, types, &t);
    for (int i = 0; i < n; ++i)
      MPI_Type_free(&types[i]);
  } else if (kind == 2) { /* hindexed, resized with a trailing gap */
    MPI_Type_create_hindexed(n, len, disp, MPI_INT, &inner);
    MPI_Type_create_resized(inner, 0, at + 64, &t);
    MPI_Type_free(&inner);
  } else { /* struct of one hindexed at a displacement, as PnetCDF wraps it */
    MPI_Type_create_hindexed(n, len, disp, MPI_INT, &inner);
    int one = 1;
    MPI_Aint d = 128;
    MPI_Type_create_struct(1, &one, &d, &inner, &t);
    MPI_Type_free(&inner);
  }
  MPI_Type_commit(&t);
  return t;
}

/* A memory type of the same blocks, placed in a shuffled order with holes
 * (typemap order = the blocks' order; memory places them anywhere). */
static MPI_Datatype randomMemtype(const int *len, int n, MPI_Aint *span) {
  int order[8];
  for (int i = 0; i < n; ++i)
    order[i] = i;
  for (int i = n - 1; i > 0; --i) {
    const int j = (int)(next() % (unsigned)(i + 1)), k = order[i];
    order[i] = order[j];
    order[j] = k;
  }
  MPI_Aint place[8], at = 8;
  for (int i = 0; i < n; ++i) { /* the order[i]-th block gets the i-th slot */
    place[order[i]] = at;
    at += (MPI_Aint)(len[order[i]] + (int)(next() % 7)) * 4;
  }
  *span = at + 8;
  MPI_Datatype t;
  if (next() % 2) {
    MPI_Type_create_hindexed(n, len, place, MPI_INT, &t);
  } else {
    MPI_Datatype types[8];
    for (int i = 0; i < n; ++i)
      types[i] = MPI_INT;
    MPI_Type_create_struct(n, len, place, types, &t);
  }
  MPI_Type_commit(&t);
  return t;
}

static void randomTypes(void) {
  create((int64_t)1 << 20); /* 4 MiB */
  MPI_Info off;
  MPI_Info_create(&off);
  MPI_Info_set(off, "sio_prefetch", "disable");
  MPI_File fh, ref;
  MPI_File_open(MPI_COMM_WORLD, "view.bin", MPI_MODE_RDONLY, MPI_INFO_NULL, &fh);
  MPI_File_open(MPI_COMM_WORLD, "view.bin", MPI_MODE_RDONLY, off, &ref);
  MPI_Info_free(&off);
  for (int c = 0; c < cases; ++c) {
    int len[8];
    const int n = blocks(len);
    MPI_Datatype ft = randomFiletype(len, n);
    MPI_Aint span = 0;
    MPI_Datatype mt = randomMemtype(len, n, &span);
    MPI_Aint lb, extent;
    MPI_Type_get_extent(ft, &lb, &extent);
    const MPI_Offset disp = (MPI_Offset)rank * extent * 16 + (MPI_Offset)(next() % 4) * 4;
    MPI_File_set_view(fh, disp, MPI_INT, ft, "native", MPI_INFO_NULL);
    MPI_File_set_view(ref, disp, MPI_INT, ft, "native", MPI_INFO_NULL);
    const unsigned how = next() % 4;
    char *a = malloc((size_t)span), *b = malloc((size_t)span);
    int tileInts = 0;
    for (int i = 0; i < n; ++i)
      tileInts += len[i];
    for (int k = 0; k < 12; ++k) {
      memset(a, 0x5a, (size_t)span);
      memset(b, 0x5a, (size_t)span);
      MPI_Status sa, sb;
      const MPI_Offset at = (MPI_Offset)k * tileInts;
      if (how == 0) {
        MPI_File_read_all(fh, a, 1, mt, &sa);
        MPI_File_read_all(ref, b, 1, mt, &sb);
      } else if (how == 1) {
        MPI_File_read(fh, a, 1, mt, &sa);
        MPI_File_read(ref, b, 1, mt, &sb);
      } else if (how == 2) {
        MPI_Request r;
        MPI_File_iread_at(fh, at, a, 1, mt, &r);
        MPI_Wait(&r, &sa);
        MPI_File_read_at(ref, at, b, 1, mt, &sb);
      } else {
        MPI_File_read_at_all(fh, at, a, 1, mt, &sa);
        MPI_File_read_at_all(ref, at, b, 1, mt, &sb);
      }
      ++reads;
      int ca = -1, cb = -2;
      MPI_Get_count(&sa, mt, &ca);
      MPI_Get_count(&sb, mt, &cb);
      wrong += ca != cb;
      for (MPI_Aint i = 0; i < span; ++i)
        wrong += a[i] != b[i];
    }
    MPI_Offset pa, pb;
    MPI_File_get_position(fh, &pa);
    MPI_File_get_position(ref, &pb);
    wrong += pa != pb;
    free(a);
    free(b);
    MPI_Type_free(&ft);
    MPI_Type_free(&mt);
  }
  MPI_File_close(&fh);
  MPI_File_close(&ref);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (argc < 2) {
    if (rank == 0)
      fprintf(stderr, "usage: viewreads MODE [--steps N] [--compute-us N] [--cells N]\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *mode = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--steps"))
      steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--compute-us"))
      computeUs = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--cells"))
      cells = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--cases"))
      cases = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--header"))
      header = atoi(argv[i + 1]) / 4 * 4;
    else if (!strcmp(argv[i], "--rows"))
      rows = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--reset-view"))
      resetView = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--seed"))
      seed = (unsigned)strtoul(argv[i + 1], NULL, 10) | 1u;
  }
  if (!strncmp(mode, "struct", 6))
    structReads(mode);
  else if (!strncmp(mode, "subarray", 8))
    subarrayReads(mode);
  else if (!strcmp(mode, "random-types"))
    randomTypes();
  else
    MPI_Abort(MPI_COMM_WORLD, 2);
  long total[2] = {reads, wrong}, sum[2];
  MPI_Reduce(total, sum, 2, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  if (rank == 0)
    printf("%s: %ld reads, %ld wrong\n", mode, sum[0], sum[1]);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
