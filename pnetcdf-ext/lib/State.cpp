// The files open with partitioning (masters), sio's communicators, and
// the SIO_PART_REPORT report.
#include "Interpose.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>

namespace sio::part::interpose {

std::map<int, std::unique_ptr<Master>> &masters() {
  static std::map<int, std::unique_ptr<Master>> m;
  return m;
}

Master *masterOf(int ncid) {
  auto it = masters().find(ncid);
  return it == masters().end() ? nullptr : it->second.get();
}

const PVar *partitionedVar(int ncid, int varid, Master **mp) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return nullptr;
  auto it = m->vars.find(varid);
  if (it == m->vars.end())
    return nullptr;
  if (mp)
    *mp = m;
  return &it->second;
}

int64_t bufferInUse(Master &m) {
  auto pending = [&m](int req) {
    return std::any_of(m.pending.begin(), m.pending.end(), [req](const Op &op) { return op.req == req; });
  };
  while (!m.bputShares.empty() && !pending(m.bputShares.back().req))
    m.bputShares.pop_back();
  int64_t bytes = 0;
  for (const BufferShare &share : m.bputShares)
    bytes += share.bytes;
  return bytes;
}

int pendingRequests(const Master &m) {
  std::set<int> ids;
  for (const Op &op : m.pending)
    ids.insert(op.req);
  return int(ids.size());
}

MPI_Comm privateComm(MPI_Comm comm) {
  static std::vector<MPI_Comm> dups;
  for (MPI_Comm d : dups) {
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(comm, d, &cmp);
    if (cmp == MPI_CONGRUENT || cmp == MPI_IDENT)
      return d;
  }
  MPI_Comm d;
  MPI_Comm_dup(comm, &d);
  dups.push_back(d);
  return d;
}

namespace {

bool reportEnabled() {
  const char *r = std::getenv("SIO_PART_REPORT");
  return r && *r && std::strcmp(r, "0") != 0;
}

} // namespace

void report(const Master &m, const std::string &line) {
  if (m.rank != 0 || !reportEnabled())
    return;
  const char *r = std::getenv("SIO_PART_REPORT");
  FILE *f = stderr;
  bool file = std::strcmp(r, "1") != 0 && std::strcmp(r, "stderr") != 0;
  if (file && !(f = std::fopen(r, "a")))
    f = stderr;
  std::fprintf(f, "sio-part: %s\n", line.c_str());
  if (f != stderr)
    std::fclose(f);
}

} // namespace sio::part::interpose
