#include "sio/extrap/Extrapolate.h"

#include "sio/trace/Fit.h"

#include <mutex>

namespace sio::extrap {
using sio::trace::Expr;
using sio::trace::Rational;

namespace {

std::vector<ScalingModel> &userModels() {
  static std::vector<ScalingModel> models;
  return models;
}
std::mutex userModelsMutex;

} // namespace

const std::vector<ScalingModel> &builtinModels() {
  static const std::vector<ScalingModel> models = [] {
    Expr one(1), n = Expr::nranks(), inv = Expr(1) / Expr::nranks();
    return std::vector<ScalingModel>{
        {"constant", {one}},    // weak scaling
        {"k/N", {inv}},         // strong scaling
        {"k/N + b", {one, inv}},
        {"k*N", {n}},
        {"k*N + b", {one, n}},  // e.g. the last rank, N - 1
    };
  }();
  return models;
}

void registerModel(ScalingModel model) {
  std::lock_guard<std::mutex> lock(userModelsMutex);
  userModels().push_back(std::move(model));
}

std::vector<ScalingModel> allModels() {
  std::vector<ScalingModel> all = builtinModels();
  std::lock_guard<std::mutex> lock(userModelsMutex);
  all.insert(all.end(), userModels().begin(), userModels().end());
  return all;
}

std::vector<FittedModel> fitAllScaling(const std::vector<int64_t> &ranks, const std::vector<Rational> &values,
                                       std::vector<std::string> *tried) {
  std::vector<FittedModel> fitted;
  for (const ScalingModel &model : allModels()) {
    if (tried)
      tried->push_back(model.name);
    std::vector<std::vector<Rational>> rows;
    bool usable = true;
    for (int64_t n : ranks) {
      std::vector<Rational> row;
      for (const Expr &b : model.basis) {
        auto v = b.evaluateRational({0, n, {}});
        if (!v) {
          usable = false;
          break;
        }
        row.push_back(*v);
      }
      rows.push_back(std::move(row));
    }
    if (!usable)
      continue;
    auto solution = sio::trace::solveExact(rows, values);
    // Zero residual on every input, and determined by them: a model with as
    // many unknowns as samples always "fits" and proves nothing.
    if (!solution || !solution->unique || model.basis.size() >= ranks.size() + (model.basis.size() == 1 ? 1 : 0))
      continue;
    try {
      Expr e;
      for (size_t i = 0; i < model.basis.size(); ++i)
        e = e + Expr(solution->x[i]) * model.basis[i];
      fitted.push_back({model.name, std::move(e)});
    } catch (const std::exception &) {
      continue;
    }
  }
  return fitted;
}

std::optional<Expr> fitScaling(const std::vector<int64_t> &ranks, const std::vector<Rational> &values,
                               std::vector<std::string> *tried) {
  auto all = fitAllScaling(ranks, values, tried);
  if (all.empty())
    return std::nullopt;
  return all.front().formula;
}

} // namespace sio::extrap
