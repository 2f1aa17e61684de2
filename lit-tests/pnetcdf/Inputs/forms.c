// Every put/get family of PnetCDF on partitioned variables (docs/partitioning.md,
// "Reads and writes"): mapped (varm), list (varn), buffered (bput),
// nonblocking, independent, flexible with MPI_DATATYPE_NULL, ncmpi_wait in
// independent mode, and the multi-variable mput/mget forms of var, var1,
// vara, vars and varm mixing partitioned variables with variables kept whole
// in the master. Each write form fills its own variable f<i>(y, x); rank r
// owns rows r, r + P, ... The same program writes an unpartitioned file
// (plain.nc) and partitioned ones (part<K>.nc, K = 1..KMAX); everything is
// read back through the master with the read forms and compared element by
// element with the formula. The forms that cannot be transformed (vard,
// ncmpi_wait in collective mode, bput without an attached buffer) and a
// derived MPI datatype larger than the request must fail with a PnetCDF
// error code, never write.
//   forms DIR KMAX
#include <mpi.h>
#include <pnetcdf.h>
#include <sio/part/NcProgram.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, nprocs;

enum { Y = 8, X = 6, T = 3 };
enum {
  F_VARM_ALL,
  F_VARM_FLEX,
  F_VARM_INDEP,
  F_IVARM,
  F_BVARA,
  F_BVARM,
  F_VARN_ALL,
  F_VARN_INDEP,
  F_IVARN,
  F_BVARN,
  F_MVARA_FLEX,
  F_MVARA_INT,
  F_MVARS,
  F_MVARM,
  F_MVAR1,
  F_MVAR,
  F_NULLTYPE,
  F_WAIT,
  NF
};
static const char *names[NF] = {"put_varm_int_all",
                                "put_varm_all",
                                "put_varm_int",
                                "iput_varm_int",
                                "bput_vara_int",
                                "bput_varm_int",
                                "put_varn_int_all",
                                "put_varn",
                                "iput_varn_int",
                                "bput_varn_int",
                                "mput_vara_all",
                                "mput_vara_int_all",
                                "mput_vars_int_all",
                                "mput_varm_int_all",
                                "mput_var1_int",
                                "mput_var_int_all",
                                "put_vara_all(MPI_DATATYPE_NULL)",
                                "iput_vara_int+ncmpi_wait"};

static int value(int f, int i, int j) { return f * 1000 + i * X + j; }

typedef struct {
  int f[NF], time, scalar;
} Vars;

static void define(int ncid, Vars *v) {
  int t, y, x;
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "time", NC_UNLIMITED, &t));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", Y, &y));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", X, &x));
  int d[2] = {y, x};
  for (int f = 0; f < NF; ++f) {
    char name[16];
    snprintf(name, sizeof name, "f%d", f);
    SIO_NC_CHECK(ncmpi_def_var(ncid, name, NC_INT, 2, d, &v->f[f]));
  }
  SIO_NC_CHECK(ncmpi_def_var(ncid, "time", NC_DOUBLE, 1, &t, &v->time));    // 1-D record: whole in the master
  SIO_NC_CHECK(ncmpi_def_var(ncid, "scalar", NC_INT, 0, NULL, &v->scalar)); // scalar: whole in the master
  SIO_NC_CHECK(ncmpi_enddef(ncid));
}

// This rank's rows (r, r + P, ...) of variable f: row-major (rows[j*X + x])
// and transposed (cols[x*n + j]) for the varm forms.
static int nrows(void) { return Y / nprocs; }
static void fill(int f, int *rows, int *cols) {
  int n = nrows();
  for (int j = 0; j < n; ++j)
    for (int x = 0; x < X; ++x) {
      int val = value(f, rank + j * nprocs, x);
      if (rows)
        rows[j * X + x] = val;
      if (cols)
        cols[x * n + j] = val;
    }
}

static void write_all(int ncid, const Vars *v) {
  int n = nrows();
  int rows[Y * X], cols[Y * X], req[Y * X], st[Y * X];
  MPI_Offset s2[2] = {rank, 0}, c2[2] = {n, X}, d2[2] = {nprocs, 1}, tmap[2] = {1, n};
  MPI_Offset rs[Y][2], rc[Y][2];
  MPI_Offset *starts[Y * X], *counts[Y * X];
  for (int j = 0; j < n; ++j) {
    rs[j][0] = rank + j * nprocs, rs[j][1] = 0, rc[j][0] = 1, rc[j][1] = X;
    starts[j] = rs[j], counts[j] = rc[j];
  }

  // varm: the memory is the transposed block.
  fill(F_VARM_ALL, NULL, cols);
  SIO_NC_CHECK(ncmpi_put_varm_int_all(ncid, v->f[F_VARM_ALL], s2, c2, d2, tmap, cols));
  fill(F_VARM_FLEX, NULL, cols);
  SIO_NC_CHECK(ncmpi_put_varm_all(ncid, v->f[F_VARM_FLEX], s2, c2, d2, tmap, cols, n * X, MPI_INT));
  fill(F_IVARM, NULL, cols);
  SIO_NC_CHECK(ncmpi_iput_varm_int(ncid, v->f[F_IVARM], s2, c2, d2, tmap, cols, &req[0]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 1, req, st));
  SIO_NC_CHECK(st[0]);

  // bput: the buffer is reused at once (scribbled before the wait).
  MPI_Offset usage = 0;
  SIO_NC_CHECK(ncmpi_buffer_attach(ncid, 3 * Y * X * sizeof(int)));
  fill(F_BVARA, rows, NULL);
  for (int j = 0; j < n; ++j)
    SIO_NC_CHECK(ncmpi_bput_vara_int(ncid, v->f[F_BVARA], rs[j], rc[j], rows + j * X, &req[j]));
  fill(F_BVARM, NULL, cols);
  SIO_NC_CHECK(ncmpi_bput_varm_int(ncid, v->f[F_BVARM], s2, c2, d2, tmap, cols, &req[n]));
  memset(rows, 0xff, sizeof rows);
  memset(cols, 0xff, sizeof cols);
  fill(F_BVARN, rows, NULL);
  SIO_NC_CHECK(ncmpi_bput_varn_int(ncid, v->f[F_BVARN], n, starts, counts, rows, &req[n + 1]));
  memset(rows, 0xff, sizeof rows);
  SIO_NC_CHECK(ncmpi_wait_all(ncid, n + 2, req, st));
  for (int i = 0; i < n + 2; ++i)
    SIO_NC_CHECK(st[i]);
  SIO_NC_CHECK(ncmpi_inq_buffer_usage(ncid, &usage));
  SIO_NC_CHECK(ncmpi_buffer_detach(ncid));

  // varn: one subarray per row.
  fill(F_VARN_ALL, rows, NULL);
  SIO_NC_CHECK(ncmpi_put_varn_int_all(ncid, v->f[F_VARN_ALL], n, starts, counts, rows));
  fill(F_IVARN, rows, NULL);
  SIO_NC_CHECK(ncmpi_iput_varn_int(ncid, v->f[F_IVARN], n, starts, counts, rows, &req[0]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 1, req, st));
  SIO_NC_CHECK(st[0]);

  // mput/mget: this rank's rows of the variable, one entry per row, plus the
  // record variable "time" (whole in the master) from rank 0.
  double times[T] = {0.5, 1.5, 2.5};
  int ids[Y + 1];
  void *bufs[Y + 1];
  int *ibufs[Y + 1];
  MPI_Offset bc[Y + 1], ts = 0, tc = rank == 0 ? T : 0;
  MPI_Datatype bt[Y + 1];
  MPI_Offset *ms[Y + 1], *mc[Y + 1];
  fill(F_MVARA_FLEX, rows, NULL);
  for (int j = 0; j < n; ++j)
    ids[j] = v->f[F_MVARA_FLEX], bufs[j] = rows + j * X, bc[j] = X, bt[j] = MPI_INT, ms[j] = rs[j], mc[j] = rc[j];
  ids[n] = v->time, bufs[n] = times, bc[n] = tc, bt[n] = MPI_DOUBLE, ms[n] = &ts, mc[n] = &tc;
  SIO_NC_CHECK(ncmpi_mput_vara_all(ncid, n + 1, ids, ms, mc, bufs, bc, bt));
  fill(F_MVARA_INT, rows, NULL);
  for (int j = 0; j < n; ++j)
    ids[j] = v->f[F_MVARA_INT], ibufs[j] = rows + j * X;
  SIO_NC_CHECK(ncmpi_mput_vara_int_all(ncid, n, ids, ms, mc, ibufs));
  fill(F_MVARS, rows, NULL);
  fill(F_MVARM, NULL, cols);
  int two[2] = {v->f[F_MVARS], v->f[F_MVARM]};
  MPI_Offset *s2s[2] = {s2, s2}, *c2s[2] = {c2, c2}, *d2s[2] = {d2, d2}, ident[2] = {X, 1}, *maps[2] = {ident, tmap};
  int *twob[2] = {rows, cols};
  SIO_NC_CHECK(ncmpi_mput_vars_int_all(ncid, 2, two, s2s, c2s, d2s, twob));
  fill(F_MVARS, rows, NULL);
  SIO_NC_CHECK(ncmpi_mput_varm_int_all(ncid, 2, two, s2s, c2s, d2s, maps, twob)); // f[F_MVARS] again, the same data
  // var: every rank writes the whole variable (the same data) and the scalar.
  int whole[Y * X], sv = 7;
  for (int i = 0; i < Y; ++i)
    for (int x = 0; x < X; ++x)
      whole[i * X + x] = value(F_MVAR, i, x);
  int wv[2] = {v->f[F_MVAR], v->scalar};
  int *wb[2] = {whole, &sv};
  SIO_NC_CHECK(ncmpi_mput_var_int_all(ncid, 2, wv, wb));

  // MPI_DATATYPE_NULL: the buffer has the variable's own type.
  fill(F_NULLTYPE, rows, NULL);
  SIO_NC_CHECK(ncmpi_put_vars_all(ncid, v->f[F_NULLTYPE], s2, c2, d2, rows, 0, MPI_DATATYPE_NULL));

  // Independent mode.
  SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
  fill(F_VARM_INDEP, NULL, cols);
  SIO_NC_CHECK(ncmpi_put_varm_int(ncid, v->f[F_VARM_INDEP], s2, c2, d2, tmap, cols));
  fill(F_VARN_INDEP, rows, NULL);
  SIO_NC_CHECK(ncmpi_put_varn(ncid, v->f[F_VARN_INDEP], n, starts, counts, rows, n * X, MPI_INT));
  fill(F_MVAR1, rows, NULL);
  MPI_Offset e1[Y * X][2];
  int k = 0;
  for (int j = 0; j < n; ++j)
    for (int x = 0; x < X; ++x, ++k) {
      e1[k][0] = rank + j * nprocs, e1[k][1] = x;
      starts[k] = e1[k];
    }
  int eids[Y * X];
  int *ebufs[Y * X];
  for (int i = 0; i < k; ++i)
    eids[i] = v->f[F_MVAR1], ebufs[i] = rows + i;
  SIO_NC_CHECK(ncmpi_mput_var1_int(ncid, k, eids, starts, ebufs));
  fill(F_WAIT, rows, NULL);
  for (int j = 0; j < n; ++j)
    SIO_NC_CHECK(ncmpi_iput_vara_int(ncid, v->f[F_WAIT], rs[j], rc[j], rows + j * X, &req[j]));
  SIO_NC_CHECK(ncmpi_wait(ncid, n, req, st));
  for (int j = 0; j < n; ++j)
    SIO_NC_CHECK(st[j]);
  SIO_NC_CHECK(ncmpi_end_indep_data(ncid));
}

// The forms that are not transformed: a PnetCDF error code, nothing written.
static long refused(int ncid, const Vars *v) {
  long bad = 0;
  MPI_Offset z[2] = {0, 0}, one[2] = {1, 1};
  int x = -1, rq = NC_REQ_NULL;
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_INT, &pair);
  MPI_Type_commit(&pair);
  int pairs[2] = {-1, -1};
  int e1 = ncmpi_put_vard_all(ncid, v->f[0], MPI_INT, &x, 1, MPI_INT);
  // A derived datatype of 2 elements for a request of 1: NC_EIOMISMATCH, as
  // PnetCDF (derived types themselves are supported: ghost.test).
  int e2 = ncmpi_put_vara_all(ncid, v->f[0], z, one, pairs, 1, pair);
  int e3 = ncmpi_bput_vara_int(ncid, v->f[0], z, one, &x, &rq);       // no buffer attached
  int e4 = ncmpi_iput_vara_int(ncid, v->f[0], z, one, &x, &rq);
  int e5 = ncmpi_wait(ncid, 1, &rq, NULL); // collective data mode
  int e6 = ncmpi_cancel(ncid, 1, &rq, NULL);
  MPI_Type_free(&pair);
  if (e1 != NC_ENOTSUPPORT || e2 != NC_EIOMISMATCH || e3 != NC_ENULLABUF || e4 != NC_NOERR || e5 != NC_ENOTSUPPORT ||
      e6 != NC_NOERR)
    fprintf(stderr,
            "refused forms gave vard %d, derived type %d, bput without buffer %d, iput %d, wait %d, cancel %d\n", e1,
            e2, e3, e4, e5, e6),
        ++bad;
  return bad;
}

static long compare(int f, const int *got, const char *how, int k) {
  long bad = 0;
  for (int i = 0; i < Y; ++i)
    for (int x = 0; x < X; ++x)
      bad += got[i * X + x] != value(f, i, x);
  if (bad)
    fprintf(stderr, "rank %d K=%d: %s of %s: %ld wrong\n", rank, k, how, names[f], bad);
  return bad;
}

// Reads everything back: whole variables collectively, then this rank reads
// the rows of the next rank through the read forms.
static long verify(int ncid, const Vars *v, int k) {
  long bad = 0;
  int whole[Y * X], rows[Y * X], cols[Y * X], req[Y + 2], st[Y + 2];
  for (int f = 0; f < NF; ++f) {
    memset(whole, 0, sizeof whole);
    SIO_NC_CHECK(ncmpi_get_var_int_all(ncid, v->f[f], whole));
    bad += compare(f, whole, "get_var_int_all", k);
  }
  int n = nrows(), other = (rank + 1) % nprocs;
  MPI_Offset s2[2] = {other, 0}, c2[2] = {n, X}, d2[2] = {nprocs, 1}, tmap[2] = {1, n};
  MPI_Offset rs[Y][2], rc[Y][2], *starts[Y + 1], *counts[Y + 1];
  for (int j = 0; j < n; ++j) {
    rs[j][0] = other + j * nprocs, rs[j][1] = 0, rc[j][0] = 1, rc[j][1] = X;
    starts[j] = rs[j], counts[j] = rc[j];
  }
  // Checks rows (or transposed cols) read as the other rank's rows of variable f.
#define ROWS_OK(f, buf, transposed, how)                                                                               \
  do {                                                                                                                 \
    long b_ = 0;                                                                                                       \
    for (int j = 0; j < n; ++j)                                                                                        \
      for (int x = 0; x < X; ++x)                                                                                      \
        b_ += (buf)[(transposed) ? x * n + j : j * X + x] != value(f, other + j * nprocs, x);                          \
    if (b_)                                                                                                            \
      fprintf(stderr, "rank %d K=%d: %s: %ld wrong\n", rank, k, how, b_);                                              \
    bad += b_;                                                                                                         \
  } while (0)
  memset(cols, 0, sizeof cols);
  SIO_NC_CHECK(ncmpi_get_varm_int_all(ncid, v->f[F_VARM_ALL], s2, c2, d2, tmap, cols));
  ROWS_OK(F_VARM_ALL, cols, 1, "get_varm_int_all");
  memset(cols, 0, sizeof cols);
  SIO_NC_CHECK(ncmpi_get_varm_all(ncid, v->f[F_VARM_FLEX], s2, c2, d2, tmap, cols, n * X, MPI_INT));
  ROWS_OK(F_VARM_FLEX, cols, 1, "get_varm_all");
  memset(rows, 0, sizeof rows);
  SIO_NC_CHECK(ncmpi_get_varn_int_all(ncid, v->f[F_VARN_ALL], n, starts, counts, rows));
  ROWS_OK(F_VARN_ALL, rows, 0, "get_varn_int_all");
  memset(rows, 0, sizeof rows);
  memset(cols, 0, sizeof cols);
  SIO_NC_CHECK(ncmpi_iget_varn_int(ncid, v->f[F_IVARN], n, starts, counts, rows, &req[0]));
  SIO_NC_CHECK(ncmpi_iget_varm_int(ncid, v->f[F_IVARM], s2, c2, d2, tmap, cols, &req[1]));
  SIO_NC_CHECK(ncmpi_wait_all(ncid, 2, req, st));
  SIO_NC_CHECK(st[0]);
  SIO_NC_CHECK(st[1]);
  ROWS_OK(F_IVARN, rows, 0, "iget_varn_int");
  ROWS_OK(F_IVARM, cols, 1, "iget_varm_int");

  // mget: rows of two variables and the record variable in one call.
  int ids[Y + 2];
  void *bufs[Y + 2];
  MPI_Offset bc[Y + 2], ts = 0, tc = T;
  MPI_Datatype bt[Y + 2];
  double times[T] = {0, 0, 0};
  memset(rows, 0, sizeof rows);
  for (int j = 0; j < n; ++j)
    ids[j] = v->f[F_MVARA_FLEX], bufs[j] = rows + j * X, bc[j] = X, bt[j] = MPI_INT;
  ids[n] = v->time, bufs[n] = times, bc[n] = T, bt[n] = MPI_DOUBLE, starts[n] = &ts, counts[n] = &tc;
  SIO_NC_CHECK(ncmpi_mget_vara_all(ncid, n + 1, ids, starts, counts, bufs, bc, bt));
  ROWS_OK(F_MVARA_FLEX, rows, 0, "mget_vara_all");
  if (times[0] != 0.5 || times[1] != 1.5 || times[2] != 2.5)
    fprintf(stderr, "rank %d K=%d: mget_vara_all of time: %g %g %g\n", rank, k, times[0], times[1], times[2]), ++bad;
  int two[2] = {v->f[F_MVARS], v->f[F_MVARM]}, *twob[2] = {rows, cols};
  MPI_Offset *s2s[2] = {s2, s2}, *c2s[2] = {c2, c2}, *d2s[2] = {d2, d2}, ident[2] = {X, 1}, *maps[2] = {ident, tmap};
  memset(rows, 0, sizeof rows), memset(cols, 0, sizeof cols);
  SIO_NC_CHECK(ncmpi_mget_vars_int_all(ncid, 2, two, s2s, c2s, d2s, twob));
  ROWS_OK(F_MVARS, rows, 0, "mget_vars_int_all");
  for (int j = 0; j < n * X; ++j) // f[F_MVARM] read row-major by vars
    bad += cols[j] != value(F_MVARM, other + j / X * nprocs, j % X);
  memset(rows, 0, sizeof rows), memset(cols, 0, sizeof cols);
  SIO_NC_CHECK(ncmpi_mget_varm_int_all(ncid, 2, two, s2s, c2s, d2s, maps, twob));
  ROWS_OK(F_MVARS, rows, 0, "mget_varm_int_all (identity map)");
  ROWS_OK(F_MVARM, cols, 1, "mget_varm_int_all");
  int sv = 0, wv[2] = {v->f[F_MVAR], v->scalar}, *wb[2] = {whole, &sv};
  memset(whole, 0, sizeof whole);
  SIO_NC_CHECK(ncmpi_mget_var_int_all(ncid, 2, wv, wb));
  bad += compare(F_MVAR, whole, "mget_var_int_all", k) + (sv != 7);
  memset(rows, 0, sizeof rows);
  SIO_NC_CHECK(ncmpi_get_vars_all(ncid, v->f[F_NULLTYPE], s2, c2, d2, rows, 0, MPI_DATATYPE_NULL));
  ROWS_OK(F_NULLTYPE, rows, 0, "get_vars_all(MPI_DATATYPE_NULL)");

  SIO_NC_CHECK(ncmpi_begin_indep_data(ncid));
  memset(cols, 0, sizeof cols);
  SIO_NC_CHECK(ncmpi_get_varm_int(ncid, v->f[F_VARM_INDEP], s2, c2, d2, tmap, cols));
  ROWS_OK(F_VARM_INDEP, cols, 1, "get_varm_int");
  memset(rows, 0, sizeof rows);
  SIO_NC_CHECK(ncmpi_get_varn(ncid, v->f[F_VARN_INDEP], n, starts, counts, rows, n * X, MPI_INT));
  ROWS_OK(F_VARN_INDEP, rows, 0, "get_varn");
  memset(rows, 0, sizeof rows);
  int *ebufs[Y * X], eids[Y * X];
  MPI_Offset e1[Y * X][2], *es[Y * X];
  for (int i = 0; i < n * X; ++i)
    e1[i][0] = other + i / X * nprocs, e1[i][1] = i % X, es[i] = e1[i], eids[i] = v->f[F_MVAR1], ebufs[i] = rows + i;
  SIO_NC_CHECK(ncmpi_mget_var1_int(ncid, n * X, eids, es, ebufs));
  ROWS_OK(F_MVAR1, rows, 0, "mget_var1_int");
  memset(rows, 0, sizeof rows);
  SIO_NC_CHECK(ncmpi_iget_vars_int(ncid, v->f[F_WAIT], s2, c2, d2, rows, &req[0]));
  SIO_NC_CHECK(ncmpi_wait(ncid, 1, req, st));
  SIO_NC_CHECK(st[0]);
  ROWS_OK(F_WAIT, rows, 0, "iget_vars_int+ncmpi_wait");
  SIO_NC_CHECK(ncmpi_end_indep_data(ncid));
  return bad;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc < 3 || Y % nprocs) {
    if (rank == 0)
      fprintf(stderr, "usage: forms DIR KMAX (at 1, 2, 4 or 8 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const char *dir = argv[1];
  int kmax = atoi(argv[2]);
  char path[4096];
  Vars v;
  int ncid;
  long bad = 0;
  for (int k = 0; k <= kmax; ++k) {
    MPI_Info info;
    MPI_Info_create(&info);
    if (k > 0) {
      char ks[16];
      snprintf(ks, sizeof ks, "%d", k);
      MPI_Info_set(info, "nc_partitioning_enabled", "true");
      MPI_Info_set(info, "nc_num_partitions", ks);
      snprintf(path, sizeof path, "%s/part%d.nc", dir, k);
    } else {
      snprintf(path, sizeof path, "%s/plain.nc", dir);
    }
    SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
    MPI_Info_free(&info);
    define(ncid, &v);
    write_all(ncid, &v);
    long kbad = k > 0 ? refused(ncid, &v) : 0;
    SIO_NC_CHECK(ncmpi_close(ncid));
    SIO_NC_CHECK(ncmpi_open(MPI_COMM_WORLD, path, NC_NOWRITE, MPI_INFO_NULL, &ncid));
    kbad += verify(ncid, &v, k);
    SIO_NC_CHECK(ncmpi_close(ncid));
    long total = 0;
    MPI_Allreduce(&kbad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
      printf("ranks=%d K=%d %d forms %s\n", nprocs, k, NF, total ? "WRONG" : "read back");
    bad += total;
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
