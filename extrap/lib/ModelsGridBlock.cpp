#include "ModelsGridBlock.h"

#include "sio/extrap/Extrapolate.h"
#include "sio/trace/Fit.h"

#include <algorithm>
#include <map>

namespace sio::extrap {
using sio::trace::Expr;
using sio::trace::Rational;

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

int64_t gridBlock(bool ceilSplit, int64_t n, int64_t p, int64_t c) {
  if (!ceilSplit)
    return n / p + (c < n % p);
  const int64_t b = ceilDiv(n, p);
  return std::min(b, std::max<int64_t>(0, n - c * b));
}

int64_t gridOffset(bool ceilSplit, int64_t n, int64_t p, int64_t c) {
  if (!ceilSplit)
    return c * (n / p) + std::min(c, n % p);
  return std::min(c * ceilDiv(n, p), n);
}

namespace {

// The basis for a grid of nd dimensions (2 or 3): 1, B0..B(nd-1),
// O0..O(nd-1) and the product of the blocks (a rank's count). For nd = 2:
// 1, B0, B1, O0, O1, B0*B1. With coordinates only (no array length): 1,
// C0..C(nd-1), the coordinates themselves (a weak-scaling subarray's starts
// 8*c_k, whose global array grows with the grid).
constexpr int kMaxDims = 3;
constexpr int kMaxBasis = 2 * kMaxDims + 2;
int basisSize(int nd, bool coordsOnly) { return coordsOnly ? nd + 1 : 2 * nd + 2; }
std::string basisName(int nd, bool coordsOnly, int j) {
  if (j == 0)
    return "1";
  if (coordsOnly)
    return "C" + std::to_string(j - 1);
  if (j <= nd)
    return "B" + std::to_string(j - 1);
  if (j <= 2 * nd)
    return "O" + std::to_string(j - 1 - nd);
  std::string s;
  for (int d = 0; d < nd; ++d)
    s += (d ? "*B" : "B") + std::to_string(d);
  return s;
}
bool usesDim(int nd, bool coordsOnly, int j, int d) {
  return j == 1 + d || (!coordsOnly && (j == 1 + nd + d || j == 2 * nd + 1));
}

// How ranks map to grid coordinates and how each dimension is split.
struct Layout {
  int nd = 2;
  /// c0 = rank % p0, the first coordinate fastest (else the last,
  /// MPI_Cart_coords' row-major order: c(nd-1) = rank % p(nd-1)).
  bool columnMajor = false;
  bool coordsOnly = false; ///< the basis 1, C0..C(nd-1): no lengths, no splits
  bool ceil[kMaxDims] = {false, false, false};
  int64_t n[kMaxDims] = {0, 0, 0};
};

void coordsOf(const Layout &l, const std::vector<int64_t> &p, int64_t r, int64_t c[kMaxDims]) {
  for (int i = 0; i < l.nd; ++i) {
    const int d = l.columnMajor ? i : l.nd - 1 - i;
    c[d] = r % p[size_t(d)];
    r /= p[size_t(d)];
  }
}

void basisAt(const Layout &l, const std::vector<int64_t> &p, int64_t r, Rational out[kMaxBasis]) {
  int64_t c[kMaxDims];
  coordsOf(l, p, r, c);
  int64_t product = 1;
  out[0] = Rational(1);
  if (l.coordsOnly) {
    for (int d = 0; d < l.nd; ++d)
      out[1 + d] = Rational(c[d]);
    return;
  }
  for (int d = 0; d < l.nd; ++d) {
    const int64_t b = gridBlock(l.ceil[d], l.n[d], p[size_t(d)], c[d]);
    out[1 + d] = Rational(b);
    out[1 + l.nd + d] = Rational(gridOffset(l.ceil[d], l.n[d], p[size_t(d)], c[d]));
    product *= b;
  }
  out[2 * l.nd + 1] = Rational(product);
}

struct Rows {
  std::vector<std::vector<Rational>> basis; ///< basisSize columns per rank of every input
  std::vector<Rational> values;
  std::vector<size_t> input; ///< the input of each row
};

// Solves for the columns in `mask`, on the rows of every input but `skip`.
std::optional<sio::trace::LinearSolution> solveOn(const Rows &rows, unsigned mask, size_t skip) {
  std::vector<std::vector<Rational>> a;
  std::vector<Rational> b;
  for (size_t i = 0; i < rows.values.size(); ++i) {
    if (rows.input[i] == skip)
      continue;
    std::vector<Rational> row;
    for (size_t j = 0; j < rows.basis[i].size(); ++j)
      if (mask & (1u << j))
        row.push_back(rows.basis[i][j]);
    a.push_back(std::move(row));
    b.push_back(rows.values[i]);
  }
  try {
    return sio::trace::solveExact(std::move(a), std::move(b));
  } catch (const std::exception &) {
    return std::nullopt;
  }
}

Expr affineOrTable(const std::vector<int64_t> &v, const Expr &index) {
  bool affine = true;
  for (size_t c = 2; c < v.size() && affine; ++c)
    affine = v[c] - v[c - 1] == v[1] - v[0];
  if (v.size() < 2)
    return Expr(v.empty() ? 0 : v[0]);
  if (affine)
    return Expr(v[0]) + Expr(v[1] - v[0]) * index;
  return Expr::table(v, index);
}

// How the coordinates follow from the rank, for the model's name: "c1 =
// rank % p1" (2-d, row-major), "c2 = rank % p2, c1 = rank / p2 % p1" (3-d).
std::string coordinateText(const Layout &l) {
  const int fast = l.columnMajor ? 0 : l.nd - 1, next = l.columnMajor ? 1 : l.nd - 2;
  const std::string f = std::to_string(fast), x = std::to_string(next);
  std::string s = "c" + f + " = rank % p" + f;
  if (l.nd > 2)
    s += ", c" + x + " = rank / p" + f + " % p" + x;
  return s;
}

std::string describe(const Layout &l, unsigned mask, const std::vector<Rational> &x) {
  std::string text;
  size_t i = 0;
  bool dim[kMaxDims] = {false, false, false};
  for (int j = 0; j < basisSize(l.nd, l.coordsOnly); ++j)
    if (mask & (1u << j)) {
      const Rational &c = x[i++];
      if (c.isZero())
        continue;
      text += (text.empty() ? "" : " + ") + c.str() + (j ? "*" + basisName(l.nd, l.coordsOnly, j) : std::string());
      for (int d = 0; d < l.nd; ++d)
        dim[d] = dim[d] || usesDim(l.nd, l.coordsOnly, j, d);
    }
  std::string how;
  bool any = false;
  for (int d = 0; d < l.nd; ++d)
    if (dim[d] && l.coordsOnly) {
      any = true;
      how += (how.empty() ? "" : ", ") + std::string("C") + std::to_string(d) + " = c" + std::to_string(d) +
             " over p = dims(N," + std::to_string(l.nd) + ")[" + std::to_string(d) + "]";
    } else if (dim[d]) {
      any = true;
      how += (how.empty() ? "" : ", ") + std::string("B") + std::to_string(d) + "/O" + std::to_string(d) + ": " +
             std::to_string(l.n[d]) +
             (l.ceil[d] ? " in ceil(n/p) blocks, the last short" : " in n/p + (c < n % p) blocks") +
             " over p = dims(N," + std::to_string(l.nd) + ")[" + std::to_string(d) + "]";
    }
  if (any)
    how += "; " + coordinateText(l);
  return (text.empty() ? "0" : text) + (how.empty() ? "" : " (" + how + ")");
}

// Candidate lengths for dimension d: `lengths`, and the n whose first block,
// ceil(n/p) for both splits, is rank 0's value at every input (a value that
// is one dimension's block). Not a multiple of it: where p divides n at every
// input, c*B(n) and B(c*n) agree there and differ where p stops dividing n
// (32*B(4) and B(128) at p = 8), so a factor would make every such value
// ambiguous; the lengths the trace records (a subarray's sizes) decide.
std::set<int64_t> lengthsFor(const std::vector<GridBlockSamples> &inputs,
                             const std::vector<std::vector<int64_t>> &grids, int d, const std::set<int64_t> &lengths) {
  std::set<int64_t> out(lengths.begin(), lengths.end());
  int64_t lo = 1, hi = INT64_MAX / 4;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const auto &in = inputs[k];
    if (in.values.empty() || !in.values[0].isInteger() || in.values[0].num() <= 0)
      return out;
    const int64_t u = in.values[0].num(), p = grids[k][size_t(d)];
    if (u > INT64_MAX / 8 / p)
      return out;
    lo = std::max(lo, (u - 1) * p + 1);
    hi = std::min(hi, u * p);
  }
  if (lo <= hi && hi - lo < 64)
    for (int64_t n = lo; n <= hi; ++n)
      out.insert(n);
  return out;
}

// Coordinate d of the rank in the target's grid p, as a formula of rank
// with moduli only: (rank % (s*p_d) - rank % s) / s, with s the product of
// the dimensions that vary faster.
Expr coordinateExpr(const Layout &l, const std::vector<int64_t> &p, int d) {
  int64_t inner = 1;
  for (int j = 0; j < l.nd; ++j)
    if (l.columnMajor ? j < d : j > d)
      inner *= p[size_t(j)];
  int64_t total = 1;
  for (int64_t x : p)
    total *= x;
  auto modulo = [&](int64_t m) {
    if (m == 1)
      return Expr(0);
    return m >= total ? Expr::rank() : Expr::mod(Expr::rank(), Expr(m));
  };
  return (modulo(inner * p[size_t(d)]) - modulo(inner)) / Expr(inner);
}

} // namespace

std::vector<GridBlockFit> fitGridBlockModels(const std::vector<GridBlockSamples> &inputs,
                                             const std::set<int64_t> &recorded, const std::set<int64_t> &admitted,
                                             int ndims) {
  // The lengths the program states first: a dimension that p divides at
  // every input shows n/p only, which other lengths give too (O(4)*16384 is
  // O(128)*512 at p = 2 and 4, and differs at p = 8).
  if (!recorded.empty())
    if (auto fits = fitGridBlockModels(inputs, recorded, false, ndims); !fits.empty())
      return fits;
  std::set<int64_t> all = recorded;
  all.insert(admitted.begin(), admitted.end());
  return fitGridBlockModels(inputs, all, true, ndims);
}

std::vector<GridBlockFit> fitGridBlockModels(const std::vector<GridBlockSamples> &inputs,
                                             const std::set<int64_t> &lengths, bool derive, int ndims) {
  std::vector<GridBlockFit> out;
  if (inputs.size() < 3 || ndims < 2 || ndims > kMaxDims)
    return out;
  const int nd = ndims, nb = basisSize(nd, false);
  std::vector<std::vector<int64_t>> grids;
  for (const auto &in : inputs) {
    if (in.nranks < 1 || in.nranks > 4096 || in.values.size() != size_t(in.nranks))
      return out;
    grids.push_back(dimsCreate(in.nranks, nd));
  }
  auto cands = std::vector<std::vector<int64_t>>(size_t(nd));
  size_t combinations = 1;
  for (int d = 0; d < nd; ++d) {
    std::set<int64_t> c = derive ? lengthsFor(inputs, grids, d, lengths) : lengths;
    std::erase_if(c, [](int64_t n) { return n < 1 || n > (int64_t(1) << 31); });
    if (c.size() > 512)
      return out;
    // No length for this dimension: its columns are 0, and only models
    // without it can be unique.
    if (c.empty())
      c.insert(0);
    cands[size_t(d)].assign(c.begin(), c.end());
    combinations *= c.size();
  }
  std::map<std::string, bool> seen;
  auto tryLayout = [&](const Layout &l) {
    const int nb = basisSize(nd, l.coordsOnly);
    Rows rows;
    for (size_t k = 0; k < inputs.size(); ++k)
      for (int64_t r = 0; r < inputs[k].nranks; ++r) {
        Rational b[kMaxBasis];
        basisAt(l, grids[k], r, b);
        rows.basis.emplace_back(b, b + nb);
        rows.values.push_back(inputs[k].values[size_t(r)]);
        rows.input.push_back(k);
      }
    if (!solveOn(rows, (1u << nb) - 1, SIZE_MAX))
      return; // not even the whole basis reproduces the ranks
    // The fewest basis functions that reproduce every rank, each
    // determined by every input but one (so every input checks it).
    for (int size = 1; size <= nb; ++size) {
      bool found = false;
      for (unsigned mask = 1; mask < (1u << nb); ++mask) {
        if (__builtin_popcount(mask) != size)
          continue;
        auto all = solveOn(rows, mask, SIZE_MAX);
        if (!all || !all->unique)
          continue;
        bool checked = true;
        for (size_t k = 0; k < inputs.size() && checked; ++k) {
          auto without = solveOn(rows, mask, k);
          checked = without && without->unique;
        }
        if (!checked)
          continue;
        found = true;
        const std::vector<Rational> x = all->x;
        const std::string name = describe(l, mask, x);
        if (seen[name])
          continue;
        seen[name] = true;
        auto valueAt = [l, mask, x, nb](const std::vector<int64_t> &p, int64_t r) {
          Rational b[kMaxBasis], v;
          basisAt(l, p, r, b);
          size_t i = 0;
          for (int j = 0; j < nb; ++j)
            if (mask & (1u << j))
              v += x[i++] * b[j];
          return v;
        };
        auto valuesAt = [valueAt, nd](int64_t N) -> std::optional<std::vector<Rational>> {
          if (N < 1 || N > (int64_t(1) << 22))
            return std::nullopt;
          const std::vector<int64_t> p = dimsCreate(N, nd);
          std::vector<Rational> v;
          v.reserve(size_t(N));
          for (int64_t r = 0; r < N; ++r)
            v.push_back(valueAt(p, r));
          return v;
        };
        auto exprAt = [l, mask, x, nb](int64_t N) {
          const std::vector<int64_t> p = dimsCreate(N, l.nd);
          Expr basis[kMaxBasis];
          basis[0] = Expr(1);
          Expr product(1);
          for (int d = 0; d < l.nd; ++d) {
            const Expr c = coordinateExpr(l, p, d);
            if (l.coordsOnly) {
              basis[1 + d] = c;
              continue;
            }
            std::vector<int64_t> bs, os;
            for (int64_t k = 0; k < p[size_t(d)]; ++k) {
              bs.push_back(gridBlock(l.ceil[d], l.n[d], p[size_t(d)], k));
              os.push_back(gridOffset(l.ceil[d], l.n[d], p[size_t(d)], k));
            }
            basis[1 + d] = affineOrTable(bs, c);
            basis[1 + l.nd + d] = affineOrTable(os, c);
            product = product * basis[1 + d];
          }
          if (!l.coordsOnly)
            basis[2 * l.nd + 1] = product;
          Expr e;
          size_t i = 0;
          for (int j = 0; j < nb; ++j)
            if (mask & (1u << j))
              e = e + Expr(x[i++]) * basis[j];
          return e;
        };
        out.push_back({name, valuesAt, exprAt, nd});
      }
      if (found)
        break;
    }
  };
  // The coordinates themselves, in 3-d only (a 2-d coordinate has one
  // period and is fitted before this model, fitGridCoordinates), and only
  // when no block of the lengths the trace records fits: 24*c2 is O2 of 48
  // at every input whose p2 is 1 or 2, and they differ at p2 = 4; the
  // subarray's recorded 48 decides, as for c/dims(N,d)[k] above.
  if (nd == 3 && derive)
    for (bool columnMajor : {false, true}) {
      Layout l;
      l.nd = nd;
      l.columnMajor = columnMajor;
      l.coordsOnly = true;
      tryLayout(l);
    }
  // Bounded work: each (order, splits, lengths) is one exact solve over
  // every rank of every input (a refusal must not take minutes).
  size_t rowCount = 0;
  for (const auto &in : inputs)
    rowCount += in.values.size();
  if (combinations * (size_t(2) << nd) * rowCount * size_t(nb) / 6 > 2'000'000)
    return out;
  for (bool columnMajor : {false, true})
    for (unsigned splits = 0; splits < (1u << nd); ++splits)
      for (size_t pick = 0; pick < combinations; ++pick) {
        Layout l;
        l.nd = nd;
        l.columnMajor = columnMajor;
        size_t rest = pick;
        for (int d = 0; d < nd; ++d) {
          l.ceil[d] = splits & (1u << d);
          l.n[d] = cands[size_t(d)][rest % cands[size_t(d)].size()];
          rest /= cands[size_t(d)].size();
        }
        tryLayout(l);
      }
  return out;
}

} // namespace sio::extrap
