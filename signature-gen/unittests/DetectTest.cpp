// The detectors beyond the paper's examples: random offsets, Markov chains,
// negative and k-d strides, repetition, file pointers and views, timing,
// and the compressed-form fast path.
#include "TestTraces.h"

#include <gtest/gtest.h>

#include <random>
#include <sstream>

namespace sio::signature {
namespace {

using namespace testing;

std::string tableOf(const std::vector<int64_t> &v) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < v.size(); ++i)
    out << (i ? ", " : "") << v[i];
  out << "][i0]";
  return out.str();
}

Trace tableReads(const std::vector<int64_t> &offsets, int64_t size = 4096) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(int64_t(offsets.size())), {readAt(t, ex(tableOf(offsets)), Expr(size))})};
  return t;
}

TEST(SignatureDetect, RandomOffsetsAreRandom) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> block(0, 1 << 20);
  std::vector<int64_t> offsets;
  for (int i = 0; i < 1000; ++i)
    offsets.push_back(block(rng) * 4096);
  const StreamSignature s = only(tableReads(offsets));
  EXPECT_EQ(s.pattern.spatial, Spatial::Random);
  EXPECT_EQ(s.trace.components.at(0).strideKind, StrideKind::Random);
  EXPECT_FALSE(s.stableAfter);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, " + std::to_string(offsets[0]) + ", 1, ([random, 4096, 1000]), 1}");
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, random>, <single occurrence>, <fixed size, small>, <random>}");
}

TEST(SignatureDetect, RandomOverFewBlocksIsRandom) {
  // Strides recur (only 31 values) but no successor is predictable.
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int64_t> block(0, 15);
  std::vector<int64_t> offsets;
  for (int i = 0; i < 2000; ++i)
    offsets.push_back(block(rng) * 4096);
  const StreamSignature s = only(tableReads(offsets));
  EXPECT_EQ(s.pattern.spatial, Spatial::Random);
}

TEST(SignatureDetect, ShortIrregularSequenceIsRandom) {
  EXPECT_EQ(only(tableReads({0, 7000, 3000, 90000, 12})).pattern.spatial, Spatial::Random);
}

TEST(SignatureDetect, LongStrideCycleIsAMarkovChain) {
  // Twelve different strides over and over: beyond the k-d detectors, fully
  // predictable from the previous stride.
  const int64_t strides[] = {100, 300, 200, 700, 50, 900, 10, 4000, 20, 80, 60, 30};
  std::vector<int64_t> offsets{0};
  for (int i = 1; i < 600; ++i)
    offsets.push_back(offsets.back() + strides[(i - 1) % 12]);
  const StreamSignature s = only(tableReads(offsets, 16));
  EXPECT_EQ(s.pattern.spatial, Spatial::VariableStrided);
  ASSERT_TRUE(s.trace.components[0].markov);
  EXPECT_EQ(s.trace.components[0].markov->distinctStrides, 12u);
  EXPECT_DOUBLE_EQ(s.trace.components[0].markov->predictability, 1.0);
  EXPECT_NEAR(s.trace.components[0].markov->entropyBits, 0.0, 1e-9);
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, variable strided>, <single occurrence>, <fixed size, small>, <random>}");
  // The six busiest strides are shown (ties broken by value), the rest counted.
  EXPECT_EQ(traceSignatureText(s.trace),
            "{READ, 0, 1, ([markov{10: 4000 1.00; 20: 80 1.00; 50: 900 1.00; 80: 60 1.00; 100: 300 1.00; "
            "200: 700 1.00; +6 more}, 16, 600]), 1}");
}

TEST(SignatureDetect, MostlyPredictableStridesAreAMarkovChain) {
  // Strides alternate 4096, 12288 but every 40th is a jump elsewhere: no
  // exact cycle, still a chain a prefetcher can follow.
  std::vector<int64_t> offsets{0};
  for (int i = 1; i < 800; ++i)
    offsets.push_back(offsets.back() + (i % 40 == 0 ? 1 << 20 : i % 2 ? 4096 : 12288));
  const StreamSignature s = only(tableReads(offsets));
  EXPECT_EQ(s.pattern.spatial, Spatial::VariableStrided);
  EXPECT_GE(s.trace.components[0].markov->predictability, 0.9);
}

TEST(SignatureDetect, FiveStrideCycleIsInterleavedFixedStrides) {
  const int64_t strides[] = {100, 300, 200, 700, 50};
  std::vector<int64_t> offsets{0};
  for (int i = 1; i < 500; ++i)
    offsets.push_back(offsets.back() + strides[(i - 1) % 5]);
  const StreamSignature s = only(tableReads(offsets, 16));
  EXPECT_EQ(traceSignatureText(s.trace),
            "{READ, 0, 5, ([100, 16, 1], [300, 16, 1], [200, 16, 1], [700, 16, 1], [50, 16, 1], 100), 1}");
  EXPECT_EQ(s.pattern.spatial, Spatial::FixedStrided);
}

TEST(SignatureDetect, NegativeStride) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(50), {readAt(t, ex("1048576 - 8192*i0"), Expr(4096))})};
  const StreamSignature s = only(t);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 1048576, 1, ([-8192, 4096, 50]), 1}");
  EXPECT_EQ(s.stableAfter, 4u); // init, learning, learning, stable
  EXPECT_EQ(s.pattern.spatial, Spatial::NegativeStrided);
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, negative strided>, <single occurrence>, <fixed size, small>, <random>}");
}

TEST(SignatureDetect, TwoDimensionalStrides) {
  // Rows of a sub-matrix: 4 elements 10 bytes apart, rows 1000 bytes apart.
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(100), {loop(t, Expr(4), {readAt(t, ex("1000*i0 + 10*i1"), Expr(8))})})};
  const StreamSignature s = only(t);
  // Read off the loop nest: strides and counts outermost first.
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 0, 2, ([(1000, 10), 8, (100, 4)]), 1}");
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, 2d strided>, <single occurrence>, <fixed size, small>, <random>}");
}

TEST(SignatureDetect, ThreeDimensionalStrides) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t),
            loop(t, Expr(10), {loop(t, Expr(3), {loop(t, Expr(2), {readAt(t, ex("100000*i0 + 1000*i1 + 16*i2"), Expr(8))})})})};
  const StreamSignature s = only(t);
  // Three levels read off the nest (as a cycle of segments it has six
  // components, three strides).
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 0, 3, ([(100000, 1000, 16), 8, (10, 3, 2)]), 1}");
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, 3d strided>, <single occurrence>, <fixed size, small>, <random>}");
}

TEST(SignatureDetect, RepeatedSweepIsRepetitive) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(10), {loop(t, Expr(100), {readAt(t, ex("8192*i1"), Expr(4096))})})};
  const StreamSignature s = only(t);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 0, 1, ([8192, 4096, 100]), 10}");
  EXPECT_TRUE(s.pattern.repetitive);
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read, <non-contiguous, fixed strided>, <repetitive>, <fixed size, small>, <random>}");
}

TEST(SignatureDetect, FilePointerReadsAreContiguous) {
  Trace t = baseTrace();
  t.body = {event(t, "open", Layer::POSIX, {{"file", Expr(0)}, {"flags", Expr(0)}, {"fd", Expr(3)}}),
            event(t, "lseek", Layer::POSIX, {{"fd", Expr(3)}, {"offset", Expr(65536)}, {"whence", Expr(0)}}),
            loop(t, Expr(1000), {event(t, "read", Layer::POSIX, {{"fd", Expr(3)}, {"count", Expr(512)}})}),
            event(t, "close", Layer::POSIX, {{"fd", Expr(3)}})};
  const StreamSignature s = only(t);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 65536, 1, ([512, 512, 1000]), 1}");
  EXPECT_EQ(s.pattern.spatial, Spatial::Contiguous);
}

TEST(SignatureDetect, SeekCurSkipsMakeAStride) {
  Trace t = baseTrace();
  t.body = {event(t, "fopen", Layer::STDIO, {{"file", Expr(0)}, {"mode", std::string("r")}, {"stream", Expr(1)}}),
            loop(t, Expr(20),
                 {event(t, "fread", Layer::STDIO, {{"size", Expr(1)}, {"nmemb", Expr(100)}, {"stream", Expr(1)}}),
                  event(t, "fseek", Layer::STDIO, {{"stream", Expr(1)}, {"offset", Expr(900)}, {"whence", Expr(1)}})})};
  EXPECT_EQ(traceSignatureText(only(t).trace), "{READ, 0, 1, ([1000, 100, 20]), 1}");
}

TEST(SignatureDetect, SeekFromEndLosesThePosition) {
  Trace t = baseTrace();
  t.body = {event(t, "open", Layer::POSIX, {{"file", Expr(0)}, {"flags", Expr(0)}, {"fd", Expr(3)}}),
            event(t, "lseek", Layer::POSIX, {{"fd", Expr(3)}, {"offset", Expr(0)}, {"whence", Expr(2)}}),
            event(t, "read", Layer::POSIX, {{"fd", Expr(3)}, {"count", Expr(10)}}),
            event(t, "pread", Layer::POSIX, {{"fd", Expr(3)}, {"count", Expr(10)}, {"offset", Expr(40)}})};
  const StreamSignature s = only(t);
  EXPECT_EQ(s.unknownPositions, 1u);
  EXPECT_EQ(s.accesses, 1u);
  EXPECT_EQ(s.trace.initialPosition, 40);
}

TEST(SignatureDetect, MpiViewOffsetsAreInEtypes) {
  // disp 1000, etype MPI_INT: offset i0*16 etypes is 1000 + 64*i0 bytes.
  Trace t = baseTrace();
  t.body = {mpiOpen(t),
            event(t, "MPI_File_set_view", Layer::MPIIO,
                  {{"fh", Expr(0)}, {"disp", Expr(1000)}, {"etype", Expr(1)}, {"filetype", Expr(1)}, {"datarep", std::string("native")}}),
            loop(t, Expr(10), {readAt(t, ex("16*i0"), Expr(8))}),
            // Individual file pointer: starts at 0 after set_view, advances by 8 ints.
            loop(t, Expr(5), {event(t, "MPI_File_write", Layer::MPIIO, {{"fh", Expr(0)}, {"count", Expr(8)}, {"datatype", Expr(1)}})})};
  auto streams = extractStreams(t, 0, {});
  ASSERT_EQ(streams.size(), 2u);
  EXPECT_EQ(traceSignatureText(detect(streams[0], {}).trace), "{READ, 1000, 1, ([64, 8, 10]), 1}");
  EXPECT_EQ(traceSignatureText(detect(streams[1], {}).trace), "{WRITE, 1000, 1, ([32, 32, 5]), 1}");
  EXPECT_FALSE(streams[0].logicalOffsets);
}

TEST(SignatureDetect, InterleavedReadWriteIsOnePattern) {
  Trace t = baseTrace();
  auto preadAt = [&](const char *op) {
    return event(t, op, Layer::POSIX, {{"fd", Expr(3)}, {"count", Expr(4096)}, {"offset", ex("8192*i0")}});
  };
  t.body = {event(t, "open", Layer::POSIX, {{"file", Expr(0)}, {"flags", Expr(2)}, {"fd", Expr(3)}}),
            loop(t, Expr(50), {preadAt("pread"), preadAt("pwrite")})};
  const StreamSignature s = only(t);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ/WRITE, 0, 2, ([0, 4096, 1], [8192, 4096, 1], 50), 1}");
  EXPECT_EQ(patternSignatureText(s.pattern),
            "{Read/Write, <non-contiguous, fixed strided>, <single occurrence>, <fixed size, small>, <random>}");
  Options reads;
  reads.ops = OpFilter::Read;
  EXPECT_EQ(traceSignatureText(only(t, 0, reads).trace), "{READ, 0, 1, ([8192, 4096, 50]), 1}");
}

TEST(SignatureDetect, InnerCallsAreNotCountedTwice) {
  Trace t = baseTrace();
  Node inner = event(t, "pwrite", Layer::POSIX, {{"fd", Expr(5)}, {"count", Expr(64)}, {"offset", ex("64*i0")}});
  inner.event().inner = true;
  t.body = {mpiOpen(t), loop(t, Expr(8), {writeAt(t, ex("64*i0"), Expr(64)), inner})};
  const StreamSignature s = only(t);
  EXPECT_EQ(s.accesses, 8u);
  EXPECT_EQ(s.pattern.spatial, Spatial::Contiguous);
}

TEST(SignatureDetect, PeriodicTimingIsPeriodic) {
  Trace t = baseTrace();
  Node read = readAt(t, ex("8192*i0"), Expr(4096));
  for (int i = 0; i < 100; ++i) {
    read.event().compute.add(10'000'000 + uint64_t(i % 3) * 1000);
    read.event().duration.add(50'000);
  }
  t.body = {mpiOpen(t), loop(t, Expr(100), {read})};
  const StreamSignature s = only(t);
  EXPECT_EQ(s.pattern.temporal, Temporal::Periodic);
  ASSERT_TRUE(s.pattern.periodNs);
  EXPECT_NEAR(*s.pattern.periodNs, 10'050'990, 1);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 0, 1, ([8192, 4096, 100, @10050990ns]), 1}");
  EXPECT_NE(patternSignatureText(s.pattern).find("<periodic, 10050990ns>"), std::string::npos);
}

TEST(SignatureDetect, JitteryTimingIsIrregular) {
  Trace t = baseTrace();
  Node read = readAt(t, ex("8192*i0"), Expr(4096));
  for (int i = 0; i < 100; ++i)
    read.event().compute.add(i % 2 ? 2'000'000 : 30'000'000);
  t.body = {mpiOpen(t), loop(t, Expr(100), {read})};
  EXPECT_EQ(only(t).pattern.temporal, Temporal::Irregular);
}

TEST(SignatureDetect, ShortTailStaysFixedStride) {
  // A file read in 4096-byte chunks whose last chunk is shorter.
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(9), {readAt(t, ex("4096*i0"), Expr(4096))}), readAt(t, Expr(36864), Expr(100))};
  const StreamSignature s = only(t);
  EXPECT_EQ(traceSignatureText(s.trace), "{READ, 0, 1, ([4096, {100..4096}, 10]), 1}");
  EXPECT_EQ(s.pattern.spatial, Spatial::Contiguous);
  EXPECT_FALSE(s.pattern.fixedSize);
}

TEST(SignatureDetect, MillionIterationLoopStaysOneRun) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(1'000'000), {readAt(t, ex("8192*i0 + 4096"), Expr(4096))})};
  auto streams = extractStreams(t, 0, {});
  ASSERT_EQ(streams.size(), 1u);
  EXPECT_EQ(streams[0].runs.size(), 1u);
  EXPECT_EQ(streams[0].accesses, 1'000'000u);
  EXPECT_EQ(traceSignatureText(detect(streams[0], {}).trace), "{READ, 4096, 1, ([8192, 4096, 1000000]), 1}");
}

TEST(SignatureDetect, PositionsBeyond64BitsAreUnknownNotWrapped) {
  Trace t = baseTrace();
  t.body = {mpiOpen(t), loop(t, Expr(1'000'000), {readAt(t, ex("9000000000000000*i0"), Expr(4096))}),
            readAt(t, Expr(0), Expr(10))};
  const StreamSignature s = only(t);
  EXPECT_EQ(s.unknownPositions, 1'000'000u);
  EXPECT_EQ(s.accesses, 1u);
}

TEST(SignatureDetect, RankOnlyOption) {
  Trace t = baseTrace(4);
  t.body = {mpiOpen(t), loop(t, Expr(10), {readAt(t, ex("4096*rank + 8192*i0"), Expr(4096))})};
  Options o;
  o.rank = 2;
  const SignatureReport r = analyze(t, o);
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_EQ(groupTexts(r)[0], "{READ, 8192, 1, ([8192, 4096, 10]), 1}");
  o.rank = 4;
  EXPECT_THROW(analyze(t, o), SignatureError);
}

TEST(SignatureDetect, EmptyTraceIsAnError) {
  Trace t = baseTrace(2);
  try {
    analyze(t, {});
    FAIL() << "expected SignatureError";
  } catch (const SignatureError &e) {
    EXPECT_STREQ(e.what(), "the trace has no reads or writes whose file positions are known");
  }
  t.body = {mpiOpen(t), writeAt(t, Expr(0), Expr(10))};
  Options reads;
  reads.ops = OpFilter::Read;
  EXPECT_THROW(analyze(t, reads), SignatureError);
}

TEST(SignatureDetect, NonAffineInitialPositionsAreListed) {
  Trace t = baseTrace(3);
  t.body = {mpiOpen(t), loop(t, Expr(4), {readAt(t, ex("[0, 100, 7000][rank] + 512*i0"), Expr(512))})};
  const SignatureReport r = analyze(t, {});
  ASSERT_EQ(r.groups.size(), 1u);
  EXPECT_FALSE(r.groups[0].initialPosition);
  EXPECT_EQ(r.groups[0].initialPositions, (std::vector<std::pair<int64_t, int64_t>>{{0, 0}, {1, 100}, {2, 7000}}));
  EXPECT_NE(reportText(r).find("{READ, <per rank>, 1, ([512, 512, 4]), 1}"), std::string::npos) << reportText(r);
}

} // namespace
} // namespace sio::signature
