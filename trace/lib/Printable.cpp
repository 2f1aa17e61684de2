#include "sio/trace/Printable.h"

#include <algorithm>
#include <cstdio>

namespace sio::trace {

namespace {

void hexByte(std::string &out, unsigned char c) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", c);
  out += buf;
}

/// Length of the valid UTF-8 sequence at s[i] (1..4), 0 when invalid.
size_t utf8Length(std::string_view s, size_t i) {
  const unsigned char c = static_cast<unsigned char>(s[i]);
  size_t len = c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
  if (!len || i + len > s.size())
    return 0;
  for (size_t k = 1; k < len; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
      return 0;
  const unsigned char c1 = static_cast<unsigned char>(s[i + 1]);
  // Overlong forms and surrogates are not UTF-8 either.
  if ((c == 0xe0 && c1 < 0xa0) || (c == 0xed && c1 >= 0xa0) || (c == 0xf0 && c1 < 0x90) || (c == 0xf4 && c1 >= 0x90))
    return 0;
  return len;
}

} // namespace

std::string escapeControl(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) {
      hexByte(out, c);
    } else if (c < 0x80) {
      out += char(c);
    } else if (size_t len = utf8Length(s, i)) {
      // U+0080..U+009F (C1 controls, CSI among them) are 0xc2 0x80..0x9f.
      if (len == 2 && c == 0xc2 && static_cast<unsigned char>(s[i + 1]) < 0xa0) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(s[i + 1]));
        out += buf;
      } else {
        out.append(s.substr(i, len));
      }
      i += len - 1;
    } else {
      hexByte(out, c);
    }
  }
  return out;
}

std::string echoValue(std::string_view s, size_t limit) {
  if (s.size() <= limit)
    return escapeControl(s);
  // Cut at a character boundary so the cut itself adds no invalid byte.
  size_t cut = limit;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xc0) == 0x80)
    --cut;
  return escapeControl(s.substr(0, cut)) + "... (" + std::to_string(s.size()) + " bytes)";
}

std::string printableMessage(std::string_view message) {
  // A tool's own line breaks are kept (a refusal that lists the models and
  // the values per input spans lines; values from the trace inside it were
  // escaped where they were echoed): each line is escaped on its own.
  std::string out;
  std::string_view rest = message.substr(0, std::min(message.size(), kMessageLimit));
  for (size_t nl; (nl = rest.find('\n')) != std::string_view::npos; rest.remove_prefix(nl + 1))
    out += escapeControl(rest.substr(0, nl)) + "\n";
  out += echoValue(rest, kMessageLimit);
  if (message.size() > kMessageLimit)
    out += "... (" + std::to_string(message.size()) + " bytes)";
  return out;
}

} // namespace sio::trace
