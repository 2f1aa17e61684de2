#include "sio/trace/Rational.h"

#include <limits>
#include <stdexcept>

namespace sio::trace {
namespace {

WideInt gcd128(WideInt a, WideInt b) {
  if (a < 0)
    a = -a;
  if (b < 0)
    b = -b;
  while (b != 0) {
    WideInt t = a % b;
    a = b;
    b = t;
  }
  return a;
}

bool fitsInt64(WideInt v) {
  return v >= std::numeric_limits<int64_t>::min() && v <= std::numeric_limits<int64_t>::max();
}

} // namespace

Rational Rational::fromWide(WideInt num, WideInt den) {
  if (den == 0)
    throw std::domain_error("sio: division by zero");
  if (den < 0) {
    num = -num;
    den = -den;
  }
  WideInt g = gcd128(num, den);
  if (g > 1) {
    num /= g;
    den /= g;
  }
  if (!fitsInt64(num) || !fitsInt64(den))
    throw ArithmeticOverflow();
  Rational r;
  r.num_ = static_cast<int64_t>(num);
  r.den_ = static_cast<int64_t>(den);
  return r;
}

Rational::Rational(int64_t num, int64_t den) { *this = fromWide(num, den); }

std::optional<int64_t> Rational::asInteger() const {
  if (den_ != 1)
    return std::nullopt;
  return num_;
}

Rational Rational::operator-() const { return fromWide(-static_cast<WideInt>(num_), den_); }

Rational operator+(const Rational &a, const Rational &b) {
  if (a.den_ == 1 && b.den_ == 1)
    return Rational::fromWide(static_cast<WideInt>(a.num_) + b.num_, 1);
  return Rational::fromWide(static_cast<WideInt>(a.num_) * b.den_ + static_cast<WideInt>(b.num_) * a.den_,
                            static_cast<WideInt>(a.den_) * b.den_);
}

Rational operator-(const Rational &a, const Rational &b) { return a + (-b); }

Rational operator*(const Rational &a, const Rational &b) {
  // Cross-reduce first so that intermediate products stay small.
  WideInt g1 = gcd128(a.num_, b.den_), g2 = gcd128(b.num_, a.den_);
  if (g1 == 0)
    g1 = 1;
  if (g2 == 0)
    g2 = 1;
  return Rational::fromWide((a.num_ / g1) * static_cast<WideInt>(b.num_ / g2),
                            (a.den_ / g2) * static_cast<WideInt>(b.den_ / g1));
}

Rational operator/(const Rational &a, const Rational &b) {
  if (b.num_ == 0)
    throw std::domain_error("sio: division by zero");
  return a * Rational::fromWide(b.den_, b.num_);
}

bool operator<(const Rational &a, const Rational &b) {
  return static_cast<WideInt>(a.num_) * b.den_ < static_cast<WideInt>(b.num_) * a.den_;
}

std::string Rational::str() const {
  if (den_ == 1)
    return std::to_string(num_);
  return std::to_string(num_) + "/" + std::to_string(den_);
}

} // namespace sio::trace
