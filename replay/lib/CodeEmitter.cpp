#include "sio/replay/CodeEmitter.h"

#include <cstdio>
#include <stdexcept>

namespace sio::replay {

std::string cppStringLiteral(std::string_view text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    switch (c) {
    case '"': out += "\\\""; break;
    case '\\': out += "\\\\"; break;
    case '?': out += "\\?"; break; // `??/` and friends can never form
    case '\n': out += "\\n"; break;
    case '\t': out += "\\t"; break;
    case '\r': out += "\\r"; break;
    default:
      if (c >= 0x20 && c < 0x7f) {
        out += char(c);
      } else {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\%03o", unsigned(c));
        out += buf;
      }
    }
  }
  out += '"';
  return out;
}

std::string commentSafe(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '?' && !out.empty() && out.back() == '?') {
      out += "\\x3f"; // breaks `??x` trigraph-like sequences
    } else if (c >= 0x20 && c < 0x7f) {
      out += char(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(c));
      out += buf;
    }
  }
  while (!out.empty() && out.back() == ' ')
    out.pop_back();
  if (!out.empty() && out.back() == '\\') // would splice the next line into the comment
    out.replace(out.size() - 1, 1, "\\x5c");
  return out;
}

void CodeEmitter::line(std::string_view code) {
  if (!code.empty())
    out_.append(size_t(depth_ * indentWidth_), ' ');
  out_ += code;
  out_ += '\n';
}

void CodeEmitter::comment(std::string_view text) { line("// " + commentSafe(text)); }

void CodeEmitter::raw(std::string_view text) { out_ += text; }

void CodeEmitter::open(std::string_view header) {
  line(std::string(header) + (header.empty() ? "{" : " {"));
  ++depth_;
}

void CodeEmitter::close(std::string_view trailer) {
  if (depth_ == 0)
    throw std::logic_error("CodeEmitter: close() without open()");
  --depth_;
  line("}" + std::string(trailer));
}

void CodeEmitter::reopen(std::string_view header) {
  if (depth_ == 0)
    throw std::logic_error("CodeEmitter: reopen() without open()");
  --depth_;
  line("} " + std::string(header) + " {");
  ++depth_;
}

} // namespace sio::replay
