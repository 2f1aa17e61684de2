// Derived MPI datatypes as the buffer type of PnetCDF's flexible API, the
// way FLASH-IO and BTIO-style codes call it: each rank keeps its block with
// ghost cells and hands PnetCDF a subarray type selecting the interior.
// Writes the same data to an ordinary file (DIR/plain.nc) and to
// partitioned files (DIR/partK.nc over the targets DIR/ta, DIR/tb, DIR/tc)
// with ncmpi_put_vara_all, ncmpi_iput_vara + ncmpi_wait_all, independent
// ncmpi_put_vara and ncmpi_put_varn_all; reads it back with the matching
// gets into fresh ghost-celled buffers and checks the interior against the
// formula and that no ghost cell was touched. Also: a struct of int and
// double (PnetCDF: NC_EMULTITYPES), and the sizes ncmpi_inq_put_size /
// ncmpi_inq_get_size report per rank. Rank 0 prints one line per file.
// KEY=VALUE arguments are hints for every ncmpi_create (nc_header_align_size,
// ...); enddef=H_MINFREE,V_ALIGN,V_MINFREE,R_ALIGN ends define mode with
// ncmpi__enddef and those arguments.
//   ghost DIR K,K,... [KEY=VALUE ...]
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;
static int hintArgc;
static char **hintArgv;
static int useEnddefArgs;
static MPI_Offset enddefArgs[4];

enum { G = 1 };                          // ghost cells on each side
enum { Z = 4, Y = 12, X = 5 };           // field(z, y, x), cut along y by rank
enum { NV = 3, NB = 2, BY = 4, BX = 3 }; // unk(nvar, blocks, by, bx): NB blocks per rank (FLASH-IO)
enum { GHOST = -7 };                     // what the ghost cells hold

static double value(int var, long idx) { return var * 1000.0 + (double)idx; }

typedef struct {
  int blk, nb, ind, unk, vn;
} Vars;

static void define(int ncid, Vars *v) {
  int z, y, x, nv, blocks, by, bx, rows;
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "z", Z, &z));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", Y, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", X, &x));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "nvar", NV, &nv));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "blocks", NB * nprocs, &blocks));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "by", BY, &by));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "bx", BX, &bx));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "rows", 2 * nprocs, &rows));
  int d3[3] = {z, y, x}, d4[4] = {nv, blocks, by, bx}, d2[2] = {rows, x};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "blk", NC_DOUBLE, 3, d3, &v->blk));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "nb", NC_DOUBLE, 3, d3, &v->nb));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "ind", NC_INT, 3, d3, &v->ind));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "unk", NC_FLOAT, 4, d4, &v->unk));
  int second = 1; // FLASH's unknowns cut on the blocks (Son et al. 2013 §IV-B)
  SIO_NC_CHECK(ncmpi_put_att_int(ncid, v->unk, "sio_partition_dim", NC_INT, 1, &second));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "vn", NC_DOUBLE, 2, d2, &v->vn));
  if (useEnddefArgs)
    SIO_NC_CHECK(ncmpi__enddef(ncid, enddefArgs[0], enddefArgs[1], enddefArgs[2], enddefArgs[3]));
  else
    SIO_NC_CHECK(ncmpi_enddef(ncid));
}

// The 3-D fields: this rank's rows [y0, y0 + ly) with G ghost cells around.
static int y0, ly;
#define LZ (Z + 2 * G)
#define LY (ly + 2 * G)
#define LX (X + 2 * G)

static MPI_Datatype interior3(MPI_Datatype elem) {
  int sizes[3] = {LZ, LY, LX}, sub[3] = {Z, ly, X}, st[3] = {G, G, G};
  MPI_Datatype t;
  MPI_Type_create_subarray(3, sizes, sub, st, MPI_ORDER_C, elem, &t);
  MPI_Type_commit(&t);
  return t;
}

// unknowns(NV, NB, BY + 2G, BX + 2G) in C order; the interior of every block.
static MPI_Datatype interiorUnk(void) {
  int sizes[4] = {NV, NB, BY + 2 * G, BX + 2 * G}, sub[4] = {NV, NB, BY, BX}, st[4] = {0, 0, G, G};
  MPI_Datatype t;
  MPI_Type_create_subarray(4, sizes, sub, st, MPI_ORDER_C, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}

// vn: rows rank and rank + nprocs (two varn subarrays); the local buffer is
// 2 rows of X with G ghost cells around, interior as a vector type.
static MPI_Datatype interiorVn(void) {
  MPI_Datatype t;
  MPI_Type_vector(2, X, X + 2 * G, MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  return t;
}
#define VN_LEN ((2 + 2 * G) * (X + 2 * G))
#define VN_AT(r, x) (((r) + G) * (X + 2 * G) + (x) + G)

static long idx3(int z, int y, int x) { return ((long)z * Y + y) * X + x; }
static long lidx3(int z, int y, int x) { return ((long)(z + G) * LY + (y + G)) * LX + (x + G); }
static long lidxUnk(int v, int b, int y, int x) {
  return (((long)v * NB + b) * (BY + 2 * G) + (y + G)) * (BX + 2 * G) + (x + G);
}
static long idxUnk(int v, int b, int y, int x) { return (((long)v * NB * nprocs + b) * BY + y) * BX + x; }
#define UNK_LEN (NV * NB * (BY + 2 * G) * (BX + 2 * G))

static void fill3(double *a, int var) {
  for (long i = 0; i < (long)LZ * LY * LX; ++i)
    a[i] = GHOST;
  for (int z = 0; z < Z; ++z)
    for (int y = 0; y < ly; ++y)
      for (int x = 0; x < X; ++x)
        a[lidx3(z, y, x)] = value(var, idx3(z, y0 + y, x));
}

static void fill3i(int *a, int var) {
  for (long i = 0; i < (long)LZ * LY * LX; ++i)
    a[i] = GHOST;
  for (int z = 0; z < Z; ++z)
    for (int y = 0; y < ly; ++y)
      for (int x = 0; x < X; ++x)
        a[lidx3(z, y, x)] = (int)value(var, idx3(z, y0 + y, x));
}

static long wrong; // elements or ghost cells not as expected

static void check3(const double *a, int var) {
  for (int z = -G; z < Z + G; ++z)
    for (int y = -G; y < ly + G; ++y)
      for (int x = -G; x < X + G; ++x) {
        int inside = z >= 0 && z < Z && y >= 0 && y < ly && x >= 0 && x < X;
        double want = inside ? value(var, idx3(z, y0 + y, x)) : GHOST;
        wrong += a[lidx3(z, y, x)] != want;
      }
}

static void check3i(const int *a, int var) {
  for (int z = -G; z < Z + G; ++z)
    for (int y = -G; y < ly + G; ++y)
      for (int x = -G; x < X + G; ++x) {
        int inside = z >= 0 && z < Z && y >= 0 && y < ly && x >= 0 && x < X;
        int want = inside ? (int)value(var, idx3(z, y0 + y, x)) : GHOST;
        wrong += a[lidx3(z, y, x)] != want;
      }
}

static void fillUnk(double *a) {
  for (long i = 0; i < UNK_LEN; ++i)
    a[i] = GHOST;
  for (int v = 0; v < NV; ++v)
    for (int b = 0; b < NB; ++b)
      for (int y = 0; y < BY; ++y)
        for (int x = 0; x < BX; ++x)
          a[lidxUnk(v, b, y, x)] = value(4, idxUnk(v, rank * NB + b, y, x));
}

static void checkUnk(const double *a) {
  for (int v = 0; v < NV; ++v)
    for (int b = 0; b < NB; ++b)
      for (int y = -G; y < BY + G; ++y)
        for (int x = -G; x < BX + G; ++x) {
          int inside = y >= 0 && y < BY && x >= 0 && x < BX;
          double want = inside ? value(4, idxUnk(v, rank * NB + b, y, x)) : GHOST;
          wrong += a[lidxUnk(v, b, y, x)] != want;
        }
}

static void fillVn(double *a) {
  for (int i = 0; i < VN_LEN; ++i)
    a[i] = GHOST;
  for (int r = 0; r < 2; ++r)
    for (int x = 0; x < X; ++x)
      a[VN_AT(r, x)] = value(5, (long)(rank + r * nprocs) * X + x);
}

static void checkVn(const double *a) {
  for (int r = -G; r < 2 + G; ++r)
    for (int x = -G; x < X + G; ++x) {
      int inside = r >= 0 && r < 2 && x >= 0 && x < X;
      double want = inside ? value(5, (long)(rank + r * nprocs) * X + x) : GHOST;
      wrong += a[VN_AT(r, x)] != want;
    }
}

// One file: write everything, read it back, report. k = 0: ordinary file.
static void run(const char *dir, int k) {
  char path[4096], targets[4096 * 3 + 8], ks[16];
  if (k == 0)
    snprintf(path, sizeof path, "%s/plain.nc", dir);
  else
    snprintf(path, sizeof path, "%s/part%d.nc", dir, k);
  MPI_Info info = sio_nc_hints(hintArgc, hintArgv, 0);
  if (k > 0) {
    snprintf(targets, sizeof targets, "%s/ta,%s/tb,%s/tc", dir, dir, dir);
    snprintf(ks, sizeof ks, "%d", k);
    MPI_Info_set(info, "nc_partitioning_enabled", "true");
    MPI_Info_set(info, "nc_num_partitions", ks);
    MPI_Info_set(info, "sio_part_targets", targets);
    MPI_Info_set(info, "sio_part_threshold", "-99%");
  }
  int ncid;
  Vars v;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  MPI_Info_free(&info);
  define(ncid, &v);

  MPI_Datatype t3 = interior3(MPI_DOUBLE), t3i = interior3(MPI_INT), tu = interiorUnk(), tv = interiorVn();
  size_t n3 = (size_t)LZ * LY * LX;
  double *a = malloc(n3 * sizeof *a), *b = malloc(n3 * sizeof *b), *u = malloc(UNK_LEN * sizeof *u);
  int *ai = malloc(n3 * sizeof *ai);
  double vn[VN_LEN];
  MPI_Offset st[4] = {0, y0, 0, 0}, ct[4] = {Z, ly, X, 0};
  MPI_Offset vnStart[2][2] = {{rank, 0}, {rank + nprocs, 0}}, vnCount[2][2] = {{1, X}, {1, X}};
  MPI_Offset *vnStarts[2] = {vnStart[0], vnStart[1]}, *vnCounts[2] = {vnCount[0], vnCount[1]};

  // Writes: blocking collective, nonblocking, independent, FLASH's unknowns, varn.
  fill3(a, 1);
  SIO_NC_CHECK(ncmpi_put_vara_all(ncid, v.blk, st, ct, a, 1, t3));
  fill3(b, 2);
  int req[2], sts[2];
  SIO_NC_CHECK(ncmpi_iput_vara(ncid, v.nb, st, ct, b, 1, t3, &req[0]));
  fillUnk(u);
  MPI_Offset ust[4] = {0, (MPI_Offset)rank * NB, 0, 0}, uct[4] = {NV, NB, BY, BX};
  SIO_NC_CHECK(ncmpi_iput_vara(ncid, v.unk, ust, uct, u, 1, tu, &req[1]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 2, req, sts));
  SIO_NC_CHECK(sts[0]);
  SIO_NC_CHECK(sts[1]);
  fillVn(vn);
  SIO_NC_CHECK(ncmpi_put_varn_all(ncid, v.vn, 2, vnStarts, vnCounts, vn + VN_AT(0, 0), 1, tv));
  SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
  fill3i(ai, 3);
  SIO_NC_CHECK(ncmpi_put_vara(ncid, v.ind, st, ct, ai, 1, t3i));
  SIO_NC_CHECK(ncmpi_end_indep_data(ncid));

  // A struct of int and double: PnetCDF's NC_EMULTITYPES, on every rank.
  int bl[2] = {1, 1};
  MPI_Aint disp[2] = {0, 8};
  MPI_Datatype parts[2] = {MPI_INT, MPI_DOUBLE}, mixed;
  MPI_Type_create_struct(2, bl, disp, parts, &mixed);
  MPI_Type_commit(&mixed);
  MPI_Offset one[3] = {1, 1, 1}, org[3] = {0, y0, 0};
  int multi = ncmpi_put_vara_all(ncid, v.blk, org, one, a, 1, mixed);
  MPI_Type_free(&mixed);

  // Reads into fresh ghost-celled buffers: the matching gets.
  for (size_t i = 0; i < n3; ++i)
    a[i] = b[i] = GHOST, ai[i] = GHOST;
  for (long i = 0; i < UNK_LEN; ++i)
    u[i] = GHOST;
  for (int i = 0; i < VN_LEN; ++i)
    vn[i] = GHOST;
  SIO_NC_CHECK(ncmpi_get_vara_all(ncid, v.blk, st, ct, a, 1, t3));
  check3(a, 1);
  MPI_Datatype freed = interior3(MPI_DOUBLE);
  SIO_NC_CHECK(ncmpi_iget_vara(ncid, v.nb, st, ct, b, 1, freed, &req[0]));
  MPI_Type_free(&freed); // allowed before the wait: PnetCDF keeps what it needs
  SIO_NC_CHECK(ncmpi_iget_vara(ncid, v.unk, ust, uct, u, 1, tu, &req[1]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 2, req, sts));
  SIO_NC_CHECK(sts[0]);
  SIO_NC_CHECK(sts[1]);
  check3(b, 2);
  checkUnk(u);
  SIO_NC_CHECK(ncmpi_get_varn_all(ncid, v.vn, 2, vnStarts, vnCounts, vn + VN_AT(0, 0), 1, tv));
  checkVn(vn);
  SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
  SIO_NC_CHECK(ncmpi_get_vara(ncid, v.ind, st, ct, ai, 1, t3i));
  check3i(ai, 3);
  // Independent nonblocking, completed by ncmpi_wait.
  for (size_t i = 0; i < n3; ++i)
    b[i] = GHOST;
  SIO_NC_CHECK(ncmpi_iget_vara(ncid, v.blk, st, ct, b, 1, t3, &req[0]));
  SIO_NC_CHECK(ncmpi_wait(ncid, 1, req, sts));
  SIO_NC_CHECK(sts[0]);
  check3(b, 1);
  SIO_NC_CHECK(ncmpi_end_indep_data(ncid));

  MPI_Offset sizes[2];
  SIO_NC_CHECK(ncmpi_inq_put_size(ncid, &sizes[0]));
  SIO_NC_CHECK(ncmpi_inq_get_size(ncid, &sizes[1]));
  SIO_NC_CHECK(ncmpi_close(ncid));
  MPI_Type_free(&t3);
  MPI_Type_free(&t3i);
  MPI_Type_free(&tu);
  MPI_Type_free(&tv);
  free(a), free(b), free(u), free(ai);

  long total = 0;
  MPI_Reduce(&wrong, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Offset *all = malloc(2 * (size_t)nprocs * sizeof *all);
  MPI_Gather(sizes, 2, MPI_OFFSET, all, 2, MPI_OFFSET, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    char name[16];
    snprintf(name, sizeof name, k ? "K=%d" : "plain", k);
    printf("%s: wrong %ld; struct of int and double: %s; put/get bytes per rank:", name, total,
           ncmpi_strerror(multi));
    for (int r = 0; r < nprocs; ++r)
      printf(" %lld/%lld", (long long)all[2 * r], (long long)all[2 * r + 1]);
    printf("\n");
  }
  free(all);
  wrong = 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3) {
    if (rank == 0)
      fprintf(stderr, "usage: ghost DIR K,K,... [KEY=VALUE ...]\n");
    MPI_Finalize();
    return 2;
  }
  for (int i = 3; i < argc; ++i)
    if (strncmp(argv[i], "enddef=", 7) == 0) {
      long long e[4];
      useEnddefArgs = sscanf(argv[i] + 7, "%lld,%lld,%lld,%lld", &e[0], &e[1], &e[2], &e[3]) == 4;
      for (int j = 0; j < 4; ++j)
        enddefArgs[j] = (MPI_Offset)e[j];
      argv[i] = "-"; // not a hint
    }
  hintArgc = argc - 3;
  hintArgv = argv + 3;
  y0 = (int)((long)Y * rank / nprocs);
  ly = (int)((long)Y * (rank + 1) / nprocs) - y0;
  run(argv[1], 0);
  for (char *s = argv[2]; *s;) {
    int k = (int)strtol(s, &s, 10);
    run(argv[1], k);
    if (*s == ',')
      ++s;
  }
  MPI_Finalize();
  return 0;
}
