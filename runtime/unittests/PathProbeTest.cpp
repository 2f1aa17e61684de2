// probePath (runtime/src/PathProbe.cpp) copies a name only if all of it,
// NUL included, is readable: never a fault, whatever the pointer.
#include "PathProbe.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace {

using sio::rt::probePath;

/// Two pages, the second PROT_NONE: a name placed to end `tail` bytes before
/// the boundary (0: its NUL is the last readable byte).
struct Guarded {
  long page = sysconf(_SC_PAGESIZE);
  char *base = static_cast<char *>(mmap(nullptr, size_t(2 * page), PROT_READ | PROT_WRITE,
                                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  Guarded() { mprotect(base + page, size_t(page), PROT_NONE); }
  ~Guarded() { munmap(base, size_t(2 * page)); }
  char *boundary() const { return base + page; }
};

TEST(PathProbe, CopiesReadableNames) {
  const char *p = probePath("dir/file.dat");
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "dir/file.dat");
  p = probePath("");
  ASSERT_NE(p, nullptr);
  EXPECT_STREQ(p, "");
}

TEST(PathProbe, RefusesWildPointers) {
  EXPECT_EQ(probePath(reinterpret_cast<const char *>(1)), nullptr);
  EXPECT_EQ(probePath(reinterpret_cast<const char *>(-4096L)), nullptr);
  Guarded g;
  EXPECT_EQ(probePath(g.boundary()), nullptr);
}

TEST(PathProbe, NameEndingAtEveryOffsetBeforeAGuardPage) {
  Guarded g;
  // Every length from 0 to 300 with its NUL as the last readable byte: all
  // readable. The same names one byte later (no NUL before the guard): none.
  for (size_t len = 0; len <= 300; ++len) {
    char *name = g.boundary() - len - 1;
    std::memset(name, 'a', len);
    name[len] = '\0';
    const char *p = probePath(name);
    ASSERT_NE(p, nullptr) << len;
    EXPECT_EQ(std::strlen(p), len);
    std::memset(name, 'a', len + 1); // the NUL overwritten: runs into the guard
    EXPECT_EQ(probePath(name), nullptr) << len;
  }
}

TEST(PathProbe, NamesOfPathMaxOrMoreAreRefused) {
  std::string longName(PATH_MAX, 'x');
  EXPECT_EQ(probePath(longName.c_str()), nullptr);
  longName.resize(PATH_MAX - 1);
  const char *p = probePath(longName.c_str());
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(std::strlen(p), size_t(PATH_MAX - 1));
}

} // namespace
