// The loaded objects' code spans the runtime tells callers apart by
// (CodeSpan.h): found by address (the MPI library, the runtime) and by
// soname (the tool libraries of Wrappers.cpp, docs/runtime.md "Other tools
// in the same process").
#include "CodeSpan.h"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace {

using sio::rt::CodeSpan;
using sio::rt::codeSpanOf;
using sio::rt::codeSpansNamed;

CodeSpan libcSpan() { return codeSpanOf(dlsym(RTLD_DEFAULT, "getpid")); }

TEST(CodeSpan, ByAddressHoldsTheFunction) {
  void *f = dlsym(RTLD_DEFAULT, "getpid");
  ASSERT_NE(f, nullptr);
  const CodeSpan s = codeSpanOf(f);
  EXPECT_TRUE(s.contains(reinterpret_cast<uintptr_t>(f)));
  EXPECT_FALSE(s.contains(reinterpret_cast<uintptr_t>(&libcSpan))); // this test's own code
}

TEST(CodeSpan, ByNameIsTheSameObject) {
  const CodeSpan libc = libcSpan();
  for (const char *name : {"libc.so", "libc.so.6"}) {
    const char *names[] = {name};
    CodeSpan found[2];
    ASSERT_EQ(codeSpansNamed(names, 1, found, 2), 1) << name;
    EXPECT_EQ(found[0].lo, libc.lo) << name;
    EXPECT_EQ(found[0].hi, libc.hi) << name;
  }
}

TEST(CodeSpan, ByNameMatchesTheWholeBaseName) {
  // A longer or shorter name, or another version, is another library.
  for (const char *name : {"ibc.so", "libc.s", "libc.so.7", "libc.so.6.1", "c.so.6", "libsio-prefetch.so"}) {
    const char *names[] = {name};
    CodeSpan found[1];
    EXPECT_EQ(codeSpansNamed(names, 1, found, 1), 0) << name;
  }
}

TEST(CodeSpan, ByNameStopsAtMax) {
  const char *names[] = {"libc.so", "libm.so", "libstdc++.so"};
  CodeSpan found[3];
  EXPECT_EQ(codeSpansNamed(names, 3, found, 1), 1);
  const int n = codeSpansNamed(names, 3, found, 3);
  EXPECT_GE(n, 2); // libc and libstdc++ (libm if loaded)
  for (int i = 0; i < n; ++i)
    EXPECT_LT(found[i].lo, found[i].hi);
}

TEST(CodeSpan, UnknownAddressIsEmpty) {
  const CodeSpan s = codeSpanOf(reinterpret_cast<const void *>(uintptr_t(16)));
  EXPECT_EQ(s.lo, 0u);
  EXPECT_EQ(s.hi, 0u);
  EXPECT_FALSE(s.contains(16));
}

} // namespace
