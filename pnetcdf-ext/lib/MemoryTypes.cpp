// The memory types of PnetCDF's API calls (kTypes, typeIndexOf) and the
// sizes of the external types in the file.
#include "Interpose.h"

#include <dlfcn.h>

#include <utility>

namespace sio::part::interpose {

const MPI_Datatype kTypes[] = {
#define SIO_PNC_TYPE(suffix, ctype, mpitype) mpitype,
#include "Types.def"
    MPI_BYTE, MPI_UNSIGNED_LONG};
const int kTypeSize[] = {
#define SIO_PNC_TYPE(suffix, ctype, mpitype) int(sizeof(ctype)),
#include "Types.def"
    1, int(sizeof(unsigned long))};

namespace {

/// Whether the PnetCDF library was built with its Fortran interface: only
/// then does its dtype_filter accept MPI's Fortran types (MPI_INTEGER, ...).
bool pnetcdfHasFortran() {
  static const bool has = dlsym(RTLD_DEFAULT, "nfmpi_create_") || dlsym(RTLD_DEFAULT, "nfmpi_create") ||
                          dlsym(RTLD_DEFAULT, "nfmpi_create__");
  return has;
}

} // namespace

int typeIndexOf(MPI_Datatype t) {
  for (int i = 0; i < kNumTypes; ++i)
    if (kTypes[i] == t)
      return i;
  if (t == MPI_LONG_LONG_INT)
    return kType_longlong;
  if (t == MPI_DATATYPE_NULL || !pnetcdfHasFortran())
    return -1;
  const std::pair<MPI_Datatype, int> fortran[] = {{MPI_CHARACTER, kType_text}, {MPI_INTEGER1, kType_schar},
                                                  {MPI_INTEGER2, kType_short}, {MPI_INTEGER, kType_int},
                                                  {MPI_INTEGER4, kType_int},   {MPI_INTEGER8, kType_long},
                                                  {MPI_REAL, kType_float},     {MPI_REAL4, kType_float},
                                                  {MPI_REAL8, kType_double},   {MPI_DOUBLE_PRECISION, kType_double}};
  for (auto [f, i] : fortran)
    if (f == t)
      return i;
  return -1;
}

MPI_Datatype canonicalType(MPI_Datatype t) {
  int i = typeIndexOf(t);
  return i < 0 ? MPI_DATATYPE_NULL : kTypes[i];
}

int64_t externalSize(nc_type t) {
  switch (t) {
  case NC_BYTE:
  case NC_CHAR:
  case NC_UBYTE:
    return 1;
  case NC_SHORT:
  case NC_USHORT:
    return 2;
  case NC_INT:
  case NC_UINT:
  case NC_FLOAT:
    return 4;
  default:
    return 8;
  }
}

} // namespace sio::part::interpose
