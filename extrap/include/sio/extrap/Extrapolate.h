// Exact extrapolation of traces to other rank counts (ScalaIOExtrap §3.2).
//
// Inputs are traces of one program at several rank counts N. Their structures
// must agree node for node; every integer in them (loop counts, coefficients
// of parameter formulas, rank-list starts/strides/counts, file-name fields,
// datatype fields) is fitted as a function of N with exact rational
// arithmetic, and a model is accepted only with zero residual on every input.
// The result keeps values as formulas in `nranks` (e.g. `960*rank/nranks`),
// so a replay program written from it runs at every rank count the models
// hold for. Timing is the one approximate part (least-squares curve fits).
#pragma once

#include "sio/trace/Trace.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace sio::extrap {

/// A model of one exact quantity as a function of the rank count: a linear
/// combination of basis functions of `nranks`, e.g. {1, 1/nranks} for
/// `k/N + b`. Models are tried in order; the first with zero residual wins.
struct ScalingModel {
  std::string name;                    ///< "k/N + b"
  std::vector<sio::trace::Expr> basis; ///< functions of nranks only
};

/// The built-in models, simplest first: constant, k/N, k/N + b, k*N, k*N + b.
const std::vector<ScalingModel> &builtinModels();

/// Adds a model, tried after the built-in ones (docs/extrap.md).
void registerModel(ScalingModel model);

/// All models in the order they are tried.
std::vector<ScalingModel> allModels();

/// Fits samples (N_k, y_k) with the first model that has zero residual and
/// is uniquely determined by the samples. Returns the formula in nranks, or
/// nullopt. `tried` (optional) receives the names of the models tried.
std::optional<sio::trace::Expr> fitScaling(const std::vector<int64_t> &ranks,
                                           const std::vector<sio::trace::Rational> &values,
                                           std::vector<std::string> *tried = nullptr);

/// The process grid MPI_Dims_create(nnodes, ndims, {0, ...}) returns (MPICH's
/// most balanced grid, largest first); empty for arguments out of range.
/// sio-extrap uses it for values that are multiples of a grid dimension when
/// the inputs recorded such a call (and only if it reproduces their results).
std::vector<int64_t> dimsCreate(int64_t nnodes, int64_t ndims);

struct ExtrapOptions {
  int64_t targetRanks = 0;
  size_t minInputs = 4; ///< distinct rank counts required
  /// Called with one line per timing fit (event, model, relative error).
  std::function<void(const std::string &)> verbose;
  /// `--path-map OLD=NEW`: file names of the inputs that start with OLD are
  /// read as starting with NEW (longest OLD first), so that traces taken in
  /// per-run directories (`/scratch/run4/out`, `/scratch/run8/out`) name the
  /// same files.
  std::vector<std::pair<std::string, std::string>> pathMaps;
};

/// Why extrapolation failed: names the event (site, source location), the
/// parameter, the values per input and the models tried.
class ExtrapError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Applies `--path-map` rules (ExtrapOptions::pathMaps) to a trace's file names.
void mapPaths(sio::trace::Trace &trace, const std::vector<std::pair<std::string, std::string>> &maps);

/// Extrapolates `inputs` (any order) to `options.targetRanks`.
sio::trace::Trace extrapolate(std::vector<sio::trace::Trace> inputs, const ExtrapOptions &options);

} // namespace sio::extrap
