// The element type of an MPI datatype given to PnetCDF's flexible API as the
// buffer type. PnetCDF accepts any datatype built from one predefined element
// type (ncmpii_dtype_decode in PnetCDF 1.12.3: a subarray of a ghost-celled
// array, a vector, an indexed or struct type of doubles, ...), so the
// partitioning layer finds that element type the same way, then packs the
// buffer through the datatype into contiguous elements (docs/partitioning.md).
#pragma once

#include <mpi.h>

namespace sio::part {

enum class ElementStatus {
  Ok,
  MultipleTypes, ///< elements of more than one predefined type (PnetCDF: NC_EMULTITYPES)
  Unsupported,   ///< a predefined type PnetCDF has no conversion for, or an F90 type (NC_EUNSPTETYPE)
};

struct ElementType {
  ElementStatus status = ElementStatus::Ok;
  /// The predefined element type as `canonical` names it.
  MPI_Datatype element = MPI_DATATYPE_NULL;
  bool derived = false; ///< not itself a predefined (named) datatype
};

/// Walks the datatype's constructors (MPI_Type_get_envelope/contents) down
/// to its predefined types. `canonical` maps a predefined type to the one the
/// caller works with (MPI_INTEGER to MPI_INT, say) or MPI_DATATYPE_NULL when
/// it is not supported. Components of size 0 are skipped, as PnetCDF does.
ElementType elementTypeOf(MPI_Datatype type, MPI_Datatype (*canonical)(MPI_Datatype));

} // namespace sio::part
