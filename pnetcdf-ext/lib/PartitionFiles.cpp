// The partitioned layout (Son et al. 2013 §III-B): the partitions chosen
// and defined at the master's enddef, their files created, opened and
// closed.
#include "Interpose.h"

#include "sio/part/Layout.h"
#include "sio/part/PartitionCount.h"
#include "sio/part/ProbeRounds.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace sio::part::interpose {

namespace {

std::string dirName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Where a partition path stored in the master (relative to the master's
/// directory unless absolute) is.
std::string resolvePartPath(const std::string &master, const std::string &stored) {
  if (!stored.empty() && stored[0] == '/')
    return stored;
  return dirName(master) + "/" + stored;
}

std::string partFileName(const Master &m, int p, const std::string &dir) {
  return dir + "/" + baseName(m.path) + "." + std::to_string(p);
}

int putIntAtt(int ncid, int varid, const char *name, std::vector<int> vals) {
  return ncmpi_put_att_int(ncid, varid, name, NC_INT, MPI_Offset(vals.size()), vals.data());
}

} // namespace

int createPartitions(Master &m) {
  // Phases, for SIO_PART_REPORT (the longest rank's, from one reduction at
  // the end): probe, master attributes, the owner groups' communicators, per partition
  // create / define / enddef.
  enum { kProbe, kAttrs, kGroups, kCreate, kDefine, kEnddef, kPhases };
  double phase[kPhases] = {};
  double mark = MPI_Wtime();
  auto lap = [&](int which) {
    double now = MPI_Wtime();
    phase[which] += now - mark;
    mark = now;
  };
  // The pending data: 1 % of it is probed (Son et al. 2013 §III-A).
  int64_t pendingBytes = 0;
  for (auto &[id, v] : m.vars) {
    int64_t n = 1;
    for (size_t d = 0; d < v.len.size(); ++d)
      n *= (v.record && d == 0) ? 1 : v.len[d];
    pendingBytes += n * externalSize(v.xtype);
  }
  std::vector<std::string> targets = m.hints.targets;
  if (targets.empty())
    targets.push_back(dirName(m.path));
  std::vector<size_t> chosen(1, 0);
  std::vector<double> chosenBw; // their bandwidths, in the listed order (empty: one target, not probed)
  if (targets.size() > 1) {
    // Each rank probes the targets t with t % size == rank, all at once (one
    // thread per target, doing POSIX I/O only), so every target is probed
    // concurrently; a target still writing at kProbeDeadlineFactor times the
    // first finish anywhere stops early (probeRound), so a slow target does
    // not set the probe's length.
    size_t perTarget =
        size_t(std::max<int64_t>(int64_t(sio::part::kProbeBlock), pendingBytes / 100 / int64_t(targets.size())));
    const size_t T = targets.size();
    // Rounds until the selection is trusted (sio/part/ProbeRounds.h): every
    // rank gets every round's numbers from the reduction, so all take the
    // same decision to go on.
    std::vector<std::vector<double>> rounds;
    sio::part::RoundsSelection sel;
    std::vector<double> all(3 * T + 1, 0.0);
    double probeTime = 0, age = 0;
    const bool reused = reuseProbe(m, targets, rounds, sel, age, probeTime);
    if (!reused) {
      // The ranks start together: reuseProbe's reduction synchronized them.
      do {
        std::vector<sio::part::ProbeResult> results(T);
        double t0 = MPI_Wtime();
        probeRound(m, targets, perTarget, results);
        // One MAX-reduction: per target its bandwidth, bytes and seconds (from
        // the rank that probed it), and the longest probe round.
        std::fill(all.begin(), all.end(), 0.0);
        for (size_t t = size_t(m.rank); t < T; t += size_t(m.size)) {
          if (!results[t].error.empty() && rounds.empty())
            std::fprintf(stderr, "sio-pnetcdf: warning: %s (target left out)\n", results[t].error.c_str());
          all[t] = results[t].bytesPerSecond;
          all[T + t] = double(results[t].bytes);
          all[2 * T + t] = results[t].seconds;
        }
        all[3 * T] = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, all.data(), int(all.size()), MPI_DOUBLE, MPI_MAX, m.comm);
        probeTime += all[3 * T];
        rounds.emplace_back(all.begin(), all.begin() + std::ptrdiff_t(T));
        sel = sio::part::selectFromRounds(rounds, m.hints.threshold);
      } while (sio::part::wantAnotherRound(sel));
      // Every rank has the same rounds (from the reduction); only a trusted
      // selection is kept for the next file.
      if (sel.confident)
        probeCache().store(targets, {rounds, MPI_Wtime(), probeTime});
    }
    const std::vector<double> &bw = sel.estimate;
    const double *written = all.data() + T, *seconds = all.data() + 2 * T;
    chosen = sel.selection.selected();
    std::sort(chosen.begin(), chosen.end()); // partitions go to the selected targets in the listed order
    for (size_t t : chosen)
      chosenBw.push_back(bw[t]);
    char margin[32];
    std::snprintf(margin, sizeof margin, "%.1f", sel.margin * 100);
    std::string line = "probe " + std::to_string(targets.size()) + " targets";
    if (reused)
      line += " reused, probed " + std::to_string(age) + " s ago (" + std::to_string(sel.rounds) + " rounds, " +
              std::to_string(probeTime) + " s), lifetime " +
              (std::isinf(m.hints.probeLifetime) ? std::string("run") : std::to_string(m.hints.probeLifetime) + " s");
    else
      line += ", " + std::to_string(perTarget) + " bytes each, " + std::to_string(sel.rounds) + " rounds, " +
              std::to_string(probeTime) + " s";
    line += "; selected " + std::to_string(sel.selection.count) + " (threshold " +
            std::to_string(m.hints.threshold * 100) + "%), " + (sel.confident ? "confident" : "NOT confident") +
            ": nearest slope " + margin + " points from the threshold, " + (sel.stable ? "unchanged" : "changed") +
            " by the last round:";
    for (size_t i = 0; i < sel.selection.order.size(); ++i) {
      size_t t = sel.selection.order[i];
      const bool in = i < sel.selection.count;
      line += "\n  " + targets[t] + " " + std::to_string(bw[t] / 1e6) + " MB/s (last round " +
              std::to_string(rounds.back()[t] / 1e6) + " MB/s" +
              (reused ? std::string() : ", " + std::to_string(seconds[t]) + " s") + ") slope " +
              std::to_string(sel.selection.slope[i] * 100) + "%" + (in ? " selected" : " left out") + ", " +
              (in ? "selected" : "left out") + " by " + std::to_string(in ? sel.votes[t] : sel.rounds - sel.votes[t]) +
              " of " + std::to_string(sel.rounds) + " rounds alone" +
              (!reused && written[t] < double(perTarget)
                   ? " (last round stopped at the deadline after " + std::to_string(int64_t(written[t])) + " bytes)"
                   : "");
    }
    report(m, line);
  }
  // Partition p goes to the (p mod S)-th selected target in the listed order;
  // by default K by the estimated write time (sio/part/PartitionCount.h):
  // one per selected target on slow targets, a divisor of the rank count
  // (no slab straddles partitions) when the exchange would cost more.
  m.k = m.hints.numPartitions > 0 ? m.hints.numPartitions : sio::part::choosePartitionCount(chosenBw, m.size);
  if (m.hints.numPartitions <= 0)
    report(m, "partitions " + std::to_string(m.k) + " over " + std::to_string(m.size) + " ranks (slab share moved " +
                  std::to_string(sio::part::straddleFraction(m.k, m.size)) + ")");
  std::vector<std::string> paths(m.k);
  for (int p = 0; p < m.k; ++p) {
    const std::string &dir = targets[chosen[size_t(p) % chosen.size()]];
    paths[p] = partFileName(m, p, dir);
  }

  // Each variable: the dimension to cut and its partition count.
  for (auto &[id, v] : m.vars) {
    int forced = -1;
    nc_type at;
    MPI_Offset alen;
    if (ncmpi_inq_att(m.ncid, id, "sio_partition_dim", &at, &alen) == NC_NOERR && alen == 1)
      ncmpi_get_att_int(m.ncid, id, "sio_partition_dim", &forced);
    int dim = -1;
    if (forced >= 0 && forced < int(v.len.size()) && !(v.record && forced == 0)) {
      dim = forced;
    } else {
      for (size_t d = v.record ? 1 : 0; d < v.len.size(); ++d)
        if (v.len[d] >= m.k) {
          dim = int(d);
          break;
        }
      if (dim < 0) // every fixed dimension is shorter than K: the longest, fewer partitions
        for (size_t d = v.record ? 1 : 0; d < v.len.size(); ++d)
          if (dim < 0 || v.len[d] > v.len[dim])
            dim = int(d);
    }
    v.dim = dim;
    v.k = int(std::min<int64_t>(m.k, std::max<int64_t>(1, v.len[dim])));
    v.partVarid.assign(m.k, -1);
  }

  lap(kProbe);
  // The master's metadata (Figure 5(b)): still in define mode.
  int err = putIntAtt(m.ncid, NC_GLOBAL, "num_partitions", {m.k});
  for (int p = 0; p < m.k && err == NC_NOERR; ++p) {
    std::string stored = dirName(paths[p]) == dirName(m.path) ? baseName(paths[p]) : paths[p];
    std::string name = "partition_" + std::to_string(p);
    err = ncmpi_put_att_text(m.ncid, NC_GLOBAL, name.c_str(), MPI_Offset(stored.size()), stored.c_str());
    m.parts.resize(m.k);
  }
  if (err == NC_NOERR) {
    std::string layout = m.hints.layout;
    const char *args[] = {"h_minfree", "v_align", "v_minfree", "r_align"};
    for (int i = 0; i < 4; ++i)
      layout += std::string(args[i]) + "=" + std::to_string(m.enddefArgs[i]) + ";";
    err = ncmpi_put_att_text(m.ncid, NC_GLOBAL, kLayoutAttribute, MPI_Offset(layout.size()), layout.c_str());
  }
  for (auto &[id, v] : m.vars) {
    if (err != NC_NOERR)
      break;
    err = putIntAtt(m.ncid, id, "num_partitions", {v.k});
    if (err == NC_NOERR)
      err = putIntAtt(m.ncid, id, "ndims_org", {int(v.len.size())});
    if (err == NC_NOERR)
      err = putIntAtt(m.ncid, id, "dimids_org", v.dimids);
    if (err == NC_NOERR)
      err = putIntAtt(m.ncid, id, "partition_dim", {v.dim});
  }
  if (err != NC_NOERR)
    return err;

  lap(kAttrs);
  setUpPartComms(m);
  lap(kGroups);
  const bool cdf5 = (m.cmode & NC_64BIT_DATA) != 0;
  for (int p = 0; p < m.k; ++p) {
    Part &part = m.parts[p];
    part.path = paths[p];
    if (part.comm == MPI_COMM_NULL)
      continue;
    int cmode = NC_CLOBBER | (m.cmode & (NC_64BIT_OFFSET | NC_64BIT_DATA));
    PartitionInfo hints;
    int e = REAL(ncmpi_create)(part.comm, part.path.c_str(), cmode, hints.info, &part.ncid);
    lap(kCreate);
    if (e != NC_NOERR) {
      std::fprintf(stderr, "sio-pnetcdf: error: cannot create partition file %s: %s\n", part.path.c_str(),
                   ncmpi_strerror(e));
      err = e;
      part.ncid = -1;
      continue;
    }
    int recdim = -1;
    std::string what; // the definition in progress, for the error message
    for (auto &[id, v] : m.vars) {
      if (p >= v.k || e != NC_NOERR)
        continue;
      std::vector<int> dims(v.len.size());
      Range r = sio::part::partitionRange(v.len[v.dim], v.k, p);
      for (size_t d = 0; d < v.len.size() && e == NC_NOERR; ++d) {
        char dname[NC_MAX_NAME + 1];
        ncmpi_inq_dimname(m.ncid, v.dimids[d], dname);
        if (v.record && d == 0) {
          what = std::string("dimension '") + dname + "'";
          if (recdim < 0)
            e = ncmpi_def_dim(part.ncid, dname, NC_UNLIMITED, &recdim);
          dims[d] = recdim;
        } else {
          std::string n = std::string(dname) + "." + v.name;
          what = "dimension '" + n + "'";
          e = ncmpi_def_dim(part.ncid, n.c_str(), int(d) == v.dim ? r.size() : v.len[d], &dims[d]);
        }
      }
      if (e == NC_NOERR)
        what = "variable '" + v.name + "'";
      if (e == NC_NOERR)
        e = REAL(ncmpi_def_var)(part.ncid, v.name.c_str(), v.xtype, int(dims.size()), dims.data(), &v.partVarid[p]);
      if (e == NC_NOERR) {
        char dname[NC_MAX_NAME + 1];
        ncmpi_inq_dimname(m.ncid, v.dimids[v.dim], dname);
        std::string an = std::string("range(") + dname + ")";
        what = "attribute '" + v.name + ":" + an + "'";
        long long range[2] = {r.lo, r.hi};
        if (cdf5) {
          e = ncmpi_put_att_longlong(part.ncid, v.partVarid[p], an.c_str(), NC_INT64, 2, range);
        } else {
          int r32[2] = {int(r.lo), int(r.hi)};
          e = ncmpi_put_att_int(part.ncid, v.partVarid[p], an.c_str(), NC_INT, 2, r32);
        }
      }
    }
    if (e == NC_NOERR)
      what = "the global attributes";
    if (e == NC_NOERR)
      e = putIntAtt(part.ncid, NC_GLOBAL, "partition_index", {p});
    if (e == NC_NOERR)
      e = putIntAtt(part.ncid, NC_GLOBAL, "num_partitions", {m.k});
    if (e == NC_NOERR) {
      std::string mb = baseName(m.path);
      e = ncmpi_put_att_text(part.ncid, NC_GLOBAL, "master", MPI_Offset(mb.size()), mb.c_str());
    }
    lap(kDefine);
    if (e == NC_NOERR) {
      what = "ncmpi_enddef";
      e = REAL(ncmpi_enddef)(part.ncid);
    }
    lap(kEnddef);
    if (e != NC_NOERR)
      std::fprintf(stderr, "sio-pnetcdf: error: creating partition file %s: %s: %s\n", part.path.c_str(), what.c_str(),
                   ncmpi_strerror(e));
    if (e != NC_NOERR && err == NC_NOERR)
      err = e;
  }
  // Every rank needs the partition variable ids of the partitions it serves only;
  // those are all defined above. Agree on the outcome.
  // One reduction: the worst error (the most negative code) and each
  // phase's longest rank.
  double agree[1 + kPhases];
  agree[0] = -double(err);
  std::copy(phase, phase + kPhases, agree + 1);
  MPI_Allreduce(MPI_IN_PLACE, agree, 1 + kPhases, MPI_DOUBLE, MPI_MAX, m.comm);
  int worst = -int(agree[0]);
  const double *most = agree + 1;
  char times[256];
  std::snprintf(times, sizeof times,
                " (longest rank: probe %.3f s, master attributes %.3f s, groups %.3f s, partition create %.3f s, "
                "define %.3f s, enddef %.3f s)",
                most[kProbe], most[kAttrs], most[kGroups], most[kCreate], most[kDefine], most[kEnddef]);
  std::string line = "file " + m.path + ": " + std::to_string(m.k) + " partitions, " + std::to_string(m.vars.size()) +
                     " partitioned variables" + times;
  for (int p = 0; p < m.k; ++p)
    line += "\n  partition " + std::to_string(p) + ": " + paths[p];
  report(m, line);
  return worst;
}

int openPartitions(Master &m, int omode) {
  int k = 0;
  nc_type at;
  MPI_Offset alen;
  if (ncmpi_inq_att(m.ncid, NC_GLOBAL, "num_partitions", &at, &alen) != NC_NOERR || alen != 1 ||
      ncmpi_inq_att(m.ncid, NC_GLOBAL, "partition_0", &at, &alen) != NC_NOERR)
    return NC_NOERR;
  ncmpi_get_att_int(m.ncid, NC_GLOBAL, "num_partitions", &k);
  if (k < 1)
    return NC_NOERR;
  m.k = k;
  int nvars = 0;
  ncmpi_inq_nvars(m.ncid, &nvars);
  ncmpi_inq_unlimdim(m.ncid, &m.unlimdim);
  for (int id = 0; id < nvars; ++id) {
    int ndims = 0;
    if (ncmpi_inq_att(m.ncid, id, "ndims_org", &at, &alen) != NC_NOERR)
      continue;
    ncmpi_get_att_int(m.ncid, id, "ndims_org", &ndims);
    PVar v;
    v.varid = id;
    char name[NC_MAX_NAME + 1];
    REAL(ncmpi_inq_var)(m.ncid, id, name, &v.xtype, nullptr, nullptr, nullptr);
    v.name = name;
    v.dimids.resize(size_t(ndims));
    ncmpi_get_att_int(m.ncid, id, "dimids_org", v.dimids.data());
    ncmpi_get_att_int(m.ncid, id, "partition_dim", &v.dim);
    ncmpi_get_att_int(m.ncid, id, "num_partitions", &v.k);
    for (int d : v.dimids) {
      MPI_Offset len = 0;
      REAL(ncmpi_inq_dimlen)(m.ncid, d, &len);
      bool rec = d == m.unlimdim;
      v.len.push_back(rec ? 0 : len);
      if (rec)
        v.record = true;
    }
    v.partVarid.assign(k, -1);
    m.vars[id] = std::move(v);
  }
  setUpPartComms(m);
  int err = NC_NOERR;
  int64_t recs = 0;
  for (int p = 0; p < k; ++p) {
    Part &part = m.parts[p];
    std::string an = "partition_" + std::to_string(p);
    MPI_Offset len = 0;
    ncmpi_inq_attlen(m.ncid, NC_GLOBAL, an.c_str(), &len);
    std::string stored(size_t(len), '\0');
    ncmpi_get_att_text(m.ncid, NC_GLOBAL, an.c_str(), stored.data());
    part.path = resolvePartPath(m.path, stored);
    if (part.comm == MPI_COMM_NULL)
      continue;
    PartitionInfo hints;
    int e = REAL(ncmpi_open)(part.comm, part.path.c_str(), omode, hints.info, &part.ncid);
    if (e != NC_NOERR) {
      std::fprintf(stderr, "sio-pnetcdf: error: cannot open partition file %s: %s\n", part.path.c_str(),
                   ncmpi_strerror(e));
      err = e;
      part.ncid = -1;
      continue;
    }
    for (auto &[id, v] : m.vars)
      if (p < v.k && ncmpi_inq_varid(part.ncid, v.name.c_str(), &v.partVarid[p]) != NC_NOERR && err == NC_NOERR)
        err = NC_ENOTVAR;
    int ud = -1;
    ncmpi_inq_unlimdim(part.ncid, &ud);
    if (ud >= 0) {
      MPI_Offset n = 0;
      REAL(ncmpi_inq_dimlen)(part.ncid, ud, &n);
      recs = std::max<int64_t>(recs, n);
    }
  }
  int64_t in[2] = {-int64_t(err), recs}, out[2];
  MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, m.comm);
  m.numrecs = out[1];
  m.partitioned = true;
  return int(-out[0]);
}

void closePartitions(Master &m) {
  for (auto &[p, ncid] : m.selfNcid)
    REAL(ncmpi_close)(ncid);
  m.selfNcid.clear();
  for (auto &part : m.parts) {
    if (part.ncid >= 0)
      REAL(ncmpi_close)(part.ncid);
    if (part.comm != MPI_COMM_NULL)
      MPI_Comm_free(&part.comm);
  }
  m.parts.clear();
}

} // namespace sio::part::interpose
