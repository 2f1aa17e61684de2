// Escaping of every string taken from a trace into the report.
#include "sio/report/Report.h"

namespace sio::report {

std::string escapeHtml(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
    case '&':
      out += "&amp;";
      continue;
    case '<':
      out += "&lt;";
      continue;
    case '>':
      out += "&gt;";
      continue;
    case '"':
      out += "&quot;";
      continue;
    case '\'':
      out += "&#39;";
      continue;
    default:
      break;
    }
    if (c < 0x80) {
      // XML 1.0 allows only tab, newline and carriage return below 0x20.
      if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f)
        out += "\xef\xbf\xbd";
      else
        out += char(c);
      continue;
    }
    size_t len = c >= 0xf0 && c < 0xf5 ? 4 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    bool ok = len && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && len == 3) {
      // No surrogates, no overlong forms, no U+FFFE/U+FFFF (not XML characters).
      unsigned cp = (c & 0x0fu) << 12 | (static_cast<unsigned char>(s[i + 1]) & 0x3fu) << 6 |
                    (static_cast<unsigned char>(s[i + 2]) & 0x3fu);
      ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff) && cp != 0xfffe && cp != 0xffff;
    } else if (ok && len == 4) {
      unsigned cp = (c & 0x07u) << 18 | (static_cast<unsigned char>(s[i + 1]) & 0x3fu) << 12;
      ok = cp >= 0x10000 && cp <= 0x10ffff;
    }
    if (ok) {
      out.append(s.substr(i, len));
      i += len - 1;
    } else {
      out += "\xef\xbf\xbd";
    }
  }
  return out;
}

} // namespace sio::report
