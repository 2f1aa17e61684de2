// Signature-guided prefetching (Byna et al. SC08 §V): the rank's read
// signature of a file (SIO_PREFETCH_SIGNATURES, sio_prefetch_signatures),
// expanded into the predictor's plan and placed by the rank rule.
#include "Interpose.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <exception>
#include <fnmatch.h>
#include <fstream>

namespace sio::prefetch::interpose {
namespace {

void note(const std::string &msg) { std::fprintf(stderr, "sio-prefetch: rank %d: %s\n", g().rank, msg.c_str()); }

std::string baseName(const std::string &p) {
  auto slash = p.rfind('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

bool nameMatches(const std::string &pattern, const std::string &path) {
  if (pattern.empty())
    return false;
  if (pattern == path || baseName(pattern) == baseName(path))
    return true;
  return fnmatch(pattern.c_str(), path.c_str(), 0) == 0 ||
         fnmatch(baseName(pattern).c_str(), baseName(path).c_str(), 0) == 0;
}

std::shared_ptr<signature::SignatureReport> loadReport(const std::string &path) {
  auto &reports = g().reports;
  auto it = reports.find(path);
  if (it != reports.end())
    return it->second;
  std::shared_ptr<signature::SignatureReport> report;
  try {
    std::ifstream in(path);
    if (!in)
      throw signature::SignatureError("cannot open the file");
    nlohmann::json j = nlohmann::json::parse(in);
    report = std::make_shared<signature::SignatureReport>(signature::reportFromJson(j));
  } catch (const std::exception &e) {
    note("signatures " + path + " not used: " + e.what() + "; learning online");
  }
  reports[path] = report;
  return report;
}

/// The rank's initial position by the group's rank rule (Byna et al. SC08
/// §V-C: the signature says where each rank starts): the listed position of
/// this rank when the trace had as many ranks, else the formula; nullopt
/// when neither applies (the first read then places the plan).
std::optional<int64_t> rankStart(const signature::SignatureReport &report, const signature::SignatureGroup &group,
                                 int rank, int nranks) {
  if (report.nranks == nranks)
    for (const auto &[r, pos] : group.initialPositions)
      if (r == rank)
        return pos;
  if (group.initialPosition)
    return group.initialPosition->evaluate(trace::ExprEnv{rank, nranks, {}});
  return std::nullopt;
}

} // namespace

void chooseSignature(FileState &f, const std::string &sigPath) {
  auto report = loadReport(sigPath);
  if (!report)
    return;
  std::vector<const signature::SignatureGroup *> phases;
  for (const auto &group : report->groups) {
    const auto &s = group.signature;
    if (s.trace.op == signature::Operation::Write || !group.ranks.contains(g().rank))
      continue;
    if (s.file < 0 || size_t(s.file) >= report->fileNames.size() ||
        !nameMatches(report->fileNames[size_t(s.file)], f.name))
      continue;
    if (!phases.empty() && (s.phases < 2 || s.file != phases.front()->signature.file))
      break; // the first stream of the file, all its phases
    phases.push_back(&group);
    if (s.phases < 2)
      break;
  }
  if (phases.empty())
    return;
  f.mode = "signature";
  if (phases.size() == 1 && phases[0]->signature.pattern.spatial == signature::Spatial::Random) {
    f.disable("random pattern signature");
    return;
  }
  std::vector<Access> plan;
  std::optional<int64_t> placed = 0;
  for (const signature::SignatureGroup *group : phases) {
    const auto &s = group->signature;
    auto part = expandSignature(s.trace);
    if (!part || part->empty())
      continue; // a phase without a plan: the predictor adjusts past it
    auto start = rankStart(*report, *group, g().rank, g().nranks);
    if (phases.size() == 1) {
      placed = start ? std::optional<int64_t>(*start - s.trace.initialPosition) : std::nullopt;
    } else if (start) {
      for (Access &a : *part)
        a.offset += *start - s.trace.initialPosition;
    } else {
      placed.reset();
    }
    plan.insert(plan.end(), part->begin(), part->end());
  }
  if (plan.empty())
    return;
  f.plan = std::move(plan);
  f.placed = placed;
  f.logicalPlan = phases.front()->signature.logicalOffsets;
  f.awaitView = !f.logicalPlan && phases.front()->signature.throughView;
  f.predictor = Predictor(f.plan, f.placed);
}

} // namespace sio::prefetch::interpose
