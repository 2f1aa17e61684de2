// Every rank's streams, classified, and ranks grouped by signature: ranks
// whose signatures differ only by where they start share one entry, with the
// initial position as a function of rank when an affine one fits exactly
// (`5308416*rank`), as Byna et al. SC08 §VI reports IOR's.
#include "sio/signature/Signature.h"

#include "sio/trace/Fit.h"

#include <nlohmann/json.hpp>

#include <map>

namespace sio::signature {

nlohmann::json streamToJson(const StreamSignature &sig); // Format.cpp

namespace {

std::string groupKey(StreamSignature sig) {
  sig.trace.initialPosition = 0;
  return streamToJson(sig).dump();
}

} // namespace

SignatureReport analyze(const trace::Trace &trace, const Options &options) {
  SignatureReport report;
  report.program = trace.header.program;
  report.nranks = trace.header.nranks;
  report.pageSize = options.pageSize;
  for (const trace::FileEntry &f : trace.files) {
    if (f.id < 0 || f.id > 1'000'000)
      continue;
    if (report.fileNames.size() <= size_t(f.id))
      report.fileNames.resize(size_t(f.id) + 1);
    report.fileNames[size_t(f.id)] = f.formatStr();
  }
  if (options.pageSize <= 0)
    throw SignatureError("page size must be positive");
  if (options.rank && (*options.rank < 0 || *options.rank >= trace.header.nranks))
    throw SignatureError("rank " + std::to_string(*options.rank) + " is not in the trace (it has " +
                         std::to_string(trace.header.nranks) + " ranks)");
  if (!trace.header.complete)
    report.notes.push_back("the trace is incomplete (the runtime dropped events): signatures describe what was kept");

  std::map<std::string, size_t> groupOf;
  std::vector<std::vector<int64_t>> groupRanks;
  const int64_t first = options.rank.value_or(0);
  const int64_t last = options.rank ? *options.rank + 1 : trace.header.nranks;
  bool logical = false, unknown = false, truncated = false;
  for (int64_t rank = first; rank < last; ++rank) {
    for (const AccessStream &stream : extractStreams(trace, rank, options)) {
      StreamSignature sig = detect(stream, options);
      logical = logical || sig.logicalOffsets;
      unknown = unknown || sig.unknownPositions;
      truncated = truncated || sig.truncated;
      if (sig.accesses == 0)
        continue;
      const std::string key = groupKey(sig);
      auto [it, fresh] = groupOf.emplace(key, report.groups.size());
      if (fresh) {
        SignatureGroup g;
        g.signature = sig;
        report.groups.push_back(std::move(g));
        groupRanks.emplace_back();
      }
      SignatureGroup &g = report.groups[it->second];
      g.initialPositions.emplace_back(rank, sig.trace.initialPosition);
      groupRanks[it->second].push_back(rank);
    }
  }
  if (report.groups.empty()) {
    std::string what = options.ops == OpFilter::Read ? "reads" : options.ops == OpFilter::Write ? "writes" : "reads or writes";
    std::string where = options.rank ? " of rank " + std::to_string(*options.rank) : "";
    throw SignatureError("the trace has no " + what + where + " whose file positions are known");
  }
  for (size_t i = 0; i < report.groups.size(); ++i) {
    SignatureGroup &g = report.groups[i];
    g.ranks = trace::RankList::fromRanks(groupRanks[i]);
    std::vector<std::vector<trace::Rational>> xs;
    std::vector<trace::Rational> ys;
    for (const auto &[rank, pos] : g.initialPositions) {
      xs.push_back({trace::Rational(rank)});
      ys.push_back(trace::Rational(pos));
    }
    if (g.initialPositions.size() == 1)
      g.initialPosition = trace::Expr(g.initialPositions[0].second);
    else if (auto e = trace::fitAffineExpr({trace::Expr::rank()}, xs, ys)) {
      // A fit through rationals may not give integers off the sampled ranks;
      // keep it only if it has integer coefficients.
      bool integral = true;
      for (const auto &[mono, coef] : e->terms())
        integral = integral && coef.isInteger();
      if (integral)
        g.initialPosition = *e;
    }
  }
  if (logical)
    report.notes.push_back("some files are accessed through non-contiguous MPI-IO views: their offsets are the "
                           "views' logical byte positions (disp + offset * etype size)");
  if (unknown)
    report.notes.push_back("some accesses had no reconstructible position (seek from the end, handle opened "
                           "before tracing, unevaluable value) and are left out");
  if (truncated)
    report.notes.push_back("some streams were longer than the analysis limit; their prefix is described");
  return report;
}

} // namespace sio::signature
