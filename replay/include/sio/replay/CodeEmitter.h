// A small C++ source emitter: it knows indentation, scopes and how to turn
// untrusted text (file names, info values from a trace) into C++ literals and
// comments that can neither break out nor change meaning. The replay
// generator writes all of its code through it.
#pragma once

#include <string>
#include <string_view>

namespace sio::replay {

/// `text` as a C++ narrow string literal, quotes included. Printable ASCII
/// stays as is except `"`, `\` and `?` (escaped, so no trigraph can form);
/// common control characters use their named escapes; every other byte
/// (control, DEL, non-ASCII) becomes a three-digit octal escape, which,
/// unlike `\x`, never swallows a following digit. Bytes are kept exactly:
/// the program sees the same byte string the trace holds.
std::string cppStringLiteral(std::string_view text);

/// `text` made safe inside a `//` comment: no line breaks, no control or
/// non-ASCII bytes (written `\xNN`), no `??` (trigraph-like), and never a
/// trailing backslash (which would splice the next line into the comment).
std::string commentSafe(std::string_view text);

class CodeEmitter {
public:
  explicit CodeEmitter(int indentWidth = 2) : indentWidth_(indentWidth) {}

  /// One line at the current indentation (an empty `code` gives a blank line).
  void line(std::string_view code);
  void blank() { line(""); }
  /// `// text`, sanitized with commentSafe().
  void comment(std::string_view text);
  /// Text emitted verbatim (a fixed block written by the generator itself).
  void raw(std::string_view text);

  /// `header {` and one level deeper; close() writes the matching `}` plus
  /// `trailer` (e.g. ";" after a class).
  void open(std::string_view header);
  void close(std::string_view trailer = "");
  /// `} else if (...) {` / `} else {` between two branches of an if.
  void reopen(std::string_view header);

  int depth() const { return depth_; }
  const std::string &str() const { return out_; }
  std::string take() { return std::move(out_); }

private:
  std::string out_;
  int depth_ = 0;
  int indentWidth_;
};

/// Opens a scope for the lifetime of the object: `{ Scope s(e, "for (...)"); ... }`.
class Scope {
public:
  Scope(CodeEmitter &emitter, std::string_view header, std::string_view trailer = "")
      : emitter_(emitter), trailer_(trailer) {
    emitter_.open(header);
  }
  ~Scope() { emitter_.close(trailer_); }
  Scope(const Scope &) = delete;
  Scope &operator=(const Scope &) = delete;

private:
  CodeEmitter &emitter_;
  std::string trailer_;
};

} // namespace sio::replay
