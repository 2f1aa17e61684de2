// The report writer shared by the section files: the trace, its summary and
// the expansion every section reads, and one member function per section.
// Each section is written in a file of its own (Overview.cpp,
// Operations.cpp, ...); Report.cpp runs them in order.
#pragma once

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
  // Overview.cpp
  void header();
  // Operations.cpp
  void operations();
  void collectLayers(const std::vector<trace::Node> &body, std::set<LayerKey> &keys);
  // AccessPatterns.cpp
  void accessPatterns();
  void legend();
  // Histograms.cpp
  static std::vector<std::string> timeBinLabels(size_t first, size_t last);
  void histograms();
  void collectTiming(const std::vector<trace::Node> &body, std::map<uint64_t, trace::TimingStats> &bySite,
                     trace::TimingStats &gaps, std::map<uint64_t, std::string> &siteOp);
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
  std::map<int, uint64_t> sizeHist_;
  std::map<int64_t, std::vector<PlotPoint>> points_;
  double span_ = 0;
  bool anyTimed_ = false, anyReconstructed_ = false, expandTruncated_ = false;
  size_t nodesShown_ = 0;
  std::set<uint64_t> anchored_, anchoredLoops_;
};

} // namespace sio::report::detail
