// Elastic values across rank counts: measured points, exact fits, extrapolated points.
#include "Writer.h"

#include "Svg.h"
#include "sio/trace/Fit.h"
#include <algorithm>
#include <cmath>

namespace sio::report::detail {

using namespace sio::trace;

void Writer::slots(const Trace &t, const std::vector<Node> &body,
                   std::vector<std::pair<std::string, const ElasticValue *>> &out, std::vector<std::string> &shape) {
  for (const Node &n : body) {
    if (n.isEvent()) {
      shape.push_back("e:" + n.event().op);
      for (const Param &p : n.event().params)
        out.emplace_back(n.event().op + " " + p.name + "@" + siteLocation(t, n.event().site) + "#" +
                             siteAnchor(n.event().site),
                         &p.value);
    } else {
      shape.push_back("l");
      out.emplace_back("loop iterations@" + loopLocation(t, n.loop().id) + "#" + loopAnchor(n.loop().id),
                       &n.loop().iterations);
      slots(t, n.loop().body, out, shape);
      shape.push_back("/l");
    }
  }
}

std::map<Monomial, Rational> Writer::coefficients(const ElasticValue &v, int64_t nranks) {
  std::map<Monomial, Rational> out;
  const Value *val = v.valueFor(0);
  if (!val && !v.entries().empty())
    val = &v.entries().front().value;
  const Expr *e = val ? std::get_if<Expr>(val) : nullptr;
  if (!e)
    return out;
  Expr bound = e->bindNRanks(nranks);
  for (const auto &[m, c] : bound.terms())
    out[m] = c;
  return out;
}

std::string Writer::monomialText(const Monomial &m) {
  if (m.empty())
    return "constant term";
  return "coefficient of " + Expr::ofMonomial(m).str();
}

void Writer::fits() {
  o_ << "<h2 id=\"fits\">Elastic values across rank counts</h2>\n";
  std::vector<std::vector<std::pair<std::string, const ElasticValue *>>> all;
  std::vector<std::string> shape0;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    std::vector<std::pair<std::string, const ElasticValue *>> s;
    std::vector<std::string> shape;
    slots(inputs_[i].trace, inputs_[i].trace.body, s, shape);
    if (i == 0)
      shape0 = shape;
    else if (shape != shape0) {
      o_ << "<p>The inputs differ in structure (" << esc(inputs_[i].path) << " against " << esc(inputs_[0].path)
         << "): no value-by-value comparison.</p>\n";
      return;
    }
    all.push_back(std::move(s));
  }
  o_ << "<p>Every value (parameter or loop count) that changes with the rank count, term by term: the "
        "measured inputs as points, the exact fit against <code>nranks</code> as a curve, and the "
        "extrapolated point (an input written by sio-extrap, else twice the largest measured count) as a red "
        "diamond.</p>\n";
  std::vector<int64_t> measuredN, extrapN;
  std::vector<size_t> measuredIdx, extrapIdx;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    bool extrap = inputs_[i].trace.header.generator.starts_with("sio-extrap");
    (extrap ? extrapN : measuredN).push_back(inputs_[i].trace.header.nranks);
    (extrap ? extrapIdx : measuredIdx).push_back(i);
  }
  if (measuredN.size() < 2) {
    o_ << "<p>Fewer than two measured inputs: nothing to fit.</p>\n";
    return;
  }
  const int64_t maxN = *std::max_element(measuredN.begin(), measuredN.end());
  size_t figures = 0;
  for (size_t k = 0; k < all[0].size(); ++k) {
    const std::string &key = all[0][k].first;
    // Coefficients per monomial per input.
    std::vector<std::map<Monomial, Rational>> co;
    std::set<Monomial> monos;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      co.push_back(coefficients(*all[i][k].second, inputs_[i].trace.header.nranks));
      for (const auto &[m, c] : co.back())
        monos.insert(m);
    }
    for (const Monomial &m : monos) {
      std::vector<Rational> ys;
      std::vector<std::vector<Rational>> unused;
      bool varies = false;
      for (size_t i : measuredIdx) {
        auto it = co[i].find(m);
        ys.push_back(it == co[i].end() ? Rational(0) : it->second);
        varies = varies || !(ys.back() == ys.front());
      }
      if (!varies)
        continue;
      if (figures >= opt_.maxTableRows) {
        ++figures;
        continue;
      }
      ++figures;
      std::optional<Expr> model = fitModel(measuredN, ys);
      size_t at = key.find('@'), hash = key.rfind('#');
      std::string what = key.substr(0, at), loc = key.substr(at + 1, hash - at - 1), anchor = key.substr(hash + 1);
      std::vector<svg::Point> pts, marks;
      std::vector<std::string> markLabels;
      for (size_t j = 0; j < measuredIdx.size(); ++j)
        pts.push_back({double(measuredN[j]), toD(ys[j]), 0,
                       "data-nranks=\"" + std::to_string(measuredN[j]) + "\" data-value=\"" + esc(ys[j].str()) + "\""});
      std::vector<int64_t> targets = extrapN;
      if (targets.empty())
        targets.push_back(2 * maxN);
      int64_t top = std::max(maxN, *std::max_element(targets.begin(), targets.end()));
      for (size_t j = 0; j < targets.size(); ++j) {
        std::optional<Rational> y;
        if (j < extrapIdx.size()) {
          auto it = co[extrapIdx[j]].find(m);
          y = it == co[extrapIdx[j]].end() ? Rational(0) : it->second;
        } else if (model) {
          y = model->evaluateRational({0, targets[j], {}});
        }
        if (y) {
          marks.push_back({double(targets[j]), toD(*y), 0,
                           "data-nranks=\"" + std::to_string(targets[j]) + "\" data-value=\"" + esc(y->str()) + "\""});
          markLabels.push_back(y->str() + " at " + std::to_string(targets[j]));
        }
      }
      svg::Curve curve;
      if (model) {
        const int64_t lo = *std::min_element(measuredN.begin(), measuredN.end());
        for (int s = 0; s <= 120; ++s) {
          double n = double(lo) + (double(top) - double(lo)) * s / 120.0;
          int64_t ni = std::max<int64_t>(1, std::llround(n));
          if (auto y = model->evaluateRational({0, ni, {}}))
            curve.points.emplace_back(double(ni), toD(*y));
        }
      }
      std::string title = what + ": " + monomialText(m);
      o_ << "<h3>" << esc(title) << " <a href=\"#" << esc(anchor) << "\" class=\"mono\">" << esc(loc) << "</a></h3>\n";
      o_ << "<p>fit: <code>"
         << (model ? esc(model->str())
                   : "no exact model among a+b*nranks, a+b/nranks, "
                     "a+b*nranks+c/nranks, a+b*nranks+c*nranks^2")
         << "</code></p>\n";
      svg::ScatterSpec spec{title, "ranks (nranks)", "value", false, false, 4};
      o_ << svg::scatter(spec, pts, {}, model ? std::vector<svg::Curve>{curve} : std::vector<svg::Curve>{}, marks,
                         markLabels);
    }
  }
  if (figures == 0)
    o_ << "<p>No value changes with the rank count.</p>\n";
  else if (figures > opt_.maxTableRows)
    o_ << "<p class=\"note\">" << figures - opt_.maxTableRows << " more values not drawn.</p>\n";
}

std::optional<Expr> Writer::fitModel(const std::vector<int64_t> &ns, const std::vector<Rational> &ys) {
  const Expr N = Expr::nranks(), invN = Expr(1) / Expr::nranks();
  const std::vector<std::vector<Expr>> models = {{N}, {invN}, {N, invN}, {N, N * N}};
  for (const std::vector<Expr> &vars : models) {
    if (vars.size() + 1 > ns.size() && vars.size() > 1)
      continue;
    std::vector<std::vector<Rational>> xs;
    for (int64_t n : ns) {
      std::vector<Rational> row;
      for (const Expr &v : vars)
        row.push_back(*v.evaluateRational({0, n, {}}));
      xs.push_back(row);
    }
    if (auto e = fitAffineExpr(vars, xs, ys))
      return e;
  }
  return std::nullopt;
}

} // namespace sio::report::detail
