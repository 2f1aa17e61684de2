// The extrapolator's state while it walks the inputs in lock step, and the
// declarations its parts share: the walk and its messages (Extrapolate.cpp),
// MPI_Dims_create grids (DimsGrids.cpp), the models of one value and the
// choice between them (ModelChoice.cpp), formulas (FitValues.cpp), values of
// grid coordinates and blocks (GridValues.cpp), rank groups (RankGroups.cpp),
// events and loops (FitBody.cpp), computed read results (ComputedReads.cpp),
// the file table (FileTable.cpp) and the object tables (ObjectTables.cpp).
// One class, as before the split: its members read the same inputs and rank
// counts, and a fit of one kind calls fits of the others. Internal to the
// extrap library.
#pragma once

#include "sio/extrap/Extrapolate.h"
#include "sio/trace/Trace.h"

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sio::extrap::detail {

// The fits name the trace model's types throughout, as the single file did.
using namespace sio::trace;

/// The value every rank has, if `value` is one constant for all its ranks.
inline std::optional<int64_t> uniformConstant(const ElasticValue &value) {
  if (!value.isUniform())
    return std::nullopt;
  const Expr *x = std::get_if<Expr>(&value.entries()[0].value);
  return x ? x->constantValue() : std::nullopt;
}

/// Calls `check` at every combination of `depth` loop indices in 0..2 (the
/// innermost fastest) as long as it returns true; whether it always did.
template <class Check> bool atFewLoopIndices(uint32_t depth, Check &&check) {
  std::vector<int64_t> idx(depth, 0);
  for (;;) {
    if (!check(idx))
      return false;
    size_t d = 0;
    while (d < idx.size() && ++idx[d] == 3)
      idx[d++] = 0;
    if (d == idx.size())
      return true;
  }
}

// Walks the inputs in lock step (sorted by rank count) and builds the target.
class Extrapolator {
public:
  Extrapolator(std::vector<const Trace *> inputs, const ExtrapOptions &options);

  Trace run();

private:
  // ---- errors (Extrapolate.cpp) ----------------------------------------
  std::string perInput(const std::vector<std::string> &values) const;
  [[noreturn]] void refuse(const std::string &where, const std::string &what, const std::vector<std::string> &values,
                           const std::vector<std::string> &tried = {}) const;
  [[noreturn]] void differ(const std::string &where, const std::string &what,
                           const std::vector<std::string> &values) const;
  std::string describe(const Event &e, const std::string &path) const;

  // ---- process grids (DimsGrids.cpp) -----------------------------------
  void findDimsGrids();
  void recomputeDims(const std::vector<const Event *> &events, const std::string &where, Event &out) const;

  // ---- models of one value (ModelChoice.cpp, DimsGrids.cpp) -------------
  // Every admissible model that reproduces the inputs is a candidate; the
  // value is extrapolated only when all candidates agree at the target, or
  // --prefer names which to take (docs/extrap.md, Ambiguity).
  struct Candidate {
    std::string family;                                 ///< "scaling", "grid" or "preset" (MPI_Dims_create)
    std::string name;                                   ///< shown in messages: "constant 2", "1*dims(N,3)[1]"
    std::function<std::optional<Rational>(int64_t)> at; ///< the value at a rank count
    Expr result;                                        ///< written for the target
    /// Where the model is defined (a sqrt model: squares); empty: every N.
    std::function<bool(int64_t)> definedAt;
    std::string domain; ///< "a square", for messages
    int64_t length = 0; ///< the array length of a block or c/dims model (0: none)
  };
  void gridCandidates(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                      std::vector<std::string> *tried, std::vector<Candidate> &out) const;
  std::vector<Candidate> candidates(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                                    std::vector<std::string> *tried) const;
  static int64_t decidingRanks(const std::vector<int64_t> &ns, int64_t target,
                               const std::function<bool(int64_t)> &differs);
  size_t choose(const std::vector<int64_t> &ns, const std::vector<std::string> &families,
                const std::vector<std::string> &names, const std::function<bool(size_t, size_t, int64_t)> &agree,
                const std::function<std::string(size_t, int64_t)> &valueAt, const std::string &subject,
                const std::string &shownValues) const;
  std::optional<Expr> fitCoefficient(const std::vector<int64_t> &ns, const std::vector<Rational> &values,
                                     const std::string &subject, std::vector<std::string> *tried) const;

  // ---- scalars and formulas (FitValues.cpp) -----------------------------
  Expr fitScalar(const std::string &where, const std::string &what, const std::vector<Rational> &values,
                 const std::vector<std::string> &shown) const;
  int64_t atTarget(const Expr &model, const std::string &where, const std::string &what) const;
  int64_t fitInt(const std::string &where, const std::string &what, const std::vector<int64_t> &values) const;
  Expr fitExpr(const std::string &where, const std::string &what, const std::vector<const Expr *> &values,
               const std::vector<const RankList *> *ranks = nullptr) const;
  std::optional<Expr> fitOnLargerInputs(const std::vector<const Expr *> &values,
                                        const std::vector<const RankList *> *ranks) const;
  Expr fitExprAt(const std::vector<int64_t> &ns, const std::string &where, const std::string &what,
                 const std::vector<const Expr *> &values) const;
  Value fitValue(const std::string &where, const std::string &what, const std::vector<const Value *> &values,
                 const std::vector<const RankList *> *ranks = nullptr) const;

  // ---- values of grid coordinates (GridValues.cpp) ----------------------
  void recordedLengths(std::set<int64_t> &out) const;
  std::optional<Expr> fitGridBlocks(const std::string &subject,
                                    const std::function<const Expr *(size_t, int64_t)> &at) const;
  std::optional<ElasticValue> fitGridBlocksElastic(const std::string &subject,
                                                   const std::vector<const ElasticValue *> &values) const;
  std::optional<Expr> fitGridCoordinates(const std::vector<const Expr *> &values) const;

  // ---- rank lists and rank groups (RankGroups.cpp) ----------------------
  RankList fitRanks(const std::string &where, const std::string &what,
                    const std::vector<const RankList *> &lists) const;
  void checkAtTarget(const std::string &where, const std::string &what, const ElasticEntry &entry) const;
  std::optional<ElasticValue> fitRankRuns(const std::string &where, const std::string &what,
                                          const std::vector<const ElasticValue *> &values) const;
  std::string runsHint(const std::vector<const ElasticValue *> &values) const;
  std::optional<Expr> fitLoneRankGroup(const std::string &where, const std::string &what,
                                       const std::vector<const RankList *> &ranks,
                                       const std::vector<const Value *> &vals) const;
  ElasticValue fitElastic(const std::string &where, const std::string &what,
                          const std::vector<const ElasticValue *> &values) const;

  // ---- structure (FitBody.cpp) ------------------------------------------
  TimingStats fitTimingStats(const std::vector<const TimingStats *> &stats, const std::string &where);
  Event fitEvent(const std::vector<const Event *> &events, const std::string &path);
  std::vector<Node> fitBody(const std::vector<const std::vector<Node> *> &bodies, const std::string &path);

  // ---- read results (ComputedReads.cpp) ---------------------------------
  void classifyReads();
  void computeReadResults(Trace &out) const;

  // ---- tables (FileTable.cpp, ObjectTables.cpp) -------------------------
  void unionTables(Trace &out) const;
  std::vector<FileEntry> fitFiles() const;
  [[noreturn]] void refuseNames(const std::string &where, size_t f, const std::vector<std::string> &shown) const;
  std::map<std::string, std::string> fitStrings(const std::string &where, bool numeric, size_t i,
                                                std::vector<ObjectEntry> Trace::*table) const;
  std::optional<std::vector<Expr>> fitTableField(const std::string &where, size_t i, const std::string &name,
                                                 std::vector<ObjectEntry> Trace::*table) const;
  std::vector<ObjectEntry> fitObjects(const char *kind, std::vector<ObjectEntry> Trace::*table) const;

  std::vector<const Trace *> in_;
  std::vector<int64_t> ns_;
  std::set<int64_t> dimsGrids_;              ///< ndims of MPI_Dims_create(nranks, ndims) calls every input made
  mutable std::vector<std::string> choices_; ///< what --prefer settled (metadata "extrap_choices")
  mutable int64_t targetOverride_ = 0;       ///< fitOnLargerInputs: fit for another rank count
  mutable std::string bias_;                 ///< fitOnLargerInputs: the family taken when models disagree

  std::set<int64_t> blockLengths_;    ///< array lengths the floor/ceil values admit (ModelsDecomp.h)
  std::set<int64_t> recordedLengths_; ///< global sizes of subarray and darray types (ModelsGridBlock.h)
  /// The rank count models are evaluated for (the target, but for trial fits).
  int64_t targetN() const { return targetOverride_ ? targetOverride_ : options_.targetRanks; }
  /// Read events by path: "" when the result is computed from the file's
  /// extent, else why it cannot be extrapolated; absent: fitted as before.
  std::map<std::string, std::string> readResults_;
  std::set<std::string> computedReads_; ///< the reads whose result computeReadResults fills
  const ExtrapOptions &options_;
  size_t timingFits_ = 0;
  double worstTimingError_ = 0;
};

/// Renumbers the file tables of the inputs (sorted by rank count) to the
/// largest input's ids, matched by the calls that use them (FileTable.cpp).
void alignFiles(std::vector<Trace> &inputs);

/// Writes the values inside loops that run once at `nranks` with loop
/// index 0, as the runtime records them (OneIterationLoops.cpp).
void zeroOneIterationIndices(std::vector<Node> &nodes, uint32_t depth, int64_t nranks,
                             const std::vector<uint32_t> &once);

} // namespace sio::extrap::detail
