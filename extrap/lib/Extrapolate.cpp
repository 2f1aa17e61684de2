// sio-extrap's entry point: the inputs checked (one program, no
// extrapolated trace, one input per rank count), sorted and their files
// aligned; the walk over them in lock step (Extrapolator::run) and its
// refusals; the output's header.
#include "Extrapolator.h"

#include "ModelsDecomp.h"

#include "sio/trace/Printable.h"

#include <algorithm>
#include <sstream>

namespace sio::extrap::detail {

namespace {

bool hasRankTiming(const std::vector<sio::trace::Node> &body) {
  for (const sio::trace::Node &n : body)
    if (n.isLoop() ? hasRankTiming(n.loop().body) : !n.event().rankTiming.empty())
      return true;
  return false;
}

} // namespace

Extrapolator::Extrapolator(std::vector<const Trace *> inputs, const ExtrapOptions &options)
    : in_(std::move(inputs)), options_(options) {
  for (const Trace *t : in_)
    ns_.push_back(t->header.nranks);
  blockLengths_ = blockLengthsOf(in_);
  recordedLengths(recordedLengths_);
}

Trace Extrapolator::run() {
  Trace out;
  const Trace &last = *in_.back();
  findDimsGrids();
  out.header = last.header;
  out.header.nranks = options_.targetRanks;
  out.header.generator = "sio-extrap";
  out.header.complete = true;
  out.header.droppedEvents = 0;
  out.header.notes.clear();
  out.header.inexact.clear();
  for (const Trace *t : in_)
    for (const std::string &why : t->header.inexact) // an input's gaps are the extrapolation's
      if (std::find(out.header.inexact.begin(), out.header.inexact.end(), why) == out.header.inexact.end())
        out.header.inexact.push_back(why);
  for (const Trace *t : in_)
    if (!t->header.complete) {
      out.header.complete = false;
      out.header.notes.push_back("input at " + std::to_string(t->header.nranks) +
                                 " ranks was incomplete; the extrapolation inherits its gaps");
    }
  std::string inputs;
  for (int64_t n : ns_)
    inputs += (inputs.empty() ? "" : ",") + std::to_string(n);
  out.header.metadata["extrapolated_from_ranks"] = inputs;

  unionTables(out);
  out.files = fitFiles();
  // The body before the object tables: a refusal then names the call
  // (MPI_Dims_create) before the datatypes built from its output.
  classifyReads();
  std::vector<const std::vector<Node> *> bodies;
  for (const Trace *t : in_)
    bodies.push_back(&t->body);
  out.body = fitBody(bodies, "body");
  out.datatypes = fitObjects("datatype", &Trace::datatypes);
  out.comms = fitObjects("comm", &Trace::comms);
  out.infos = fitObjects("info", &Trace::infos);
  if (!computedReads_.empty())
    computeReadResults(out);

  std::ostringstream timing;
  timing << timingFits_ << " timing fits, worst relative error " << worstTimingError_ * 100 << "%";
  out.header.metadata["timing_fit"] = timing.str();
  // Per-rank timing describes the input runs' own ranks: it is not
  // extrapolated (no event of the output carries rank_timing), and the
  // trace says so rather than drop it silently.
  for (const Trace *t : in_)
    if (hasRankTiming(t->body)) {
      out.header.metadata["per_rank_timing"] =
          "not extrapolated: the inputs' per-rank timing (rank_timing) describes their own ranks; every rank of "
          "this trace has the fitted statistics of its events";
      break;
    }
  if (!choices_.empty()) {
    std::string all;
    for (const std::string &c : choices_)
      all += (all.empty() ? "" : "; ") + c;
    out.header.metadata["extrap_choices"] = all;
  }
  return out;
}

std::string Extrapolator::perInput(const std::vector<std::string> &values) const {
  std::string s;
  for (size_t k = 0; k < values.size(); ++k)
    s += (k ? ", " : "") + std::string("N=") + std::to_string(ns_[k]) + ": " + values[k];
  return s;
}

[[noreturn]] void Extrapolator::refuse(const std::string &where, const std::string &what,
                                       const std::vector<std::string> &values,
                                       const std::vector<std::string> &tried) const {
  std::string msg = "cannot extrapolate " + what + " of " + where + "\n  values per input: " + perInput(values);
  if (!tried.empty()) {
    msg += "\n  models tried:";
    for (size_t i = 0; i < tried.size(); ++i)
      msg += (i ? ", " : " ") + tried[i];
  }
  throw ExtrapError(msg);
}

[[noreturn]] void Extrapolator::differ(const std::string &where, const std::string &what,
                                       const std::vector<std::string> &values) const {
  throw ExtrapError("inputs differ in structure at " + where + ": " + what + "\n  per input: " + perInput(values));
}

std::string Extrapolator::describe(const Event &e, const std::string &path) const {
  std::string s = e.op + " (" + path;
  if (const SiteInfo *site = in_.back()->site(e.site))
    s += ", " + site->file + ":" + std::to_string(site->line) + ":" + std::to_string(site->column);
  if (e.site)
    s += ", site " + formatId(e.site);
  return s + ")";
}

} // namespace sio::extrap::detail

namespace sio::extrap {

using sio::trace::echoValue;
using sio::trace::Trace;

namespace {

std::string label(const std::vector<Trace> &inputs, const std::vector<std::string> &names, size_t k) {
  return names[k] + " (N=" + std::to_string(inputs[k].header.nranks) + ")";
}

/// Refuses inputs that cannot be extrapolated together, naming the input at
/// fault by its file: an extrapolated trace (docs/extrap.md's glob
/// `app.*.sio.json` also matches the output of an earlier run), or inputs
/// of different programs (the odd ones out against the program most inputs
/// share; each input with its program when no program has a majority).
void checkInputs(const std::vector<Trace> &inputs, const std::vector<std::string> &names) {
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto &meta = inputs[k].header.metadata;
    if (auto from = meta.find("extrapolated_from_ranks"); from != meta.end())
      throw ExtrapError(names[k] + " is an extrapolated trace (sio-extrap's output at N=" +
                        std::to_string(inputs[k].header.nranks) + ", from the traces at N=" + echoValue(from->second) +
                        "), not the trace of a run: give only traced runs as inputs (a glob such as "
                        "app.*.sio.json also matches an earlier output; write it under another name)");
  }
  std::map<std::string, size_t> count;
  for (const Trace &t : inputs)
    ++count[t.header.program];
  if (count.size() <= 1)
    return;
  const std::string *majority = nullptr;
  size_t best = 0;
  bool tie = false;
  for (const auto &[program, n] : count) {
    if (n > best) {
      best = n;
      majority = &program;
      tie = false;
    } else if (n == best) {
      tie = true;
    }
  }
  std::string msg = "inputs are not all the same program:";
  if (tie) {
    for (size_t k = 0; k < inputs.size(); ++k)
      msg += (k ? ", " : " ") + label(inputs, names, k) + " is '" + echoValue(inputs[k].header.program) + "'";
    throw ExtrapError(msg);
  }
  std::string others;
  bool first = true;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].header.program == *majority) {
      others += (others.empty() ? "" : ", ") + names[k];
      continue;
    }
    msg += (first ? " " : ", ") + label(inputs, names, k) + " is '" + echoValue(inputs[k].header.program) + "'";
    first = false;
  }
  throw ExtrapError(msg + ", while the others (" + others + ") are '" + echoValue(*majority) + "'");
}

} // namespace

Trace extrapolate(std::vector<Trace> inputs, const ExtrapOptions &options) {
  if (options.targetRanks <= 0)
    throw ExtrapError("the target rank count must be positive");
  // Inputs are checked as given, each named by its file: another program, an
  // extrapolation, a rank count twice.
  std::vector<std::string> names(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k)
    names[k] = k < options.inputNames.size() ? options.inputNames[k] : "input " + std::to_string(k + 1);
  checkInputs(inputs, names);
  std::vector<size_t> order(inputs.size());
  for (size_t k = 0; k < order.size(); ++k)
    order[k] = k;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return inputs[a].header.nranks < inputs[b].header.nranks; });
  for (size_t i = 1; i < order.size(); ++i)
    if (inputs[order[i]].header.nranks == inputs[order[i - 1]].header.nranks)
      throw ExtrapError("two inputs were taken at the same rank count (" +
                        std::to_string(inputs[order[i]].header.nranks) + "): " + names[order[i - 1]] + " and " +
                        names[order[i]] + "; each input must come from a different rank count");
  std::vector<Trace> sorted;
  sorted.reserve(inputs.size());
  for (size_t k : order)
    sorted.push_back(std::move(inputs[k]));
  inputs = std::move(sorted);
  if (inputs.size() < options.minInputs)
    throw ExtrapError("need traces at " + std::to_string(options.minInputs) + " different rank counts, got " +
                      std::to_string(inputs.size()) + " (the models are verified on the inputs they do not need)");
  for (Trace &t : inputs)
    mapPaths(t, options.pathMaps);
  detail::alignFiles(inputs);
  std::vector<const Trace *> ptrs;
  for (const Trace &t : inputs)
    ptrs.push_back(&t);
  Trace out = detail::Extrapolator(std::move(ptrs), options).run();
  detail::zeroOneIterationIndices(out.body, 0, options.targetRanks, {});
  return out;
}

} // namespace sio::extrap
