#include "sio/report/Commands.h"

#include "sio/report/Export.h"
#include "sio/report/Report.h"
#include "sio/trace/AtomicFile.h"
#include "sio/trace/Json.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace sio::report {

const char *const kReportHelp = R"(usage: sio-trace report [options] <trace>... -o <report.html>

Writes one self-contained HTML file (inline SVG and CSS, no script, nothing
fetched): overview, calls and bytes by operation, layer and file, access
patterns per file (offset against call order and time, one colour per rank),
request-size and timing histograms, the loop structure with source locations,
I/O signatures, and with several traces of one program at different rank
counts each elastic value's fit against the rank count. The detailed
sections describe the last trace given. See docs/report.md.

options:
  -o, --output FILE     where to write the report (required; - = stdout)
  --max-ranks N         ranks drawn in access-pattern plots (default 64;
                        more ranks: an evenly spaced sample, named as such)
  --max-points N        points per access-pattern plot (default 4096)
)";

const char *const kExportHelp = R"(usage: sio-trace export --format chrome|otf2 [options] <trace> -o <out>

Expands the trace rank by rank into a timeline:
  chrome   Chrome trace event JSON (Perfetto, chrome://tracing): one track
           per rank, one slice per call with its parameters as args; -o FILE
  otf2     OTF2 archive (otf2-print, Vampir): one location per rank,
           Enter/Leave per call, IoOperationBegin/Complete per read and
           write on I/O handles per file; -o DIR (DIR/traces.otf2))SIO_OTF2_NOTE(
Times are the events' mean computation gap and mean duration; where an
event's statistics merge several calls the times are reconstructed from
those histograms (the Chrome file says so in otherData.timing and per slice
in args.timing).

options:
  -o, --output PATH     output file (chrome; - = stdout) or directory (otf2)
  --format F            chrome or otf2 (required)
  --max-ranks N         tracks written (default 64; 0 = all); more ranks:
                        an evenly spaced sample, recorded in the output
  --max-calls N         calls per rank before its track stops (default 1048576)
  --max-output-mb N     output budget in MiB (default 64, 0 = none): an
                        export that would be larger is refused before it
                        is written (docs/report.md, Bounds)
)";

namespace {

[[noreturn]] void usage(const std::string &message) { throw std::invalid_argument(message); }

int64_t number(const std::string &cmd, const std::string &flag, const std::string &v) {
  int64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size() || n < 0)
    usage(cmd + ": " + flag + " needs a non-negative number, got '" + v + "'");
  return n;
}

/// Splits `--flag value` / `--flag=value` options from positional arguments.
struct Parsed {
  std::map<std::string, std::string> options;
  std::vector<std::string> positional;
};

Parsed parse(const std::string &cmd, std::span<const std::string> args, const std::vector<std::string> &known) {
  Parsed p;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "-o")
      a = "--output";
    if (!a.starts_with("--") ) {
      if (a.starts_with("-") && a != "-")
        usage(cmd + ": unknown option '" + a + "'");
      p.positional.push_back(a);
      continue;
    }
    std::string name = a, value;
    bool inlineValue = false;
    if (auto eq = a.find('='); eq != std::string::npos) {
      name = a.substr(0, eq);
      value = a.substr(eq + 1);
      inlineValue = true;
    }
    if (std::find(known.begin(), known.end(), name) == known.end())
      usage(cmd + ": unknown option '" + name + "'");
    if (!inlineValue) {
      if (i + 1 >= args.size())
        usage(cmd + ": " + name + " needs a value");
      value = args[++i];
    }
    p.options[name] = value;
  }
  return p;
}

bool wantsHelp(std::span<const std::string> args) {
  for (const std::string &a : args)
    if (a == "-h" || a == "--help")
      return true;
  return false;
}

/// Opens `path` for writing ("-" = stdout) and runs `write` on it.
template <typename F> void withOutput(const std::string &path, F write) {
  if (path == "-") {
    write(std::cout);
    std::cout.flush();
    return;
  }
  // Made whole first (reports are bounded, see docs/report.md), then
  // written so that a failure leaves no truncated file.
  std::ostringstream text;
  write(text);
  sio::trace::writeFileAtomically(path, text.view());
}

constexpr int64_t kDefaultMaxOutputMb = 64;
/// Fewest bytes a call takes in each export format (a Chrome slice with no
/// parameters; OTF2 Enter and Leave records), and per exported rank (its
/// track records): the projection below never overestimates.
constexpr uint64_t kChromeBytesPerCall = 120, kOtf2BytesPerCall = 32, kBytesPerRank = 100;

struct OutputBudgetExceeded {};

/// Passes text on to a sink in 64 KiB pieces, counting it, and throws
/// OutputBudgetExceeded once more than `limit` bytes (0: no limit) came:
/// an export holds one piece in memory, and stops at its budget.
class BudgetBuf : public std::streambuf {
public:
  BudgetBuf(const trace::TextSink &sink, uint64_t limit) : sink_(sink), limit_(limit) {
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  void finish() { drain(); }

protected:
  int_type overflow(int_type ch) override {
    drain();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override {
    drain();
    return 0;
  }

private:
  void drain() {
    const size_t n = size_t(pptr() - pbase());
    written_ += n;
    if (limit_ && written_ > limit_)
      throw OutputBudgetExceeded{};
    if (n)
      sink_(std::string_view(pbase(), n));
    setp(buf_.data(), buf_.data() + buf_.size());
  }

  const trace::TextSink &sink_;
  uint64_t limit_;
  uint64_t written_ = 0;
  std::array<char, 1 << 16> buf_;
};

std::string mib(long double bytes) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.0Lf MiB", bytes / (1024.0L * 1024.0L));
  return buf;
}

/// Refuses an export the budget cannot hold, before expanding anything: the
/// ranks exported times the calls each makes (the trace's total spread
/// evenly, at most --max-calls), at the fewest bytes a call can take. A rank
/// making more than its share is caught while writing (BudgetBuf).
void checkExportBudget(const trace::Trace &t, const ExportOptions &opt, const std::string &format,
                       uint64_t budgetBytes) {
  if (!budgetBytes)
    return;
  const int64_t nranks = std::max<int64_t>(1, t.header.nranks);
  const int64_t ranks = opt.maxRanks > 0 ? std::min(opt.maxRanks, nranks) : nranks;
  const trace::TraceSummary s = trace::summarize(t);
  const long double perRank =
      std::min<long double>(opt.maxCallsPerRank, std::ceil((long double)s.totalCalls / (long double)nranks));
  const long double calls = perRank * (long double)ranks;
  const long double bytes =
      calls * (format == "chrome" ? kChromeBytesPerCall : kOtf2BytesPerCall) + (long double)ranks * kBytesPerRank;
  if (bytes <= (long double)budgetBytes)
    return;
  char what[160];
  std::snprintf(what, sizeof what, "%lld ranks x %.0Lf calls each", (long long)ranks, perRank);
  throw std::runtime_error("export: the " + format + " timeline would take at least " + mib(bytes) + " (" + what +
                           "; the trace makes " + std::to_string(s.totalCalls) + (s.exact ? "" : "+") +
                           " calls), over the output budget of " + mib(budgetBytes) +
                           "; raise it with --max-output-mb N (0 = no limit) or export less with --max-calls N "
                           "or --max-ranks N");
}

} // namespace

int reportCommand(std::span<const std::string> args) {
  if (wantsHelp(args)) {
    std::cout << kReportHelp;
    return 0;
  }
  Parsed p = parse("report", args, {"--output", "--max-ranks", "--max-points"});
  if (p.positional.empty())
    usage("report: expected at least one trace file");
  if (!p.options.count("--output"))
    usage("report: -o <report.html> is required");
  ReportOptions opt;
  if (p.options.count("--max-ranks"))
    opt.maxRanks = std::max<int64_t>(1, number("report", "--max-ranks", p.options["--max-ranks"]));
  if (p.options.count("--max-points"))
    opt.maxPointsPerPlot = uint64_t(std::max<int64_t>(1, number("report", "--max-points", p.options["--max-points"])));
  std::vector<ReportInput> inputs;
  for (const std::string &path : p.positional)
    inputs.push_back({path, trace::readTraceFile(path)});
  const std::string out = p.options["--output"];
  withOutput(out, [&](std::ostream &os) { writeReport(os, inputs, opt); });
  if (out != "-")
    std::fprintf(stderr, "sio-trace: report written to %s\n", out.c_str());
  return 0;
}

int exportCommand(std::span<const std::string> args) {
  if (wantsHelp(args)) {
    std::string help = kExportHelp;
    const std::string marker = "SIO_OTF2_NOTE(";
    if (auto at = help.find(marker); at != std::string::npos)
      help.replace(at, marker.size(),
                   otf2Available() ? "\n" : "\n           (not available: built without libotf2-trace-dev)\n");
    std::cout << help;
    return 0;
  }
  Parsed p = parse("export", args, {"--output", "--format", "--max-ranks", "--max-calls", "--max-output-mb"});
  if (p.positional.size() != 1)
    usage("export: expected one trace file");
  if (!p.options.count("--format"))
    usage("export: --format chrome|otf2 is required");
  if (!p.options.count("--output"))
    usage("export: -o <output> is required");
  const std::string format = p.options["--format"];
  if (format != "chrome" && format != "otf2")
    usage("export: unknown format '" + format + "' (chrome or otf2)");
  ExportOptions opt;
  if (p.options.count("--max-ranks"))
    opt.maxRanks = number("export", "--max-ranks", p.options["--max-ranks"]);
  if (p.options.count("--max-calls"))
    opt.maxCallsPerRank = uint64_t(std::max<int64_t>(1, number("export", "--max-calls", p.options["--max-calls"])));
  int64_t budgetMb = kDefaultMaxOutputMb;
  if (p.options.count("--max-output-mb"))
    budgetMb = std::min<int64_t>(number("export", "--max-output-mb", p.options["--max-output-mb"]), int64_t(1) << 40);
  const uint64_t budget = uint64_t(budgetMb) << 20;
  if (format == "otf2" && !otf2Available())
    usage("export: this sio-trace was built without OTF2 (install libotf2-trace-dev and reconfigure)");
  trace::Trace t = trace::readTraceFile(p.positional[0]);
  const std::string out = p.options["--output"];
  checkExportBudget(t, opt, format, budget);
  ExportStats st;
  try {
    if (format == "chrome") {
      // Streamed through the budget into the file (or stdout): never whole
      // in memory.
      auto produce = [&](const trace::TextSink &sink) {
        BudgetBuf buf(sink, budget);
        std::ostream os(&buf);
        os.exceptions(std::ios::badbit);
        st = writeChromeTrace(os, t, opt);
        buf.finish();
      };
      if (out == "-")
        produce([](std::string_view piece) { std::cout.write(piece.data(), std::streamsize(piece.size())); });
      else
        trace::writeFileAtomically(out, produce);
    } else {
      // OTF2 writes its own files: bounded by calls at the fewest bytes each.
      opt.maxTotalCalls = budget / kOtf2BytesPerCall;
      const bool existed = std::filesystem::exists(out);
      try {
        st = writeOtf2(out, t, opt);
      } catch (const ExportBudgetExceeded &) {
        // Remove the partial archive (writeOtf2 refuses to write over one).
        std::error_code ec;
        for (const char *part : {"traces.otf2", "traces.def", "traces"})
          std::filesystem::remove_all(std::filesystem::path(out) / part, ec);
        if (!existed)
          std::filesystem::remove(out, ec);
        throw OutputBudgetExceeded{};
      }
    }
  } catch (const OutputBudgetExceeded &) {
    throw std::runtime_error("export: the " + format + " timeline passed the output budget of " + mib(budget) +
                             " while writing (the trace makes " + std::to_string(trace::summarize(t).totalCalls) +
                             " calls)" + (out == "-" ? "; the output is cut" : "; nothing was written") +
                             "; raise it with --max-output-mb N (0 = no limit) or export less with --max-calls N "
                             "or --max-ranks N");
  }
  std::fprintf(stderr, "sio-trace: %s: %lld of %lld ranks%s, %llu calls, %llu reads/writes%s\n", out.c_str(),
               (long long)st.ranks, (long long)t.header.nranks, st.sampled ? " (sample)" : "",
               (unsigned long long)st.calls, (unsigned long long)st.ioOperations,
               st.truncated ? " (some ranks cut at --max-calls)" : "");
  return 0;
}

} // namespace sio::report
