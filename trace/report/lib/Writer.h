// The report writer shared by the section files: the trace, its summary and
// the expansion every section reads, and one member function per section.
// Each section is written in a file of its own (Overview.cpp,
// Operations.cpp, ...); Report.cpp runs them in order.
#pragma once

#include "IoClass.h"
#include "sio/report/Expand.h"
#include "sio/report/Report.h"
#include "sio/trace/Summary.h"
#include "sio/trace/Trace.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

namespace sio::report::detail {

// --- names and anchors (Labels.cpp) ------------------------------------------

inline std::string esc(std::string_view s) { return escapeHtml(s); }
double toD(const trace::Rational &r);
std::string siteAnchor(uint64_t id);
std::string loopAnchor(uint64_t id);
std::string siteLocation(const trace::Trace &t, uint64_t id);
std::string loopLocation(const trace::Trace &t, uint64_t id);
std::string fileLabel(const trace::Trace &t, int64_t id);
std::string layerTitle(trace::Layer l);

/// A copy of the body holding only the events that `keep` accepts (loops
/// stay, possibly empty), and the exact summary of such a copy
/// (Operations.cpp): per-layer, per-direction and inner-only totals.
std::vector<trace::Node> filterBody(const std::vector<trace::Node> &body,
                                    const std::function<bool(const trace::Event &)> &keep);
trace::TraceSummary summarizeOnly(const trace::Trace &t, const std::function<bool(const trace::Event &)> &keep);

struct LayerKey {
  trace::Layer layer;
  bool inner;
  auto operator<=>(const LayerKey &) const = default;
};

/// One rank's I/O as its calls expand (PerRank.cpp). Inner calls are not
/// in it: their bytes and time are inside the outer calls'.
struct RankRow {
  int64_t rank = 0;
  uint64_t calls = 0;
  std::array<uint64_t, kIoClasses.size()> classCalls{};
  std::array<double, kIoClasses.size()> classNs{};        ///< sum of the calls' mean durations
  std::array<uint64_t, kIoClasses.size()> classUntimed{}; ///< calls without timing (not in classNs)
  int64_t bytesRead = 0, bytesWritten = 0;

  int64_t bytes() const { return bytesRead + bytesWritten; }
  double dataNs() const;
  double ioNs() const; ///< data and metadata time, as Darshan's "I/O time"
};

/// Calls by exact size for the most common sizes, and by log2 bin for the
/// histograms. Distinct sizes are capped (a trace whose every call has a
/// size of its own would otherwise hold one entry per expanded call); calls
/// of sizes beyond the cap are counted in `otherCalls`, the bins stay exact.
struct SizeCounts {
  static constexpr size_t kMaxDistinct = 4096;
  std::map<int64_t, uint64_t> sizes;
  uint64_t otherCalls = 0, calls = 0;
  std::array<uint64_t, trace::TimingStats::kBins> bins{};

  void add(int64_t bytes) {
    ++calls;
    ++bins[size_t(trace::TimingStats::binOf(uint64_t(bytes)))];
    auto it = sizes.find(bytes);
    if (it != sizes.end())
      ++it->second;
    else if (sizes.size() < kMaxDistinct)
      sizes.emplace(bytes, 1);
    else
      ++otherCalls;
  }
};

/// Where the per-rank times of the rank table come from (PerRank.cpp).
enum class RankTiming {
  None,    ///< the trace records no durations
  PerRank, ///< every timed call's statistics hold that rank's calls only
  Merged,  ///< statistics merged over ranks: a rank's time is the mean of its calls' ranks
  Partial, ///< some file calls record no duration: no rank's time is complete
};
RankTiming rankTiming(const trace::Trace &t);
/// The time one call of one rank took, as the rank table and the I/O time
/// section count it; nullopt for a call without timing (PerRank.cpp).
std::optional<double> rankCallNs(const trace::Trace &t, const Call &c);

class Writer {
public:
  Writer(std::ostream &out, const std::vector<ReportInput> &inputs, const ReportOptions &options)
      : o_(out), inputs_(inputs), opt_(options), t_(inputs.back().trace), s_(trace::summarize(t_)) {}

  void run();

private:
  struct PlotPoint {
    int64_t rank;
    uint64_t order; ///< index among the rank's accesses to the file
    int64_t offset;
    double timeNs;
    bool timed;
    uint64_t site;
    const trace::Node *outer;
    uint64_t instance;
  };

  // Report.cpp
  void expand();
  /// Adds an expanded call to the totals of the sizes, rank and time sections.
  void tally(const Call &c, RankRow &row);
  // Overview.cpp
  void header();
  void extrapolationNote();
  // FilesSection.cpp
  void filesSection();
  static std::string commonSizesText(const SizeCounts &sizes, size_t n);
  // AccessSizes.cpp
  void accessSizes();
  // PerRank.cpp
  void perRank();
  // IoTime.cpp
  void ioTime();
  /// The caveat to print next to timings: "" for a measured trace.
  std::string timingCaveat() const;
  // Operations.cpp
  void operations();
  void collectLayers(const std::vector<trace::Node> &body, std::set<LayerKey> &keys);
  // AccessPatterns.cpp
  void accessPatterns();
  void legend();
  // Histograms.cpp
  static std::vector<std::string> timeBinLabels(size_t first, size_t last);
  void histograms();
  struct SiteTiming {
    std::string label, op;
    uint64_t anchorSite = 0; ///< the site linked to (an inner call's: its outer call's)
    trace::TimingStats stats;
  };
  void collectTiming(const std::vector<trace::Node> &body, std::map<std::string, SiteTiming> &bySite,
                     trace::TimingStats &gaps);
  /// "darshan.c:13:5", or for an inner call without a site of its own
  /// "inside MPI_File_write_at_all at darshan.c:13:5" (Labels.cpp).
  std::string siteText(const trace::Event &e) const;
  void findOuterCalls(const std::vector<trace::Node> &body, const trace::Event *&last);
  // LoopTree.cpp
  void loops();
  void tree(const std::vector<trace::Node> &body, uint32_t depth, const trace::RankList *parent);
  static constexpr size_t kMaxTreeNodes = 2000;
  // SignatureSection.cpp
  void signatures();
  // Fits.cpp
  static void slots(const trace::Trace &t, const std::vector<trace::Node> &body,
                    std::vector<std::pair<std::string, const trace::ElasticValue *>> &out,
                    std::vector<std::string> &shape);
  static std::map<trace::Monomial, trace::Rational> coefficients(const trace::ElasticValue &v, int64_t nranks);
  static std::string monomialText(const trace::Monomial &m);
  void fits();
  static std::optional<trace::Expr> fitModel(const std::vector<int64_t> &ns, const std::vector<trace::Rational> &ys);

  /// Bins [first, last] that hold samples; false if none.
  template <typename Counts> static bool binRange(const Counts &c, size_t &first, size_t &last) {
    first = c.size();
    last = 0;
    for (size_t b = 0; b < c.size(); ++b)
      if (c[b]) {
        first = std::min(first, b);
        last = b;
      }
    return first <= last;
  }

  std::ostream &o_;
  const std::vector<ReportInput> &inputs_;
  const ReportOptions &opt_;
  const trace::Trace &t_;
  trace::TraceSummary s_;
  std::vector<int64_t> histRanks_, plotRanks_;
  SizeCounts readSizes_, writeSizes_;       ///< bytes per call (not inner)
  std::map<int64_t, SizeCounts> fileSizes_; ///< file -> bytes per call
  /// Per expanded rank, the first kMaxRankRows of them (a row is ~200
  /// bytes; a trace may have millions of ranks). The summary below sees all.
  static constexpr size_t kMaxRankRows = 65536;
  std::vector<RankRow> rankRows_;
  struct RankSummary {
    uint64_t ranks = 0;
    double sum = 0;     ///< of rankMetric
    RankRow slow, fast; ///< by rankMetric, the lowest rank among ties
    RankRow slowestIo;  ///< by I/O time, for the aggregate bandwidth
  } rankSummary_;
  RankTiming rankTiming_ = RankTiming::None;
  /// What the rank table orders by: I/O time where each rank's is its own, else bytes.
  bool ranksByTime() const { return rankTiming_ == RankTiming::PerRank; }
  double rankMetric(const RankRow &r) const { return ranksByTime() ? r.ioNs() : double(r.bytes()); }
  void addRank(const RankRow &row);
  RankRow totals_;                                               ///< the rows summed (rank unused)
  std::map<const trace::Event *, const trace::Event *> outerOf_; ///< inner call -> the call it ran in
  bool extrapolated_ = false;
  std::map<int64_t, std::vector<PlotPoint>> points_;
  double span_ = 0;
  bool anyTimed_ = false, anyReconstructed_ = false, expandTruncated_ = false;
  size_t nodesShown_ = 0;
  std::set<uint64_t> anchored_, anchoredLoops_;
};

} // namespace sio::report::detail
