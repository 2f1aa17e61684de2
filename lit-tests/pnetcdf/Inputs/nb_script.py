#!/usr/bin/env python3
"""Writes a random PnetCDF program (C) from a seed: the cases of the
differential test nonblocking-script.test.

The program creates DIR/nb<K>.nc, partitioned into K files by libsio-pnetcdf
(K = 0: an ordinary PnetCDF file), and runs one script of nonblocking calls
on it: iput, iget and bput of ranges of a 2-D int variable A(y, x) and a
1-D double variable B(y) (both partitioned), and of a scalar S and a 1-D
record variable T (both kept whole in the master), after a first
collective write of A, B and S; buffer attach and
detach (with bputs pending, and buffers too small for them);
ncmpi_inq_nreqs and ncmpi_inq_buffer_usage; ncmpi_wait_all of some
requests, of all (NC_REQ_ALL, NC_PUT_REQ_ALL, NC_GET_REQ_ALL) and of
requests already completed
(NC_REQ_NULL, in lists longer than the pending requests: PnetCDF 1.12.3
takes a list as long as its pending puts for all of them); ncmpi_wait in
independent data mode; ncmpi_cancel of some, and of every get. Every
call's result, every request status, whether a completed request's id became
NC_REQ_NULL, and a checksum of each completed get go to DIR/log<K>.<rank>;
at the end the file is read back whole. The test compares the logs of K = 0
and K > 0: partitioning must not change what the program sees.

Each rank writes its own rows (4 of them), and a range never has two
pending requests at once, so the results are defined by PnetCDF's
semantics. Collective calls are made by every rank with the same arguments.
ncmpi_wait on requests of partitioned variables in collective data mode is
refused by libsio-pnetcdf (docs/partitioning.md) and not generated.

Usage: nb_script.py SEED [STEPS] > prog.c
"""
import random
import sys

ROWS = 4  # rows of A and B per rank
X = 6  # columns of A
NREQ = 24  # request slots


class Script:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.lines = []
        self.step = 0
        self.attached = False
        self.indep = False
        # slot -> (kind, var, cells): kind "put" or "get"; cells a set of
        # (var, row, col) this rank's request touches (row relative to its rows).
        self.pending = {}
        self.completed = set()  # slots whose id is NC_REQ_NULL after a wait
        self.records = 0  # records of T written or posted
        self.sizes = {}  # slot -> elements of its request

    def emit(self, text):
        self.lines.append("  " + text)

    def busy(self, cells, kind):
        """Whether a new request may not touch `cells`: a pending request
        does. Not even two gets: PnetCDF 1.12.3 reads overlapping gets
        completed by one wait wrongly (part of one buffer stays unset)."""
        return any(c & cells for _, _, c in self.pending.values())

    def free_slot(self):
        free = [s for s in range(NREQ) if s not in self.pending]
        return self.rng.choice(free) if free else None

    def nonblocking(self):
        slot = self.free_slot()
        if slot is None:
            return self.wait_all(everything=True)
        var = self.rng.choice(["A", "A", "An", "B", "S", "T"])
        kind = self.rng.choice(["put", "get"]) if var != "T" else "put"
        if kind == "put" and self.attached and var in "AB" and self.rng.random() < 0.7:
            how = "bput"
        else:
            how = "iput" if kind == "put" else "iget"
        self.step += 1
        s = self.step
        if var == "A":
            r0 = self.rng.randrange(ROWS)
            nr = self.rng.randint(1, ROWS - r0)
            c0 = self.rng.randrange(X)
            nc = self.rng.randint(1, X - c0)
            cells = {("A", r, c) for r in range(r0, r0 + nr) for c in range(c0, c0 + nc)}
            if self.busy(cells, kind):
                return
            self.emit(f"/* {how} A rows {r0}..{r0 + nr - 1} of this rank's, columns {c0}..{c0 + nc - 1} */")
            self.emit(f"start[0] = {ROWS} * rank + {r0}; start[1] = {c0}; count[0] = {nr}; count[1] = {nc};")
            if kind == "put":
                self.emit(f"fill_int(ibuf[{slot}], {nr * nc}, {s});")
            else:
                self.emit(f"memset(ibuf[{slot}], 0, sizeof ibuf[{slot}]);")
            call = f"ncmpi_{how}_vara_int(ncid, varA, start, count, ibuf[{slot}], &req[{slot}])"
            n = nr * nc
        elif var == "An":
            # A list request (varn): two rows of this rank's, each a run of
            # columns; one request id for both (ncmpi_inq_nreqs counts it once).
            var = "A"
            ra, rb = sorted(self.rng.sample(range(ROWS), 2))
            runs = []
            for r in (ra, rb):
                c0 = self.rng.randrange(X)
                runs.append((r, c0, self.rng.randint(1, X - c0)))
            cells = {("A", r, c) for r, c0, nc in runs for c in range(c0, c0 + nc)}
            if self.busy(cells, kind):
                return
            how += "_varn"
            self.emit(f"/* {how} A: row {ra} columns {runs[0][1]}..{runs[0][1] + runs[0][2] - 1} and row {rb} "
                      f"columns {runs[1][1]}..{runs[1][1] + runs[1][2] - 1} of this rank's */")
            for i, (r, c0, nc) in enumerate(runs):
                self.emit(f"vs[{i}][0] = {ROWS} * rank + {r}; vs[{i}][1] = {c0}; vc[{i}][0] = 1; vc[{i}][1] = {nc};")
            n = runs[0][2] + runs[1][2]
            if kind == "put":
                self.emit(f"fill_int(ibuf[{slot}], {n}, {s});")
            else:
                self.emit(f"memset(ibuf[{slot}], 0, sizeof ibuf[{slot}]);")
            call = f"ncmpi_{how.replace('_varn', '')}_varn_int(ncid, varA, 2, vsp, vcp, ibuf[{slot}], &req[{slot}])"
        elif var == "B":
            r0 = self.rng.randrange(ROWS)
            nr = self.rng.randint(1, ROWS - r0)
            cells = {("B", r, 0) for r in range(r0, r0 + nr)}
            if self.busy(cells, kind):
                return
            self.emit(f"/* {how} B rows {r0}..{r0 + nr - 1} of this rank's */")
            self.emit(f"start[0] = {ROWS} * rank + {r0}; count[0] = {nr};")
            if kind == "put":
                self.emit(f"fill_double(dbuf[{slot}], {nr}, {s});")
            else:
                self.emit(f"memset(dbuf[{slot}], 0, sizeof dbuf[{slot}]);")
            call = f"ncmpi_{how}_vara_double(ncid, varB, start, count, dbuf[{slot}], &req[{slot}])"
            n = nr
        elif var == "S":
            # Every rank puts the same value; gets read it.
            cells = {("S", 0, 0)}
            if self.busy(cells, kind):
                return
            self.emit(f"/* {how} the scalar S */")
            self.emit(f"ibuf[{slot}][0] = {s * 1000 if kind == 'put' else 0};")
            call = f"ncmpi_{how}_var_int(ncid, varS, ibuf[{slot}], &req[{slot}])"
            n = 1
        else:
            # Every rank puts the same value in the next record of T (rank 0
            # alone would give the other ranks NC_REQ_NULL ids in their lists).
            rec = self.records
            cells = {("T", rec, 0)}
            self.records += 1
            self.emit(f"/* iput record {rec} of T, the same value at every rank */")
            self.emit(f"start[0] = {rec};")
            self.emit(f"dbuf[{slot}][0] = {s * 1000 + 0.5};")
            call = f"ncmpi_iput_var1_double(ncid, varT, start, dbuf[{slot}], &req[{slot}])"
            n = 1
        self.emit(f"rc = {call};")
        self.emit(f'say("{s} {how} {var}", rc);')
        self.emit(f"if (rc != NC_NOERR) req[{slot}] = NC_REQ_NULL;")
        self.pending[slot] = ("bput" if how == "bput" else kind, var, cells)
        self.sizes[slot] = n
        self.completed.discard(slot)

    def report_gets(self, slots, how):
        for slot in slots:
            kind, var, _ = self.pending[slot]
            if kind != "get":
                continue
            n = self.sizes[slot]
            buf = f"dbuf[{slot}]" if var == "B" else f"ibuf[{slot}]"
            fn = "sum_double" if var == "B" else "sum_int"
            self.emit(f'if (st[{slot}] == NC_NOERR) say_sum("{self.step} {how} got {var}", {fn}({buf}, {n}));')

    def selected(self, slot, which):
        """Whether NC_REQ_ALL, NC_PUT_REQ_ALL or NC_GET_REQ_ALL takes the
        request of `slot`."""
        kind = self.pending[slot][0]
        return which == "NC_REQ_ALL" or (kind == "get") == (which == "NC_GET_REQ_ALL")

    def wait_all(self, everything=False):
        if self.indep:
            return
        self.step += 1
        slots = sorted(self.pending)
        # T's records complete with NC_REQ_ALL only: completed by a list that
        # leaves other puts pending, PnetCDF 1.12.3 writes the record without
        # counting it (the file keeps the old number of records).
        listed = [slot for slot in slots if self.pending[slot][1] != "T"]
        if everything or not listed or self.rng.random() < 0.3:
            which = "NC_REQ_ALL" if everything else self.rng.choice(["NC_REQ_ALL", "NC_PUT_REQ_ALL", "NC_GET_REQ_ALL"])
            slots = [slot for slot in slots if self.selected(slot, which)]
            self.emit(f"/* wait for every pending request ({which}) */")
            self.emit(f"rc = ncmpi_wait_all(ncid, {which}, NULL, NULL);")
            self.emit(f'say("{self.step} wait_all({which})", rc);')
            for slot in slots:
                self.emit(f"st[{slot}] = rc;")
            self.report_gets(slots, "wait_all")
            for slot in slots:
                self.emit(f"req[{slot}] = NC_REQ_NULL;")
                del self.pending[slot]
            self.completed.update(slots)
            return
        chosen = sorted(self.rng.sample(listed, self.rng.randint(1, len(listed))))
        # NC_REQ_NULL ids only in a list longer than the pending requests:
        # PnetCDF 1.12.3 takes a list as long as its pending puts (no gets
        # pending) or gets (no puts) for all of them, NULL ids or not.
        done = sorted(self.rng.sample(sorted(self.completed), min(len(self.completed), self.rng.randint(0, 2))))
        if len(chosen) + len(done) <= len(slots):
            done = []
        ids = chosen + done
        self.rng.shuffle(ids)
        self.emit(f"/* wait for the requests of slots {ids} ({len(done)} of them completed before) */")
        self.emit(f"n = 0; memset(st, 0, sizeof st);")
        for slot in ids:
            self.emit(f"ids[n++] = req[{slot}];")
        self.emit("rc = ncmpi_wait_all(ncid, n, ids, sts);")
        self.emit(f'say("{self.step} wait_all({len(ids)})", rc);')
        self.emit("n = 0;")
        for slot in ids:
            self.emit(f'st[{slot}] = sts[n]; say_req("{self.step} status slot {slot}", sts[n], ids[n]); n++;')
        self.report_gets([s for s in chosen], "wait_all")
        for slot in chosen:
            self.emit(f"req[{slot}] = NC_REQ_NULL;")
            del self.pending[slot]
        self.completed.update(chosen)

    def wait_indep(self):
        # Independent completion of this rank's requests on A, B, S (not the
        # record variable T: refused for partitioned record variables, and T is
        # whole, but keep the script simple).
        slots = sorted(s for s, (_, var, _) in self.pending.items() if var in "ABS")
        if not slots:
            return
        chosen = sorted(self.rng.sample(slots, self.rng.randint(1, len(slots))))
        self.step += 1
        self.emit(f"/* independent data mode: ncmpi_wait for slots {chosen} */")
        self.emit("rc = ncmpi_begin_indep_data(ncid);")
        self.emit(f'say("{self.step} begin_indep_data", rc);')
        self.emit("n = 0; memset(st, 0, sizeof st);")
        for slot in chosen:
            self.emit(f"ids[n++] = req[{slot}];")
        self.emit("rc = ncmpi_wait(ncid, n, ids, sts);")
        self.emit(f'say("{self.step} wait({len(chosen)})", rc);')
        self.emit("n = 0;")
        for slot in chosen:
            self.emit(f'st[{slot}] = sts[n]; say_req("{self.step} status slot {slot}", sts[n], ids[n]); n++;')
        self.report_gets(chosen, "wait")
        for slot in chosen:
            self.emit(f"req[{slot}] = NC_REQ_NULL;")
            del self.pending[slot]
        self.completed.update(chosen)
        self.emit("rc = ncmpi_end_indep_data(ncid);")
        self.emit(f'say("{self.step} end_indep_data", rc);')

    def cancel(self):
        # Not T's records: a cancelled one would leave a hole in T, read at the end.
        slots = sorted(s for s, (_, var, _) in self.pending.items() if var != "T")
        if not slots:
            return
        if self.rng.random() < 0.25:
            # Every pending get (T's records are puts).
            self.step += 1
            gets = [slot for slot in slots if self.pending[slot][0] == "get"]
            self.emit("/* cancel every pending get */")
            self.emit("rc = ncmpi_cancel(ncid, NC_GET_REQ_ALL, NULL, NULL);")
            self.emit(f'say("{self.step} cancel(NC_GET_REQ_ALL)", rc);')
            for slot in gets:
                self.emit(f"req[{slot}] = NC_REQ_NULL;")
                del self.pending[slot]
                self.completed.add(slot)
            return
        chosen = sorted(self.rng.sample(slots, self.rng.randint(1, len(slots))))
        self.step += 1
        self.emit(f"/* cancel slots {chosen} */")
        self.emit("n = 0;")
        for slot in chosen:
            self.emit(f"ids[n++] = req[{slot}];")
        self.emit("rc = ncmpi_cancel(ncid, n, ids, sts);")
        self.emit(f'say("{self.step} cancel({len(chosen)})", rc);')
        self.emit("n = 0;")
        for slot in chosen:
            self.emit(f'say_req("{self.step} cancelled slot {slot}", sts[n], ids[n]); n++;')
            self.emit(f"req[{slot}] = NC_REQ_NULL;")
            del self.pending[slot]
            self.completed.add(slot)

    def inquire(self):
        self.step += 1
        self.emit("rc = ncmpi_inq_nreqs(ncid, &n);")
        self.emit(f'say_n("{self.step} inq_nreqs", rc, n);')
        if self.attached or self.rng.random() < 0.3:
            self.emit("rc = ncmpi_inq_buffer_usage(ncid, &usage);")
            self.emit(f'say_n("{self.step} inq_buffer_usage", rc, (long long)usage);')

    def attach(self):
        """Attach a buffer (small enough that bputs run out of room), or
        detach it, pending bputs or not (PnetCDF refuses then)."""
        self.step += 1
        if not self.attached:
            size = self.rng.choice([32, 256, 4096])
            self.emit(f"rc = ncmpi_buffer_attach(ncid, {size});")
            self.emit(f'say("{self.step} buffer_attach({size})", rc);')
            self.emit("if (rc == NC_NOERR) attached = 1;")
            self.attached = True
        elif self.rng.random() < 0.5:
            self.emit("rc = ncmpi_buffer_detach(ncid);")
            self.emit(f'say("{self.step} buffer_detach", rc);')
            self.emit("if (rc == NC_NOERR) attached = 0;")
            self.attached = False

    def build(self, steps):
        self.rng.random()
        if self.rng.random() < 0.6:
            self.attach()
        for _ in range(steps):
            r = self.rng.random()
            if r < 0.5:
                self.nonblocking()
            elif r < 0.68:
                self.wait_all()
            elif r < 0.76:
                self.wait_indep()
            elif r < 0.84:
                self.cancel()
            elif r < 0.95:
                self.inquire()
            else:
                self.attach()
        self.inquire()
        self.wait_all(everything=True)
        self.inquire()


PRELUDE = r"""/* Generated by nb_script.py (seed %(seed)d): a script of PnetCDF
 * nonblocking calls, run on an ordinary file (K = 0) and on one partitioned
 * by libsio-pnetcdf into K files; nonblocking-script.test compares the logs.
 *   prog DIR K */
#include <mpi.h>
#include <pnetcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ROWS = %(rows)d, X = %(x)d, NREQ = %(nreq)d };
static int rank, nprocs, attached;
static FILE *out;

static void say(const char *what, int rc) { fprintf(out, "%%s: %%s\n", what, ncmpi_strerror(rc)); }
static void say_n(const char *what, int rc, long long n) {
  if (rc == NC_NOERR)
    fprintf(out, "%%s: %%lld\n", what, n);
  else
    say(what, rc);
}
/* A request's status, and whether its id became NC_REQ_NULL. */
static void say_req(const char *what, int status, int id) {
  fprintf(out, "%%s: %%s%%s\n", what, ncmpi_strerror(status), id == NC_REQ_NULL ? "" : " (id kept)");
}
static void say_sum(const char *what, double sum) { fprintf(out, "%%s: sum %%.1f\n", what, sum); }
static void fill_int(int *b, int n, int step) {
  for (int i = 0; i < n; ++i)
    b[i] = step * 1000 + rank * 100 + i;
}
static void fill_double(double *b, int n, int step) {
  for (int i = 0; i < n; ++i)
    b[i] = step * 1000 + rank * 100 + i + 0.5;
}
static double sum_int(const int *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += (double)b[i] * (i + 1);
  return s;
}
static double sum_double(const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; ++i)
    s += b[i] * (i + 1);
  return s;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  if (argc != 3) {
    fprintf(stderr, "usage: %%s DIR K\n", argv[0]);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  char path[4096];
  snprintf(path, sizeof path, "%%s/log%%s.%%d", argv[1], argv[2], rank);
  out = fopen(path, "w");
  if (!out)
    MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Info info;
  MPI_Info_create(&info);
  if (atoi(argv[2]) > 0) {
    MPI_Info_set(info, "nc_partitioning_enabled", "true");
    MPI_Info_set(info, "nc_num_partitions", argv[2]);
  }
  snprintf(path, sizeof path, "%%s/nb%%s.nc", argv[1], argv[2]);
  int ncid, rc, dy, dx, dt, d2[2], varA, varB, varS, varT, n;
  rc = ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid);
  say("create", rc);
  if (rc != NC_NOERR)
    MPI_Abort(MPI_COMM_WORLD, 2);
  MPI_Info_free(&info);
  ncmpi_def_dim(ncid, "y", (MPI_Offset)ROWS * nprocs, &dy);
  ncmpi_def_dim(ncid, "x", X, &dx);
  ncmpi_def_dim(ncid, "t", NC_UNLIMITED, &dt);
  d2[0] = dy;
  d2[1] = dx;
  ncmpi_def_var(ncid, "A", NC_INT, 2, d2, &varA);
  ncmpi_def_var(ncid, "B", NC_DOUBLE, 1, &dy, &varB);
  ncmpi_def_var(ncid, "S", NC_INT, 0, NULL, &varS);
  ncmpi_def_var(ncid, "T", NC_DOUBLE, 1, &dt, &varT);
  say("enddef", ncmpi_enddef(ncid));

  int req[NREQ], ids[2 * NREQ], sts[2 * NREQ], st[NREQ];
  int ibuf[NREQ][ROWS * X];
  double dbuf[NREQ][ROWS];
  MPI_Offset start[2], count[2], usage, vs[2][2], vc[2][2];
  MPI_Offset *vsp[2] = {vs[0], vs[1]}, *vcp[2] = {vc[0], vc[1]};
  (void)vsp;
  (void)vcp;
  for (int i = 0; i < NREQ; ++i)
    req[i] = NC_REQ_NULL;
  (void)n;
  (void)usage;
  (void)st;
  /* A, B and S written first (no fill mode: what was never written would
   * read as whatever the file held). */
  fill_int(ibuf[0], ROWS * X, 0);
  fill_double(dbuf[0], ROWS, 0);
  start[0] = (MPI_Offset)ROWS * rank;
  start[1] = 0;
  count[0] = ROWS;
  count[1] = X;
  say("put_vara_int_all A", ncmpi_put_vara_int_all(ncid, varA, start, count, ibuf[0]));
  say("put_vara_double_all B", ncmpi_put_vara_double_all(ncid, varB, start, count, dbuf[0]));
  ibuf[1][0] = 7; /* the same at every rank */
  say("put_var_int_all S", ncmpi_put_var_int_all(ncid, varS, ibuf[1]));

"""

EPILOGUE = r"""
  /* Read everything back, collectively, and close. */
  {
    int *a = calloc((size_t)ROWS * nprocs * X, sizeof *a);
    double *b = calloc((size_t)ROWS * nprocs, sizeof *b);
    int s = 0;
    MPI_Offset nrec = 0;
    rc = ncmpi_get_var_int_all(ncid, varA, a);
    say_sum("final A", rc == NC_NOERR ? sum_int(a, ROWS * nprocs * X) : -1);
    rc = ncmpi_get_var_double_all(ncid, varB, b);
    say_sum("final B", rc == NC_NOERR ? sum_double(b, ROWS * nprocs) : -1);
    rc = ncmpi_get_var_int_all(ncid, varS, &s);
    say_n("final S", rc, s);
    rc = ncmpi_inq_dimlen(ncid, dt, &nrec);
    say_n("final records of T", rc, (long long)nrec);
    if (nrec > 0) {
      double *t = calloc((size_t)nrec, sizeof *t);
      MPI_Offset s0 = 0;
      rc = ncmpi_get_vara_double_all(ncid, varT, &s0, &nrec, t);
      say_sum("final T", rc == NC_NOERR ? sum_double(t, (int)nrec) : -1);
      free(t);
    }
    free(a);
    free(b);
  }
  if (attached)
    say("buffer_detach", ncmpi_buffer_detach(ncid));
  say("close", ncmpi_close(ncid));
  fclose(out);
  MPI_Finalize();
  return 0;
}
"""


def main():
    seed = int(sys.argv[1])
    steps = int(sys.argv[2]) if len(sys.argv) > 2 else 40
    s = Script(seed)
    s.build(steps)
    text = PRELUDE % {"seed": seed, "rows": ROWS, "x": X, "nreq": NREQ}
    text += "\n".join(s.lines) + "\n"
    text += EPILOGUE
    sys.stdout.write(text)


main()
