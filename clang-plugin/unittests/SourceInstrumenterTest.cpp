// sio-instrument's pieces that need no parse: site and loop ids (shared with
// the plugin) and applying edits to a file's text.
#include "SiteIds.h"
#include "SourceInstrumenter.h"

#include <gtest/gtest.h>

namespace sio {
namespace {

TEST(SiteIds, NormalizedPathsAreRelativeToTheCompilationDirectory) {
  EXPECT_EQ(normalizeSourcePath("src/./io.c", "/home/u/app", "/home/u/app"), "src/io.c");
  EXPECT_EQ(normalizeSourcePath("/home/u/app/src/../io.c", "", "/home/u/app"), "io.c");
  // Outside the compilation directory: the basename, so that the ids do not
  // depend on where the tree was checked out.
  EXPECT_EQ(normalizeSourcePath("/usr/include/x/io.h", "", "/home/u/app"), "io.h");
}

TEST(SiteIds, IdsDependOnEveryComponentAndAreNeverZero) {
  uint64_t id = siteId("io.c", 10, 5, "write");
  EXPECT_NE(id, 0u);
  EXPECT_NE(id, siteId("io.c", 11, 5, "write"));
  EXPECT_NE(id, siteId("io.c", 10, 6, "write"));
  EXPECT_NE(id, siteId("io.c", 10, 5, "pwrite"));
  EXPECT_NE(id, siteId("jo.c", 10, 5, "write"));
  EXPECT_NE(loopId("io.c", 10, 5, "main"), loopId("io.c", 10, 5, "f"));
  EXPECT_NE(disambiguate(id, 1), id);
  EXPECT_NE(disambiguate(id, 1), disambiguate(id, 2));
  EXPECT_EQ(id, siteId("io.c", 10, 5, "write")); // a pure function
}

TEST(RewriteSet, IdenticalEditsAreKeptOnceConflictingOnesRefused) {
  RewriteSet set;
  EXPECT_TRUE(set.add("/a.c", {10, 0, "x", 4}));
  EXPECT_TRUE(set.add("/a.c", {10, 0, "x", 4})); // a second translation unit
  EXPECT_FALSE(set.add("/a.c", {10, 0, "y", 4})); // another instantiation
  EXPECT_TRUE(set.add("/a.c", {10, 0, "y", 5}));  // another construct
  ASSERT_EQ(set.files().size(), 1u);
  EXPECT_EQ(set.files().at("/a.c").Edits.size(), 2u);
  set.addUnchanged("/b.h");
  EXPECT_FALSE(set.files().at("/b.h").HasEdits());
}

TEST(ApplyRewrite, EditsAtOneOffsetNestOuterAroundInner) {
  // `f();` wrapped by an outer block (order 4) and an inner site (order 8):
  // openers apply outer first, closers inner first.
  const std::string code = "f();\n";
  FileRewrite r;
  r.Edits = {{0, 0, "{ A ", 4}, {0, 0, "(S, ", 8}, {3, 0, ")", -8}, {4, 0, " }", -4}};
  // Unformatted region check: the output keeps the nesting.
  std::string out = applyRewrite("/t.c", code, r);
  EXPECT_NE(out.find("(S, f())"), std::string::npos) << out;
  EXPECT_LT(out.find("A"), out.find("(S, f())")) << out;
  EXPECT_LT(out.find("(S, f())"), out.find("}")) << out;
}

TEST(ApplyRewrite, ReplacementsTrailerAndFormatting) {
  const std::string code = "int g(void) {\n  int   a = 1;\n  return a;\n}\n";
  const unsigned ret = static_cast<unsigned>(code.find("return"));
  FileRewrite r;
  r.Edits = {{ret, 6, "return /*sio*/", 0}}; // replaces `return`
  r.Trailer = "static const int   sio_tables =  0;\n";
  std::string out = applyRewrite("/t.c", code, r);
  EXPECT_NE(out.find("return /*sio*/ a;"), std::string::npos) << out;
  // The trailer is formatted (clang-format's LLVM style, no .clang-format).
  EXPECT_NE(out.find("static const int sio_tables = 0;"), std::string::npos) << out;
  // Lines outside the edited ranges are left byte for byte.
  EXPECT_NE(out.find("  int   a = 1;\n"), std::string::npos) << out;
}

TEST(ApplyRewrite, NoEditsLeaveTheFileAlone) {
  const std::string code = "int   x ;\n";
  EXPECT_EQ(applyRewrite("/t.c", code, FileRewrite()), code);
}

} // namespace
} // namespace sio
