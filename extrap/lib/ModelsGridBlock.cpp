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

// The basis: 1, B0, B1, O0, O1, B0*B1.
constexpr int kBasis = 6;
const char *const kBasisName[kBasis] = {"1", "B0", "B1", "O0", "O1", "B0*B1"};
bool usesDim(int j, int d) { return d == 0 ? (j == 1 || j == 3 || j == 5) : (j == 2 || j == 4 || j == 5); }

// How ranks map to grid coordinates and how each dimension is split.
struct Layout {
  bool columnMajor = false; ///< c0 = rank % p0 (else c1 = rank % p1, MPI_Cart_coords' order)
  bool ceil[2] = {false, false};
  int64_t n[2] = {0, 0};
};

void coordsOf(const Layout &l, const std::vector<int64_t> &p, int64_t r, int64_t &c0, int64_t &c1) {
  if (l.columnMajor) {
    c0 = r % p[0];
    c1 = r / p[0];
  } else {
    c0 = r / p[1];
    c1 = r % p[1];
  }
}

void basisAt(const Layout &l, const std::vector<int64_t> &p, int64_t r, Rational out[kBasis]) {
  int64_t c[2];
  coordsOf(l, p, r, c[0], c[1]);
  int64_t b[2], o[2];
  for (int d = 0; d < 2; ++d) {
    b[d] = gridBlock(l.ceil[d], l.n[d], p[size_t(d)], c[d]);
    o[d] = gridOffset(l.ceil[d], l.n[d], p[size_t(d)], c[d]);
  }
  out[0] = Rational(1);
  out[1] = Rational(b[0]);
  out[2] = Rational(b[1]);
  out[3] = Rational(o[0]);
  out[4] = Rational(o[1]);
  out[5] = Rational(b[0] * b[1]);
}

struct Rows {
  std::vector<std::vector<Rational>> basis; ///< kBasis columns per rank of every input
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
    for (int j = 0; j < kBasis; ++j)
      if (mask & (1u << j))
        row.push_back(rows.basis[i][size_t(j)]);
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

std::string describe(const Layout &l, unsigned mask, const std::vector<Rational> &x) {
  std::string text;
  size_t i = 0;
  bool dim[2] = {false, false};
  for (int j = 0; j < kBasis; ++j)
    if (mask & (1u << j)) {
      const Rational &c = x[i++];
      if (c.isZero())
        continue;
      text += (text.empty() ? "" : " + ") + c.str() + (j ? std::string("*") + kBasisName[j] : "");
      dim[0] = dim[0] || usesDim(j, 0);
      dim[1] = dim[1] || usesDim(j, 1);
    }
  std::string how;
  for (int d = 0; d < 2; ++d)
    if (dim[d])
      how += (how.empty() ? "" : ", ") + std::string("B") + std::to_string(d) + "/O" + std::to_string(d) + ": " +
             std::to_string(l.n[d]) +
             (l.ceil[d] ? " in ceil(n/p) blocks, the last short" : " in n/p + (c < n % p) blocks") +
             " over p = dims(N,2)[" + std::to_string(d) + "]";
  if (dim[0] || dim[1])
    how += l.columnMajor ? "; c0 = rank % p0" : "; c1 = rank % p1";
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

} // namespace

std::vector<GridBlockFit> fitGridBlockModels(const std::vector<GridBlockSamples> &inputs,
                                             const std::set<int64_t> &recorded, const std::set<int64_t> &admitted) {
  // The lengths the program states first: a dimension that p divides at
  // every input shows n/p only, which other lengths give too (O(4)*16384 is
  // O(128)*512 at p = 2 and 4, and differs at p = 8).
  if (!recorded.empty())
    if (auto fits = fitGridBlockModels(inputs, recorded, false); !fits.empty())
      return fits;
  std::set<int64_t> all = recorded;
  all.insert(admitted.begin(), admitted.end());
  return fitGridBlockModels(inputs, all, true);
}

std::vector<GridBlockFit> fitGridBlockModels(const std::vector<GridBlockSamples> &inputs,
                                             const std::set<int64_t> &lengths, bool derive) {
  std::vector<GridBlockFit> out;
  if (inputs.size() < 3)
    return out;
  std::vector<std::vector<int64_t>> grids;
  for (const auto &in : inputs) {
    if (in.nranks < 1 || in.nranks > 4096 || in.values.size() != size_t(in.nranks))
      return out;
    grids.push_back(dimsCreate(in.nranks, 2));
  }
  std::set<int64_t> cands[2];
  for (int d = 0; d < 2; ++d) {
    cands[d] = derive ? lengthsFor(inputs, grids, d, lengths) : lengths;
    std::erase_if(cands[d], [](int64_t n) { return n < 1 || n > (int64_t(1) << 31); });
    if (cands[d].size() > 512)
      return out;
    // No length for this dimension: its columns are 0, and only models
    // without it can be unique.
    if (cands[d].empty())
      cands[d].insert(0);
  }
  // Bounded work: each (split, length) pair is one exact solve over every
  // rank of every input (a refusal must not take minutes).
  size_t rowCount = 0;
  for (const auto &in : inputs)
    rowCount += in.values.size();
  if (cands[0].size() * cands[1].size() * 8 * rowCount > 2'000'000)
    return out;
  std::map<std::string, bool> seen;
  for (bool columnMajor : {false, true})
    for (bool ceil0 : {false, true})
      for (bool ceil1 : {false, true})
        for (int64_t n0 : cands[0])
          for (int64_t n1 : cands[1]) {
            Layout l;
            l.columnMajor = columnMajor;
            l.ceil[0] = ceil0;
            l.ceil[1] = ceil1;
            l.n[0] = n0;
            l.n[1] = n1;
            Rows rows;
            for (size_t k = 0; k < inputs.size(); ++k)
              for (int64_t r = 0; r < inputs[k].nranks; ++r) {
                Rational b[kBasis];
                basisAt(l, grids[k], r, b);
                rows.basis.emplace_back(b, b + kBasis);
                rows.values.push_back(inputs[k].values[size_t(r)]);
                rows.input.push_back(k);
              }
            if (!solveOn(rows, (1u << kBasis) - 1, SIZE_MAX))
              continue; // not even the whole basis reproduces the ranks
            // The fewest basis functions that reproduce every rank, each
            // determined by every input but one (so every input checks it).
            for (int size = 1; size <= kBasis; ++size) {
              bool found = false;
              for (unsigned mask = 1; mask < (1u << kBasis); ++mask) {
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
                auto valueAt = [l, mask, x](const std::vector<int64_t> &p, int64_t r) {
                  Rational b[kBasis], v;
                  basisAt(l, p, r, b);
                  size_t i = 0;
                  for (int j = 0; j < kBasis; ++j)
                    if (mask & (1u << j))
                      v += x[i++] * b[j];
                  return v;
                };
                auto valuesAt = [valueAt](int64_t N) -> std::optional<std::vector<Rational>> {
                  if (N < 1 || N > (int64_t(1) << 22))
                    return std::nullopt;
                  const std::vector<int64_t> p = dimsCreate(N, 2);
                  std::vector<Rational> v;
                  v.reserve(size_t(N));
                  for (int64_t r = 0; r < N; ++r)
                    v.push_back(valueAt(p, r));
                  return v;
                };
                auto exprAt = [l, mask, x](int64_t N) {
                  const std::vector<int64_t> p = dimsCreate(N, 2);
                  Expr c[2];
                  const int inner = l.columnMajor ? 0 : 1;
                  c[inner] = p[size_t(inner)] > 1 ? Expr::mod(Expr::rank(), Expr(p[size_t(inner)])) : Expr(0);
                  c[1 - inner] = (Expr::rank() - c[inner]) / Expr(p[size_t(inner)]);
                  Expr b[2], o[2];
                  for (int d = 0; d < 2; ++d) {
                    std::vector<int64_t> bs, os;
                    for (int64_t k = 0; k < p[size_t(d)]; ++k) {
                      bs.push_back(gridBlock(l.ceil[d], l.n[d], p[size_t(d)], k));
                      os.push_back(gridOffset(l.ceil[d], l.n[d], p[size_t(d)], k));
                    }
                    b[d] = affineOrTable(bs, c[d]);
                    o[d] = affineOrTable(os, c[d]);
                  }
                  const Expr basis[kBasis] = {Expr(1), b[0], b[1], o[0], o[1], b[0] * b[1]};
                  Expr e;
                  size_t i = 0;
                  for (int j = 0; j < kBasis; ++j)
                    if (mask & (1u << j))
                      e = e + Expr(x[i++]) * basis[j];
                  return e;
                };
                out.push_back({name, valuesAt, exprAt});
              }
              if (found)
                break;
            }
          }
  return out;
}

} // namespace sio::extrap
