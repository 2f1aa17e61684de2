// Small SVG figure builders for the HTML report: horizontal bar charts,
// histograms and scatter plots, written as inline <svg> elements that are
// well-formed XML on their own (the tests parse each one).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sio::report::svg {

/// `1.5 KiB`, `3.0 GiB`; exact below 1 KiB.
std::string bytesText(double bytes);
/// `1,234,567`.
std::string countText(uint64_t n);
/// `850 ns`, `1.2 us`, `3.4 ms`, `2.0 s`.
std::string timeText(double ns);
/// The width `text` takes drawn in sans-serif at `fontPx`, over-estimated
/// so that a figure sized by it never clips it.
double textWidth(std::string_view text, double fontPx, bool bold);
/// Cuts `text` to at most `max` bytes at a UTF-8 boundary, adding "..." when cut.
std::string shorten(std::string_view text, size_t max);

struct Bar {
  std::string label;     ///< raw text (escaped when written)
  double value = 0;
  std::string valueText; ///< shown after the bar
  std::string href;      ///< optional in-page link for the label ("#site-...")
  std::string data;      ///< extra attributes for the bar's <g>, already escaped
};

/// Horizontal bars, one per entry, scaled to the largest value.
std::string barChart(std::string_view title, const std::vector<Bar> &bars);

/// Vertical bars over consecutive bins (labels under every few bins).
std::string histogram(std::string_view title, const std::vector<std::string> &binLabels,
                      const std::vector<uint64_t> &counts, std::string_view xLabel);

struct Point {
  double x = 0, y = 0;
  int series = 0;   ///< colour index
  std::string data; ///< extra attributes, already escaped
};
struct Band {
  double x0 = 0, x1 = 0;
  std::string label; ///< raw text
  std::string href;
};
struct Curve {
  std::vector<std::pair<double, double>> points;
};

struct ScatterSpec {
  std::string title, xLabel, yLabel;
  bool yBytes = false; ///< axis ticks as byte sizes
  bool xTime = false;  ///< axis ticks as times (ns)
  double radius = 2.5;
};
/// Points (one colour per series), background bands (loops), an optional
/// curve and marked points (drawn as diamonds with a label).
std::string scatter(const ScatterSpec &spec, const std::vector<Point> &points, const std::vector<Band> &bands,
                    const std::vector<Curve> &curves = {}, const std::vector<Point> &marked = {},
                    const std::vector<std::string> &markedLabels = {});

/// Colour of series `k` (distinct hues by the golden angle).
std::string colour(int k);

} // namespace sio::report::svg
