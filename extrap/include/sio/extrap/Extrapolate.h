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

/// A model that reproduced every sample, with its coefficients solved.
struct FittedModel {
  std::string name;         ///< the model's name ("k/N + b")
  sio::trace::Expr formula; ///< in nranks
};

/// Every model (in the order tried) with zero residual that is uniquely
/// determined by the samples. Two of them can reproduce the samples and still
/// differ elsewhere: sio-extrap refuses such values (docs/extrap.md,
/// Ambiguity) unless --prefer settles them.
std::vector<FittedModel> fitAllScaling(const std::vector<int64_t> &ranks,
                                       const std::vector<sio::trace::Rational> &values,
                                       std::vector<std::string> *tried = nullptr);

/// MPI_Dims_create(nnodes, ndims, dims) with some entries of dims preset
/// (non-zero): the free entries get the most balanced grid of nnodes / the
/// product of the preset ones, in non-increasing order (MPI 4.0 §8.5.2);
/// empty when the preset entries do not divide nnodes.
std::vector<int64_t> dimsCreate(int64_t nnodes, const std::vector<int64_t> &preset);

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
  /// `--prefer MODEL[@WHERE]`, in order: when models that reproduce every
  /// input differ at the target, take the one named MODEL (a model name such
  /// as "constant" or "k/N", or a family: "scaling", "grid", "preset"),
  /// optionally only for values whose description contains WHERE. Each such
  /// choice is recorded in the output's metadata ("extrap_choices").
  std::vector<std::string> prefer;
  /// The inputs' file names, in the order given to extrapolate(): messages
  /// about an input (another program, a rank count given twice, an
  /// extrapolated trace) name its file. Empty: "input K".
  std::vector<std::string> inputNames;
};

/// Why extrapolation failed: names the event (site, source location), the
/// parameter, the values per input and the models tried.
class ExtrapError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Two admissible models reproduce every input but differ at the target:
/// names both and the smallest rank count whose trace would decide.
class AmbiguityError : public ExtrapError {
public:
  using ExtrapError::ExtrapError;
};

/// Applies `--path-map` rules (ExtrapOptions::pathMaps) to a trace's file names.
void mapPaths(sio::trace::Trace &trace, const std::vector<std::pair<std::string, std::string>> &maps);

/// Extrapolates `inputs` (any order) to `options.targetRanks`.
sio::trace::Trace extrapolate(std::vector<sio::trace::Trace> inputs, const ExtrapOptions &options);

} // namespace sio::extrap
