// The HTML report of one or more traces (sio-trace report): one
// self-contained file, inline SVG and CSS, no script, nothing fetched. Every
// string taken from a trace is escaped. docs/report.md describes the sections.
#pragma once

#include "sio/trace/Trace.h"

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace sio::report {

struct ReportInput {
  std::string path; ///< shown in the header
  trace::Trace trace;
};

struct ReportOptions {
  int64_t maxRanks = 64;           ///< ranks drawn in the access-pattern plots (more: an even sample)
  uint64_t maxPointsPerPlot = 4096; ///< points per access-pattern plot (more: every k-th)
  uint64_t expandBudget = 2'000'000; ///< calls expanded for histograms and the time span
  size_t maxTableRows = 64;        ///< rows of per-file, per-site and signature tables
};

/// Writes the report. The detailed sections describe the last input; with
/// several inputs the overview lists all and the fits section plots each
/// elastic value against the rank count. Throws std::runtime_error on a
/// write failure.
void writeReport(std::ostream &out, const std::vector<ReportInput> &inputs, const ReportOptions &options);

/// HTML/XML text escaping (& < > " '), control characters and invalid UTF-8
/// replaced by U+FFFD so that every figure stays well-formed XML.
std::string escapeHtml(std::string_view text);

} // namespace sio::report
