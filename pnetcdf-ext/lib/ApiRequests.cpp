// The interposed PnetCDF API: completing and cancelling nonblocking
// requests. Requests on partitioned variables are ours (ids from
// kReqBase up), the others PnetCDF's.
#include "Interpose.h"

#include <algorithm>
#include <cstdio>
#include <vector>

using namespace sio::part::interpose;

namespace {

/// NC_REQ_NULL in a list of requests is skipped with status NC_NOERR, as
/// PnetCDF does, and is never passed on: PnetCDF 1.12.3 takes a list as long
/// as its pending puts (with no gets pending) for all of them, so a list of
/// PnetCDF's requests that still held the NULL ids of the list would complete
/// requests it does not name.
bool skipNull(int id, int *statuses, int i) {
  if (id != NC_REQ_NULL)
    return false;
  if (statuses)
    statuses[i] = NC_NOERR;
  return true;
}

/// NC_REQ_ALL, NC_PUT_REQ_ALL, NC_GET_REQ_ALL: every pending request, or
/// every put, or every get, in place of a list.
bool selectsAll(int num) { return num == NC_REQ_ALL || num == NC_PUT_REQ_ALL || num == NC_GET_REQ_ALL; }
bool takes(const Op &op, int num) {
  return num == NC_REQ_ALL || (num == NC_PUT_REQ_ALL && op.write) || (num == NC_GET_REQ_ALL && !op.write);
}

} // namespace

extern "C" {

SIO_PNC_API int ncmpi_wait_all(int ncid, int num, int *reqs, int *statuses) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return REAL(ncmpi_wait_all)(ncid, num, reqs, statuses);
  // Ours are transformed collectively (a request of a list form is several
  // operations); PnetCDF's own (on master variables) go to PnetCDF.
  std::vector<Op> ops;
  std::vector<int> realReqs, realPos, opPos; // opPos: the reqs[] index of each operation
  if (selectsAll(num)) {
    for (auto it = m->pending.begin(); it != m->pending.end();) {
      if (!takes(*it, num)) {
        ++it;
        continue;
      }
      ops.push_back(std::move(*it));
      it = m->pending.erase(it);
    }
  } else {
    for (int i = 0; i < num; ++i) {
      if (skipNull(reqs[i], statuses, i))
        continue;
      if (reqs[i] < kReqBase) {
        realReqs.push_back(reqs[i]);
        realPos.push_back(i);
        continue;
      }
      size_t before = ops.size();
      for (auto it = m->pending.begin(); it != m->pending.end();) {
        if (it->req != reqs[i]) {
          ++it;
          continue;
        }
        ops.push_back(std::move(*it));
        opPos.push_back(i);
        it = m->pending.erase(it);
      }
      if (statuses)
        statuses[i] = ops.size() == before ? NC_EINVAL_REQUEST : NC_NOERR;
    }
  }
  std::vector<int> realSt(realReqs.size());
  MasterWait master;
  master.wait = [&] {
    return selectsAll(num) ? REAL(ncmpi_wait_all)(ncid, num, nullptr, nullptr)
                           : REAL(ncmpi_wait_all)(ncid, int(realReqs.size()), realReqs.data(), realSt.data());
  };
  int nreqs = 0;
  master.pending = selectsAll(num) ? REAL(ncmpi_inq_nreqs)(ncid, &nreqs) != NC_NOERR || nreqs > 0 : !realReqs.empty();
  // In independent data mode PnetCDF's wait_all returns NC_EINDEP: called as before.
  if (m->indep)
    master.err = master.wait();
  std::vector<int> st;
  int e = runOps(*m, ops, &st, NC_NOERR, m->indep ? nullptr : &master);
  int err = master.err;
  if (!selectsAll(num)) {
    for (size_t i = 0; i < realPos.size(); ++i) {
      reqs[realPos[i]] = NC_REQ_NULL;
      if (statuses)
        statuses[realPos[i]] = realSt[i];
    }
    for (size_t i = 0; i < opPos.size(); ++i) {
      reqs[opPos[i]] = NC_REQ_NULL;
      if (statuses && statuses[opPos[i]] == NC_NOERR)
        statuses[opPos[i]] = st[i] != NC_NOERR ? st[i] : e;
    }
  }
  return err != NC_NOERR ? err : e;
}

/// ncmpi_wait is independent: in independent data mode a rank completes its
/// own requests on partitioned variables itself, as the independent forms do.
SIO_PNC_API int ncmpi_wait(int ncid, int num, int *reqs, int *statuses) {
  Master *m = masterOf(ncid);
  bool ours = false;
  for (int i = 0; m && m->partitioned && !selectsAll(num) && i < num; ++i)
    ours |= reqs[i] >= kReqBase;
  if (m && m->partitioned && selectsAll(num))
    ours = std::any_of(m->pending.begin(), m->pending.end(), [num](const Op &op) { return takes(op, num); });
  if (!ours)
    return REAL(ncmpi_wait)(ncid, num, reqs, statuses);
  if (!m->indep) {
    std::fprintf(stderr,
                 "sio-pnetcdf: error: ncmpi_wait on requests of partitioned variables in collective data "
                 "mode: use ncmpi_wait_all, or ncmpi_begin_indep_data first (%s)\n",
                 ncmpi_strerror(NC_ENOTSUPPORT));
    return NC_ENOTSUPPORT;
  }
  int err = NC_NOERR;
  auto complete = [&](int id) {
    int status = NC_EINVAL_REQUEST;
    for (auto it = m->pending.begin(); it != m->pending.end();) {
      if (it->req != id) {
        ++it;
        continue;
      }
      int e = it->var->record ? refuse("ncmpi_wait", *it->var, NC_ENOTSUPPORT,
                                       "independent access to a partitioned record variable")
                              : runIndependent(*m, *it);
      status = status == NC_EINVAL_REQUEST || status == NC_NOERR ? e : status;
      it = m->pending.erase(it);
    }
    return status;
  };
  if (selectsAll(num)) {
    std::vector<int> ids;
    for (auto &op : m->pending)
      if (takes(op, num) && (ids.empty() || ids.back() != op.req))
        ids.push_back(op.req);
    for (int id : ids)
      if (int e = complete(id); e != NC_NOERR && err == NC_NOERR)
        err = e;
    int e = REAL(ncmpi_wait)(ncid, num, nullptr, nullptr);
    return err != NC_NOERR ? err : e;
  }
  std::vector<int> realReqs, realPos;
  for (int i = 0; i < num; ++i) {
    if (skipNull(reqs[i], statuses, i))
      continue;
    if (reqs[i] < kReqBase) {
      realReqs.push_back(reqs[i]);
      realPos.push_back(i);
      continue;
    }
    int s = complete(reqs[i]);
    if (statuses)
      statuses[i] = s;
    reqs[i] = NC_REQ_NULL;
  }
  std::vector<int> st(realReqs.size());
  int e = REAL(ncmpi_wait)(ncid, int(realReqs.size()), realReqs.data(), st.data());
  for (size_t i = 0; i < realPos.size(); ++i) {
    reqs[realPos[i]] = NC_REQ_NULL;
    if (statuses)
      statuses[realPos[i]] = st[i];
  }
  return err != NC_NOERR ? err : e;
}

SIO_PNC_API int ncmpi_cancel(int ncid, int num, int *reqs, int *statuses) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return REAL(ncmpi_cancel)(ncid, num, reqs, statuses);
  std::vector<int> realReqs, realPos;
  for (int i = 0; !selectsAll(num) && i < num; ++i) {
    if (skipNull(reqs[i], statuses, i))
      continue;
    if (reqs[i] >= kReqBase) {
      std::erase_if(m->pending, [&](const Op &o) { return o.req == reqs[i]; });
      reqs[i] = NC_REQ_NULL;
      if (statuses)
        statuses[i] = NC_NOERR;
    } else {
      realReqs.push_back(reqs[i]);
      realPos.push_back(i);
    }
  }
  if (selectsAll(num)) {
    std::erase_if(m->pending, [num](const Op &op) { return takes(op, num); });
    return REAL(ncmpi_cancel)(ncid, num, reqs, statuses);
  }
  std::vector<int> st(realReqs.size());
  int err = REAL(ncmpi_cancel)(ncid, int(realReqs.size()), realReqs.data(), st.data());
  for (size_t i = 0; i < realPos.size(); ++i) {
    reqs[realPos[i]] = NC_REQ_NULL;
    if (statuses)
      statuses[realPos[i]] = st[i];
  }
  return err;
}

/// PnetCDF's count and this rank's requests on partitioned variables.
SIO_PNC_API int ncmpi_inq_nreqs(int ncid, int *nreqs) {
  int e = REAL(ncmpi_inq_nreqs)(ncid, nreqs);
  if (Master *m = masterOf(ncid); m && e == NC_NOERR && nreqs)
    *nreqs += pendingRequests(*m);
  return e;
}

/// PnetCDF's usage of the attached buffer and our bput requests' share.
SIO_PNC_API int ncmpi_inq_buffer_usage(int ncid, MPI_Offset *usage) {
  int e = REAL(ncmpi_inq_buffer_usage)(ncid, usage);
  if (Master *m = masterOf(ncid); m && e == NC_NOERR && usage)
    *usage += bufferInUse(*m);
  return e;
}

/// Refused with NC_EPENDINGBPUT while a bput request is pending, as PnetCDF
/// refuses for its own: the request holds part of the buffer.
SIO_PNC_API int ncmpi_buffer_detach(int ncid) {
  if (Master *m = masterOf(ncid)) {
    bufferInUse(*m); // gives back the done shares: what is left has a pending request on top
    if (!m->bputShares.empty())
      return NC_EPENDINGBPUT;
  }
  return REAL(ncmpi_buffer_detach)(ncid);
}

} // extern "C"
