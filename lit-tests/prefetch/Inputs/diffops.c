/* Differential test of libsio-prefetch.so (docs/prefetch.md, "The
 * guarantee"): a seeded random script of MPI-IO operations whose output must
 * be the same with the library preloaded as without it.
 *
 *   diffops --seed S [--steps N] [--bad 0]
 *
 * Every rank draws the script's shape (the operation of each step, which rank
 * writes, the view kind) from one generator seeded with S, so collectives
 * match; its own parameters (positions, sizes, memory types) from a second
 * one seeded with S and its rank. Steps:
 *   reads      a burst of reads of one kind: read_at, read (after a seek),
 *              read_all, read_at_all, iread_at + MPI_Wait, iread + MPI_Test
 *              loop, read_ordered; each rank follows a strided stream of its
 *              own (so that the prefetcher learns it and serves from its
 *              cache) with jumps, reads past the end of the file (short
 *              counts), contiguous and derived memory types, and now and
 *              then an erroneous read (negative offset, a size that is not
 *              a whole number of etypes, an uncommitted or null datatype)
 *   write      one rank writes (write_at, write, write_at_all, iwrite_at +
 *              MPI_Wait) ahead of or behind the other ranks' streams (bytes
 *              they prefetched or will), reads its bytes back without a
 *              sync, then every rank syncs, barriers and syncs (MPI's
 *              consistency steps)
 *   atomic     set_atomicity(1), one rank writes, barrier, every rank
 *              reads, set_atomicity(0)
 *   view       set_view: the default, a displacement per rank, contiguous
 *              ints, a vector of ints (the ranks' views overlap), a 2-d
 *              subarray, external32
 *   size       set_size (truncating or extending), preallocate
 *   reopen     close and open again
 * Each read prints its error class, MPI_Get_count, MPI_Get_elements, a
 * checksum of the whole buffer (bytes MPI did not write included) and the
 * individual file pointer after it; rank 0 prints every rank's lines and a
 * checksum of the file at the end. */
#include <mpi.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int rank, nranks;
static uint64_t gstate, rstate; /* the script's shape; this rank's parameters */
static char *out;
static size_t outLen, outCap;
static const char *kPath = "diff.bin";
static int badReads = 1; /* --bad 0: no erroneous reads */

static uint64_t next(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static int64_t G(int64_t n) { return (int64_t)(next(&gstate) % (uint64_t)n); }
static int64_t R(int64_t n) { return (int64_t)(next(&rstate) % (uint64_t)n); }

static void emit(const char *fmt, ...) {
  char line[512];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (outLen + (size_t)n + 1 > outCap) {
    outCap = (outCap + (size_t)n + 1) * 2;
    out = realloc(out, outCap);
  }
  memcpy(out + outLen, line, (size_t)n);
  outLen += (size_t)n;
}

static uint64_t fnv(const unsigned char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i)
    h = (h ^ p[i]) * 1099511628211ull;
  return h;
}

static int errClass(int rc) {
  int c = rc;
  if (rc != MPI_SUCCESS)
    MPI_Error_class(rc, &c);
  return c;
}

/* The current view. */
enum { kDefault, kDisp, kInts, kVector, kSubarray, kExternal, kViews };
static const char *kViewNames[] = {"default", "disp", "ints", "vector", "subarray", "external32"};
static struct {
  int kind;
  MPI_Offset disp;
  int etype; /* bytes */
  int contiguous;
  MPI_Datatype filetype;
} view;

/* This rank's stream, in etypes of the view. */
static struct {
  MPI_Offset start, cursor;
  int size;  /* etypes per read */
  int gap;   /* etypes skipped after each read */
  int mtype; /* 0 contiguous etypes, 1 ints, 2 vector of ints with holes */
} stream;

static MPI_File fh;
static MPI_Datatype memVector; /* 2 ints, a hole, 2 ints */

static void newStream(void) {
  stream.size = (int)((256 + R(6 * 1024)) / view.etype);
  stream.gap = R(3) == 0 ? (int)(R(2048) / view.etype) : 0;
  stream.start = view.contiguous ? (rank * (MPI_Offset)16384 + R(4) * 512) / view.etype : 0;
  stream.cursor = stream.start;
  stream.mtype = (int)R(3);
}

static void setView(int step, int kind) {
  if (view.filetype != MPI_DATATYPE_NULL && view.filetype != MPI_BYTE && view.filetype != MPI_INT)
    MPI_Type_free(&view.filetype);
  view.kind = kind;
  view.disp = 0;
  view.etype = 1;
  view.contiguous = 1;
  view.filetype = MPI_BYTE;
  MPI_Datatype etype = MPI_BYTE;
  const char *rep = "native";
  const int64_t a = G(8), b = G(4);
  switch (kind) {
  case kDisp:
    view.disp = rank * 256 * (1 + a);
    break;
  case kInts: /* contiguous ints after a displacement */
    etype = MPI_INT;
    view.etype = 4;
    view.disp = 4 * (a * 37 + rank * 8);
    MPI_Type_contiguous(16, MPI_INT, &view.filetype);
    MPI_Type_commit(&view.filetype);
    break;
  case kVector: { /* two blocks of ints per period; ranks' views overlap by half a block */
    etype = MPI_INT;
    view.etype = 4;
    view.contiguous = 0;
    const int blk = (int)(64 << b), stride = blk * (nranks > 1 ? nranks : 2);
    MPI_Datatype v;
    MPI_Type_vector(2, blk, stride, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)2 * stride * 4, &view.filetype);
    MPI_Type_free(&v);
    MPI_Type_commit(&view.filetype);
    view.disp = (MPI_Offset)rank * blk * 2;
    break;
  }
  case kSubarray: { /* a tile of a {4P, C} array of ints, tiled over the file */
    etype = MPI_INT;
    view.etype = 4;
    view.contiguous = 0;
    const int cols = (int)(128 << b);
    int sizes[2] = {4 * nranks, cols}, sub[2] = {4, cols / 2}, starts[2] = {4 * rank, (rank % 2) * cols / 4};
    MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &view.filetype);
    MPI_Type_commit(&view.filetype);
    view.disp = 64 * a;
    break;
  }
  case kExternal:
    etype = MPI_INT;
    view.etype = 4;
    view.filetype = MPI_INT;
    rep = "external32";
    break;
  }
  int rc = MPI_File_set_view(fh, view.disp, etype, view.filetype, rep, MPI_INFO_NULL);
  emit("r%d s%d set_view %s %lld %lld disp %lld rc=%d\n", rank, step, kViewNames[kind], (long long)a, (long long)b,
       (long long)view.disp, errClass(rc));
  newStream();
}

static void openFile(void) {
  int rc = MPI_File_open(MPI_COMM_WORLD, kPath, MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
  if (rc != MPI_SUCCESS) {
    fprintf(stderr, "diffops: cannot open %s\n", kPath);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  view.filetype = MPI_DATATYPE_NULL;
  view.kind = kDefault;
  view.disp = 0;
  view.etype = 1;
  view.contiguous = 1;
  newStream();
}

/* The stream's next position; back to its start past the end of the file
 * (so the read before it was short or empty). */
static MPI_Offset nextPosition(int inside) {
  MPI_Offset size = 0, at = 0;
  MPI_File_get_size(fh, &size);
  MPI_File_get_byte_offset(fh, stream.cursor, &at);
  if (at > size + 8192)
    stream.cursor = stream.start;
  if (R(12) == 0) /* a jump */
    stream.cursor = stream.start + R(64) * stream.size;
  /* Through a non-contiguous view, ROMIO reads past the end of the file
   * with data sieving and returns the whole count, the bytes past the end
   * being whatever its sieve buffer held (other reads' bytes): not a result
   * to compare. So do collective reads (`inside`): ROMIO's two-phase read
   * reports the whole count past the end too, and whether it takes that
   * path depends on every rank's request; and reads into a derived memory
   * type or through an external32 view (read through a scratch buffer, whose
   * bytes past the end of the file are undefined). Such reads stay inside
   * the file. */
  MPI_Offset last = 0;
  MPI_File_get_byte_offset(fh, stream.cursor + stream.size, &last);
  if ((inside || !view.contiguous) && last > size) {
    stream.cursor = stream.start;
    MPI_File_get_byte_offset(fh, stream.cursor + stream.size, &last);
    if (last > size)
      stream.cursor = 0;
  }
  MPI_Offset p = stream.cursor;
  stream.cursor += stream.size + stream.gap;
  return p;
}

/* A read's memory type and count for `etypes` etypes of the view. */
static void memoryType(int etypes, MPI_Datatype *type, int *count) {
  const int64_t bytes = (int64_t)etypes * view.etype;
  if (stream.mtype == 0 && view.etype == 1) {
    *type = MPI_BYTE;
    *count = (int)bytes;
  } else if (stream.mtype == 2 && bytes >= 16) {
    *type = memVector;
    *count = (int)(bytes / 16);
  } else {
    *type = MPI_INT;
    *count = (int)(bytes / 4 > 0 ? bytes / 4 : 1);
  }
}

static void report(const char *what, int step, int rc, MPI_Status *st, MPI_Datatype type, const unsigned char *buf,
                   size_t span, int committed) {
  int count = -1, elems = -1;
  if (rc == MPI_SUCCESS && committed) {
    MPI_Get_count(st, type, &count);
    MPI_Get_elements(st, type, &elems);
  }
  MPI_Offset pos = -1;
  MPI_File_get_position(fh, &pos);
  emit("r%d s%d %s rc=%d count=%d elems=%d sum=%016llx pos=%lld\n", rank, step, what, errClass(rc), count, elems,
       (unsigned long long)fnv(buf, span), (long long)pos);
  static int serial;
  if (getenv("DIFFOPS_DUMP")) { /* debugging: every buffer to a file */
    char name[64];
    snprintf(name, sizeof name, "%s.r%d.%d", getenv("DIFFOPS_DUMP"), rank, serial++);
    FILE *f = fopen(name, "wb");
    fwrite(buf, 1, span, f);
    fclose(f);
  }
}

enum { kReadAt, kRead, kReadAll, kReadAtAll, kIreadAt, kIread, kReadOrdered, kReadKinds };
static const char *kReadNames[] = {"read_at", "read", "read_all", "read_at_all", "iread_at", "iread", "read_ordered"};

static void readOne(int step, int kind) {
  MPI_Datatype type;
  int count;
  memoryType(stream.size, &type, &count);
  const int inside =
      kind == kReadAll || kind == kReadAtAll || kind == kReadOrdered || type == memVector || view.kind == kExternal;
  MPI_Offset pos = nextPosition(inside);
  /* Erroneous independent reads, now and then (MPI returns an error class;
   * so must the library, leaving the buffer alone). */
  int bad = kind == kReadAt && R(16) == 0 ? 1 + (int)R(4) : 0;
  if (!badReads)
    bad = 0;
  MPI_Datatype loose = MPI_DATATYPE_NULL;
  if (bad == 1)
    pos = -1 - R(100);
  else if (bad == 2 && view.etype > 1) {
    type = MPI_BYTE;
    count = 4 * count + 2;
  } else if (bad == 3) {
    MPI_Type_contiguous(2, MPI_INT, &loose); /* never committed */
    type = loose;
    count = count / 2 > 0 ? count / 2 : 1;
  } else if (bad == 4) {
    type = MPI_DATATYPE_NULL;
  }
  MPI_Aint lb = 0, extent = 1;
  if (type != MPI_DATATYPE_NULL)
    MPI_Type_get_extent(type, &lb, &extent);
  const size_t span = (size_t)extent * (size_t)count + 16;
  unsigned char *buf = malloc(span);
  memset(buf, 0xA5, span);
  MPI_Status st;
  MPI_Request req;
  int rc = MPI_SUCCESS;
  /* Reads on the individual file pointer start at the stream's position
   * when they must stay inside the file, else now and then. */
  if ((kind == kRead || kind == kReadAll || kind == kIread) && (inside || !view.contiguous || R(3) == 0))
    MPI_File_seek(fh, pos, MPI_SEEK_SET);
  switch (kind) {
  case kReadAt:
    rc = MPI_File_read_at(fh, pos, buf, count, type, &st);
    break;
  case kRead:
    rc = MPI_File_read(fh, buf, count, type, &st);
    break;
  case kReadAll:
    rc = MPI_File_read_all(fh, buf, count, type, &st);
    break;
  case kReadAtAll:
    rc = MPI_File_read_at_all(fh, pos, buf, count, type, &st);
    break;
  case kIreadAt:
    rc = MPI_File_iread_at(fh, pos, buf, count, type, &req);
    if (rc == MPI_SUCCESS)
      rc = MPI_Wait(&req, &st);
    break;
  case kIread: {
    rc = MPI_File_iread(fh, buf, count, type, &req);
    int done = 0;
    while (rc == MPI_SUCCESS && !done)
      rc = MPI_Test(&req, &done, &st);
    break;
  }
  case kReadOrdered:
    rc = MPI_File_read_ordered(fh, buf, count, type, &st);
    break;
  }
  char what[64];
  snprintf(what, sizeof what, "%s%s at %lld", kReadNames[kind], bad ? "-bad" : "", (long long)pos);
  report(what, step, rc, &st, type, buf, span, loose == MPI_DATATYPE_NULL);
  if (loose != MPI_DATATYPE_NULL)
    MPI_Type_free(&loose);
  free(buf);
}

static void fillWrite(unsigned char *buf, size_t n, int step) {
  for (size_t i = 0; i < n; ++i)
    buf[i] = (unsigned char)(next(&rstate) >> 56) ^ (unsigned char)step;
}

/* One rank writes where the others read (ahead of or behind their streams)
 * and reads its bytes back; then MPI's consistency steps. */
static void writeStep(int step, int atomic) {
  const int writer = (int)G(nranks), kind = (int)G(4);
  /* Every rank's next read, as a file offset. */
  MPI_Offset mine = 0, *targets = malloc(sizeof(MPI_Offset) * (size_t)nranks);
  MPI_File_get_byte_offset(fh, stream.cursor, &mine);
  MPI_Allgather(&mine, 1, MPI_OFFSET, targets, 1, MPI_OFFSET, MPI_COMM_WORLD);
  int count = 0;
  MPI_Offset pos = 0;
  unsigned char *buf = malloc(16); /* (a rank that writes nothing still passes a buffer) */
  if (rank == writer) {
    const MPI_Offset t = targets[R(nranks)] + (R(9) - 2) * 4096;
    pos = view.contiguous ? (t > view.disp ? (t - view.disp) / view.etype : 0) : stream.cursor + R(8) * stream.size;
    count = (int)((64 + R(12 * 1024)) / 4);
    buf = realloc(buf, (size_t)count * 4);
    fillWrite(buf, (size_t)count * 4, step);
  }
  MPI_Status st;
  MPI_Request req;
  int rc = MPI_SUCCESS;
  if (kind == 2) {
    rc = MPI_File_write_at_all(fh, pos, buf, count, MPI_INT, &st);
  } else if (rank == writer) {
    if (kind == 0)
      rc = MPI_File_write_at(fh, pos, buf, count, MPI_INT, &st);
    else if (kind == 1) {
      MPI_File_seek(fh, pos, MPI_SEEK_SET);
      rc = MPI_File_write(fh, buf, count, MPI_INT, &st);
    } else {
      rc = MPI_File_iwrite_at(fh, pos, buf, count, MPI_INT, &req);
      if (rc == MPI_SUCCESS)
        rc = MPI_Wait(&req, &st);
    }
  }
  if (rank == writer) {
    emit("r%d s%d write%s kind %d at %lld: rc=%d\n", rank, step, atomic ? "-atomic" : "", kind, (long long)pos,
         errClass(rc));
    /* Read your own write (same handle: no sync needed). */
    if (!atomic && R(4) != 0) {
      memset(buf, 0, (size_t)count * 4);
      rc = MPI_File_read_at(fh, pos, buf, count, MPI_INT, &st);
      report("readback", step, rc, &st, MPI_INT, buf, (size_t)count * 4, 1);
    }
  }
  free(buf);
  free(targets);
  if (!atomic)
    MPI_File_sync(fh);
  MPI_Barrier(MPI_COMM_WORLD);
  if (!atomic)
    MPI_File_sync(fh);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  uint64_t seed = 1;
  int steps = 60;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "--seed"))
      seed = strtoull(argv[i + 1], NULL, 10);
    else if (!strcmp(argv[i], "--steps"))
      steps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "--bad"))
      badReads = atoi(argv[i + 1]);
  }
  gstate = seed * 0x2545F4914F6CDD1Dull;
  rstate = (seed + 1000003ull * (uint64_t)(rank + 1)) * 0x9E3779B97F4A7C15ull;
  MPI_Type_vector(2, 2, 3, MPI_INT, &memVector); /* 16 data bytes, a 4-byte hole between */
  MPI_Type_commit(&memVector);

  /* The file: rank 0 writes it through POSIX before anyone opens it. */
  if (rank == 0) {
    const size_t n = 96 * 1024 + (size_t)G(32 * 1024);
    unsigned char *b = malloc(n);
    for (size_t i = 0; i < n; ++i)
      b[i] = (unsigned char)((i * 2654435761u) >> 13);
    int fd = open(kPath, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, b, n) != (ssize_t)n) {
      perror(kPath);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
    free(b);
  } else {
    G(32 * 1024);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  openFile();

  for (int step = 0; step < steps; ++step) {
    const int64_t k = G(100);
    if (k < 55) { /* a burst of reads */
      int kind = (int)G(kReadOrdered + 1);
      if (kind == kReadOrdered && (G(3) != 0 || !view.contiguous))
        kind = kReadAt;
      const int n = 2 + (int)G(7);
      for (int i = 0; i < n; ++i)
        readOne(step, kind);
    } else if (k < 70) {
      writeStep(step, 0);
    } else if (k < 76) { /* atomic mode: the write is seen after a barrier */
      int rc = MPI_File_set_atomicity(fh, 1);
      emit("r%d s%d atomic rc=%d\n", rank, step, errClass(rc));
      writeStep(step, 1);
      readOne(step, kReadAt);
      rc = MPI_File_set_atomicity(fh, 0);
      emit("r%d s%d nonatomic rc=%d\n", rank, step, errClass(rc));
    } else if (k < 86) {
      setView(step, (int)G(kViews));
    } else if (k < 92) {
      MPI_Offset size = 0;
      MPI_File_get_size(fh, &size);
      const MPI_Offset to = size / 4 + G(size + size / 4);
      int rc = G(3) == 0 ? MPI_File_preallocate(fh, to) : MPI_File_set_size(fh, to);
      MPI_File_get_size(fh, &size);
      emit("r%d s%d resize %lld rc=%d size=%lld\n", rank, step, (long long)to, errClass(rc), (long long)size);
      if (size < 32 * 1024) { /* keep something to read */
        rc = MPI_File_set_size(fh, 96 * 1024);
        emit("r%d s%d grow rc=%d\n", rank, step, errClass(rc));
      }
    } else {
      int rc = MPI_File_close(&fh);
      emit("r%d s%d close rc=%d\n", rank, step, errClass(rc));
      openFile();
    }
  }
  MPI_File_close(&fh);

  /* Every rank's lines, in rank order, and the file's checksum. */
  if (rank == 0) {
    fwrite(out, 1, outLen, stdout);
    for (int r = 1; r < nranks; ++r) {
      unsigned long long n = 0;
      MPI_Recv(&n, 1, MPI_UNSIGNED_LONG_LONG, r, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      char *b = malloc(n + 1);
      MPI_Recv(b, (int)n, MPI_CHAR, r, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      fwrite(b, 1, n, stdout);
      free(b);
    }
    int fd = open(kPath, O_RDONLY);
    unsigned char b[65536];
    uint64_t h = 1469598103934665603ull, total = 0;
    ssize_t got;
    while (fd >= 0 && (got = read(fd, b, sizeof b)) > 0) {
      for (ssize_t i = 0; i < got; ++i)
        h = (h ^ b[i]) * 1099511628211ull;
      total += (uint64_t)got;
    }
    if (fd >= 0)
      close(fd);
    printf("file %llu bytes sum=%016llx\n", (unsigned long long)total, (unsigned long long)h);
  } else {
    unsigned long long n = outLen;
    MPI_Send(&n, 1, MPI_UNSIGNED_LONG_LONG, 0, 0, MPI_COMM_WORLD);
    MPI_Send(out, (int)n, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
  }
  MPI_Type_free(&memVector);
  MPI_Finalize();
  return 0;
}
