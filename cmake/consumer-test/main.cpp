// Parses a formula with the installed trace library and prints its value.
#include <sio/trace/Expr.h>

#include <cstdio>

int main() {
  auto e = sio::trace::Expr::parse("960*rank/nranks + 960*i0");
  const int64_t idx[] = {2};
  auto v = e.evaluate({3, 4, idx});
  std::printf("%s = %lld\n", e.str().c_str(), static_cast<long long>(v.value_or(-1)));
  return v == 2640 ? 0 : 1;
}
