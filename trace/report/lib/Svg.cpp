#include "Svg.h"

#include "sio/report/Report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace sio::report::svg {

namespace {

constexpr const char *kSvgOpen = "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"fig\" ";

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

std::string esc(std::string_view s) { return escapeHtml(s); }

/// Average advance of a glyph in em, over-estimated: Debian's chromium draws
/// sans-serif as DejaVu Sans, whose bold 12 px titles measured 0.57 em a glyph
/// and its regular 11 px labels 0.51 em (browser.test measures the result).
constexpr double kBoldEm = 0.70, kRegularEm = 0.64;

/// "Nice" tick step for a range: 1, 2 or 5 times a power of ten (or of 1024
/// for byte axes).
double tickStep(double range, int ticks, bool bytes) {
  if (range <= 0)
    return 1;
  double raw = range / ticks;
  if (bytes && raw >= 1024) {
    double p = std::pow(1024.0, std::floor(std::log(raw) / std::log(1024.0)));
    for (double m : {1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 512.0, 1024.0})
      if (p * m >= raw)
        return p * m;
  }
  double p = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (p * m >= raw)
      return std::max(1.0, p * m);
  return std::max(1.0, p * 10);
}

std::string tickText(double v, bool bytes, bool time) {
  if (bytes)
    return bytesText(v);
  if (time)
    return timeText(v);
  if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e15)
    return countText(uint64_t(std::llround(std::fabs(v)))).insert(0, v < 0 ? "-" : "");
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

/// Figures never grow wider than the page's column (the CSS max-width).
constexpr double kMaxFigureWidth = 1000;
constexpr double kTitleLineH = 15;

/// Code points of UTF-8 text.
size_t glyphs(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s)
    n += (c & 0xc0) != 0x80;
  return n;
}

/// A title split at spaces into lines that fit the widest figure.
std::vector<std::string> titleLines(std::string_view title) {
  const size_t maxGlyphs = size_t((kMaxFigureWidth - 8) / (12 * kBoldEm));
  std::vector<std::string> lines{""};
  size_t pos = 0;
  while (pos < title.size()) {
    size_t sp = title.find(' ', pos);
    std::string_view word = title.substr(pos, sp == std::string_view::npos ? std::string_view::npos : sp - pos);
    pos = sp == std::string_view::npos ? title.size() : sp + 1;
    if (!lines.back().empty() && glyphs(lines.back()) + 1 + glyphs(word) > maxGlyphs)
      lines.emplace_back();
    lines.back() += (lines.back().empty() ? "" : " ") + std::string(word);
  }
  return lines;
}

/// Cuts `text` to at most `max` glyphs, adding "..." when cut.
std::string shortenGlyphs(std::string_view text, size_t max) {
  if (glyphs(text) <= max)
    return std::string(text);
  size_t keep = max > 3 ? max - 3 : 0, n = 0, i = 0;
  for (; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xc0) != 0x80 && n++ == keep)
      break;
  return std::string(text.substr(0, i)) + "...";
}

/// The title element of a figure (its <title> tooltip and its drawn text,
/// wrapped), the width it needs, and the height its extra lines take.
struct TitleBlock {
  std::string svg;
  double width = 0, extra = 0;
};
TitleBlock titleBlock(std::string_view title) {
  TitleBlock b;
  std::vector<std::string> lines = titleLines(title);
  b.svg = "<title>" + esc(title) + "</title><text x=\"4\" y=\"16\" class=\"ft\">";
  for (size_t i = 0; i < lines.size(); ++i) {
    b.width = std::max(b.width, 8 + textWidth(lines[i], 12, true));
    b.svg += lines.size() == 1
                 ? esc(lines[i])
                 : "<tspan x=\"4\" dy=\"" + std::string(i ? "15" : "0") + "\">" + esc(lines[i]) + "</tspan>";
  }
  b.svg += "</text>";
  b.extra = kTitleLineH * double(lines.size() - 1);
  return b;
}

} // namespace

double textWidth(std::string_view text, double fontPx, bool bold) {
  return double(glyphs(text)) * fontPx * (bold ? kBoldEm : kRegularEm);
}

std::string bytesText(double b) {
  const char *units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  double v = b;
  while (std::fabs(v) >= 1024 && u < 6) {
    v /= 1024;
    ++u;
  }
  char buf[48];
  if (u == 0)
    std::snprintf(buf, sizeof buf, "%.0f B", v);
  else
    std::snprintf(buf, sizeof buf, "%.1f %s", v, units[u]);
  return buf;
}

std::string countText(uint64_t n) {
  std::string s = std::to_string(n), out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (i && (s.size() - i) % 3 == 0)
      out += ',';
    out += s[i];
  }
  return out;
}

std::string timeText(double ns) {
  char buf[48];
  if (ns < 1000)
    std::snprintf(buf, sizeof buf, "%.0f ns", ns);
  else if (ns < 1e6)
    std::snprintf(buf, sizeof buf, "%.1f us", ns / 1e3);
  else if (ns < 1e9)
    std::snprintf(buf, sizeof buf, "%.1f ms", ns / 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.2f s", ns / 1e9);
  return buf;
}

std::string shorten(std::string_view text, size_t max) {
  if (text.size() <= max)
    return std::string(text);
  size_t cut = max > 3 ? max - 3 : 0;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80)
    --cut;
  return std::string(text.substr(0, cut)) + "...";
}

std::string colour(int k) {
  // Golden-angle hues, two lightness levels so neighbours differ twice.
  double hue = std::fmod(k * 137.508, 360.0);
  int light = k % 2 ? 38 : 50;
  char buf[40];
  std::snprintf(buf, sizeof buf, "hsl(%.0f,70%%,%d%%)", hue, light);
  return buf;
}

std::string barChart(std::string_view title, const std::vector<Bar> &bars) {
  const TitleBlock tb = titleBlock(title);
  const double labelW = 230, barW = 330, rowH = 18, top = 26 + tb.extra;
  const size_t labelGlyphs = size_t((labelW - 10) / (11 * kRegularEm));
  double valueW = 0;
  for (const Bar &b : bars)
    valueW = std::max(valueW, textWidth(b.valueText, 11, false));
  const double width = std::max({labelW + barW + 110, labelW + barW + 8 + valueW, tb.width});
  const double height = top + rowH * double(bars.size()) + 8;
  double max = 0;
  for (const Bar &b : bars)
    max = std::max(max, b.value);
  std::ostringstream o;
  o << kSvgOpen << "width=\"" << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width)
    << " " << num(height) << "\" role=\"img\">";
  o << tb.svg;
  for (size_t i = 0; i < bars.size(); ++i) {
    const Bar &b = bars[i];
    double y = top + rowH * double(i);
    double w = max > 0 ? barW * b.value / max : 0;
    if (b.value > 0 && w < 1)
      w = 1;
    o << "<g class=\"bar\"" << (b.data.empty() ? "" : " ") << b.data << ">";
    std::string label = esc(shortenGlyphs(b.label, labelGlyphs));
    o << "<text x=\"" << num(labelW - 6) << "\" y=\"" << num(y + 13) << "\" text-anchor=\"end\">";
    if (!b.href.empty())
      o << "<a href=\"" << esc(b.href) << "\">" << label << "</a>";
    else
      o << label;
    o << "<title>" << esc(b.label) << "</title></text>";
    o << "<rect x=\"" << num(labelW) << "\" y=\"" << num(y + 3) << "\" width=\"" << num(w)
      << "\" height=\"" << num(rowH - 5) << "\" fill=\"" << colour(int(i)) << "\"/>";
    o << "<text x=\"" << num(labelW + w + 4) << "\" y=\"" << num(y + 13) << "\">" << esc(b.valueText) << "</text>";
    o << "</g>";
  }
  o << "</svg>";
  return o.str();
}

std::string histogram(std::string_view title, const std::vector<std::string> &binLabels,
                      const std::vector<uint64_t> &counts, std::string_view xLabel) {
  const TitleBlock tb = titleBlock(title);
  uint64_t max = 0;
  for (uint64_t c : counts)
    max = std::max(max, c);
  // The axis labels decide the margins and the title and labels the width:
  // nothing is drawn outside the figure.
  const double left = std::max(56.0, textWidth(countText(max), 11, false) + 8), right = 12, top = 26 + tb.extra,
               plotH = 120, bottom = 40;
  const double n = double(std::max<size_t>(1, counts.size()));
  const double barW = std::clamp(520.0 / n, 6.0, 36.0);
  const size_t every = std::max<size_t>(1, size_t(std::ceil(60.0 / barW)));
  double width = std::max({left + barW * n + right, tb.width, left + textWidth(xLabel, 11, false) + 8});
  for (size_t i = 0; i < counts.size() && i < binLabels.size(); i += every)
    width = std::max(width, left + barW * double(i) + 1 + textWidth(binLabels[i], 11, false) + 4);
  const double height = top + plotH + bottom;
  std::ostringstream o;
  o << kSvgOpen << "width=\"" << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width)
    << " " << num(height) << "\" role=\"img\">";
  o << tb.svg;
  o << "<line x1=\"" << num(left) << "\" y1=\"" << num(top + plotH) << "\" x2=\"" << num(width - right)
    << "\" y2=\"" << num(top + plotH) << "\" class=\"ax\"/>";
  o << "<text x=\"" << num(left - 4) << "\" y=\"" << num(top + 8) << "\" text-anchor=\"end\">" << countText(max)
    << "</text>";
  o << "<text x=\"" << num(left - 4) << "\" y=\"" << num(top + plotH) << "\" text-anchor=\"end\">0</text>";
  for (size_t i = 0; i < counts.size(); ++i) {
    double x = left + barW * double(i);
    double h = max ? plotH * double(counts[i]) / double(max) : 0;
    if (counts[i] && h < 1)
      h = 1;
    o << "<rect x=\"" << num(x + 1) << "\" y=\"" << num(top + plotH - h) << "\" width=\"" << num(barW - 2)
      << "\" height=\"" << num(h) << "\" fill=\"#4a78b5\" data-count=\"" << counts[i] << "\"><title>"
      << esc(i < binLabels.size() ? binLabels[i] : "") << ": " << countText(counts[i]) << "</title></rect>";
    if (i % every == 0 && i < binLabels.size())
      o << "<text x=\"" << num(x + 1) << "\" y=\"" << num(top + plotH + 14) << "\">" << esc(binLabels[i])
        << "</text>";
  }
  o << "<text x=\"" << num(left) << "\" y=\"" << num(height - 6) << "\" class=\"al\">" << esc(xLabel) << "</text>";
  o << "</svg>";
  return o.str();
}

std::string scatter(const ScatterSpec &spec, const std::vector<Point> &points, const std::vector<Band> &bands,
                    const std::vector<Curve> &curves, const std::vector<Point> &marked,
                    const std::vector<std::string> &markedLabels) {
  const TitleBlock tb = titleBlock(spec.title);
  const double top = 30 + tb.extra, plotW = 560, plotH = 240, bottom = 40;
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  bool first = true;
  auto extend = [&](double x, double y) {
    if (first) {
      x0 = x1 = x;
      y0 = y1 = y;
      first = false;
    }
    x0 = std::min(x0, x);
    x1 = std::max(x1, x);
    y0 = std::min(y0, y);
    y1 = std::max(y1, y);
  };
  for (const Point &p : points)
    extend(p.x, p.y);
  for (const Point &p : marked)
    extend(p.x, p.y);
  for (const Curve &c : curves)
    for (const auto &[x, y] : c.points)
      extend(x, y);
  x0 = std::min(x0, 0.0);
  y0 = std::min(y0, 0.0);
  if (x1 <= x0)
    x1 = x0 + 1;
  if (y1 <= y0)
    y1 = y0 + 1;
  const double xs = tickStep(x1 - x0, 6, false), ys = tickStep(y1 - y0, 5, spec.yBytes);
  x1 = std::ceil(x1 / xs) * xs;
  y1 = std::ceil(y1 / ys) * ys;
  if (x1 <= x0)
    x1 = x0 + xs;
  if (y1 <= y0)
    y1 = y0 + ys;
  // Margins wide enough for the tick labels (the y ticks end at the axis,
  // the last x tick is centred on the right edge), width for the title.
  double yTickW = 0;
  for (double v = y0; v <= y1 + ys * 1e-9; v += ys)
    yTickW = std::max(yTickW, textWidth(tickText(v, spec.yBytes, false), 11, false));
  const double left = std::max(78.0, yTickW + 10);
  const double right = std::max(16.0, textWidth(tickText(x1, false, spec.xTime), 11, false) / 2 + 4);
  const double width = std::max(left + plotW + right, tb.width), height = top + plotH + bottom;
  auto px = [&](double x) { return left + plotW * (x - x0) / (x1 - x0); };
  auto py = [&](double y) { return top + plotH - plotH * (y - y0) / (y1 - y0); };

  std::ostringstream o;
  o << kSvgOpen << "width=\"" << num(width) << "\" height=\"" << num(height) << "\" viewBox=\"0 0 " << num(width)
    << " " << num(height) << "\" role=\"img\">";
  o << tb.svg;
  for (size_t i = 0; i < bands.size(); ++i) {
    const Band &b = bands[i];
    double bx0 = px(b.x0 - 0.5), bx1 = px(b.x1 + 0.5);
    bx0 = std::max(bx0, left);
    bx1 = std::min(bx1, left + plotW);
    o << "<g class=\"band\"><rect x=\"" << num(bx0) << "\" y=\"" << num(top) << "\" width=\""
      << num(std::max(1.0, bx1 - bx0)) << "\" height=\"" << num(plotH) << "\" fill=\""
      << (i % 2 ? "#eef3e6" : "#e6edf6") << "\"/>";
    o << "<text x=\"" << num(bx0 + 2) << "\" y=\"" << num(top + 10) << "\" class=\"bl\">";
    std::string label = esc(shorten(b.label, size_t(std::max(4.0, (bx1 - bx0) / 5.5))));
    if (!b.href.empty())
      o << "<a href=\"" << esc(b.href) << "\">" << label << "</a>";
    else
      o << label;
    o << "<title>" << esc(b.label) << "</title></text></g>";
  }
  // Axes and ticks.
  o << "<path d=\"M" << num(left) << " " << num(top) << "V" << num(top + plotH) << "H" << num(left + plotW)
    << "\" class=\"ax\" fill=\"none\"/>";
  for (double v = y0; v <= y1 + ys * 1e-9; v += ys)
    o << "<text x=\"" << num(left - 4) << "\" y=\"" << num(py(v) + 4) << "\" text-anchor=\"end\">"
      << esc(tickText(v, spec.yBytes, false)) << "</text><line x1=\"" << num(left - 3) << "\" x2=\"" << num(left)
      << "\" y1=\"" << num(py(v)) << "\" y2=\"" << num(py(v)) << "\" class=\"ax\"/>";
  for (double v = x0; v <= x1 + xs * 1e-9; v += xs)
    o << "<text x=\"" << num(px(v)) << "\" y=\"" << num(top + plotH + 14) << "\" text-anchor=\"middle\">"
      << esc(tickText(v, false, spec.xTime)) << "</text>";
  o << "<text x=\"" << num(left + plotW / 2) << "\" y=\"" << num(height - 8) << "\" text-anchor=\"middle\" class=\"al\">"
    << esc(spec.xLabel) << "</text>";
  o << "<text x=\"12\" y=\"" << num(top + plotH / 2) << "\" transform=\"rotate(-90 12 " << num(top + plotH / 2)
    << ")\" text-anchor=\"middle\" class=\"al\">" << esc(spec.yLabel) << "</text>";
  for (const Curve &c : curves) {
    if (c.points.empty())
      continue;
    o << "<polyline class=\"fit\" fill=\"none\" points=\"";
    for (const auto &[x, y] : c.points)
      o << num(px(x)) << "," << num(py(y)) << " ";
    o << "\"/>";
  }
  for (const Point &p : points)
    o << "<circle class=\"pt\" cx=\"" << num(px(p.x)) << "\" cy=\"" << num(py(p.y)) << "\" r=\"" << num(spec.radius)
      << "\" fill=\"" << colour(p.series) << "\"" << (p.data.empty() ? "" : " ") << p.data << "/>";
  for (size_t i = 0; i < marked.size(); ++i) {
    const Point &p = marked[i];
    double cx = px(p.x), cy = py(p.y), r = 6;
    o << "<path class=\"mark\" d=\"M" << num(cx) << " " << num(cy - r) << "L" << num(cx + r) << " " << num(cy) << "L"
      << num(cx) << " " << num(cy + r) << "L" << num(cx - r) << " " << num(cy) << "Z\" fill=\"#d62728\""
      << (p.data.empty() ? "" : " ") << p.data << "/>";
    if (i < markedLabels.size())
      o << "<text x=\"" << num(cx - 8) << "\" y=\"" << num(cy - 9) << "\" text-anchor=\"end\">"
        << esc(markedLabels[i]) << "</text>";
  }
  o << "</svg>";
  return o.str();
}

} // namespace sio::report::svg
