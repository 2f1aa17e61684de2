// The emitter: scopes and indentation, and the escaping of untrusted text.
#include "sio/replay/CodeEmitter.h"

#include <gtest/gtest.h>

namespace sio::replay {
namespace {

TEST(CppStringLiteral, PlainTextStaysReadable) { EXPECT_EQ(cppStringLiteral("data/out_0001.dat"), "\"data/out_0001.dat\""); }

TEST(CppStringLiteral, EscapesQuotesBackslashesAndLineBreaks) {
  EXPECT_EQ(cppStringLiteral("a\"b"), "\"a\\\"b\"");
  EXPECT_EQ(cppStringLiteral("dir\\file"), "\"dir\\\\file\"");
  EXPECT_EQ(cppStringLiteral("line1\nline2\r\t"), "\"line1\\nline2\\r\\t\"");
  // A trailing backslash must not escape the closing quote.
  EXPECT_EQ(cppStringLiteral("end\\"), "\"end\\\\\"");
}

TEST(CppStringLiteral, CommentTerminatorsAreHarmlessText) {
  EXPECT_EQ(cppStringLiteral("x*/y/*z//w"), "\"x*/y/*z//w\"");
}

TEST(CppStringLiteral, QuestionMarksCannotFormTrigraphs) {
  EXPECT_EQ(cppStringLiteral("?" "?/"), "\"\\?\\?/\"");
  EXPECT_EQ(cppStringLiteral("what?" "?="), "\"what\\?\\?=\"");
}

TEST(CppStringLiteral, NonAsciiAndControlBytesAreThreeDigitOctal) {
  // "é" in UTF-8 followed by a digit: an octal escape never swallows it.
  EXPECT_EQ(cppStringLiteral("\xc3\xa9"
                             "7"),
            "\"\\303\\2517\"");
  EXPECT_EQ(cppStringLiteral(std::string("a\0b", 3)), "\"a\\000b\"");
  EXPECT_EQ(cppStringLiteral("\x7f\x01"), "\"\\177\\001\"");
}

TEST(CommentSafe, NeverBreaksOutOfALineComment) {
  EXPECT_EQ(commentSafe("a\nb"), "a\\x0ab");
  EXPECT_EQ(commentSafe("ends with \\"), "ends with \\x5c"); // no line splice
  EXPECT_EQ(commentSafe("trailing \\   "), "trailing \\x5c");
  EXPECT_EQ(commentSafe("x */ y"), "x */ y"); // harmless in a // comment
  EXPECT_EQ(commentSafe("?" "?/"), "?\\x3f/");
  EXPECT_EQ(commentSafe("\xc3\xa9"), "\\xc3\\xa9");
}

TEST(CodeEmitter, IndentsScopes) {
  CodeEmitter e;
  e.open("int main()");
  e.comment("first");
  {
    Scope loop(e, "for (int i = 0; i < 3; ++i)");
    e.line("work(i);");
  }
  e.open("if (x)");
  e.line("a();");
  e.reopen("else");
  e.line("b();");
  e.close();
  e.blank();
  e.line("return 0;");
  e.close();
  EXPECT_EQ(e.str(), "int main() {\n"
                     "  // first\n"
                     "  for (int i = 0; i < 3; ++i) {\n"
                     "    work(i);\n"
                     "  }\n"
                     "  if (x) {\n"
                     "    a();\n"
                     "  } else {\n"
                     "    b();\n"
                     "  }\n"
                     "\n"
                     "  return 0;\n"
                     "}\n");
  EXPECT_EQ(e.depth(), 0);
}

TEST(CodeEmitter, CloseWithoutOpenIsAnError) {
  CodeEmitter e;
  EXPECT_THROW(e.close(), std::logic_error);
}

} // namespace
} // namespace sio::replay
