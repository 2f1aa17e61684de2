// I/O signatures (Byna et al. SC08, §IV-V): what each process's reads and
// writes look like, in the paper's two forms.
//
//   trace signature    {READ, 0, 1, ([8192, 4096, 100]), 1}
//   pattern signature  {Read, <non-contiguous, fixed strided>, <single occurrence>,
//                       <fixed size, small>, <random>}
//
// The pipeline: extractStreams() walks a (compressed) trace for one rank and
// yields per file and direction a stream of Runs (arithmetic runs of
// accesses, read straight off the trace's loops where their offsets are
// affine in the loop index, so a 10^6-iteration loop stays one Run);
// detect() classifies a stream; analyze() does both for every rank and groups
// ranks whose signatures differ only by their initial position.
// docs/signatures.md documents the notation, thresholds and the JSON form.
#pragma once

#include "sio/trace/Expr.h"
#include "sio/trace/RankList.h"
#include "sio/trace/Timing.h"
#include "sio/trace/Trace.h"

#include <nlohmann/json_fwd.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sio::signature {

/// The signature JSON version this build writes and reads.
inline constexpr const char *kSignatureFormatVersion = "1.1";

/// A trace that has nothing to describe, or a signature document that cannot
/// be read.
class SignatureError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

enum class Operation { Read, Write, ReadWrite };

/// A value that is constant or advances by a fixed step: along the accesses
/// of a component (request sizes) or along the repetitions of a pattern
/// (component starts, repetition counts).
struct Progression {
  int64_t first = 0;
  int64_t step = 0;
  bool isConstant() const { return step == 0; }
  int64_t at(int64_t k) const { return first + step * k; }
  friend bool operator==(const Progression &, const Progression &) = default;
};

/// Request sizes of a component: a progression, or irregular within [min, max].
struct SizePattern {
  bool regular = true;
  Progression progression; ///< when regular
  int64_t min = 0, max = 0;
  /// Irregular sizes of a short component, in order (empty when longer than
  /// kListedSizes): a contiguous region in pieces of different sizes is then
  /// described exactly.
  std::vector<int64_t> values;
  friend bool operator==(const SizePattern &, const SizePattern &) = default;
};

/// First-order Markov chain over strides (Figure 3's last detector).
struct MarkovChain {
  struct Transition {
    int64_t from = 0, to = 0;
    uint64_t count = 0;
    friend bool operator==(const Transition &, const Transition &) = default;
  };
  std::vector<Transition> transitions; ///< sorted by (from, count desc, to)
  uint64_t distinctStrides = 0;
  /// Fraction of transitions that go to the most frequent successor of their
  /// state: how often "predict the likeliest next stride" is right.
  double predictability = 0;
  /// Conditional entropy H(next stride | stride), bits.
  double entropyBits = 0;
  friend bool operator==(const MarkovChain &, const MarkovChain &) = default;
};

/// Fixed: one stride; Contiguous: each access starts where the previous one
/// ended (the stride is the previous size, whatever the sizes are).
enum class StrideKind { Fixed, Contiguous, Markov, Random };

/// Sizes listed one by one in SizePattern::values up to this many accesses.
inline constexpr size_t kListedSizes = 64;

/// An enclosing level of a loop nest: `count` iterations, `stride` bytes apart.
struct NestLevel {
  int64_t stride = 0;
  int64_t count = 1;
  friend bool operator==(const NestLevel &, const NestLevel &) = default;
};

/// One dimension of a trace signature: `count` accesses, each `stride` bytes
/// after the previous one, with sizes `size`. In a flat pattern a component
/// starts where the previous one's stride leads; in a repetitive pattern
/// whose components evolve (the LU example) each has its own `start`.
struct Component {
  std::optional<Progression> start; ///< offset relative to the initial position, per repetition
  StrideKind strideKind = StrideKind::Fixed;
  int64_t stride = 0;               ///< Fixed: bytes from an access to the next
  std::optional<MarkovChain> markov; ///< Markov
  SizePattern size;
  Progression count;                ///< accesses; per repetition when it evolves
  std::optional<double> periodNs;   ///< interval between accesses when periodic
  /// A loop nest (outermost first): the component's [stride, size, count]
  /// run is repeated at every index of these levels, at offset
  /// sum(level.stride * index). Written `[(17280, 1440, 120), 120, (2, 6, 4)]`.
  std::vector<NestLevel> nest;
  int64_t accessesPerRepetition(int64_t r) const {
    int64_t n = count.at(r);
    for (const NestLevel &l : nest)
      n *= l.count;
    return n;
  }
  friend bool operator==(const Component &, const Component &) = default;
};

/// `{op, initial position, dimension, (components[, cycles]), repetitions}`.
struct TraceSignature {
  Operation op = Operation::Read;
  int64_t initialPosition = 0; ///< byte offset of the first access
  std::vector<Component> components;
  int64_t cycles = 1;      ///< times the component sequence runs back to back (k-d)
  int64_t repetitions = 1; ///< times the whole pattern recurs (from the same or evolving starts)
  /// Components, or the levels of the deepest loop nest when more.
  int dimension() const {
    size_t d = components.size();
    for (const Component &c : components)
      d = std::max(d, c.nest.size() + 1 + (repetitions > 1 && c.start ? 1 : 0));
    return int(d);
  }
  friend bool operator==(const TraceSignature &, const TraceSignature &) = default;
};

enum class Spatial { None, Contiguous, FixedStrided, NegativeStrided, KdStrided, VariableStrided, Random };
enum class SizeClass { Small, Medium, Large };
enum class Temporal { None, Periodic, Irregular };

/// `{op, <spatial, dim>, <repetitive>, <size>, <temporal>}`.
struct PatternSignature {
  Operation op = Operation::Read;
  Spatial spatial = Spatial::None;
  int dimension = 1; ///< k for KdStrided
  bool repetitive = false;
  bool fixedSize = true;
  SizeClass sizeClass = SizeClass::Small;
  Temporal temporal = Temporal::Irregular;
  std::optional<double> periodNs;
  uint64_t timingSamples = 0; ///< 0: the trace has no timing; temporal then says Irregular
  friend bool operator==(const PatternSignature &, const PatternSignature &) = default;
};

/// The signature of one rank's accesses to one file in one direction.
struct StreamSignature {
  int64_t file = -1;       ///< files table id; -1 if the handle's file is unknown
  /// Distinct files of the entry (a name that is a formula of loop indices,
  /// `out.<i0>`) this signature describes, each alike: one per file.
  uint64_t fileInstances = 1;
  /// Phases of the stream (its top-level loops, when the stream as a whole
  /// follows no pattern but each of them does): this is phase `phase` of `phases`.
  uint64_t phase = 0, phases = 1;
  TraceSignature trace;
  PatternSignature pattern;
  uint64_t accesses = 0;
  int64_t bytes = 0;
  uint64_t unknownPositions = 0; ///< accesses left out: position not reconstructible
  bool logicalOffsets = false;   ///< offsets are in a non-contiguous file view's logical bytes
  /// Accesses read or written through a non-contiguous view, their offsets
  /// mapped to the file: each access is pieces from its offset, not one
  /// contiguous range (a prefetcher lays it out after the view or a read).
  bool throughView = false;
  bool truncated = false;        ///< stream longer than Options::maxAccesses; prefix analysed
  /// Accesses an OnlineDetector (Figure 3) needs on this stream before it is
  /// stable, looking at the first Options::onlineWindow accesses; nullopt if
  /// it never is (random, or a single access): a prefetcher's warm-up.
  std::optional<uint64_t> stableAfter;
  friend bool operator==(const StreamSignature &, const StreamSignature &) = default;
};

/// Ranks whose signatures differ at most by their initial position.
struct SignatureGroup {
  trace::RankList ranks;
  /// Initial position as a function of rank (`5308416*rank`), if one fits.
  std::optional<trace::Expr> initialPosition;
  std::vector<std::pair<int64_t, int64_t>> initialPositions; ///< (rank, position), every rank
  StreamSignature signature; ///< of the group's first rank
};

struct SignatureReport {
  std::string program;
  int64_t nranks = 0;
  int64_t pageSize = 4096;
  std::vector<std::string> fileNames; ///< by files table id ("" when unknown)
  std::vector<SignatureGroup> groups;
  std::vector<std::string> notes;
};

enum class OpFilter { Read, Write, All };

struct Options {
  std::optional<int64_t> rank; ///< analyse only this rank
  OpFilter ops = OpFilter::All;
  int64_t pageSize = 4096;
  /// Requests of at most one page are small, above `largePages` pages large.
  int64_t largePages = 64;
  /// Periodic: intervals' coefficient of variation at most this, mean at
  /// least `periodicMinNs` (shorter gaps are timer and system noise).
  double periodicMaxCv = 0.1;
  double periodicMinNs = 1e6;
  /// Markov chain accepted when the likeliest successor is right this often
  /// and strides recur (distinct strides at most transitions/markovMinRecurrence).
  double markovMinPredictability = 0.9;
  uint64_t markovMinRecurrence = 4;
  /// Accesses per stream after which further runs are left out (checked
  /// before each run, so one long run is never cut).
  /// (A stored run costs about 100 bytes: 2^21 of them stay within a few
  /// hundred MB, whatever loop counts a trace claims.)
  uint64_t maxAccesses = 1u << 21;
  /// Accesses replayed through the OnlineDetector for StreamSignature::stableAfter.
  uint64_t onlineWindow = 256;
  /// Loop iterations walked one by one per rank before giving up.
  uint64_t maxExpandedIterations = 1u << 18;
  /// Called now and then while ranks are analysed one by one (done, total):
  /// the tool prints a progress line from it.
  std::function<void(int64_t, int64_t)> progress;
};

// --- Access streams -------------------------------------------------------

/// `count` accesses: offset + k*stride, size sizeFirst + k*sizeStep. The
/// pointers point into the analysed Trace and live as long as it does.
struct Run {
  int64_t offset = 0;
  int64_t stride = 0;
  int64_t count = 1;
  int64_t sizeFirst = 0;
  int64_t sizeStep = 0;
  Operation op = Operation::Read; ///< Read or Write
  /// Where it came from in the trace: the top-level body node, the iteration
  /// of that node (0 unless it is a loop) and the child of that loop's body
  /// holding the access (the component the evolving-pattern detector uses).
  const trace::Node *top = nullptr;
  int64_t topIteration = 0;
  const trace::Node *component = nullptr;
  const trace::Event *event = nullptr; ///< for timing
  /// Bytes the positions move per rank, for extractUniformStreams.
  int64_t rankSlope = 0;
  /// Enclosing loop levels (outermost first) when the run is a loop nest
  /// read straight off the trace: the run repeats at every nest index.
  std::vector<NestLevel> nest;
  /// Offset of the last access of the first run of the nest (the run itself
  /// when there is no nest).
  int64_t lastOffset() const { return offset + stride * (count - 1); }
  int64_t lastSize() const { return sizeFirst + sizeStep * (count - 1); }
  /// Accesses, nest included.
  int64_t total() const {
    int64_t n = count;
    for (const NestLevel &l : nest)
      n *= l.count;
    return n;
  }
};

struct AccessStream {
  int64_t file = -1;
  int64_t instance = 0; ///< which file of an entry whose name is a formula of loop indices
  Operation op = Operation::Read;
  std::vector<Run> runs;
  uint64_t accesses = 0;
  int64_t bytes = 0;
  uint64_t unknownPositions = 0;
  bool logicalOffsets = false;
  bool throughView = false;
  bool truncated = false;
};

/// One rank's streams, in order of first access. Reads and writes of a file
/// form one ReadWrite stream when they interleave (under OpFilter::All), two
/// streams when they come in phases.
std::vector<AccessStream> extractStreams(const trace::Trace &trace, int64_t rank, const Options &options);

/// The streams of every rank of a class that shares rank `rank`'s rank-list
/// memberships, each with the bytes its positions move per rank: rank r's
/// stream is rank `rank`'s shifted by slope*(r - rank). nullopt when some
/// value the analysis uses depends on the rank otherwise (then each rank
/// needs its own extractStreams). With `ranks` (the class, `rank` its
/// first), `%` terms of the rank that are affine on the class count too.
std::optional<std::vector<std::pair<AccessStream, int64_t>>>
extractUniformStreams(const trace::Trace &trace, int64_t rank, const Options &options,
                      const trace::RankList *ranks = nullptr);

StreamSignature detect(const AccessStream &stream, const Options &options);

/// Every rank (or Options::rank), grouped. Throws SignatureError when the
/// trace has no read or write to describe.
SignatureReport analyze(const trace::Trace &trace, const Options &options);

// --- Online detection (Figure 3) --------------------------------------------

enum class DetectorState { Init, Learning, Stable };

/// Figure 3 as a streaming detector: init until a stride is seen; learning
/// while a hypothesis (fixed stride, then stride cycles of period 2 to 16,
/// shortest first, then a Markov chain over strides) is being confirmed; stable once it predicted the
/// last `confirmations` strides. A misprediction sends it back to learning
/// with the next hypothesis that explains the history, or to init when none
/// does. The prefetcher can use it to verify a signature against live reads.
class OnlineDetector {
public:
  explicit OnlineDetector(int confirmations = 2) : confirmations_(confirmations) {}
  void observe(int64_t offset);
  DetectorState state() const { return state_; }
  /// The hypothesis: FixedStrided or NegativeStrided (contiguous counts as
  /// fixed: sizes are not observed), KdStrided with dimension() the cycle's
  /// period (2 to 16),
  /// VariableStrided (Markov), or None in init.
  Spatial kind() const { return kind_; }
  int dimension() const { return period_; }
  /// Next offset if the hypothesis holds.
  std::optional<int64_t> predictNext() const;

private:
  std::optional<int64_t> predictStride() const;
  bool explains(Spatial kind, int period) const;
  void chooseHypothesis();

  int confirmations_;
  DetectorState state_ = DetectorState::Init;
  Spatial kind_ = Spatial::None;
  int period_ = 1;
  int confirmed_ = 0;
  std::optional<int64_t> last_;
  std::vector<int64_t> strides_; ///< recent history (bounded)
};

// --- Rebuilding the accesses -------------------------------------------------

/// One access a signature describes: where, and how many bytes.
struct RebuiltAccess {
  int64_t offset = 0;
  int64_t size = 0;
  friend bool operator==(const RebuiltAccess &, const RebuiltAccess &) = default;
};

/// The accesses a trace signature describes, in order (docs/signatures.md,
/// "To rebuild a rank's accesses": repetitions start over, components at
/// their starts, nests level by level, contiguous pieces by their sizes), at
/// most `limit` of them; nullopt when the signature does not determine them
/// (a random or Markov stride, or contiguous pieces whose sizes are not all
/// listed). The one home of the rule: the prefetch library plans with it.
std::optional<std::vector<RebuiltAccess>> rebuildAccesses(const TraceSignature &sig, size_t limit);

// --- Text and JSON -----------------------------------------------------------

std::string operationName(Operation op);       ///< "read", "write", "read/write"
std::string spatialName(Spatial spatial, int dimension); ///< "non-contiguous, fixed strided"
std::string sizeClassName(SizeClass size);     ///< "small"

/// `{READ, 1049088, 3, (...), 125}`; `initial` replaces the number (e.g. a
/// rank formula) when given.
std::string traceSignatureText(const TraceSignature &sig, const std::optional<trace::Expr> &initial = {});
/// `{Read, <contiguous>, <single occurrence>, <fixed size, medium>, <random>}`.
std::string patternSignatureText(const PatternSignature &sig);

/// The report as text: per group a header line and the two signatures.
std::string reportText(const SignatureReport &report);

nlohmann::json toJson(const SignatureReport &report);
/// Reads what toJson writes; throws SignatureError naming the bad field.
SignatureReport reportFromJson(const nlohmann::json &json);

} // namespace sio::signature
