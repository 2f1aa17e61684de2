// Datatype flattening (View.cpp) against MPI itself: a type's byte pieces
// must be those MPI_Pack walks, for generated types of every constructor
// the library flattens; and the work must follow the number of pieces, not
// of elements (issue 31: PnetCDF's set_view filetype, a struct around a
// subarray of 131,072 doubles, took 2 ms of envelope calls per set_view).
//
// The binary is linked with -Wl,--wrap=PMPI_Type_get_envelope so that the
// envelope calls View.cpp makes can be counted.
#include "../lib/View.h"

#include <mpi.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

extern "C" int __real_PMPI_Type_get_envelope(MPI_Datatype, int *, int *, int *, int *);
static long envelopeCalls = 0;
extern "C" int __wrap_PMPI_Type_get_envelope(MPI_Datatype t, int *ni, int *na, int *nd, int *combiner) {
  ++envelopeCalls;
  return __real_PMPI_Type_get_envelope(t, ni, na, nd, combiner);
}

using namespace sio::prefetch;

namespace {

/// The byte pieces of one instance of `type`, in typemap order, merged when
/// adjacent: packed by MPI from four buffers whose bytes are the four bytes
/// of their own offsets.
std::vector<Piece> referencePieces(MPI_Datatype type) {
  MPI_Aint tlb = 0, text = 0;
  MPI_Type_get_true_extent(type, &tlb, &text);
  int size = 0;
  MPI_Type_size(type, &size);
  std::vector<Piece> out;
  if (size == 0)
    return out;
  std::vector<unsigned char> src(size_t(text) + 1);
  std::vector<unsigned char> packed(static_cast<size_t>(size));
  std::vector<int64_t> offsets(size_t(size), 0);
  for (int k = 0; k < 4; ++k) {
    for (size_t i = 0; i < src.size(); ++i)
      src[i] = (unsigned char)((i >> (8 * k)) & 0xff);
    int position = 0;
    MPI_Pack(src.data() - tlb, 1, type, packed.data(), size, &position, MPI_COMM_SELF);
    EXPECT_EQ(position, size);
    for (int j = 0; j < size; ++j)
      offsets[size_t(j)] |= int64_t(packed[size_t(j)]) << (8 * k);
  }
  for (int64_t off : offsets) {
    off += tlb;
    if (!out.empty() && out.back().offset + out.back().length == off)
      ++out.back().length;
    else
      out.push_back({off, 1});
  }
  return out;
}

std::string show(const std::vector<Piece> &v) {
  std::string s;
  for (const Piece &p : v)
    s += "(" + std::to_string(p.offset) + "," + std::to_string(p.length) + ")";
  return s;
}

/// Random committed-able datatypes of every constructor flattenView knows,
/// nested up to `depth`, with non-negative strides and displacements.
struct TypeGen {
  std::mt19937_64 rng;
  std::vector<MPI_Datatype> made; ///< freed at the end
  explicit TypeGen(uint64_t seed) : rng(seed) {}
  ~TypeGen() {
    for (MPI_Datatype &t : made)
      MPI_Type_free(&t);
  }
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }
  MPI_Datatype keep(MPI_Datatype t) {
    made.push_back(t);
    return t;
  }
  MPI_Datatype named() {
    const MPI_Datatype n[] = {MPI_BYTE, MPI_SHORT, MPI_INT, MPI_DOUBLE};
    return n[pick(0, 3)];
  }
  static int64_t extent(MPI_Datatype t) {
    MPI_Aint lb = 0, ext = 0;
    MPI_Type_get_extent(t, &lb, &ext);
    return int64_t(ext);
  }
  MPI_Datatype make(int depth) {
    if (depth == 0)
      return named();
    MPI_Datatype old = make(depth - 1), t = MPI_DATATYPE_NULL;
    const int64_t ext = std::max<int64_t>(extent(old), 1);
    switch (pick(0, 11)) {
    case 0:
      MPI_Type_contiguous(pick(0, 5), old, &t);
      break;
    case 1:
      MPI_Type_vector(pick(1, 4), pick(1, 3), pick(0, 6), old, &t);
      break;
    case 2:
      MPI_Type_create_hvector(pick(1, 4), pick(1, 3), MPI_Aint(pick(0, 4) * ext + pick(0, 3)), old, &t);
      break;
    case 3: {
      const int n = pick(1, 4);
      std::vector<int> lens(n), displs(n);
      for (int i = 0, at = 0; i < n; ++i) {
        lens[i] = pick(0, 3);
        at += pick(0, 4);
        displs[i] = at;
        at += lens[i];
      }
      MPI_Type_indexed(n, lens.data(), displs.data(), old, &t);
      break;
    }
    case 4: {
      const int n = pick(1, 4);
      std::vector<int> lens(n);
      std::vector<MPI_Aint> displs(n);
      for (int i = 0; i < n; ++i) {
        lens[i] = pick(0, 3);
        displs[i] = MPI_Aint(pick(0, 12) * ext / 2 + pick(0, 2));
      }
      MPI_Type_create_hindexed(n, lens.data(), displs.data(), old, &t);
      break;
    }
    case 5: {
      const int n = pick(1, 4);
      std::vector<int> displs(n);
      for (int i = 0; i < n; ++i)
        displs[i] = pick(0, 10);
      MPI_Type_create_indexed_block(n, pick(1, 3), displs.data(), old, &t);
      break;
    }
    case 6: {
      const int n = pick(1, 4);
      std::vector<MPI_Aint> displs(n);
      for (int i = 0; i < n; ++i)
        displs[i] = MPI_Aint(pick(0, 10) * ext + pick(0, 1));
      MPI_Type_create_hindexed_block(n, pick(1, 3), displs.data(), old, &t);
      break;
    }
    case 7: {
      const int n = pick(1, 3);
      std::vector<int> lens(n);
      std::vector<MPI_Aint> displs(n);
      std::vector<MPI_Datatype> types(n);
      for (int i = 0, at = 0; i < n; ++i) {
        types[i] = i == 0 ? old : make(depth - 1);
        lens[i] = pick(0, 3);
        at += pick(0, 9);
        displs[i] = at;
        at += int(lens[i] * std::max<int64_t>(extent(types[i]), 0));
      }
      MPI_Type_create_struct(n, lens.data(), displs.data(), types.data(), &t);
      break;
    }
    case 8:
    case 9: {
      const int n = pick(1, 3);
      std::vector<int> sizes(n), subs(n), starts(n);
      for (int d = 0; d < n; ++d) {
        sizes[d] = pick(1, 6);
        subs[d] = pick(1, sizes[d]);
        starts[d] = pick(0, sizes[d] - subs[d]);
      }
      MPI_Type_create_subarray(n, sizes.data(), subs.data(), starts.data(),
                               pick(0, 1) ? MPI_ORDER_C : MPI_ORDER_FORTRAN, old, &t);
      break;
    }
    case 10:
      MPI_Type_create_resized(old, MPI_Aint(pick(0, 2)), MPI_Aint(ext + pick(0, 8)), &t);
      break;
    default:
      MPI_Type_dup(old, &t);
    }
    return keep(t);
  }
};

bool monotonic(const std::vector<Piece> &v) {
  int64_t last = INT64_MIN;
  for (const Piece &p : v) {
    if (p.offset < last)
      return false;
    last = p.offset + p.length;
  }
  return true;
}

TEST(Flatten, GeneratedTypesMatchMpiPack) {
  int views = 0;
  for (uint64_t seed = 1; seed <= 1500; ++seed) {
    TypeGen gen(seed);
    MPI_Datatype t = gen.make(int(seed % 4) + 1);
    MPI_Type_commit(&t);
    const std::vector<Piece> want = referencePieces(t);
    auto m = flattenMemory(t);
    ASSERT_TRUE(m) << "seed " << seed;
    EXPECT_EQ(show(m->segments), show(want)) << "seed " << seed;
    int size = 0;
    MPI_Type_size(t, &size);
    EXPECT_EQ(m->size, size) << "seed " << seed;
    EXPECT_EQ(m->extent, TypeGen::extent(t)) << "seed " << seed;
    auto v = flattenView(100, MPI_BYTE, t);
    if (!want.empty() && monotonic(want) && TypeGen::extent(t) > 0) {
      ++views;
      ASSERT_TRUE(v) << "seed " << seed;
      EXPECT_EQ(show(v->segments), show(want)) << "seed " << seed;
      EXPECT_EQ(v->size, size);
      EXPECT_EQ(v->disp, 100);
      int64_t before = 0;
      for (size_t i = 0; i < v->segments.size(); ++i) {
        EXPECT_EQ(v->prefix[i], before);
        before += v->segments[i].length;
      }
    } else {
      EXPECT_FALSE(v) << "seed " << seed << " " << show(want);
    }
  }
  EXPECT_GT(views, 100); // the generator makes views, not only memory types
}

/// PnetCDF's set_view filetype for a {1, 16, 16, 512} get of a record
/// variable of doubles (seen through MPI_Type_get_contents in
/// bench/prefetch-pnetcdf.c): a struct of the 512-byte header and an
/// hvector (the record stride) of a subarray.
MPI_Datatype pnetcdfFiletype(bool header) {
  int sizes[3] = {16, 32, 512}, subs[3] = {16, 16, 512}, starts[3] = {0, 16, 0};
  MPI_Datatype sub, rec, ft;
  MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
  MPI_Type_create_hvector(1, 1, 4194304, sub, &rec);
  if (header) {
    int lens[2] = {512, 1};
    MPI_Aint displs[2] = {0, 512};
    MPI_Datatype types[2] = {MPI_BYTE, rec};
    MPI_Type_create_struct(2, lens, displs, types, &ft);
  } else {
    MPI_Type_dup(rec, &ft);
  }
  MPI_Type_commit(&ft);
  MPI_Type_free(&sub);
  MPI_Type_free(&rec);
  return ft;
}

TEST(Flatten, WorkFollowsPiecesNotElements) {
  MPI_Datatype ft = pnetcdfFiletype(true);
  envelopeCalls = 0;
  auto v = flattenView(0, MPI_BYTE, ft);
  const long calls = envelopeCalls;
  ASSERT_TRUE(v);
  EXPECT_EQ(v->segments.size(), 1u + 16); // the header, 16 planes of 16 rows of 4 KiB
  EXPECT_EQ(v->size, 512 + 16 * 16 * 512 * 8);
  EXPECT_EQ(show(v->segments), show(referencePieces(ft)));
  // Before: one call per double (131,072 and more).
  EXPECT_LT(calls, 20);
  MPI_Type_free(&ft);

  MPI_Datatype big;
  MPI_Type_contiguous(1 << 24, MPI_DOUBLE, &big);
  MPI_Type_commit(&big);
  envelopeCalls = 0;
  auto m = flattenMemory(big);
  ASSERT_TRUE(m);
  EXPECT_EQ(show(m->segments), "(0,134217728)");
  EXPECT_LT(envelopeCalls, 5);
  MPI_Type_free(&big);
}

TEST(Flatten, FreedAndReusedHandleGetsTheNewLayout) {
  // PnetCDF creates and frees a filetype per call: a handle freed and made
  // again (MPI reuses it) must be flattened as the type it now is.
  for (int i = 0; i < 20; ++i) {
    MPI_Datatype t;
    MPI_Type_vector(2 + i % 3, 1 + i % 2, 5 + i, MPI_INT, &t);
    MPI_Type_commit(&t);
    auto v = flattenView(0, MPI_BYTE, t);
    ASSERT_TRUE(v);
    EXPECT_EQ(show(v->segments), show(referencePieces(t))) << i;
    MPI_Type_free(&t);
  }
}

TEST(Flatten, NegativeStrideAndTooManyPiecesAreNotServed) {
  MPI_Datatype t;
  MPI_Type_vector(3, 1, -2, MPI_INT, &t);
  MPI_Type_commit(&t);
  EXPECT_FALSE(flattenView(0, MPI_BYTE, t));
  EXPECT_FALSE(flattenMemory(t));
  MPI_Type_free(&t);
  MPI_Type_vector((1 << 20) + 1, 1, 2, MPI_BYTE, &t); // more pieces than the limit
  MPI_Type_commit(&t);
  EXPECT_FALSE(flattenView(0, MPI_BYTE, t));
  MPI_Type_free(&t);
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  MPI_Finalize();
  return rc;
}
