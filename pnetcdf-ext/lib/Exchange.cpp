// The collective transformation (Son et al. 2013 §III-C): runOps exchanges
// the operations' requests and data between the ranks, and the delegates of
// each partition run them on it.
#include "Interpose.h"

#include "sio/part/Layout.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>

namespace sio::part::interpose {

int64_t elements(const std::vector<int64_t> &count) {
  int64_t n = 1;
  for (int64_t c : count)
    n *= c;
  return n;
}

int validate(const Op &op) {
  const PVar &v = *op.var;
  for (size_t d = 0; d < v.len.size(); ++d) {
    if (op.stride[d] < 1)
      return NC_ESTRIDE;
    if (op.start[d] < 0 || op.count[d] < 0)
      return NC_EINVALCOORDS;
    if (v.record && d == 0)
      continue; // PnetCDF checks records against numrecs in the partition
    if (op.start[d] > v.len[d])
      return NC_EINVALCOORDS;
    if (op.count[d] > 0 && op.start[d] + (op.count[d] - 1) * op.stride[d] >= v.len[d])
      return NC_EEDGE;
  }
  return NC_NOERR;
}

namespace {

/// The largest MPI message of the data exchange, in bytes: INT_MAX (MPI's
/// int count), so a pair exchanging 2 GiB or more sends several messages.
/// Testing hook: SIO_PART_MAX_MSG=N (bytes, >= 1) lowers it, so the lit tests
/// exercise the split with small data (lit-tests/pnetcdf/big-messages.test).
int64_t maxMessageBytes() {
  static const int64_t limit = [] {
    int64_t l = std::numeric_limits<int>::max();
    if (const char *e = std::getenv("SIO_PART_MAX_MSG")) {
      char *end = nullptr;
      long long v = std::strtoll(e, &end, 10);
      if (end != e && *end == '\0' && v >= 1 && v < l)
        l = v;
      else
        std::fprintf(stderr, "sio-pnetcdf: warning: SIO_PART_MAX_MSG='%s' is not a byte count in [1, %d]; ignored\n", e,
                     std::numeric_limits<int>::max());
    }
    return l;
  }();
  return limit;
}

/// Sends to[r] to every rank r and receives from[r] (fromBytes[r] bytes) from
/// each, with isend/irecv in messages of at most maxMessageBytes() (both
/// sides know the size, and messages of one pair and tag arrive in order);
/// this rank's own share is moved, not sent.
std::vector<std::vector<char>> exchangeBytes(Master &m, std::vector<std::vector<char>> &to,
                                             const std::vector<int64_t> &fromBytes, int tag) {
  const int64_t piece = maxMessageBytes();
  std::vector<std::vector<char>> from(size_t(m.size));
  std::vector<MPI_Request> reqs;
  for (int r = 0; r < m.size; ++r) {
    if (r == m.rank) {
      from[r] = std::move(to[r]);
      continue;
    }
    if (fromBytes[r] > 0) {
      from[r].resize(size_t(fromBytes[r]));
      for (int64_t at = 0; at < fromBytes[r]; at += piece) {
        reqs.emplace_back();
        MPI_Irecv(from[r].data() + at, int(std::min(piece, fromBytes[r] - at)), MPI_BYTE, r, tag, m.comm, &reqs.back());
      }
    }
    const int64_t n = int64_t(to[r].size());
    for (int64_t at = 0; at < n; at += piece) {
      reqs.emplace_back();
      MPI_Isend(to[r].data() + at, int(std::min(piece, n - at)), MPI_BYTE, r, tag, m.comm, &reqs.back());
    }
  }
  MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return from;
}

/// Gives every partition the master's record count. Each partition has its
/// own record dimension (Son et al. 2013 §III-B), so a record written only in
/// some partitions extends only those, and reading that record (or merging)
/// from another failed with NC_EINVALCOORDS where the unpartitioned file
/// reads unwritten data. After a collective write of records, the group of a
/// partition with fewer records writes one element of its first record
/// variable at the last record: zero bytes, what a fresh file holds there
/// (the partitions are in PnetCDF's default NC_NOFILL mode, in which the
/// unpartitioned file's unwritten elements are undefined as well). Collective
/// over each partition's group; every member sees the same record count.
int extendRecords(Master &m) {
  int err = NC_NOERR;
  for (int p = 0; p < int(m.parts.size()); ++p) {
    Part &part = m.parts[size_t(p)];
    if (part.ncid < 0)
      continue;
    const PVar *rv = nullptr;
    for (auto &[id, v] : m.vars)
      if (v.record && v.k > p) {
        rv = &v;
        break;
      }
    if (!rv)
      continue;
    int unlim = -1;
    MPI_Offset len = 0;
    int e = REAL(ncmpi_inq_unlimdim)(part.ncid, &unlim);
    if (e == NC_NOERR && unlim >= 0)
      e = REAL(ncmpi_inq_dimlen)(part.ncid, unlim, &len);
    if (e == NC_NOERR && unlim >= 0 && len < m.numrecs) {
      int groupRank = 0;
      MPI_Comm_rank(part.comm, &groupRank);
      std::vector<MPI_Offset> st(rv->len.size(), 0), ct(rv->len.size(), groupRank == 0 ? 1 : 0);
      st[0] = m.numrecs - 1;
      const char zero[8] = {};
      e = REAL(ncmpi_put_vara_all)(part.ncid, rv->partVarid[size_t(p)], st.data(), ct.data(), zero,
                                   groupRank == 0 ? 1 : 0, MPI_DATATYPE_NULL);
    }
    if (e != NC_NOERR && err == NC_NOERR)
      err = e;
  }
  return err;
}

} // namespace

void countBytes(Master &m, const Op &op) {
  int64_t bytes = elements(op.count) * externalSize(op.var->xtype);
  (op.write ? m.putBytes : m.getBytes) += bytes;
}

int runOps(Master &m, std::vector<Op> &ops, std::vector<int> *status, int err0, MasterWait *master) {
  const int P = m.size;
  int err = err0;
  std::vector<int> localStatus;
  if (!status)
    status = &localStatus;
  status->assign(ops.size(), NC_NOERR);

  // 1. my_req: each operation's share of each partition, to its delegate.
  struct Outgoing {
    size_t op;
    sio::part::SubRequest sub;
  };
  std::vector<std::vector<int64_t>> descTo(P);
  std::vector<std::vector<char>> dataTo(P);
  std::vector<std::vector<Outgoing>> readsFrom(P); // the replies to expect, in order
  std::vector<int64_t> replyBytes(P, 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    Op &op = ops[i];
    int e = validate(op);
    if (e != NC_NOERR) {
      (*status)[i] = e;
      if (err == NC_NOERR)
        err = e;
      continue;
    }
    const PVar &v = *op.var;
    int64_t dimLen = v.len[v.dim];
    auto subs = sio::part::splitRequest(op.start, op.count, op.stride, v.dim, dimLen, v.k);
    const size_t esize = size_t(kTypeSize[op.type]);
    for (auto &sub : subs) {
      int dest = delegateOf(m.parts[sub.part], m.rank);
      auto &d = descTo[dest];
      d.push_back(op.write);
      d.push_back(v.varid);
      d.push_back(sub.part);
      d.push_back(op.type);
      d.push_back(int64_t(v.len.size()));
      d.insert(d.end(), sub.start.begin(), sub.start.end());
      d.insert(d.end(), sub.count.begin(), sub.count.end());
      d.insert(d.end(), op.stride.begin(), op.stride.end());
      size_t bytes = size_t(elements(sub.count)) * esize;
      if (op.write) {
        auto &buf = dataTo[dest];
        size_t at = buf.size();
        buf.resize(at + bytes);
        sio::part::packSlab(op.buf, buf.data() + at, op.count, v.dim, sub.first, sub.num, esize);
      } else {
        readsFrom[dest].push_back({i, sub});
        replyBytes[dest] += int64_t(bytes);
      }
    }
  }

  // 2. others_req: who sends me how many request words and data bytes, and
  // whether it has requests on the master's own variables.
  std::vector<int64_t> sendCounts(3 * P), recvCounts(3 * P);
  for (int r = 0; r < P; ++r) {
    sendCounts[3 * r] = int64_t(descTo[r].size());
    sendCounts[3 * r + 1] = int64_t(dataTo[r].size());
    sendCounts[3 * r + 2] = master && master->pending;
  }
  MPI_Alltoall(sendCounts.data(), 3, MPI_INT64_T, recvCounts.data(), 3, MPI_INT64_T, m.comm);
  // PnetCDF's wait on the master is collective (an MPI_Allreduce even with no
  // request anywhere, ~40 ms at 8 ranks on 2 cores): only when some rank has
  // a request there (FLASH-IO's files have none: all its arrays are
  // partitioned). Every rank sees the same flags, so all take the same way.
  bool anyMaster = false;
  for (int r = 0; r < P; ++r)
    anyMaster |= recvCounts[3 * r + 2] != 0;
  if (master && anyMaster)
    master->err = master->wait();
  // Large-count form (MPI 4): the request words of one pair may pass INT_MAX.
  std::vector<MPI_Count> sc(P), rc(P);
  std::vector<MPI_Aint> sd(P), rd(P);
  std::vector<int64_t> sendDesc, recvDesc;
  MPI_Aint stot = 0, rtot = 0;
  for (int r = 0; r < P; ++r) {
    sc[r] = MPI_Count(sendCounts[3 * r]);
    sd[r] = stot;
    stot += MPI_Aint(sc[r]);
    rc[r] = MPI_Count(recvCounts[3 * r]);
    rd[r] = rtot;
    rtot += MPI_Aint(rc[r]);
    sendDesc.insert(sendDesc.end(), descTo[r].begin(), descTo[r].end());
  }
  recvDesc.resize(size_t(rtot));
  MPI_Alltoallv_c(sendDesc.data(), sc.data(), sd.data(), MPI_INT64_T, recvDesc.data(), rc.data(), rd.data(),
                  MPI_INT64_T, m.comm);

  // 3. the data of writes, requester -> delegate.
  std::vector<int64_t> dataBytes(P);
  for (int r = 0; r < P; ++r)
    dataBytes[r] = recvCounts[3 * r + 1];
  std::vector<std::vector<char>> dataFrom = exchangeBytes(m, dataTo, dataBytes, kTagData);

  // 4. the delegates issue nonblocking PnetCDF calls on their partitions.
  // Requests that overlap an earlier one of this rank go to a later round
  // (PnetCDF's one file view per wait_all cannot hold overlapping pieces,
  // and a later write must win), so a round is one ncmpi_wait_all.
  struct Work {
    bool write;
    int varid, type;
    std::vector<MPI_Offset> st, cnt, str;
    char *buf;
    int round;
    int sameAs; ///< a read identical to an earlier one: copied from it after the I/O
  };
  std::vector<std::vector<char>> replyTo(P);
  std::vector<std::vector<Work>> work(m.k);
  for (int src = 0; src < P; ++src) {
    // First pass sizes the reply, so the iget buffers never move.
    int64_t replySize = 0;
    for (size_t w = size_t(rd[src]); w < size_t(rd[src] + rc[src]);) {
      int64_t *d = &recvDesc[w];
      int nd = int(d[4]);
      std::vector<int64_t> cnt(d + 5 + nd, d + 5 + 2 * nd);
      if (!d[0])
        replySize += elements(cnt) * kTypeSize[d[3]];
      w += size_t(5 + 3 * nd);
    }
    replyTo[src].resize(size_t(replySize));
    size_t dataAt = 0, replyAt = 0;
    for (size_t w = size_t(rd[src]); w < size_t(rd[src] + rc[src]);) {
      int64_t *d = &recvDesc[w];
      int nd = int(d[4]);
      Work wk{bool(d[0]),
              int(d[1]),
              int(d[3]),
              std::vector<MPI_Offset>(d + 5, d + 5 + nd),
              std::vector<MPI_Offset>(d + 5 + nd, d + 5 + 2 * nd),
              std::vector<MPI_Offset>(d + 5 + 2 * nd, d + 5 + 3 * nd),
              nullptr,
              0,
              -1};
      int p = int(d[2]);
      w += size_t(5 + 3 * nd);
      size_t bytes = size_t(elements(wk.cnt)) * size_t(kTypeSize[wk.type]);
      if (wk.write) {
        wk.buf = dataFrom[src].data() + dataAt;
        dataAt += bytes;
      } else {
        wk.buf = replyTo[src].data() + replyAt;
        replyAt += bytes;
      }
      work[p].push_back(std::move(wk));
    }
  }
  auto overlaps = [](const Work &a, const Work &b) {
    if (a.varid != b.varid)
      return false;
    for (size_t d = 0; d < a.st.size(); ++d) {
      MPI_Offset aHi = a.st[d] + (a.cnt[d] - 1) * a.str[d], bHi = b.st[d] + (b.cnt[d] - 1) * b.str[d];
      if (aHi < b.st[d] || bHi < a.st[d])
        return false;
    }
    return true;
  };
  for (int p = 0; p < m.k; ++p) {
    Part &part = m.parts[p];
    if (part.ncid < 0)
      continue;
    auto &list = work[p];
    int rounds = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      // Every rank reading the same piece (a whole array, say) is read once.
      if (!list[i].write)
        for (size_t j = 0; j < i && list[i].sameAs < 0; ++j)
          if (!list[j].write && list[j].sameAs < 0 && list[j].varid == list[i].varid && list[j].type == list[i].type &&
              list[j].st == list[i].st && list[j].cnt == list[i].cnt && list[j].str == list[i].str)
            list[i].sameAs = int(j);
      if (list[i].sameAs >= 0)
        continue;
      for (size_t j = 0; j < i; ++j)
        if (list[j].sameAs < 0 && list[j].round >= list[i].round && overlaps(list[i], list[j]))
          list[i].round = list[j].round + 1;
      rounds = std::max(rounds, list[i].round + 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT, MPI_MAX, part.comm);
    for (int round = 0; round < rounds; ++round) {
      std::vector<int> ids;
      for (auto &wk : list) {
        if (wk.round != round || wk.sameAs >= 0)
          continue;
        const PVar &v = m.vars.at(wk.varid);
        MPI_Offset n = elements(wk.cnt);
        int nreq = NC_REQ_NULL;
        int e = wk.write ? REAL(ncmpi_iput_vars)(part.ncid, v.partVarid[p], wk.st.data(), wk.cnt.data(), wk.str.data(),
                                                 wk.buf, n, kTypes[wk.type], &nreq)
                         : REAL(ncmpi_iget_vars)(part.ncid, v.partVarid[p], wk.st.data(), wk.cnt.data(), wk.str.data(),
                                                 wk.buf, n, kTypes[wk.type], &nreq);
        if (e == NC_NOERR)
          ids.push_back(nreq);
        else if (err == NC_NOERR)
          err = e;
      }
      std::vector<int> st(ids.size());
      int e = REAL(ncmpi_wait_all)(part.ncid, int(ids.size()), ids.data(), st.data());
      if (e != NC_NOERR && err == NC_NOERR)
        err = e;
      for (int x : st)
        if (x != NC_NOERR && err == NC_NOERR)
          err = x;
    }
    for (auto &wk : list)
      if (wk.sameAs >= 0)
        std::memcpy(wk.buf, list[size_t(wk.sameAs)].buf, size_t(elements(wk.cnt)) * size_t(kTypeSize[wk.type]));
  }

  // 5. the data of reads, delegate -> requester.
  std::vector<std::vector<char>> replyFrom = exchangeBytes(m, replyTo, replyBytes, kTagReply);
  for (int r = 0; r < P; ++r) {
    size_t at = 0;
    for (auto &o : readsFrom[r]) {
      Op &op = ops[o.op];
      size_t esize = size_t(kTypeSize[op.type]);
      sio::part::unpackSlab(replyFrom[r].data() + at, op.buf, op.count, op.var->dim, o.sub.first, o.sub.num, esize);
      at += size_t(elements(o.sub.count)) * esize;
    }
  }

  // Mapped reads (varm) into the application's layout, derived buffer types
  // unpacked through the type.
  for (size_t i = 0; i < ops.size(); ++i) {
    finishOp(ops[i], (*status)[i] == NC_NOERR);
    if ((*status)[i] == NC_NOERR)
      countBytes(m, ops[i]);
  }

  // Every rank returns the same outcome; record variables: the new extent.
  int64_t recs = 0;
  for (auto &op : ops)
    if (op.write && op.var->record && op.count[0] > 0)
      recs = std::max(recs, op.start[0] + (op.count[0] - 1) * op.stride[0] + 1);
  int64_t local[2] = {-int64_t(err), recs}, global[2];
  MPI_Allreduce(local, global, 2, MPI_INT64_T, MPI_MAX, m.comm);
  m.numrecs = std::max(m.numrecs, global[1]);
  if (global[1] > 0) {
    int e = extendRecords(m);
    if (err == NC_NOERR)
      err = e;
  }
  return err != NC_NOERR ? err : int(-global[0]);
}

} // namespace sio::part::interpose
