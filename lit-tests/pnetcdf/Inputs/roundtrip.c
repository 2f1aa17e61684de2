// Writes the same data twice through PnetCDF, once to an ordinary file and
// once with nc_partitioning_enabled for every K = 1..8, in the access patterns
// of Son et al. 2013 §IV: coll_perf-style 3-D blocks, FLASH-IO-style 5-D
// "unknowns" cut on the second dimension (attribute sio_partition_dim), S3D
// 4-D arrays (first dimension 3, shorter than K), a record variable, a
// strided (vars) interleaving, independent mode and nonblocking iput/iget.
// Reads everything back
// through the master in another decomposition and compares it element by
// element with the formula and with the ordinary file. Rank 0 prints one
// line per K; exit status 1 on any difference.
//   roundtrip DIR [KMAX | K,K,...]
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;

// Global shapes (all divisible by 1, 2, 4 and 8 where blocks are cut).
enum { CZ = 8, CY = 12, CX = 6 };                 // cube(z, y, x): coll_perf
enum { UV = 3, UB = 16, UZ = 2, UY = 2, UX = 3 }; // unknowns(var, blk, z, y, x): FLASH-IO
enum { S3 = 3, SZ = 8, SY = 4, SX = 5 };          // yspecies/u(n, z, y, x): S3D
enum { RT = 3, RY = 16, RX = 5 };                 // rec(time, y, x)
enum { TY = 24, TX = 7 };                         // strided(y, x)

static double value(int var, long idx) { return var * 100000.0 + (double)idx; }

typedef struct {
  int cube, unknowns, yspecies, u, rec, strided, indep, scalar, time;
} Vars;

static void define(int ncid, Vars *v) {
  int z, y, x, nv, blk, bz, by, bx, n3, sz, sy, sx, t, ry, rx, ty, tx;
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "z", CZ, &z));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", CY, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", CX, &x));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "nvar", UV, &nv));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "blocks", UB, &blk));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "bz", UZ, &bz));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "by", UY, &by));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "bx", UX, &bx));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "three", S3, &n3));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "sz", SZ, &sz));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "sy", SY, &sy));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "sx", SX, &sx));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "ry", RY, &ry));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "rx", RX, &rx));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "ty", TY, &ty));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "tx", TX, &tx));
  int d3[3] = {z, y, x}, d5[5] = {nv, blk, bz, by, bx}, d4[4] = {n3, sz, sy, sx}, dr[3] = {t, ry, rx}, dt[2] = {ty, tx};
  SIO_NC_CHECK(ncmpi_def_var(ncid, "cube", NC_INT, 3, d3, &v->cube));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "unknowns", NC_DOUBLE, 5, d5, &v->unknowns));
  int second = 1;
  SIO_NC_CHECK(ncmpi_put_att_int(ncid, v->unknowns, "sio_partition_dim", NC_INT, 1, &second));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "yspecies", NC_DOUBLE, 4, d4, &v->yspecies));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "u", NC_FLOAT, 4, d4, &v->u));
  SIO_NC_CHECK(ncmpi_put_att_text(ncid, v->u, "units", 3, "m/s"));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "rec", NC_FLOAT, 3, dr, &v->rec));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "strided", NC_SHORT, 2, dt, &v->strided));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "indep", NC_INT, 2, dt, &v->indep));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "scalar", NC_DOUBLE, 0, NULL, &v->scalar));
  SIO_NC_CHECK(ncmpi_def_var(ncid, "time", NC_DOUBLE, 1, &t, &v->time));
  SIO_NC_CHECK(ncmpi_enddef(ncid));
}

// This rank's block of n elements of a dimension cut into `parts` pieces.
static void block(int n, int parts, int me, MPI_Offset *start, MPI_Offset *count) {
  *start = (MPI_Offset)n * me / parts;
  *count = (MPI_Offset)n * (me + 1) / parts - *start;
}

static void write_all(int ncid, const Vars *v) {
  // coll_perf: 3-D block-block-block over MPI_Dims_create.
  int pd[3] = {0, 0, 0}, c[3];
  MPI_Dims_create(nprocs, 3, pd);
  c[0] = rank / (pd[1] * pd[2]), c[1] = rank / pd[2] % pd[1], c[2] = rank % pd[2];
  MPI_Offset st[5], ct[5], sd[5];
  block(CZ, pd[0], c[0], &st[0], &ct[0]);
  block(CY, pd[1], c[1], &st[1], &ct[1]);
  block(CX, pd[2], c[2], &st[2], &ct[2]);
  int *ib = malloc(sizeof(int) * CZ * CY * CX);
  long n = 0;
  for (MPI_Offset i = st[0]; i < st[0] + ct[0]; ++i)
    for (MPI_Offset j = st[1]; j < st[1] + ct[1]; ++j)
      for (MPI_Offset k = st[2]; k < st[2] + ct[2]; ++k)
        ib[n++] = (int)value(1, (i * CY + j) * CX + k);
  SIO_NC_CHECK(ncmpi_put_vara_int_all(ncid, v->cube, st, ct, ib));
  free(ib);

  // FLASH-IO: each rank writes its blocks of every unknown.
  st[0] = 0, ct[0] = UV;
  block(UB, nprocs, rank, &st[1], &ct[1]);
  st[2] = st[3] = st[4] = 0, ct[2] = UZ, ct[3] = UY, ct[4] = UX;
  double *db = malloc(sizeof(double) * UV * UB * UZ * UY * UX);
  n = 0;
  for (int a = 0; a < UV; ++a)
    for (MPI_Offset b = st[1]; b < st[1] + ct[1]; ++b)
      for (int e = 0; e < UZ * UY * UX; ++e)
        db[n++] = value(2, (a * UB + b) * UZ * UY * UX + e);
  int req[3 + RT], sts[3 + RT];
  SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, v->unknowns, st, ct, db, &req[2 + RT]));

  // S3D: 3-D decomposition of (z, y, x), all of the first dimension; u nonblocking.
  int sd3[3] = {0, 0, 0};
  MPI_Dims_create(nprocs, 3, sd3);
  c[0] = rank / (sd3[1] * sd3[2]), c[1] = rank / sd3[2] % sd3[1], c[2] = rank % sd3[2];
  st[0] = 0, ct[0] = S3;
  block(SZ, sd3[0], c[0], &st[1], &ct[1]);
  block(SY, sd3[1], c[1], &st[2], &ct[2]);
  block(SX, sd3[2], c[2], &st[3], &ct[3]);
  float *fb = malloc(sizeof(float) * S3 * SZ * SY * SX);
  double *yb = malloc(sizeof(double) * S3 * SZ * SY * SX);
  n = 0;
  for (int a = 0; a < S3; ++a)
    for (MPI_Offset i = st[1]; i < st[1] + ct[1]; ++i)
      for (MPI_Offset j = st[2]; j < st[2] + ct[2]; ++j)
        for (MPI_Offset k = st[3]; k < st[3] + ct[3]; ++k) {
          long idx = ((a * SZ + i) * SY + j) * SX + k;
          yb[n] = value(3, idx);
          fb[n++] = (float)value(4, idx);
        }
  SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, v->yspecies, st, ct, yb, &req[0]));
  SIO_NC_CHECK(ncmpi_iput_vara_float(ncid, v->u, st, ct, fb, &req[1]));

  // A record variable, one nonblocking write per record, rows cut among the ranks.
  float *rb = malloc(sizeof(float) * RT * RY * RX);
  n = 0;
  for (int t = 0; t < RT; ++t) {
    MPI_Offset rs[3] = {t, 0, 0}, rc[3] = {1, 0, RX};
    block(RY, nprocs, rank, &rs[1], &rc[1]);
    float *at = rb + n;
    for (MPI_Offset j = rs[1]; j < rs[1] + rc[1]; ++j)
      for (int k = 0; k < RX; ++k)
        rb[n++] = (float)value(5, (t * RY + j) * RX + k);
    SIO_NC_CHECK(ncmpi_iput_vara_float(ncid, v->rec, rs, rc, at, &req[2 + t]));
  }
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 3 + RT, req, sts));
  for (int i = 0; i < 3 + RT; ++i)
    SIO_NC_CHECK(sts[i]);
  free(rb), free(yb);

  // vars: rank r writes rows r, r + P, r + 2P, ... (interleaved over every partition).
  short *sb = malloc(sizeof(short) * TY * TX);
  st[0] = rank, ct[0] = TY / nprocs, sd[0] = nprocs;
  st[1] = 1, ct[1] = TX / 2, sd[1] = 2; // odd columns only
  n = 0;
  for (MPI_Offset i = 0; i < ct[0]; ++i)
    for (MPI_Offset j = 0; j < ct[1]; ++j)
      sb[n++] = (short)(((st[0] + i * sd[0]) * TX + st[1] + j * sd[1]) % 30000);
  SIO_NC_CHECK(ncmpi_put_vars_short_all(ncid, v->strided, st, ct, sd, sb));
  st[1] = 0, ct[1] = (TX + 1) / 2; // even columns: a second strided write
  n = 0;
  for (MPI_Offset i = 0; i < ct[0]; ++i)
    for (MPI_Offset j = 0; j < ct[1]; ++j)
      sb[n++] = (short)(((st[0] + i * sd[0]) * TX + st[1] + j * sd[1]) % 30000);
  SIO_NC_CHECK(ncmpi_put_vars_short_all(ncid, v->strided, st, ct, sd, sb));

  double s = 42.5;
  SIO_NC_CHECK(ncmpi_put_var_double_all(ncid, v->scalar, &s));
  MPI_Offset t0 = 0, t1 = RT;
  double times[RT] = {0.5, 1.5, 2.5};
  SIO_NC_CHECK(ncmpi_put_vara_double_all(ncid, v->time, &t0, &t1, times));

  // Independent mode: rank r writes rows r, r + P, ... of "indep" one at a time.
  SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
  for (MPI_Offset i = rank; i < TY; i += nprocs) {
    MPI_Offset is[2] = {i, 0}, ic[2] = {1, TX};
    int row[TX];
    for (int j = 0; j < TX; ++j)
      row[j] = (int)value(6, i * TX + j);
    SIO_NC_CHECK(ncmpi_put_vara_int(ncid, v->indep, is, ic, row));
  }
  SIO_NC_CHECK(ncmpi_end_indep_data(ncid));
  free(db), free(fb), free(sb);
}

// Reads every variable whole on every rank (the transposed decomposition of
// the write: each rank needs data of all the others) plus a strided read, and
// compares with the formula. Returns the number of wrong elements.
static long verify(int ncid, const Vars *v, const char *what, int k) {
  long bad = 0, before = 0;
#define REPORT(name)                                                                                                   \
  if (bad != before)                                                                                                   \
    fprintf(stderr, "rank %d %s K=%d: %ld wrong in %s\n", rank, what, k, bad - before, name);                          \
  before = bad;
  int nd = 0;
  SIO_NC_CHECK(ncmpi_inq_varndims(ncid, v->unknowns, &nd));
  if (nd != 5)
    fprintf(stderr, "%s K=%d: unknowns has %d dimensions, not 5\n", what, k, nd), ++bad;
  int tdim;
  MPI_Offset nrec = 0;
  SIO_NC_CHECK(ncmpi_inq_dimid(ncid, "time", &tdim));
  SIO_NC_CHECK(ncmpi_inq_dimlen(ncid, tdim, &nrec));
  if (nrec != RT)
    fprintf(stderr, "%s K=%d: %lld records, not %d\n", what, k, (long long)nrec, RT), ++bad;

  int *ib = malloc(sizeof(int) * CZ * CY * CX);
  SIO_NC_CHECK(ncmpi_get_var_int_all(ncid, v->cube, ib));
  for (long i = 0; i < CZ * CY * CX; ++i)
    bad += ib[i] != (int)value(1, i);
  REPORT("cube");
  double *db = malloc(sizeof(double) * UV * UB * UZ * UY * UX);
  SIO_NC_CHECK(ncmpi_get_var_double_all(ncid, v->unknowns, db));
  for (long i = 0; i < UV * UB * UZ * UY * UX; ++i)
    bad += db[i] != value(2, i);
  REPORT("unknowns");
  int req[3], sts[3];
  float *fb = malloc(sizeof(float) * S3 * SZ * SY * SX);
  float *rb = malloc(sizeof(float) * RT * RY * RX);
  MPI_Offset z4[4] = {0, 0, 0, 0}, c4[4] = {S3, SZ, SY, SX};
  MPI_Offset z3[3] = {0, 0, 0}, c3[3] = {RT, RY, RX};
  SIO_NC_CHECK(ncmpi_iget_vara_double(ncid, v->yspecies, z4, c4, db, &req[0]));
  SIO_NC_CHECK(ncmpi_iget_vara_float(ncid, v->u, z4, c4, fb, &req[1]));
  SIO_NC_CHECK(ncmpi_iget_vara_float(ncid, v->rec, z3, c3, rb, &req[2]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 3, req, sts));
  for (long i = 0; i < S3 * SZ * SY * SX; ++i)
    bad += db[i] != value(3, i) || fb[i] != (float)value(4, i);
  REPORT("yspecies/u");
  for (long i = 0; i < RT * RY * RX; ++i)
    bad += rb[i] != (float)value(5, i);
  REPORT("rec");
  free(rb);
  short *sb = malloc(sizeof(short) * TY * TX);
  SIO_NC_CHECK(ncmpi_get_var_short_all(ncid, v->strided, sb));
  for (long i = 0; i < TY * TX; ++i)
    bad += sb[i] != (short)(i % 30000);
  REPORT("strided");
  // Strided read across partitions: every third row from row (rank % 3), columns 1, 4.
  MPI_Offset st[2] = {rank % 3, 1}, ct[2] = {(TY - rank % 3 + 2) / 3, 2}, sd[2] = {3, 3};
  SIO_NC_CHECK(ncmpi_get_vars_short_all(ncid, v->strided, st, ct, sd, sb));
  for (MPI_Offset i = 0; i < ct[0]; ++i)
    for (MPI_Offset j = 0; j < ct[1]; ++j)
      bad += sb[i * ct[1] + j] != (short)(((st[0] + i * 3) * TX + 1 + j * 3) % 30000);
  REPORT("strided read");
  int *ib2 = malloc(sizeof(int) * CZ * CY * CX);
  SIO_NC_CHECK(ncmpi_get_var_int_all(ncid, v->indep, ib2));
  for (long i = 0; i < TY * TX; ++i)
    bad += ib2[i] != (int)value(6, i);
  REPORT("indep");
  // Independent reads: the whole cube, and every other row of "indep" from row 1.
  SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
  MPI_Offset cz[3] = {0, 0, 0}, cc[3] = {CZ, CY, CX};
  SIO_NC_CHECK(ncmpi_get_vara_int(ncid, v->cube, cz, cc, ib2));
  for (long i = 0; i < CZ * CY * CX; ++i)
    bad += ib2[i] != (int)value(1, i);
  MPI_Offset is[2] = {1, 0}, ic[2] = {TY / 2, TX}, id[2] = {2, 1};
  SIO_NC_CHECK(ncmpi_get_vars_int(ncid, v->indep, is, ic, id, ib2));
  for (MPI_Offset i = 0; i < ic[0]; ++i)
    for (int j = 0; j < TX; ++j)
      bad += ib2[i * TX + j] != (int)value(6, (1 + 2 * i) * TX + j);
  SIO_NC_CHECK(ncmpi_end_indep_data(ncid));
  REPORT("independent reads");
  // Nonblocking var1 and var forms.
  MPI_Offset last[3] = {CZ - 1, CY - 1, CX - 1};
  int one = 0, r2[2], s2[2];
  short *whole = malloc(sizeof(short) * TY * TX);
  SIO_NC_CHECK(ncmpi_iget_var1_int(ncid, v->cube, last, &one, &r2[0]));
  SIO_NC_CHECK(ncmpi_iget_var_short(ncid, v->strided, whole, &r2[1]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 2, r2, s2));
  bad += one != (int)value(1, CZ * CY * CX - 1);
  for (long i = 0; i < TY * TX; ++i)
    bad += whole[i] != (short)(i % 30000);
  free(whole);
  REPORT("var1/var nonblocking");
  free(ib2);
  double s = 0;
  SIO_NC_CHECK(ncmpi_get_var_double_all(ncid, v->scalar, &s));
  bad += s != 42.5;
  REPORT("scalar");
  free(ib), free(db), free(fb), free(sb);
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  const char *dir = argv[1];
  // The partition counts: "KMAX" for 1..KMAX, or a list "K,K,...".
  int ks[64], nk = 0;
  if (argc > 2 && strchr(argv[2], ',')) {
    for (char *p = argv[2]; *p && nk < 64; ++p) {
      ks[nk++] = (int)strtol(p, &p, 10);
      if (!*p)
        break;
    }
  } else {
    int kmax = argc > 2 ? atoi(argv[2]) : 8;
    for (int k = 1; k <= kmax && nk < 64; ++k)
      ks[nk++] = k;
  }
  char path[4096];
  Vars v;
  int ncid;

  snprintf(path, sizeof path, "%s/plain.nc", dir);
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, MPI_INFO_NULL, &ncid));
  define(ncid, &v);
  write_all(ncid, &v);
  SIO_NC_CHECK(ncmpi_close(ncid));
  SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
  long bad = verify(ncid, &v, "plain", 0);
  SIO_NC_CHECK(ncmpi_close(ncid));

  for (int ki = 0; ki < nk; ++ki) {
    int k = ks[ki];
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "nc_partitioning_enabled", "true");
    char ks[16];
    snprintf(ks, sizeof ks, "%d", k);
    MPI_Info_set(info, "nc_num_partitions", ks);
    snprintf(path, sizeof path, "%s/part%d.nc", dir, k);
    SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
    MPI_Info_free(&info);
    define(ncid, &v);
    write_all(ncid, &v);
    // Mode errors as PnetCDF gives them, and independent access to a record
    // variable, which is not transformed (the other forms: forms.test).
    MPI_Offset one[3] = {1, 1, 1}, zero[3] = {0, 0, 0};
    int x = 0;
    int e1 = ncmpi_put_vara_int(ncid, v.cube, zero, one, &x); // independent form in collective mode
    SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
    float f = 0;
    int e2 = ncmpi_put_vara_float(ncid, v.rec, zero, one, &f);    // independent on a record variable
    int e3 = ncmpi_put_vara_int_all(ncid, v.cube, zero, one, &x); // collective form in independent mode
    SIO_NC_CHECK(ncmpi_end_indep_data(ncid));
    if (e1 != NC_ENOTINDEP || e2 != NC_ENOTSUPPORT || e3 != NC_EINDEP)
      fprintf(stderr, "K=%d: indep-in-collective/indep-record/collective-in-indep gave %d/%d/%d\n", k, e1, e2, e3),
          ++bad;
    SIO_NC_CHECK(ncmpi_close(ncid));
    SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    long kbad = verify(ncid, &v, "partitioned", k);
    SIO_NC_CHECK(ncmpi_close(ncid));
    long total = 0;
    MPI_Allreduce(&kbad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("ranks=%d K=%d %s\n", nprocs, k, total ? "DIFFERENT" : "identical");
    bad += kbad;
  }
  long total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("ranks=%d wrong elements: %ld\n", nprocs, total);
  MPI_Finalize();
  return total ? 1 : 0;
}
