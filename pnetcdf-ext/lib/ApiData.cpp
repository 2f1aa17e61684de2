// The interposed PnetCDF API: the data access forms.
//
// Every put/get form of PnetCDF 1.12.3 that names a variable is interposed.
// On a variable that is not partitioned it goes to PnetCDF unchanged; on a
// partitioned one it becomes a list of accesses (one for the var, var1, vara,
// vars and varm forms, one per subarray for varn, one per partitioned
// variable for the mput/mget forms) run by the helper of its kind:
// collective, independent, nonblocking or buffered. Only vard (an MPI
// filetype over the file layout) is refused.
#include "Interpose.h"

#include <cstdio>
#include <vector>

namespace sio::part::interpose {

namespace {

/// A collective single-variable form on variable `varid`. The ranks may name
/// different variables, some partitioned and some kept whole in the master,
/// so whether the call goes to PnetCDF (`real`), through the transformation
/// (`ours`) or both is agreed by an MPI_Allreduce: a per-rank decision would
/// leave some ranks in PnetCDF's collective and the others in the exchange.
/// Mixed, every rank joins PnetCDF's collective as one ncmpi_wait_all (the
/// ranks with a master variable post it with the nonblocking form `nb`, the
/// others none) and then the exchange (those with none). In independent data
/// mode (entered by all ranks together) nothing is collective: both paths
/// return NC_EINDEP at once.
template <class Real, class Nb, class Ours>
int collectiveForm(const char *fn, int ncid, int varid, Real real, Nb nb, Ours ours) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return real();
  const bool mine = partitionedVar(ncid, varid) != nullptr;
  if (m->indep)
    return mine ? ours(fn) : real();
  int local[2] = {mine, !mine}, any[2];
  MPI_Allreduce(local, any, 2, MPI_INT, MPI_MAX, m->comm);
  if (!any[0])
    return real();
  if (!any[1])
    return ours(fn);
  if (mine) {
    int err = REAL(ncmpi_wait_all)(ncid, 0, nullptr, nullptr);
    int e = ours(fn);
    return err != NC_NOERR ? err : e;
  }
  int req = NC_REQ_NULL, status = NC_NOERR;
  int err = nb(&req);
  int e = REAL(ncmpi_wait_all)(ncid, err == NC_NOERR ? 1 : 0, &req, &status);
  if (err == NC_NOERR)
    err = e != NC_NOERR ? e : status;
  e = collective(fn, *m, {});
  return err != NC_NOERR ? err : e;
}

/// Whether `ncid` is a master whose partitions exist.
bool partitionedMaster(int ncid) {
  Master *m = masterOf(ncid);
  return m && m->partitioned;
}

} // namespace

} // namespace sio::part::interpose

using namespace sio::part::interpose;

extern "C" {

// The index arguments of each single-variable form: parameters, the same as
// arguments, and as Access fields (start, count, stride, imap).
#define SIO_IDX_PARAMS_var
#define SIO_IDX_PARAMS_var1 const MPI_Offset *start,
#define SIO_IDX_PARAMS_vara const MPI_Offset *start, const MPI_Offset *count,
#define SIO_IDX_PARAMS_vars const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride,
#define SIO_IDX_PARAMS_varm                                                                                            \
  const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, const MPI_Offset *imap,
#define SIO_IDX_ARGS_var
#define SIO_IDX_ARGS_var1 start,
#define SIO_IDX_ARGS_vara start, count,
#define SIO_IDX_ARGS_vars start, count, stride,
#define SIO_IDX_ARGS_varm start, count, stride, imap,
#define SIO_IDX_ACCESS_var nullptr, nullptr, nullptr, nullptr
#define SIO_IDX_ACCESS_var1 start, kVar1, nullptr, nullptr
#define SIO_IDX_ACCESS_vara start, count, nullptr, nullptr
#define SIO_IDX_ACCESS_vars start, count, stride, nullptr
#define SIO_IDX_ACCESS_varm start, count, stride, imap

// Typed single-variable forms of kind K: put/get, collective (_all) and
// independent; iput/iget (nonblocking) and bput (buffered).
#define SIO_TYPED(K, T, C)                                                                                             \
  SIO_PNC_API int ncmpi_put_##K##_##T##_all(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op) {                     \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_put_##K##_##T##_all)(ncid, varid, SIO_IDX_ARGS_##K op); },      \
        [&](int *req) { return REAL(ncmpi_iput_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op, req); },                   \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T});              \
        });                                                                                                            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_get_##K##_##T##_all(int ncid, int varid, SIO_IDX_PARAMS_##K C *ip) {                           \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_get_##K##_##T##_all)(ncid, varid, SIO_IDX_ARGS_##K ip); },      \
        [&](int *req) { return REAL(ncmpi_iget_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K ip, req); },                   \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid, {false, SIO_IDX_ACCESS_##K, ip, kType_##T});             \
        });                                                                                                            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_put_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op) {                           \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_put_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op);                                              \
    return accessOne(__func__, Mode::Independent, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T});             \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_get_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K C *ip) {                                 \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_get_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K ip);                                              \
    return accessOne(__func__, Mode::Independent, ncid, varid, {false, SIO_IDX_ACCESS_##K, ip, kType_##T});            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_iput_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op, int *req) {                \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iput_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op, req);                                        \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T}, req);        \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_iget_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K C *ip, int *req) {                      \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iget_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K ip, req);                                        \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid, {false, SIO_IDX_ACCESS_##K, ip, kType_##T}, req);       \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_bput_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op, int *req) {                \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_bput_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op, req);                                        \
    return accessOne(__func__, Mode::Buffered, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T}, req);           \
  }

// The same in the flexible API (buffer, bufcount, MPI datatype).
#define SIO_FLEX_BUF const void *op, MPI_Offset bufcount, MPI_Datatype buftype
#define SIO_FLEX(K)                                                                                                    \
  SIO_PNC_API int ncmpi_put_##K##_all(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF) {                          \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid,                                                                                         \
        [&] { return REAL(ncmpi_put_##K##_all)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype); },                \
        [&](int *req) { return REAL(ncmpi_iput_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype, req); },      \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid,                                                          \
                           {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype});                              \
        });                                                                                                            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_get_##K##_all(int ncid, int varid, SIO_IDX_PARAMS_##K void *ip, MPI_Offset bufcount,           \
                                      MPI_Datatype buftype) {                                                          \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid,                                                                                         \
        [&] { return REAL(ncmpi_get_##K##_all)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype); },                \
        [&](int *req) { return REAL(ncmpi_iget_##K)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype, req); },      \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid,                                                          \
                           {false, SIO_IDX_ACCESS_##K, ip, kFlexible, bufcount, buftype});                             \
        });                                                                                                            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_put_##K(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF) {                                \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_put_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype);                                 \
    return accessOne(__func__, Mode::Independent, ncid, varid,                                                         \
                     {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype});                                    \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_get_##K(int ncid, int varid, SIO_IDX_PARAMS_##K void *ip, MPI_Offset bufcount,                 \
                                MPI_Datatype buftype) {                                                                \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_get_##K)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype);                                 \
    return accessOne(__func__, Mode::Independent, ncid, varid,                                                         \
                     {false, SIO_IDX_ACCESS_##K, ip, kFlexible, bufcount, buftype});                                   \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_iput_##K(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF, int *req) {                     \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iput_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype, req);                           \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid,                                                         \
                     {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype}, req);                               \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_iget_##K(int ncid, int varid, SIO_IDX_PARAMS_##K void *ip, MPI_Offset bufcount,                \
                                 MPI_Datatype buftype, int *req) {                                                     \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iget_##K)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype, req);                           \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid,                                                         \
                     {false, SIO_IDX_ACCESS_##K, ip, kFlexible, bufcount, buftype}, req);                              \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_bput_##K(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF, int *req) {                     \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_bput_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype, req);                           \
    return accessOne(__func__, Mode::Buffered, ncid, varid,                                                            \
                     {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype}, req);                               \
  }

// The list forms (varn), typed and flexible.
#define SIO_VARN_PARAMS int ncid, int varid, int num, MPI_Offset *const *starts, MPI_Offset *const *counts
#define SIO_PNC_TYPE(T, C, M)                                                                                          \
  SIO_TYPED(var, T, C)                                                                                                 \
  SIO_TYPED(var1, T, C)                                                                                                \
  SIO_TYPED(vara, T, C)                                                                                                \
  SIO_TYPED(vars, T, C)                                                                                                \
  SIO_TYPED(varm, T, C)                                                                                                \
  SIO_PNC_API int ncmpi_put_varn_##T##_all(SIO_VARN_PARAMS, const C *buf) {                                            \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_put_varn_##T##_all)(ncid, varid, num, starts, counts, buf); },  \
        [&](int *req) { return REAL(ncmpi_iput_varn_##T)(ncid, varid, num, starts, counts, buf, req); },               \
        [&](const char *fn) {                                                                                          \
          return accessN(fn, Mode::Collective, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T});  \
        });                                                                                                            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_get_varn_##T##_all(SIO_VARN_PARAMS, C *buf) {                                                  \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_get_varn_##T##_all)(ncid, varid, num, starts, counts, buf); },  \
        [&](int *req) { return REAL(ncmpi_iget_varn_##T)(ncid, varid, num, starts, counts, buf, req); },               \
        [&](const char *fn) {                                                                                          \
          return accessN(fn, Mode::Collective, ncid, varid, num, starts, counts, {false, SIO_NO_IDX, buf, kType_##T}); \
        });                                                                                                            \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_put_varn_##T(SIO_VARN_PARAMS, const C *buf) {                                                  \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_put_varn_##T)(ncid, varid, num, starts, counts, buf);                                          \
    return accessN(__func__, Mode::Independent, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T}); \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_get_varn_##T(SIO_VARN_PARAMS, C *buf) {                                                        \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_get_varn_##T)(ncid, varid, num, starts, counts, buf);                                          \
    return accessN(__func__, Mode::Independent, ncid, varid, num, starts, counts,                                      \
                   {false, SIO_NO_IDX, buf, kType_##T});                                                               \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_iput_varn_##T(SIO_VARN_PARAMS, const C *buf, int *req) {                                       \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iput_varn_##T)(ncid, varid, num, starts, counts, buf, req);                                    \
    return accessN(__func__, Mode::Nonblocking, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T},  \
                   req);                                                                                               \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_iget_varn_##T(SIO_VARN_PARAMS, C *buf, int *req) {                                             \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iget_varn_##T)(ncid, varid, num, starts, counts, buf, req);                                    \
    return accessN(__func__, Mode::Nonblocking, ncid, varid, num, starts, counts, {false, SIO_NO_IDX, buf, kType_##T}, \
                   req);                                                                                               \
  }                                                                                                                    \
  SIO_PNC_API int ncmpi_bput_varn_##T(SIO_VARN_PARAMS, const C *buf, int *req) {                                       \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_bput_varn_##T)(ncid, varid, num, starts, counts, buf, req);                                    \
    return accessN(__func__, Mode::Buffered, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T},     \
                   req);                                                                                               \
  }
#define SIO_NO_IDX nullptr, nullptr, nullptr, nullptr
#include "Types.def"

SIO_FLEX(var)
SIO_FLEX(var1)
SIO_FLEX(vara)
SIO_FLEX(vars)
SIO_FLEX(varm)

#define SIO_FLEX_VARN(name, mode, write, bufparam, ...)                                                                \
  SIO_PNC_API int name(SIO_VARN_PARAMS, bufparam, MPI_Offset bufcount, MPI_Datatype buftype __VA_OPT__(, int *req)) {  \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(name)(ncid, varid, num, starts, counts, buf, bufcount, buftype __VA_OPT__(, req));                   \
    return accessN(__func__, mode, ncid, varid, num, starts, counts,                                                   \
                   {write, SIO_NO_IDX, buf, kFlexible, bufcount, buftype} __VA_OPT__(, req));                          \
  }
#define SIO_FLEX_VARN_ALL(name, iname, write, bufparam)                                                                \
  SIO_PNC_API int name(SIO_VARN_PARAMS, bufparam, MPI_Offset bufcount, MPI_Datatype buftype) {                         \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(name)(ncid, varid, num, starts, counts, buf, bufcount, buftype); },   \
        [&](int *req) { return REAL(iname)(ncid, varid, num, starts, counts, buf, bufcount, buftype, req); },          \
        [&](const char *fn) {                                                                                          \
          return accessN(fn, Mode::Collective, ncid, varid, num, starts, counts,                                       \
                         {write, SIO_NO_IDX, buf, kFlexible, bufcount, buftype});                                      \
        });                                                                                                            \
  }
SIO_FLEX_VARN_ALL(ncmpi_put_varn_all, ncmpi_iput_varn, true, const void *buf)
SIO_FLEX_VARN_ALL(ncmpi_get_varn_all, ncmpi_iget_varn, false, void *buf)
SIO_FLEX_VARN(ncmpi_put_varn, Mode::Independent, true, const void *buf)
SIO_FLEX_VARN(ncmpi_get_varn, Mode::Independent, false, void *buf)
SIO_FLEX_VARN(ncmpi_iput_varn, Mode::Nonblocking, true, const void *buf, req)
SIO_FLEX_VARN(ncmpi_iget_varn, Mode::Nonblocking, false, void *buf, req)
SIO_FLEX_VARN(ncmpi_bput_varn, Mode::Buffered, true, const void *buf, req)

// vard: the access is an MPI filetype over the variable's layout in one file,
// which has no counterpart in the partitions.
#define SIO_VARD(name, bufparam)                                                                                       \
  SIO_PNC_API int name(int ncid, int varid, MPI_Datatype filetype, bufparam, MPI_Offset bufcount,                      \
                       MPI_Datatype buftype) {                                                                         \
    Master *m = nullptr;                                                                                               \
    const PVar *v = partitionedVar(ncid, varid, &m);                                                                   \
    if (!v)                                                                                                            \
      return REAL(name)(ncid, varid, filetype, buf, bufcount, buftype);                                                \
    return refuse(__func__, *v, NC_ENOTSUPPORT, "an MPI filetype describes one file's layout, not the partitions'");   \
  }
SIO_VARD(ncmpi_put_vard, const void *buf)
SIO_VARD(ncmpi_get_vard, void *buf)

// The collective vard forms: refused on every rank when any names a
// partitioned variable (agreed, so no rank waits in PnetCDF's collective).
#define SIO_VARD_ALL(name, bufparam)                                                                                   \
  SIO_PNC_API int name(int ncid, int varid, MPI_Datatype filetype, bufparam, MPI_Offset bufcount,                      \
                       MPI_Datatype buftype) {                                                                         \
    Master *m = masterOf(ncid);                                                                                        \
    const PVar *v = partitionedVar(ncid, varid);                                                                       \
    int any = v != nullptr;                                                                                            \
    if (m && m->partitioned && !m->indep)                                                                              \
      MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, m->comm);                                                 \
    if (!any)                                                                                                          \
      return REAL(name)(ncid, varid, filetype, buf, bufcount, buftype);                                                \
    if (!v) {                                                                                                          \
      std::fprintf(stderr, "sio-pnetcdf: error: %s: another rank named a partitioned variable (%s)\n", __func__,       \
                   ncmpi_strerror(NC_ENOTSUPPORT));                                                                    \
      return NC_ENOTSUPPORT;                                                                                           \
    }                                                                                                                  \
    return refuse(__func__, *v, NC_ENOTSUPPORT, "an MPI filetype describes one file's layout, not the partitions'");   \
  }
SIO_VARD_ALL(ncmpi_put_vard_all, const void *buf)
SIO_VARD_ALL(ncmpi_get_vard_all, void *buf)

// The multi-variable forms (mput/mget of var, var1, vara, vars, varm; typed
// and flexible; collective and independent).
#define SIO_MPARAMS_var
#define SIO_MPARAMS_var1 MPI_Offset *const *starts,
#define SIO_MPARAMS_vara MPI_Offset *const *starts, MPI_Offset *const *counts,
#define SIO_MPARAMS_vars MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides,
#define SIO_MPARAMS_varm                                                                                               \
  MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides, MPI_Offset *const *imaps,
#define SIO_MARGS_var
#define SIO_MARGS_var1 starts,
#define SIO_MARGS_vara starts, counts,
#define SIO_MARGS_vars starts, counts, strides,
#define SIO_MARGS_varm starts, counts, strides, imaps,
#define SIO_MIDX_var nullptr, nullptr, nullptr, nullptr
#define SIO_MIDX_var1 starts, nullptr, nullptr, nullptr
#define SIO_MIDX_vara starts, counts, nullptr, nullptr
#define SIO_MIDX_vars starts, counts, strides, nullptr
#define SIO_MIDX_varm starts, counts, strides, imaps

#define SIO_MULTI_ONE(name, K, kind, write, coll, bufparams, bufargs, type, bufcounts, buftypes)                       \
  SIO_PNC_API int name(int ncid, int nvars, int *varids, SIO_MPARAMS_##K bufparams) {                                  \
    if (!partitionedMaster(ncid))                                                                                      \
      return REAL(name)(ncid, nvars, varids, SIO_MARGS_##K bufargs);                                                   \
    return multi(__func__, kind, write, coll, ncid, nvars, varids, SIO_MIDX_##K, bufs, bufcounts, buftypes, type);     \
  }
#define SIO_MULTI_TYPED(K, kind, T, C)                                                                                 \
  SIO_MULTI_ONE(ncmpi_mput_##K##_##T##_all, K, kind, true, true, C *const *bufs, bufs, kType_##T, nullptr, nullptr)    \
  SIO_MULTI_ONE(ncmpi_mput_##K##_##T, K, kind, true, false, C *const *bufs, bufs, kType_##T, nullptr, nullptr)         \
  SIO_MULTI_ONE(ncmpi_mget_##K##_##T##_all, K, kind, false, true, C **bufs, bufs, kType_##T, nullptr, nullptr)         \
  SIO_MULTI_ONE(ncmpi_mget_##K##_##T, K, kind, false, false, C **bufs, bufs, kType_##T, nullptr, nullptr)
#define SIO_MULTI_FLEX(K, kind)                                                                                        \
  SIO_MULTI_ONE(ncmpi_mput_##K##_all, K, kind, true, true,                                                             \
                void *const *bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,        \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)                           \
  SIO_MULTI_ONE(ncmpi_mput_##K, K, kind, true, false,                                                                  \
                void *const *bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,        \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)                           \
  SIO_MULTI_ONE(ncmpi_mget_##K##_all, K, kind, false, true,                                                            \
                void **bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,              \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)                           \
  SIO_MULTI_ONE(ncmpi_mget_##K, K, kind, false, false,                                                                 \
                void **bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,              \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)
#define SIO_COMMA ,

SIO_MULTI_FLEX(var, Multi::Var)
SIO_MULTI_FLEX(var1, Multi::Var1)
SIO_MULTI_FLEX(vara, Multi::Vara)
SIO_MULTI_FLEX(vars, Multi::Vars)
SIO_MULTI_FLEX(varm, Multi::Varm)
#define SIO_PNC_TYPE(T, C, M)                                                                                          \
  SIO_MULTI_TYPED(var, Multi::Var, T, C)                                                                               \
  SIO_MULTI_TYPED(var1, Multi::Var1, T, C)                                                                             \
  SIO_MULTI_TYPED(vara, Multi::Vara, T, C)                                                                             \
  SIO_MULTI_TYPED(vars, Multi::Vars, T, C)                                                                             \
  SIO_MULTI_TYPED(varm, Multi::Varm, T, C)
#include "Types.def"

} // extern "C"
