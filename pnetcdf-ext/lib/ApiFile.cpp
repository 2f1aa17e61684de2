// The interposed PnetCDF API: creating, opening, defining, closing and
// inquiring about files with partitioning.
#include "Interpose.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace sio::part::interpose {

namespace {

int forEachOwnedPart(Master &m, int (*fn)(int)) {
  int err = NC_NOERR;
  for (auto &part : m.parts)
    if (part.ncid >= 0) {
      int e = fn(part.ncid);
      if (e != NC_NOERR && err == NC_NOERR)
        err = e;
    }
  return err;
}

} // namespace

} // namespace sio::part::interpose

using namespace sio::part::interpose;

extern "C" {

SIO_PNC_API int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp) {
  Hints h;
  std::string bad = readHints(info, h);
  if (!bad.empty() && h.enabled) {
    std::fprintf(stderr, "sio-pnetcdf: error: %s\n", bad.c_str());
    return NC_EINVAL;
  }
  int err = REAL(ncmpi_create)(comm, path, cmode, info, ncidp);
  if (err != NC_NOERR || !h.enabled)
    return err;
  auto m = std::make_unique<Master>();
  m->ncid = *ncidp;
  m->comm = privateComm(comm);
  MPI_Comm_rank(m->comm, &m->rank);
  MPI_Comm_size(m->comm, &m->size);
  m->path = path;
  m->cmode = cmode;
  m->hints = h;
  masters()[*ncidp] = std::move(m);
  return err;
}

SIO_PNC_API int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp) {
  int err = REAL(ncmpi_open)(comm, path, omode, info, ncidp);
  if (err != NC_NOERR)
    return err;
  auto m = std::make_unique<Master>();
  m->ncid = *ncidp;
  m->comm = privateComm(comm);
  MPI_Comm_rank(m->comm, &m->rank);
  MPI_Comm_size(m->comm, &m->size);
  m->path = path;
  m->writable = (omode & NC_WRITE) != 0;
  err = openPartitions(*m, omode);
  if (!m->partitioned)
    return err;
  masters()[*ncidp] = std::move(m);
  return err;
}

// Fill settings (§ Limits in docs/partitioning.md): the partitions are
// created in PnetCDF's default NC_NOFILL mode and fill values are not
// forwarded to them, so asking for fill on a partitioned file or variable is
// refused with NC_ENOTSUPPORT and a message rather than silently applied to
// the master's scalar placeholder only.

/// The array variable `varid` of a file created with partitioning (defined
/// as a placeholder), before or after ncmpi_enddef; null otherwise.
static const PVar *placeholderVar(int ncid, int varid) {
  Master *m = masterOf(ncid);
  if (!m)
    return nullptr;
  auto it = m->vars.find(varid);
  return it == m->vars.end() ? nullptr : &it->second;
}

SIO_PNC_API int ncmpi_set_fill(int ncid, int fillmode, int *old_modep) {
  if (masterOf(ncid) && fillmode == NC_FILL) {
    std::fprintf(stderr,
                 "sio-pnetcdf: error: ncmpi_set_fill(NC_FILL) on a partitioned file: the partition files are "
                 "written in NC_NOFILL mode, fill values are not forwarded to them (%s)\n",
                 ncmpi_strerror(NC_ENOTSUPPORT));
    return NC_ENOTSUPPORT;
  }
  return REAL(ncmpi_set_fill)(ncid, fillmode, old_modep);
}

SIO_PNC_API int ncmpi_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value) {
  const PVar *v = placeholderVar(ncid, varid);
  if (v && !no_fill)
    return refuse("ncmpi_def_var_fill", *v, NC_ENOTSUPPORT,
                  "fill mode is not forwarded to the partition files (only NC_NOFILL, their mode)");
  return REAL(ncmpi_def_var_fill)(ncid, varid, no_fill, fill_value);
}

SIO_PNC_API int ncmpi_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_value) {
  int err = REAL(ncmpi_inq_var_fill)(ncid, varid, no_fill, fill_value);
  if (err == NC_NOERR && no_fill && placeholderVar(ncid, varid))
    *no_fill = 1; // the partitions' mode (the fill value is the placeholder's, of the same type)
  return err;
}

SIO_PNC_API int ncmpi_fill_var_rec(int ncid, int varid, MPI_Offset recno) {
  if (const PVar *v = placeholderVar(ncid, varid))
    return refuse("ncmpi_fill_var_rec", *v, NC_ENOTSUPPORT, "the partition files are in NC_NOFILL mode");
  return REAL(ncmpi_fill_var_rec)(ncid, varid, recno);
}

SIO_PNC_API int ncmpi_inq_varoffset(int ncid, int varid, MPI_Offset *offset) {
  if (const PVar *v = placeholderVar(ncid, varid))
    return refuse("ncmpi_inq_varoffset", *v, NC_ENOTSUPPORT, "its data lies in several partition files");
  return REAL(ncmpi_inq_varoffset)(ncid, varid, offset);
}

SIO_PNC_API int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp) {
  Master *m = masterOf(ncid);
  if (!m || m->partitioned || ndims == 0)
    return REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp);
  int unlim = -1;
  ncmpi_inq_unlimdim(ncid, &unlim);
  PVar v;
  v.name = name;
  v.xtype = xtype;
  bool hasFixed = false;
  for (int d = 0; d < ndims; ++d) {
    MPI_Offset len = 0;
    int e = REAL(ncmpi_inq_dimlen)(ncid, dimidsp[d], &len);
    if (e != NC_NOERR)
      return e;
    bool rec = dimidsp[d] == unlim;
    if (rec && d != 0)
      return REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp); // PnetCDF reports the error
    v.record |= rec;
    hasFixed |= !rec;
    v.dimids.push_back(dimidsp[d]);
    v.len.push_back(rec ? 0 : len);
  }
  if (!hasFixed) // a 1-D record variable stays whole in the master
    return REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp);
  // The master keeps a scalar placeholder (Figure 5(b)); the data goes to the partitions.
  int err = REAL(ncmpi_def_var)(ncid, name, xtype, 0, nullptr, varidp);
  if (err != NC_NOERR)
    return err;
  m->unlimdim = unlim;
  v.varid = *varidp;
  m->vars[*varidp] = std::move(v);
  return err;
}

/// The bytes of one attribute in a netCDF header (CDF-1/2: 4-byte counts,
/// CDF-5: 8-byte), as PnetCDF's ncmpio_hdr_len_NC counts them.
static int64_t attributeHeaderBytes(int ncid, int varid, const char *name, bool cdf5) {
  nc_type t;
  MPI_Offset n = 0;
  if (ncmpi_inq_att(ncid, varid, name, &t, &n) != NC_NOERR)
    return 0;
  auto pad4 = [](int64_t b) { return (b + 3) / 4 * 4; };
  const int64_t count = cdf5 ? 8 : 4;
  return count + pad4(int64_t(std::strlen(name))) + 4 + count + pad4(n * externalSize(t));
}

/// The size of the header the unpartitioned file would have minus the
/// master's: the master has sio's attributes (global and per partitioned
/// variable), and its placeholders have no dimension ids.
static int64_t headerDelta(const Master &m) {
  const bool cdf5 = (m.cmode & NC_64BIT_DATA) != 0;
  int64_t extra = attributeHeaderBytes(m.ncid, NC_GLOBAL, "num_partitions", cdf5) +
                  attributeHeaderBytes(m.ncid, NC_GLOBAL, kLayoutAttribute, cdf5);
  for (int p = 0; p < m.k; ++p)
    extra += attributeHeaderBytes(m.ncid, NC_GLOBAL, ("partition_" + std::to_string(p)).c_str(), cdf5);
  int64_t dimids = 0;
  for (auto &[id, v] : m.vars) {
    for (const char *a : {"num_partitions", "ndims_org", "dimids_org", "partition_dim"})
      extra += attributeHeaderBytes(m.ncid, id, a, cdf5);
    dimids += int64_t(v.dimids.size()) * (cdf5 ? 8 : 4);
  }
  return dimids - extra;
}

static int enddefPartitioned(int ncid, Master *m, const MPI_Offset *args) {
  if (args)
    std::copy(args, args + 4, m->enddefArgs);
  int err = createPartitions(*m);
  m->partitioned = true;
  int e = args ? REAL(ncmpi__enddef)(ncid, args[0], args[1], args[2], args[3]) : REAL(ncmpi_enddef)(ncid);
  if (e == NC_NOERR && m->rank == 0)
    m->headerDelta = headerDelta(*m); // rank 0 wrote the header (PnetCDF counts it in its put size)
  return err != NC_NOERR ? err : e;
}

SIO_PNC_API int ncmpi_enddef(int ncid) {
  Master *m = masterOf(ncid);
  if (!m || m->partitioned)
    return REAL(ncmpi_enddef)(ncid);
  return enddefPartitioned(ncid, m, nullptr);
}

SIO_PNC_API int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree,
                              MPI_Offset r_align) {
  Master *m = masterOf(ncid);
  if (!m || m->partitioned)
    return REAL(ncmpi__enddef)(ncid, h_minfree, v_align, v_minfree, r_align);
  const MPI_Offset args[4] = {h_minfree, v_align, v_minfree, r_align};
  return enddefPartitioned(ncid, m, args);
}

SIO_PNC_API int ncmpi_redef(int ncid) {
  Master *m = masterOf(ncid);
  if (m && m->partitioned)
    return NC_ENOTSUPPORT; // the partition files' headers are fixed at enddef
  return REAL(ncmpi_redef)(ncid);
}

SIO_PNC_API int ncmpi_close(int ncid) {
  Master *m = masterOf(ncid);
  if (!m)
    return REAL(ncmpi_close)(ncid);
  if (!m->partitioned) // created with the hint but never ended define mode
    ncmpi_enddef(ncid);
  // Nonblocking requests of partitioned variables never waited for: as
  // PnetCDF 1.12.3's ncmpio_close (built without COMPLETE_NONBLOCKING_IO),
  // this rank warns, cancels them and returns NC_EPENDING. Cancelling is
  // local, so the ranks need not agree; every rank still takes the same
  // collective path below.
  int status = NC_NOERR;
  std::vector<int> gets, puts;
  for (const Op &op : m->pending) {
    auto &ids = op.write ? puts : gets;
    if (std::find(ids.begin(), ids.end(), op.req) == ids.end())
      ids.push_back(op.req);
  }
  for (auto [n, kind] : {std::pair{gets.size(), "get"}, std::pair{puts.size(), "put"}})
    if (n > 0) {
      std::fprintf(stderr,
                   "sio-pnetcdf: warning: %zu nonblocking %s requests of partitioned variables still pending on "
                   "process %d at ncmpi_close. Cancelling ...\n",
                   n, kind, m->rank);
      status = NC_EPENDING;
    }
  m->pending.clear();
  closePartitions(*m); // m->comm is kept for the next file (privateComm)
  masters().erase(ncid);
  int err = REAL(ncmpi_close)(ncid);
  return status != NC_NOERR ? status : err;
}

// The bytes moved so far: the unpartitioned file's count (Master::putBytes).
SIO_PNC_API int ncmpi_inq_put_size(int ncid, MPI_Offset *size) {
  int err = REAL(ncmpi_inq_put_size)(ncid, size);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && size)
    *size += m->putBytes + m->headerDelta;
  return err;
}

SIO_PNC_API int ncmpi_inq_get_size(int ncid, MPI_Offset *size) {
  int err = REAL(ncmpi_inq_get_size)(ncid, size);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && size)
    *size += m->getBytes;
  return err;
}

SIO_PNC_API int ncmpi_sync(int ncid) {
  Master *m = masterOf(ncid);
  int err = m ? forEachOwnedPart(*m, REAL(ncmpi_sync)) : NC_NOERR;
  int e = REAL(ncmpi_sync)(ncid);
  return err != NC_NOERR ? err : e;
}

SIO_PNC_API int ncmpi_begin_indep_data(int ncid) {
  Master *m = masterOf(ncid);
  int err = m ? forEachOwnedPart(*m, REAL(ncmpi_begin_indep_data)) : NC_NOERR;
  int e = REAL(ncmpi_begin_indep_data)(ncid);
  if (m && e == NC_NOERR)
    m->indep = true;
  return err != NC_NOERR ? err : e;
}

SIO_PNC_API int ncmpi_end_indep_data(int ncid) {
  Master *m = masterOf(ncid);
  int err = NC_NOERR;
  if (m) {
    // What this rank wrote alone reaches the file before collective access resumes.
    for (auto &[p, self] : m->selfNcid) {
      int e = REAL(ncmpi_sync)(self);
      if (e != NC_NOERR && err == NC_NOERR)
        err = e;
    }
    int e = forEachOwnedPart(*m, REAL(ncmpi_end_indep_data));
    if (e != NC_NOERR && err == NC_NOERR)
      err = e;
    m->indep = false;
  }
  int e = REAL(ncmpi_end_indep_data)(ncid);
  return err != NC_NOERR ? err : e;
}

// The original shape of a partitioned variable, as the application defined it.
/// The attributes sio adds to a partitioned variable's placeholder at
/// ncmpi_enddef (num_partitions, ndims_org, dimids_org, partition_dim), after
/// the application's (define mode cannot be reentered): hidden from the
/// attribute count and indices.
static int bookkeepingAtts(int ncid, int varid) {
  Master *m = masterOf(ncid);
  return m && m->partitioned && m->vars.count(varid) ? 4 : 0;
}

SIO_PNC_API int ncmpi_inq_varnatts(int ncid, int varid, int *nattsp) {
  int err = REAL(ncmpi_inq_varnatts)(ncid, varid, nattsp);
  if (err == NC_NOERR && nattsp)
    *nattsp -= bookkeepingAtts(ncid, varid);
  return err;
}

SIO_PNC_API int ncmpi_inq_attname(int ncid, int varid, int attnum, char *name) {
  if (int hidden = bookkeepingAtts(ncid, varid)) {
    int natts = 0;
    int err = REAL(ncmpi_inq_varnatts)(ncid, varid, &natts);
    if (err != NC_NOERR)
      return err;
    if (attnum >= natts - hidden)
      return NC_ENOTATT;
  }
  return REAL(ncmpi_inq_attname)(ncid, varid, attnum, name);
}

SIO_PNC_API int ncmpi_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp,
                              int *nattsp) {
  Master *m = masterOf(ncid);
  auto it = m ? m->vars.find(varid) : decltype(m->vars.end()){};
  if (!m || it == m->vars.end())
    return REAL(ncmpi_inq_var)(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp);
  int err = REAL(ncmpi_inq_var)(ncid, varid, name, xtypep, nullptr, nullptr, nattsp);
  if (err == NC_NOERR && nattsp)
    *nattsp -= bookkeepingAtts(ncid, varid);
  if (ndimsp)
    *ndimsp = int(it->second.dimids.size());
  if (dimidsp)
    std::copy(it->second.dimids.begin(), it->second.dimids.end(), dimidsp);
  return err;
}

SIO_PNC_API int ncmpi_inq_varndims(int ncid, int varid, int *ndimsp) {
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, ndimsp, nullptr, nullptr);
}

SIO_PNC_API int ncmpi_inq_vardimid(int ncid, int varid, int *dimidsp) {
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, nullptr, dimidsp, nullptr);
}

// The record dimension's length counts the records in the partitions.
SIO_PNC_API int ncmpi_inq_dimlen(int ncid, int dimid, MPI_Offset *lenp) {
  int err = REAL(ncmpi_inq_dimlen)(ncid, dimid, lenp);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && m->partitioned && dimid == m->unlimdim && lenp)
    *lenp = std::max<MPI_Offset>(*lenp, m->numrecs);
  return err;
}

SIO_PNC_API int ncmpi_inq_dim(int ncid, int dimid, char *name, MPI_Offset *lenp) {
  int err = REAL(ncmpi_inq_dim)(ncid, dimid, name, lenp);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && m->partitioned && dimid == m->unlimdim && lenp)
    *lenp = std::max<MPI_Offset>(*lenp, m->numrecs);
  return err;
}

} // extern "C"
