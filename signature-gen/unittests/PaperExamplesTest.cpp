// The examples of Byna et al. SC08 (§IV Table 1, §VI), each as the access program
// its benchmark runs, checked against the paper's signatures.
#include "TestTraces.h"

#include <gtest/gtest.h>

namespace sio::signature {
namespace {

using namespace testing;

/// Out-of-core LU (Table 1): per step i0 one read ahead, i0+1 reads of a
/// shrinking column and one read at the start of the file.
Trace luTrace(int64_t steps = 125) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t),
            loop(t, Expr(steps),
                 {readAt(t, ex("1049088 + 524544*i0"), Expr(524544)),
                  loop(t, ex("i0 + 1"), {readAt(t, ex("524544 + 524544*i1"), ex("518272 - 4096*i1"))}),
                  readAt(t, Expr(0), Expr(522368))})};
  return t;
}

TEST(SignaturePaperExamples, LuTable1AccessesAreReconstructed) {
  const std::vector<std::pair<int64_t, int64_t>> table1 = {
      {1049088, 524544}, {524544, 518272},  {0, 522368},       {1573632, 524544}, {524544, 518272},
      {1049088, 514176}, {0, 522368},       {2098176, 524544}, {524544, 518272},  {1049088, 514176},
      {1573632, 510080}, {0, 522368},       {2622720, 524544}, {524544, 518272},  {1049088, 514176},
      {1573632, 510080}, {2098176, 505984}, {0, 522368},       {3147264, 524544}, {524544, 518272},
      {1049088, 514176}, {1573632, 510080}, {2098176, 505984}, {2622720, 501888}, {0, 522368}};
  auto streams = extractStreams(luTrace(5), 0, {});
  ASSERT_EQ(streams.size(), 1u);
  std::vector<std::pair<int64_t, int64_t>> seen;
  for (const signature::Run &r : streams[0].runs)
    for (int64_t k = 0; k < r.count; ++k)
      seen.emplace_back(r.offset + k * r.stride, r.sizeFirst + k * r.sizeStep);
  EXPECT_EQ(seen, table1);
}

TEST(SignaturePaperExamples, LuTable1Is3dStridedRepetitive) {
  const StreamSignature s = only(luTrace());
  EXPECT_EQ(traceSignatureText(s.trace),
            "{READ, 1049088, 3, ([{1049088, (524544)}, 0, 524544, 1], "
            "[524544, 524544, {518272, (-4096)}, {1, (1)}], [0, 0, 522368, 1]), 125}");
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, 3d strided>, <repetitive>, <variable size, large>, <random>}");
  EXPECT_EQ(s.trace.initialPosition, 1049088);
  EXPECT_EQ(s.trace.dimension(), 3);
  EXPECT_EQ(s.trace.components[1].size.progression, (Progression{518272, -4096}));
  EXPECT_EQ(s.trace.components[1].count, (Progression{1, 1}));
  EXPECT_EQ(s.trace.repetitions, 125);
  EXPECT_EQ(s.accesses, 125u * 2 + 125u * 126 / 2);
}

TEST(SignaturePaperExamples, PioBenchSimpleStrided) {
  Trace t = baseTrace(4);
  t.body = {mpiOpen(t), loop(t, Expr(100), {readAt(t, ex("4096*rank + 8192*i0"), Expr(4096))})};
  const SignatureReport r = analyze(t, {});
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(r.groups[0].ranks, RankList::all(4));
  EXPECT_EQ(groupTexts(r), (std::vector<std::string>{
                               "{READ, 4096*rank, 1, ([8192, 4096, 100]), 1}",
                               "{Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}"}));
  EXPECT_EQ(traceSignatureText(only(t, 0).trace), "{READ, 0, 1, ([8192, 4096, 100]), 1}");
}

TEST(SignaturePaperExamples, PioBenchNestedStrided) {
  Trace t = baseTrace(2);
  t.body = {mpiOpen(t), loop(t, Expr(100),
                             {readAt(t, ex("2048*rank + 16384*i0"), Expr(4096)),
                              readAt(t, ex("2048*rank + 16384*i0 + 4096"), Expr(2048))})};
  const SignatureReport r = analyze(t, {});
  EXPECT_EQ(groupTexts(r), (std::vector<std::string>{
                               "{READ, 2048*rank, 2, ([4096, 4096, 1], [12288, 2048, 1], 100), 1}",
                               "{Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}"}));
}

TEST(SignaturePaperExamples, PioBenchSegmented) {
  Trace t = baseTrace(4);
  t.body = {mpiOpen(t), loop(t, Expr(100), {readAt(t, ex("409600*rank + 4096*i0"), Expr(4096))})};
  EXPECT_EQ(groupTexts(analyze(t, {})),
            (std::vector<std::string>{"{READ, 409600*rank, 1, ([4096, 4096, 100]), 1}",
                                      "{Read, <contiguous>, <single occurrence>, <fixed size, small>, <random>}"}));
}

TEST(SignaturePaperExamples, IorContiguous32KiB) {
  // 16 ranks, 128 MiB each, 32 KiB transfers: 4096 writes then 4096 reads.
  Trace t = baseTrace(16);
  t.body = {mpiOpen(t),
            loop(t, Expr(4096), {writeAt(t, ex("134217728*rank + 32768*i0"), Expr(32768))}),
            event(t, "MPI_Barrier", Layer::SYNC, {{"comm", Expr(0)}}),
            loop(t, Expr(4096), {readAt(t, ex("134217728*rank + 32768*i0"), Expr(32768))})};
  EXPECT_EQ(groupTexts(analyze(t, {})),
            (std::vector<std::string>{"{WRITE, 134217728*rank, 1, ([32768, 32768, 4096]), 1}",
                                      "{Write, <contiguous>, <single occurrence>, <fixed size, medium>, <random>}",
                                      "{READ, 134217728*rank, 1, ([32768, 32768, 4096]), 1}",
                                      "{Read, <contiguous>, <single occurrence>, <fixed size, medium>, <random>}"}));
  Options reads;
  reads.ops = OpFilter::Read;
  EXPECT_EQ(analyze(t, reads).groups.size(), 1u);
}

TEST(SignaturePaperExamples, MpiTileIoSingleAccess) {
  // Tiles of 100 x 100 elements of 1024 bytes: one read per process, at
  // rank * sz_tile_x * sz_element.
  Trace t = baseTrace(4);
  t.body = {mpiOpen(t), readAt(t, ex("102400*rank"), Expr(1024000))};
  EXPECT_EQ(groupTexts(analyze(t, {})),
            (std::vector<std::string>{
                "{READ, 102400*rank, 1, ([0, 1024000, 0]), 1}",
                "{Read, <no spatial pattern>, <single occurrence>, <fixed size, large>, <no temporal pattern>}"}));
}

TEST(SignaturePaperExamples, BtioFixedStride) {
  Trace t = baseTrace(16);
  t.body = {mpiOpen(t),
            loop(t, Expr(40), {writeAt(t, ex("331776*rank + 42450944*i0"), Expr(5308416))}),
            loop(t, Expr(40), {readAt(t, ex("331776*rank + 42450944*i0"), Expr(5308416))})};
  EXPECT_EQ(groupTexts(analyze(t, {})),
            (std::vector<std::string>{
                "{WRITE, 331776*rank, 1, ([42450944, 5308416, 40]), 1}",
                "{Write, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, large>, <random>}",
                "{READ, 331776*rank, 1, ([42450944, 5308416, 40]), 1}",
                "{Read, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, large>, <random>}"}));
}

TEST(SignaturePaperExamples, FlashIoPerRankPositionsAndSizes) {
  // FLASH-IO's first pattern: 25 writes 1323008 apart; initial positions and
  // request sizes differ by rank (§VI.D).
  Trace t = baseTrace(4);
  t.body = {mpiOpen(t), loop(t, Expr(25), {writeAt(t, ex("[54680, 382360, 714136, 1050008][rank] + 1323008*i0"),
                                                    ex("[327680, 331776, 335872, 327680][rank]"))})};
  const SignatureReport r = analyze(t, {});
  ASSERT_EQ(r.groups.size(), 3u); // ranks {0,3}, {1}, {2}
  EXPECT_EQ(r.groups[0].ranks, RankList::fromRanks({0, 3}));
  EXPECT_EQ(traceSignatureText(only(t, 1).trace), "{WRITE, 382360, 1, ([1323008, 331776, 25]), 1}");
  for (const SignatureGroup &g : r.groups)
    EXPECT_EQ(patternSignatureText(g.signature.pattern),
              "{Write, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, large>, <random>}");
}

} // namespace
} // namespace sio::signature
