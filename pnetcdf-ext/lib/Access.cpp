// A call's accesses to partitioned variables as operations of the
// transformation: checked and staged (prepare), then run collectively
// (runOps), independently, or queued as a nonblocking or buffered request.
#include "Interpose.h"

#include "sio/part/BufferType.h"
#include "sio/part/Layout.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

namespace sio::part::interpose {

namespace {

/// Builds an operation from a PnetCDF call's arguments (start/count/stride may
/// be null for the var and var1 forms).
void makeOp(Master &m, const PVar &v, bool write, const MPI_Offset *start, const MPI_Offset *count,
            const MPI_Offset *stride, const void *buf, int type, Op &op) {
  size_t nd = v.len.size();
  op.write = write;
  op.var = &v;
  op.buf = const_cast<void *>(buf);
  op.type = type;
  op.start.assign(nd, 0);
  op.count.assign(nd, 1);
  op.stride.assign(nd, 1);
  for (size_t d = 0; d < nd; ++d) {
    if (start)
      op.start[d] = start[d];
    if (count == reinterpret_cast<const MPI_Offset *>(1)) // var1: one element
      op.count[d] = 1;
    else if (count)
      op.count[d] = count[d];
    else // whole variable
      op.count[d] = (v.record && d == 0) ? m.numrecs : v.len[d];
    if (stride)
      op.stride[d] = stride[d];
  }
}

} // namespace

int refuse(const char *fn, const PVar &v, int err, const char *why) {
  std::fprintf(stderr, "sio-pnetcdf: error: %s on partitioned variable '%s': %s (%s)\n", fn, v.name.c_str(), why,
               ncmpi_strerror(err));
  return err;
}

namespace {

/// The memory type of a flexible-API call: a predefined MPI datatype, or
/// MPI_DATATYPE_NULL for the variable's own external type; -1 for a type
/// PnetCDF does not support (derived ones are staged before: stageDerived).
int flexibleType(const PVar &v, MPI_Datatype buftype) {
  if (buftype != MPI_DATATYPE_NULL)
    return typeIndexOf(buftype);
  switch (v.xtype) {
  case NC_CHAR:
    return kType_text;
  case NC_BYTE:
    return kType_schar;
  case NC_UBYTE:
    return kType_uchar;
  case NC_SHORT:
    return kType_short;
  case NC_USHORT:
    return kType_ushort;
  case NC_INT:
    return kType_int;
  case NC_UINT:
    return kType_uint;
  case NC_FLOAT:
    return kType_float;
  case NC_DOUBLE:
    return kType_double;
  case NC_INT64:
    return kType_longlong;
  case NC_UINT64:
    return kType_ulonglong;
  default:
    return -1;
  }
}

int memoryType(const PVar &v, const Access &a) { return a.type == kFlexible ? flexibleType(v, a.buftype) : a.type; }

/// A flexible access whose buffer type is a derived MPI datatype becomes one
/// with that type's predefined element type over a contiguous buffer (a
/// Staging): for a write the data packed through the type now (MPI_Pack, as
/// PnetCDF's own ncmpio_pack_xbuf does), for a read a buffer unpacked into
/// the application's at completion (finishOp). Types PnetCDF refuses keep
/// its error code: NC_EMULTITYPES for more than one element type,
/// NC_EUNSPTETYPE for an unsupported one. Other accesses are unchanged.
int stageDerived(Access &a) {
  if (a.type != kFlexible || a.buftype == MPI_DATATYPE_NULL || a.staging)
    return NC_NOERR;
  int nints = 0, naddrs = 0, ntypes = 0, combiner = 0;
  MPI_Type_get_envelope(a.buftype, &nints, &naddrs, &ntypes, &combiner);
  if (combiner == MPI_COMBINER_NAMED)
    return NC_NOERR; // predefined: flexibleType maps it (or it is refused there)
  sio::part::ElementType et = sio::part::elementTypeOf(a.buftype, canonicalType);
  if (et.status == sio::part::ElementStatus::MultipleTypes)
    return NC_EMULTITYPES;
  if (et.status != sio::part::ElementStatus::Ok)
    return NC_EUNSPTETYPE;
  const int type = typeIndexOf(et.element);
  MPI_Count typeBytes = 0;
  MPI_Type_size_c(a.buftype, &typeBytes);
  const MPI_Count perItem = typeBytes / kTypeSize[type];
  if (a.bufcount < 0)
    return NC_EINVAL; // PnetCDF takes bufcount -1 as a predefined type's: a derived one has no meaning there
  auto s = std::make_shared<Staging>();
  s->write = a.write;
  s->user = const_cast<void *>(a.buf);
  s->count = MPI_Count(a.bufcount);
  s->linear.resize(size_t(a.bufcount * perItem * kTypeSize[type]));
  if (a.write) {
    MPI_Count pos = 0;
    if (MPI_Pack_c(a.buf, s->count, a.buftype, s->linear.data(), MPI_Count(s->linear.size()), &pos, MPI_COMM_SELF) !=
        MPI_SUCCESS)
      return NC_EINVAL;
  } else {
    MPI_Type_dup(a.buftype, &s->type);
  }
  a.buf = s->linear.data();
  a.bufcount = a.bufcount * perItem;
  a.buftype = kTypes[type];
  a.staging = std::move(s);
  return NC_NOERR;
}

} // namespace

void finishOp(Op &op, bool ok) {
  if (op.write)
    return;
  if (ok && op.mapped)
    sio::part::mappedCopy(op.buf, op.mapped, op.count, op.imap, size_t(kTypeSize[op.type]), true);
  if (Staging *s = op.staging.get()) {
    s->failed |= !ok;
    if (--s->pending == 0 && !s->failed) {
      MPI_Count pos = 0;
      MPI_Unpack_c(s->linear.data(), MPI_Count(s->linear.size()), &pos, s->user, s->count, s->type, MPI_COMM_SELF);
    }
    op.staging.reset();
  }
}

namespace {

/// Turns one access into an operation of the transformation: checks it, and
/// for a mapped (varm) access or a buffered write keeps the data packed in
/// the operation itself.
int prepare(const char *fn, Master &m, const PVar &v, const Access &access, bool copy, Op &op) {
  Access a = access;
  if (int e = stageDerived(a); e != NC_NOERR)
    return e;
  int type = memoryType(v, a);
  if (type < 0)
    return NC_EUNSPTETYPE; // a predefined type PnetCDF has no conversion for (MPI_C_BOOL, ...), as PnetCDF
  makeOp(m, v, a.write, a.start, a.count, a.stride, a.buf, type, op);
  int err = validate(op);
  if (err != NC_NOERR)
    return err;
  const int64_t n = elements(op.count);
  if (a.type == kFlexible && a.buftype != MPI_DATATYPE_NULL && a.bufcount >= 0 && a.bufcount != n)
    return NC_EIOMISMATCH; // as PnetCDF: bufcount differs from the request, larger or smaller
  const size_t bytes = size_t(n) * size_t(kTypeSize[type]);
  if (a.staging && a.imap) {
    // The mapped layout may reach past the buffer's elements (gaps): cover it.
    int64_t extent = 1;
    for (size_t d = 0; d < v.len.size(); ++d)
      extent += op.count[d] > 0 ? (op.count[d] - 1) * a.imap[d] : 0;
    size_t need = size_t(std::max<int64_t>(extent, n)) * size_t(kTypeSize[type]);
    if (a.staging->linear.size() < need && elements(op.count) > 0) {
      a.staging->linear.resize(need);
      a.buf = a.staging->linear.data();
    }
  }
  if (a.staging && !a.write) {
    op.staging = a.staging;
    ++op.staging->pending;
  }
  if (a.imap) {
    op.imap.assign(a.imap, a.imap + v.len.size());
    op.owned.resize(bytes);
    if (a.write)
      sio::part::mappedCopy(op.owned.data(), const_cast<void *>(a.buf), op.count, op.imap, size_t(kTypeSize[type]),
                            false);
    else
      op.mapped = const_cast<void *>(a.buf);
    op.buf = op.owned.data();
  } else if (a.staging) {
    op.buf = const_cast<void *>(a.buf); // already a copy (bput too)
    if (a.write)
      op.staging = a.staging; // keeps the packed data alive until the wait
  } else if (copy && a.write) {
    op.owned.assign(static_cast<const char *>(a.buf), static_cast<const char *>(a.buf) + bytes);
    op.buf = op.owned.data();
  }
  return NC_NOERR;
}

} // namespace

int runIndependent(Master &m, Op &op) {
  const PVar &v = *op.var;
  const size_t esize = size_t(kTypeSize[op.type]);
  std::vector<char> tmp;
  for (auto &sub : sio::part::splitRequest(op.start, op.count, op.stride, v.dim, v.len[v.dim], v.k)) {
    Part &part = m.parts[sub.part];
    int handle = part.ncid, pvar = v.partVarid[sub.part];
    if (handle < 0) {
      auto it = m.selfNcid.find(sub.part);
      if (it == m.selfNcid.end()) {
        int h = -1;
        PartitionInfo hints;
        int e = REAL(ncmpi_open)(MPI_COMM_SELF, part.path.c_str(), m.writable ? NC_WRITE : NC_NOWRITE, hints.info, &h);
        if (e != NC_NOERR)
          return e;
        e = REAL(ncmpi_begin_indep_data)(h);
        if (e != NC_NOERR) {
          REAL(ncmpi_close)(h); // not kept: the handle would leak
          return e;
        }
        it = m.selfNcid.emplace(sub.part, h).first;
      }
      handle = it->second;
      int e = ncmpi_inq_varid(handle, v.name.c_str(), &pvar);
      if (e != NC_NOERR)
        return e;
    }
    MPI_Offset n = elements(sub.count);
    tmp.resize(size_t(n) * esize);
    std::vector<MPI_Offset> st(sub.start.begin(), sub.start.end()), cnt(sub.count.begin(), sub.count.end()),
        str(op.stride.begin(), op.stride.end());
    int err;
    if (op.write) {
      sio::part::packSlab(op.buf, tmp.data(), op.count, v.dim, sub.first, sub.num, esize);
      err = REAL(ncmpi_put_vars)(handle, pvar, st.data(), cnt.data(), str.data(), tmp.data(), n, kTypes[op.type]);
    } else {
      err = REAL(ncmpi_get_vars)(handle, pvar, st.data(), cnt.data(), str.data(), tmp.data(), n, kTypes[op.type]);
      if (err == NC_NOERR)
        sio::part::unpackSlab(tmp.data(), op.buf, op.count, v.dim, sub.first, sub.num, esize);
    }
    if (err != NC_NOERR)
      return err;
  }
  finishOp(op, true);
  countBytes(m, op);
  return NC_NOERR;
}

namespace {

int independent(const char *fn, Master &m, const std::vector<Piece> &pieces) {
  if (!m.indep)
    return NC_ENOTINDEP; // as PnetCDF: an independent form in collective data mode
  // All prepared before any runs: the subarrays of one derived buffer type
  // are unpacked together once the last is read.
  std::vector<Op> ops(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    auto &[v, a] = pieces[i];
    if (v->record)
      return refuse(fn, *v, NC_ENOTSUPPORT, "independent access to a partitioned record variable");
    if (int err = prepare(fn, m, *v, a, false, ops[i]); err != NC_NOERR)
      return err;
  }
  for (auto &op : ops)
    if (int err = runIndependent(m, op); err != NC_NOERR)
      return err;
  return NC_NOERR;
}

} // namespace

int collective(const char *fn, Master &m, const std::vector<Piece> &pieces, int err) {
  if (m.indep)
    return NC_EINDEP; // as PnetCDF: a collective form in independent data mode (all ranks are in it)
  std::vector<Op> ops;
  for (auto &[v, a] : pieces) {
    Op op;
    int e = err == NC_NOERR ? prepare(fn, m, *v, a, false, op) : err;
    if (e != NC_NOERR) {
      err = e;
      ops.clear();
      continue;
    }
    ops.push_back(std::move(op));
  }
  if (err != NC_NOERR)
    ops.clear();
  return runOps(m, ops, nullptr, err);
}

namespace {

/// A nonblocking (or buffered) request: checked now, queued under one request
/// id, transformed by ncmpi_wait_all. A buffered write keeps a copy of the
/// data, so the buffer is free on return as with bput, and holds its share
/// of the attached buffer as PnetCDF's bput does: NC_EINSUFFBUF when the
/// attached buffer (with PnetCDF's and our pending bputs) has no room.
int nonblocking(const char *fn, Master &m, const std::vector<Piece> &pieces, bool buffered, int *req) {
  if (req)
    *req = NC_REQ_NULL;
  MPI_Offset capacity = 0, used = 0;
  if (buffered) {
    int e = REAL(ncmpi_inq_buffer_size)(m.ncid, &capacity); // NC_ENULLABUF without ncmpi_buffer_attach
    if (e == NC_NOERR)
      e = REAL(ncmpi_inq_buffer_usage)(m.ncid, &used);
    if (e != NC_NOERR)
      return e;
    used += bufferInUse(m);
  }
  std::vector<Op> ops(pieces.size());
  int64_t share = 0;
  for (size_t i = 0; i < pieces.size(); ++i) {
    int e = prepare(fn, m, *pieces[i].var, pieces[i].access, buffered, ops[i]);
    if (e != NC_NOERR)
      return e;
    if (buffered)
      share += elements(ops[i].count) * externalSize(ops[i].var->xtype);
  }
  if (buffered && used + share > capacity)
    return NC_EINSUFFBUF;
  const int id = m.nextReq++;
  if (buffered)
    m.bputShares.push_back({id, share});
  for (auto &op : ops) {
    op.req = id;
    m.pending.push_back(std::move(op));
  }
  if (req)
    *req = id;
  return NC_NOERR;
}

int run(const char *fn, Mode mode, Master &m, const std::vector<Piece> &pieces, int *req = nullptr,
        int err = NC_NOERR) {
  switch (mode) {
  case Mode::Collective:
    return collective(fn, m, pieces, err);
  case Mode::Independent:
    return err != NC_NOERR ? err : independent(fn, m, pieces);
  case Mode::Nonblocking:
  case Mode::Buffered:
    return err != NC_NOERR ? err : nonblocking(fn, m, pieces, mode == Mode::Buffered, req);
  }
  return NC_EINVAL;
}

} // namespace

int accessOne(const char *fn, Mode mode, int ncid, int varid, const Access &a, int *req) {
  Master *m = nullptr;
  const PVar *v = partitionedVar(ncid, varid, &m);
  return run(fn, mode, *m, {{v, a}}, req);
}

int accessN(const char *fn, Mode mode, int ncid, int varid, int num, MPI_Offset *const *starts,
            MPI_Offset *const *counts, const Access &access, int *req) {
  Master *m = nullptr;
  const PVar *v = partitionedVar(ncid, varid, &m);
  std::vector<Piece> pieces;
  Access a = access;
  int err = stageDerived(a); // one buffer (and type) for all subarrays
  int type = memoryType(*v, a);
  if (err == NC_NOERR && num < 0)
    err = NC_EINVAL;
  else if (err == NC_NOERR && num > 0 && !starts)
    err = NC_ENULLSTART;
  else if (err == NC_NOERR && type < 0)
    pieces.push_back({v, a}); // prepare refuses it
  int64_t total = 0;
  for (int i = 0; err == NC_NOERR && type >= 0 && i < num; ++i) {
    if (!starts[i]) {
      err = NC_ENULLSTART;
      break;
    }
    Access one = a;
    one.start = starts[i];
    one.count = counts && counts[i] ? counts[i] : kVar1;
    one.buf = static_cast<const char *>(a.buf) + total * kTypeSize[type];
    one.type = type;
    pieces.push_back({v, one});
    int64_t n = 1;
    for (size_t d = 0; one.count != kVar1 && d < v->len.size(); ++d)
      n *= one.count[d];
    total += n;
  }
  if (err == NC_NOERR && a.type == kFlexible && a.buftype != MPI_DATATYPE_NULL && a.bufcount >= 0 &&
      a.bufcount != total)
    err = NC_EIOMISMATCH;
  return run(fn, mode, *m, pieces, req, err);
}

namespace {

int realMulti(Multi kind, bool write, bool coll, int ncid, int n, int *ids, MPI_Offset *const *st,
              MPI_Offset *const *ct, MPI_Offset *const *sd, MPI_Offset *const *im, void **bufs, const MPI_Offset *bc,
              const MPI_Datatype *bt) {
#define SIO_M_REAL(put, get, ...)                                                                                      \
  return write ? (coll ? REAL(put##_all)(ncid, n, ids, __VA_ARGS__) : REAL(put)(ncid, n, ids, __VA_ARGS__))            \
               : (coll ? REAL(get##_all)(ncid, n, ids, __VA_ARGS__) : REAL(get)(ncid, n, ids, __VA_ARGS__))
  switch (kind) {
  case Multi::Var:
    SIO_M_REAL(ncmpi_mput_var, ncmpi_mget_var, bufs, bc, bt);
  case Multi::Var1:
    SIO_M_REAL(ncmpi_mput_var1, ncmpi_mget_var1, st, bufs, bc, bt);
  case Multi::Vara:
    SIO_M_REAL(ncmpi_mput_vara, ncmpi_mget_vara, st, ct, bufs, bc, bt);
  case Multi::Vars:
    SIO_M_REAL(ncmpi_mput_vars, ncmpi_mget_vars, st, ct, sd, bufs, bc, bt);
  case Multi::Varm:
    SIO_M_REAL(ncmpi_mput_varm, ncmpi_mget_varm, st, ct, sd, im, bufs, bc, bt);
  }
#undef SIO_M_REAL
  return NC_EINVAL;
}

} // namespace

int multi(const char *fn, Multi kind, bool write, bool coll, int ncid, int nvars, int *varids,
          MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides, MPI_Offset *const *imaps,
          const void *bufs, const MPI_Offset *bufcounts, const MPI_Datatype *buftypes, int type) {
  Master *m = masterOf(ncid);
  auto *bufv = static_cast<void *const *>(bufs);
  std::vector<int> ids;
  std::vector<MPI_Offset *> st, ct, sd, im;
  std::vector<void *> bf;
  std::vector<MPI_Offset> bc;
  std::vector<MPI_Datatype> bt;
  std::vector<Piece> pieces;
  auto at = [](MPI_Offset *const *list, int i) { return list ? list[i] : nullptr; };
  for (int i = 0; i < nvars; ++i) {
    if (const PVar *v = partitionedVar(ncid, varids[i])) {
      Access a{write,
               nullptr,
               nullptr,
               nullptr,
               nullptr,
               bufv[i],
               type,
               bufcounts ? bufcounts[i] : -1,
               buftypes ? buftypes[i] : MPI_DATATYPE_NULL};
      if (kind != Multi::Var)
        a.start = at(starts, i), a.count = kind == Multi::Var1 ? kVar1 : at(counts, i);
      if (kind == Multi::Vars || kind == Multi::Varm)
        a.stride = at(strides, i);
      if (kind == Multi::Varm)
        a.imap = at(imaps, i);
      pieces.push_back({v, a});
      continue;
    }
    ids.push_back(varids[i]);
    st.push_back(at(starts, i)), ct.push_back(at(counts, i)), sd.push_back(at(strides, i)), im.push_back(at(imaps, i));
    bf.push_back(bufv[i]);
    // The typed forms become the flexible one with the predefined type (bufcount -1, as PnetCDF's typed API does).
    bc.push_back(type == kFlexible ? bufcounts[i] : -1);
    bt.push_back(type == kFlexible ? buftypes[i] : kTypes[type]);
  }
  int err = NC_NOERR;
  if (coll || !ids.empty())
    err = realMulti(kind, write, coll, ncid, int(ids.size()), ids.data(), starts ? st.data() : nullptr,
                    counts ? ct.data() : nullptr, strides ? sd.data() : nullptr, imaps ? im.data() : nullptr, bf.data(),
                    bc.data(), bt.data());
  if (coll || !pieces.empty()) {
    int e = run(fn, coll ? Mode::Collective : Mode::Independent, *m, pieces);
    if (err == NC_NOERR)
      err = e;
  }
  return err;
}

} // namespace sio::part::interpose
