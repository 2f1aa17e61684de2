// Exact rational arithmetic over 64-bit integers, used wherever sio fits or
// evaluates a model: a model is accepted only with zero residual, so floating
// point is never good enough.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace sio::trace {

/// 128-bit intermediate for exact products (a GCC/Clang extension).
__extension__ typedef __int128 WideInt;

/// Thrown when an exact computation leaves the 64-bit range.
struct ArithmeticOverflow : std::overflow_error {
  ArithmeticOverflow() : std::overflow_error("sio: exact arithmetic overflowed 64 bits") {}
};

/// A normalized fraction num/den with den > 0 and gcd(num, den) == 1.
class Rational {
public:
  constexpr Rational() = default;
  constexpr Rational(int64_t value) : num_(value) {} // NOLINT: integers convert implicitly
  Rational(int64_t num, int64_t den);

  int64_t num() const { return num_; }
  int64_t den() const { return den_; }
  bool isInteger() const { return den_ == 1; }
  bool isZero() const { return num_ == 0; }
  /// The integer value, if this is an integer.
  std::optional<int64_t> asInteger() const;

  Rational operator-() const;
  friend Rational operator+(const Rational &a, const Rational &b);
  friend Rational operator-(const Rational &a, const Rational &b);
  friend Rational operator*(const Rational &a, const Rational &b);
  /// Throws std::domain_error on division by zero.
  friend Rational operator/(const Rational &a, const Rational &b);
  Rational &operator+=(const Rational &o) { return *this = *this + o; }
  Rational &operator-=(const Rational &o) { return *this = *this - o; }
  Rational &operator*=(const Rational &o) { return *this = *this * o; }
  friend bool operator==(const Rational &, const Rational &) = default;
  friend bool operator<(const Rational &a, const Rational &b);

  /// "3", "-7/2".
  std::string str() const;

private:
  static Rational fromWide(WideInt num, WideInt den);
  int64_t num_ = 0;
  int64_t den_ = 1;
};

} // namespace sio::trace
