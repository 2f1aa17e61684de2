#include "sio/trace/Expr.h"
#include "sio/trace/Printable.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <stdexcept>

namespace sio::trace {

// ---------------------------------------------------------------- atoms

namespace {

int kindRank(Atom::Kind k) { return static_cast<int>(k); }

int compareExpr(const Expr &a, const Expr &b) {
  if (a < b)
    return -1;
  if (b < a)
    return 1;
  return 0;
}

int compareAtoms(const Atom &a, const Atom &b) {
  if (a.kind != b.kind)
    return kindRank(a.kind) < kindRank(b.kind) ? -1 : 1;
  switch (a.kind) {
  case Atom::Kind::Rank:
  case Atom::Kind::NRanks:
    return 0;
  case Atom::Kind::Loop:
    return a.loopDepth == b.loopDepth ? 0 : (a.loopDepth < b.loopDepth ? -1 : 1);
  case Atom::Kind::Mod:
    if (int c = compareExpr(*a.lhs, *b.lhs))
      return c;
    return compareExpr(*a.rhs, *b.rhs);
  case Atom::Kind::Table:
    if (a.table != b.table && *a.table != *b.table)
      return *a.table < *b.table ? -1 : 1;
    return compareExpr(*a.rhs, *b.rhs);
  }
  return 0;
}

Monomial multiply(const Monomial &a, const Monomial &b) {
  Monomial out;
  out.reserve(a.size() + b.size());
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    int c = i == a.size() ? 1 : j == b.size() ? -1 : compareAtoms(a[i].first, b[j].first);
    if (c < 0) {
      out.push_back(a[i++]);
    } else if (c > 0) {
      out.push_back(b[j++]);
    } else {
      int32_t e = a[i].second + b[j].second;
      if (e != 0)
        out.emplace_back(a[i].first, e);
      ++i;
      ++j;
    }
  }
  return out;
}

} // namespace

bool operator==(const Atom &a, const Atom &b) { return compareAtoms(a, b) == 0; }
bool operator<(const Atom &a, const Atom &b) { return compareAtoms(a, b) < 0; }

// ---------------------------------------------------------------- construction

Expr::Expr(int64_t value) {
  if (value != 0)
    terms_.emplace(Monomial{}, Rational(value));
}

Expr::Expr(const Rational &value) {
  if (!value.isZero())
    terms_.emplace(Monomial{}, value);
}

Expr Expr::fromAtom(Atom atom) {
  Expr e;
  e.terms_.emplace(Monomial{{std::move(atom), 1}}, Rational(1));
  return e;
}

Expr Expr::ofMonomial(const Monomial &monomial, const Rational &coefficient) {
  Expr e;
  e.addTerm(monomial, coefficient);
  return e;
}

Expr Expr::rank() { return fromAtom(Atom::rank()); }
Expr Expr::nranks() { return fromAtom(Atom::nranks()); }
Expr Expr::loopIndex(uint32_t depth) { return fromAtom(Atom::loop(depth)); }

Expr Expr::mod(const Expr &lhs, const Expr &rhs) {
  auto l = lhs.constantValue(), r = rhs.constantValue();
  if (l && r) {
    if (*r == 0)
      throw std::invalid_argument("modulo by zero");
    if (*r == -1) // INT64_MIN % -1 traps on x86
      return Expr(0);
    return Expr(*l % *r);
  }
  if (lhs.isConstant() && lhs.terms_.empty())
    return Expr(0);
  Atom a;
  a.kind = Atom::Kind::Mod;
  a.lhs = std::make_shared<const Expr>(lhs);
  a.rhs = std::make_shared<const Expr>(rhs);
  return fromAtom(std::move(a));
}

Expr Expr::table(std::vector<int64_t> values, const Expr &index) {
  if (values.empty())
    throw std::invalid_argument("empty table");
  return table(IntColumn(values), index);
}

Expr Expr::table(IntColumn values, const Expr &index) {
  if (values.empty())
    throw std::invalid_argument("empty table");
  if (values.min() == values.max())
    return Expr(values.min());
  if (auto i = index.constantValue()) {
    if (*i < 0 || *i >= static_cast<int64_t>(values.size()))
      throw std::invalid_argument("table index out of range");
    return Expr(values.at(static_cast<size_t>(*i)));
  }
  Atom a;
  a.kind = Atom::Kind::Table;
  a.table = std::make_shared<const IntColumn>(std::move(values));
  a.rhs = std::make_shared<const Expr>(index);
  return fromAtom(std::move(a));
}

void Expr::addTerm(const Monomial &m, const Rational &c) {
  if (c.isZero())
    return;
  auto [it, inserted] = terms_.try_emplace(m, c);
  if (!inserted) {
    it->second += c;
    if (it->second.isZero())
      terms_.erase(it);
  }
}

Expr operator+(const Expr &a, const Expr &b) {
  Expr r = a;
  for (const auto &[m, c] : b.terms_)
    r.addTerm(m, c);
  return r;
}

Expr Expr::operator-() const {
  Expr r;
  for (const auto &[m, c] : terms_)
    r.terms_.emplace(m, -c);
  return r;
}

Expr operator-(const Expr &a, const Expr &b) { return a + (-b); }

Expr operator*(const Expr &a, const Expr &b) {
  // Products of sums multiply term counts; a trace never needs many terms, and
  // a hostile formula must not take unbounded time or memory.
  constexpr size_t kMaxTerms = 4096;
  if (a.terms_.size() * b.terms_.size() > kMaxTerms)
    throw ArithmeticOverflow();
  Expr r;
  for (const auto &[ma, ca] : a.terms_)
    for (const auto &[mb, cb] : b.terms_)
      r.addTerm(multiply(ma, mb), ca * cb);
  return r;
}

Expr operator/(const Expr &a, const Expr &b) {
  if (b.terms_.size() != 1)
    throw std::invalid_argument("division by '" + echoValue(b.str()) +
                                "': only constants and monomials in nranks may divide");
  const auto &[m, c] = *b.terms_.begin();
  for (const auto &[atom, exp] : m)
    if (atom.kind != Atom::Kind::NRanks)
      throw std::invalid_argument("division by '" + echoValue(b.str()) +
                                  "': only constants and monomials in nranks may divide");
  Expr inverse;
  Monomial inv;
  for (const auto &[atom, exp] : m)
    inv.emplace_back(atom, -exp);
  inverse.terms_.emplace(inv, Rational(1) / c);
  return a * inverse;
}

// ---------------------------------------------------------------- queries

bool Expr::isConstant() const { return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty()); }

std::optional<int64_t> Expr::constantValue() const {
  if (terms_.empty())
    return 0;
  if (!isConstant())
    return std::nullopt;
  return terms_.begin()->second.asInteger();
}

namespace {

template <typename Pred> bool anyAtom(const Expr &e, Pred pred) {
  for (const auto &[m, c] : e.terms())
    for (const auto &[atom, exp] : m) {
      if (pred(atom))
        return true;
      if (atom.lhs && anyAtom(*atom.lhs, pred))
        return true;
      if (atom.rhs && anyAtom(*atom.rhs, pred))
        return true;
    }
  return false;
}

} // namespace

bool Expr::dependsOnRank() const {
  return anyAtom(*this, [](const Atom &a) { return a.kind == Atom::Kind::Rank; });
}

bool Expr::dependsOnNRanks() const {
  return anyAtom(*this, [](const Atom &a) { return a.kind == Atom::Kind::NRanks; });
}

uint32_t Expr::loopDepthUsed() const {
  uint32_t depth = 0;
  anyAtom(*this, [&](const Atom &a) {
    if (a.kind == Atom::Kind::Loop)
      depth = std::max(depth, a.loopDepth + 1);
    return false;
  });
  return depth;
}

// ---------------------------------------------------------------- evaluation

namespace {

std::optional<Rational> evalAtom(const Atom &atom, const ExprEnv &env) {
  switch (atom.kind) {
  case Atom::Kind::Rank:
    return Rational(env.rank);
  case Atom::Kind::NRanks:
    return Rational(env.nranks);
  case Atom::Kind::Loop:
    if (atom.loopDepth >= env.loopIndices.size())
      return std::nullopt;
    return Rational(env.loopIndices[atom.loopDepth]);
  case Atom::Kind::Mod: {
    auto l = atom.lhs->evaluate(env), r = atom.rhs->evaluate(env);
    if (!l || !r || *r == 0)
      return std::nullopt;
    if (*r == -1) // INT64_MIN % -1 traps on x86
      return Rational(0);
    return Rational(*l % *r);
  }
  case Atom::Kind::Table: {
    auto i = atom.rhs->evaluate(env);
    if (!i || *i < 0 || *i >= static_cast<int64_t>(atom.table->size()))
      return std::nullopt;
    return Rational(atom.table->at(static_cast<size_t>(*i)));
  }
  }
  return std::nullopt;
}

} // namespace

std::optional<Rational> Expr::evaluateRational(const ExprEnv &env) const {
  try {
    Rational sum;
    for (const auto &[m, c] : terms_) {
      Rational term = c;
      for (const auto &[atom, exp] : m) {
        auto v = evalAtom(atom, env);
        if (!v)
          return std::nullopt;
        if (exp < 0 && v->isZero())
          return std::nullopt;
        for (int32_t k = 0; k < (exp < 0 ? -exp : exp); ++k)
          term = exp < 0 ? term / *v : term * *v;
      }
      sum += term;
    }
    return sum;
  } catch (const std::exception &) { // overflow or division by zero
    return std::nullopt;
  }
}

std::optional<int64_t> Expr::evaluate(const ExprEnv &env) const {
  auto r = evaluateRational(env);
  if (!r)
    return std::nullopt;
  return r->asInteger();
}

Expr Expr::bindNRanks(int64_t n) const {
  if (!dependsOnNRanks())
    return *this;
  Expr result;
  for (const auto &[m, c] : terms_) {
    Expr term(c);
    for (const auto &[atom, exp] : m) {
      Expr base;
      switch (atom.kind) {
      case Atom::Kind::NRanks:
        base = Expr(n);
        break;
      case Atom::Kind::Mod:
        base = mod(atom.lhs->bindNRanks(n), atom.rhs->bindNRanks(n));
        break;
      case Atom::Kind::Table:
        base = table(*atom.table, atom.rhs->bindNRanks(n));
        break;
      default:
        base = fromAtom(atom);
        break;
      }
      for (int32_t k = 0; k < (exp < 0 ? -exp : exp); ++k)
        term = exp < 0 ? term / base : term * base;
    }
    result = result + term;
  }
  return result;
}

// ---------------------------------------------------------------- printing

namespace {

/// Where the text of a formula goes: `text`, except that packed tables go
/// straight to `sink` (after the text before them) when there is one, so
/// that a table of millions of values is never held as text.
struct Printer {
  std::string text;
  const std::function<void(std::string_view)> *sink = nullptr;

  void table(const IntColumn &column) {
    if (!sink) {
      column.writePackedText([&](std::string_view piece) { text += piece; });
      return;
    }
    if (!text.empty())
      (*sink)(text);
    text.clear();
    column.writePackedText(*sink);
  }
};

void printExpr(const Expr &e, bool pack, Printer &out);

void printAtom(const Atom &atom, bool pack, Printer &out) {
  switch (atom.kind) {
  case Atom::Kind::Rank:
    out.text += "rank";
    return;
  case Atom::Kind::NRanks:
    out.text += "nranks";
    return;
  case Atom::Kind::Loop:
    out.text += "i" + std::to_string(atom.loopDepth);
    return;
  case Atom::Kind::Mod: {
    auto side = [&](const Expr &e) {
      const bool parens =
          e.terms().size() > 1 || (e.terms().size() == 1 && !e.isConstant() &&
                                   (e.terms().begin()->second != Rational(1) || e.terms().begin()->first.size() > 1));
      out.text += parens ? "(" : "";
      printExpr(e, pack, out);
      out.text += parens ? ")" : "";
    };
    out.text += "(";
    side(*atom.lhs);
    out.text += " % ";
    side(*atom.rhs);
    out.text += ")";
    return;
  }
  case Atom::Kind::Table: {
    out.text += "[";
    if (pack && atom.table->size() >= Expr::kPackedTableMin) {
      out.text += "#" + std::to_string(atom.table->size()) + ":";
      out.table(*atom.table);
    } else {
      bool first = true;
      atom.table->forEach([&](int64_t v) {
        if (!first)
          out.text += ", ";
        first = false;
        out.text += std::to_string(v);
      });
    }
    out.text += "][";
    printExpr(*atom.rhs, pack, out);
    out.text += "]";
    return;
  }
  }
  out.text += "?";
}

// One term without its sign: "240*rank", "960*rank/nranks", "3/2", "rank/(2*nranks)".
void printTerm(const Monomial &m, const Rational &absCoef, bool pack, Printer &out) {
  struct Factor { // a number or an atom
    std::string number;
    const Atom *atom = nullptr;
  };
  std::vector<Factor> num, den;
  if (absCoef.num() != 1 || m.empty())
    num.push_back({std::to_string(absCoef.num())});
  if (absCoef.den() != 1)
    den.push_back({std::to_string(absCoef.den())});
  for (const auto &[atom, exp] : m)
    for (int32_t k = 0; k < (exp < 0 ? -exp : exp); ++k)
      (exp < 0 ? den : num).push_back({std::string(), &atom});
  if (num.empty())
    num.push_back({"1"});
  auto product = [&](const std::vector<Factor> &factors) {
    for (size_t i = 0; i < factors.size(); ++i) {
      out.text += i ? "*" : "";
      if (factors[i].atom)
        printAtom(*factors[i].atom, pack, out);
      else
        out.text += factors[i].number;
    }
  };
  product(num);
  if (!den.empty()) {
    out.text += den.size() > 1 ? "/(" : "/";
    product(den);
    out.text += den.size() > 1 ? ")" : "";
  }
}

void printExpr(const Expr &e, bool pack, Printer &out) {
  const auto &terms = e.terms();
  if (terms.empty()) {
    out.text += "0";
    return;
  }
  bool first = true;
  auto emit = [&](const Monomial &m, const Rational &c) {
    bool negative = c < Rational(0);
    if (first)
      out.text += negative ? "-" : "";
    else
      out.text += negative ? " - " : " + ";
    first = false;
    printTerm(m, negative ? -c : c, pack, out);
  };
  // Variable terms first (in canonical order), the constant last.
  for (const auto &[m, c] : terms)
    if (!m.empty())
      emit(m, c);
  auto constant = terms.find(Monomial{});
  if (constant != terms.end())
    emit(constant->first, constant->second);
}

} // namespace

std::string Expr::str() const {
  Printer out;
  printExpr(*this, false, out);
  return std::move(out.text);
}

std::string Expr::packedStr() const {
  Printer out;
  printExpr(*this, true, out);
  return std::move(out.text);
}

void Expr::writePacked(const std::function<void(std::string_view)> &sink) const {
  Printer out;
  out.sink = &sink;
  printExpr(*this, true, out);
  if (!out.text.empty())
    sink(out.text);
}

// ---------------------------------------------------------------- parsing

namespace {

class Parser {
public:
  explicit Parser(std::string_view text) : text_(text) {}

  Expr parseAll() {
    Expr e = parseSum();
    skipSpace();
    if (pos_ != text_.size())
      fail("unexpected '" + std::string(1, text_[pos_]) + "'");
    return e;
  }

private:
  [[noreturn]] void fail(const std::string &what) const {
    // A packed table can make a formula megabytes long: quote its start only.
    const std::string shown = echoValue(text_);
    throw std::invalid_argument("bad formula \"" + shown + "\" at column " +
                                std::to_string(pos_ + 1) + ": " + what);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }

  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!accept(c))
      fail(std::string("expected '") + c + "'");
  }

  Expr parseSum() {
    if (++depth_ > kMaxDepth)
      fail("nested too deeply");
    Expr e = parseProduct();
    for (;;) {
      if (accept('+'))
        e = e + parseProduct();
      else if (accept('-'))
        e = e - parseProduct();
      else
        break;
    }
    --depth_;
    return e;
  }

  Expr parseProduct() {
    Expr e = parseUnary();
    for (;;) {
      if (accept('*')) {
        e = e * parseUnary();
      } else if (accept('/')) {
        Expr d = parseUnary();
        if (d.isConstant() && d.terms().empty())
          fail("division by zero");
        e = e / d;
      } else if (accept('%')) {
        Expr d = parseUnary();
        if (d.isConstant() && d.terms().empty())
          fail("modulo by zero");
        e = Expr::mod(e, d);
      } else {
        break;
      }
    }
    return e;
  }

  Expr parseUnary() {
    bool negative = false;
    while (accept('-'))
      negative = !negative;
    Expr e = parsePrimary();
    return negative ? -e : e;
  }

  int64_t parseInteger() {
    skipSpace();
    bool negative = accept('-');
    skipSpace();
    size_t start = pos_;
    WideInt v = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      v = v * 10 + (text_[pos_++] - '0');
      if (v > static_cast<WideInt>(INT64_MAX) + 1)
        fail("integer out of 64-bit range");
    }
    if (start == pos_)
      fail("expected an integer");
    if (negative)
      v = -v;
    if (v > INT64_MAX)
      fail("integer out of 64-bit range");
    return static_cast<int64_t>(v);
  }

  Expr parsePrimary() {
    skipSpace();
    if (pos_ >= text_.size())
      fail("unexpected end");
    char c = text_[pos_];
    if (std::isdigit(static_cast<unsigned char>(c)))
      return Expr(parseInteger());
    if (accept('(')) {
      Expr e = parseSum();
      expect(')');
      return e;
    }
    if (accept('[')) {
      if (accept('#'))
        return parsePackedTable();
      std::vector<int64_t> values;
      do {
        values.push_back(parseInteger());
      } while (accept(','));
      expect(']');
      expect('[');
      Expr index = parseSum();
      expect(']');
      try {
        return Expr::table(std::move(values), index);
      } catch (const std::invalid_argument &e) {
        fail(e.what());
      }
    }
    if (std::isalpha(static_cast<unsigned char>(c))) {
      size_t start = pos_;
      while (pos_ < text_.size() && std::isalnum(static_cast<unsigned char>(text_[pos_])))
        ++pos_;
      std::string_view word = text_.substr(start, pos_ - start);
      if (word == "rank")
        return Expr::rank();
      if (word == "nranks")
        return Expr::nranks();
      if (word.size() > 1 && word[0] == 'i' &&
          std::all_of(word.begin() + 1, word.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }) &&
          word.size() <= 4)
        return Expr::loopIndex(static_cast<uint32_t>(std::stoul(std::string(word.substr(1)))));
      pos_ = start;
      fail("unknown name '" + std::string(word) + "' (expected rank, nranks or i<depth>)");
    }
    fail("unexpected '" + std::string(1, c) + "'");
  }

  /// `#count:base64]` `[index]` after the opening bracket.
  Expr parsePackedTable() {
    int64_t count = parseInteger();
    if (count < 1 || count > kMaxPackedValues)
      fail("a packed table holds 1 to " + std::to_string(kMaxPackedValues) + " values");
    expect(':');
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() && text_[pos_] != ']')
      ++pos_;
    std::string error;
    auto column = IntColumn::fromPackedText(text_.substr(start, pos_ - start), static_cast<uint64_t>(count), &error);
    if (!column) {
      pos_ = start;
      fail("bad packed table: " + error);
    }
    expect(']');
    expect('[');
    Expr index = parseSum();
    expect(']');
    try {
      return Expr::table(std::move(*column), index);
    } catch (const std::invalid_argument &e) {
      fail(e.what());
    }
  }

  static constexpr int64_t kMaxPackedValues = int64_t(1) << 32;
  static constexpr int kMaxDepth = 64;
  std::string_view text_;
  size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

Expr Expr::parse(std::string_view text) {
  try {
    return Parser(text).parseAll();
  } catch (const ArithmeticOverflow &) {
    throw std::invalid_argument("bad formula \"" + echoValue(text) + "\": value out of 64-bit range");
  } catch (const std::domain_error &e) {
    throw std::invalid_argument("bad formula \"" + echoValue(text) + "\": " + e.what());
  }
}

} // namespace sio::trace
