// The element type of a derived MPI datatype (see sio/part/BufferType.h).
#include "sio/part/BufferType.h"

#include <vector>

namespace sio::part {

namespace {

void walk(MPI_Datatype type, MPI_Datatype (*canonical)(MPI_Datatype), ElementType &out) {
  if (out.status != ElementStatus::Ok)
    return;
  int nints = 0, naddrs = 0, ntypes = 0, combiner = 0;
  MPI_Type_get_envelope(type, &nints, &naddrs, &ntypes, &combiner);
  if (combiner == MPI_COMBINER_NAMED) {
    MPI_Datatype c = canonical(type);
    if (c == MPI_DATATYPE_NULL)
      out.status = ElementStatus::Unsupported;
    else if (out.element != MPI_DATATYPE_NULL && out.element != c)
      out.status = ElementStatus::MultipleTypes;
    else
      out.element = c;
    return;
  }
  out.derived = true;
  if (combiner == MPI_COMBINER_F90_INTEGER || combiner == MPI_COMBINER_F90_REAL ||
      combiner == MPI_COMBINER_F90_COMPLEX) {
    out.status = ElementStatus::Unsupported; // as PnetCDF 1.12.3
    return;
  }
  std::vector<int> ints(size_t(nints > 0 ? nints : 1));
  std::vector<MPI_Aint> addrs(size_t(naddrs > 0 ? naddrs : 1));
  std::vector<MPI_Datatype> types(size_t(ntypes > 0 ? ntypes : 1));
  MPI_Type_get_contents(type, nints, naddrs, ntypes, ints.data(), addrs.data(), types.data());
  for (int i = 0; i < ntypes; ++i) {
    int size = 0;
    MPI_Type_size(types[size_t(i)], &size);
    if (size > 0) // PnetCDF skips components without data (markers, empty blocks)
      walk(types[size_t(i)], canonical, out);
    int ni = 0, na = 0, nt = 0, comb = 0;
    MPI_Type_get_envelope(types[size_t(i)], &ni, &na, &nt, &comb);
    if (comb != MPI_COMBINER_NAMED)
      MPI_Type_free(&types[size_t(i)]); // get_contents returned a new handle
  }
}

} // namespace

ElementType elementTypeOf(MPI_Datatype type, MPI_Datatype (*canonical)(MPI_Datatype)) {
  ElementType out;
  walk(type, canonical, out);
  if (out.status == ElementStatus::Ok && out.element == MPI_DATATYPE_NULL)
    out.status = ElementStatus::Unsupported; // no data at all
  return out;
}

} // namespace sio::part
