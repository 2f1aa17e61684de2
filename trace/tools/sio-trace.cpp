// sio-trace: look at and compare sio traces.
//
//   sio-trace dump T         the trace as text: loops indented, formulas kept
//   sio-trace stats T        calls and bytes by operation and by file
//   sio-trace diff A B       structural comparison (exit 1 when different)
//   sio-trace report T... -o report.html   HTML report (trace/report/)
//   sio-trace export --format chrome|otf2 T -o OUT   timelines (trace/report/)
//
// Exit codes: 0 success / traces equal, 1 traces differ, 2 bad input or usage.
#include "sio/report/Commands.h"
#include "sio/trace/CommandLine.h"
#include "sio/trace/Diff.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"
#include "sio/trace/Summary.h"

#include <charconv>
#include <cstdio>
#include <iostream>
#include <new>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#ifndef SIO_VERSION
#define SIO_VERSION "unknown"
#endif

using namespace sio::trace;

namespace {

// docs/cli.md: the exit statuses of every sio tool.
constexpr int kExitOk = sio::cli::kExitOk;
constexpr int kExitDifferent = sio::cli::kExitDiffer;
constexpr int kExitBadInput = sio::cli::kExitError;

constexpr const char *kMainHelp = R"(usage: sio-trace <command> [options] <trace>...

Look at and compare sio traces (docs/trace-format.md).

commands:
  dump <trace>          print the trace: header, files, and the body with
                        loops indented and elastic values as formulas
  stats <trace>         totals, calls and bytes by operation and by file
  diff <a> <b>          structural comparison; exit 0 when equal, 1 with
                        the first differences printed
  report <trace>... -o <report.html>
                        self-contained HTML report with plots (docs/report.md)
  export --format chrome|otf2 <trace> -o <out>
                        timeline for Perfetto/chrome://tracing or OTF2 tools

options:
  -h, --help            this help (sio-trace <command> --help for a command)
  --version             print the version

exit status: 0 ok or equal, 1 traces differ, 2 bad input or usage
)";

constexpr const char *kDumpHelp = R"(usage: sio-trace dump [--timing] <trace>

Prints the trace as text. Events run by the ranks named in the enclosing
"ranks ...:" heading; loops are indented two spaces per level and their
index is named (i0 for the outermost). Rank-varying values are shown as
{ranks A: value; ranks B: value}.

options:
  --timing              also print the timing statistics of each event
)";

constexpr const char *kStatsHelp = R"(usage: sio-trace stats <trace>

Prints the number of calls and bytes moved, in total, by operation and by
file, the ranks that made calls, and whether the trace is complete. Calls
made inside another traced call (inner) count as calls but not as bytes.
)";

constexpr const char *kDiffHelp = R"(usage: sio-trace diff [options] <a> <b>

Compares two traces structurally: rank counts, files, datatypes and
communicators, then every node of the body (operation, ranks, loop
structure and iteration counts, parameters). Values are compared as
functions after binding nranks, so an extrapolated trace equals the trace
taken at that size. Program name, command line and metadata are ignored.

Calls the MPI library makes inside another call (marked "inner") may race:
at MPI_File_close every rank unlinks ROMIO's shared-file-pointer file, one
succeeds and the others get ENOENT, and timing decides which. Such a run is
equal when the same number of ranks had each outcome; when only the winners
differ, diff says so under "races" and still exits 0.

options:
  --ignore-sites        ignore call-site and loop ids
  --timing              also compare timing statistics
  --exact-races         count different race winners as a difference
  --max N               stop after N differences (default 10, 0 = all)

exit status: 0 equal, 1 different, 2 bad input or usage
)";

struct UsageError {
  std::string message;
};

[[noreturn]] void usageError(const std::string &message) { throw UsageError{message}; }

/// A string value in double quotes: quotes, backslashes and control
/// characters escaped (escapeControl), so a hostile name cannot drive the
/// terminal or fake a line of output.
std::string quote(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      out += c;
    }
  }
  return "\"" + escapeControl(out) + "\"";
}

std::string location(const Trace &t, uint64_t site) {
  if (!site)
    return "";
  if (const SiteInfo *s = t.site(site))
    return escapeControl(s->file) + ":" + std::to_string(s->line) + ":" + std::to_string(s->column);
  return "site " + formatId(site);
}

std::string loopLocation(const Trace &t, uint64_t id) {
  if (!id)
    return "";
  if (const LoopInfo *l = t.loopInfo(id))
    return escapeControl(l->file) + ":" + std::to_string(l->line) + ":" + std::to_string(l->column);
  return "loop " + formatId(id);
}

//===----------------------------------------------------------------------===//
// dump
//===----------------------------------------------------------------------===//

class Dumper {
public:
  Dumper(const Trace &t, std::ostream &os, bool timing) : t_(t), os_(os), timing_(timing) {}

  void run() {
    const TraceHeader &h = t_.header;
    os_ << "trace: program " << (h.program.empty() ? "(unknown)" : escapeControl(h.program)) << ", " << h.nranks
        << " rank" << (h.nranks == 1 ? "" : "s") << ", ";
    if (h.complete)
      os_ << "complete";
    else
      os_ << "INCOMPLETE (" << h.droppedEvents << " events dropped)";
    os_ << "\n";
    if (!h.generator.empty())
      os_ << "generator: " << escapeControl(h.generator) << "\n";
    for (const std::string &n : h.notes)
      os_ << "note: " << escapeControl(n) << "\n";
    for (const std::string &why : h.inexact)
      os_ << "inexact: " << escapeControl(why) << "\n";
    if (!t_.files.empty()) {
      os_ << "files:\n";
      for (const FileEntry &f : t_.files)
        os_ << "  f" << f.id << " " << quote(f.formatStr()) << "\n";
    }
    const RankList *group = nullptr;
    for (const Node &n : t_.body) {
      if (!group || !(*group == n.ranks)) {
        group = &n.ranks;
        os_ << "ranks " << n.ranks.str() << ":\n";
      }
      node(n, n.ranks, 1, 0);
    }
  }

private:
  std::string value(const std::string &param, const Value &v) const {
    if (const auto *s = std::get_if<std::string>(&v))
      return quote(*s);
    const Expr &e = std::get<Expr>(v);
    auto id = e.constantValue();
    if (id && isFileParam(param)) {
      if (const FileEntry *f = t_.file(*id))
        return "f" + std::to_string(*id) + " " + quote(f->formatStr());
      return "f" + std::to_string(*id);
    }
    if (id && param == "error")
      if (auto name = errorName(layer_, *id))
        return std::to_string(*id) + " " + *name;
    if (id &&
        (param == "datatype" || param == "etype" || param == "filetype" || param == "oldtype" || param == "newtype")) {
      if (const ObjectEntry *d = t_.datatype(*id))
        return std::to_string(*id) + " " + escapeControl(d->kind == "named" ? d->name : d->kind);
    }
    return e.str();
  }

  std::string elastic(const std::string &param, const ElasticValue &ev) const {
    if (ev.entries().size() == 1)
      return value(param, ev.entries()[0].value);
    std::string out = "{";
    for (size_t i = 0; i < ev.entries().size(); ++i)
      out += (i ? "; " : "") + std::string("ranks ") + ev.entries()[i].ranks.str() + ": " +
             value(param, ev.entries()[i].value);
    return out + "}";
  }

  static std::string stats(const char *what, const TimingStats &s) {
    std::ostringstream os;
    os << what << " n=" << s.count() << " mean=" << uint64_t(s.mean() + 0.5) << "ns min=" << s.min()
       << "ns max=" << s.max() << "ns";
    return os.str();
  }

  void node(const Node &n, const RankList &parentRanks, int indent, uint32_t depth) {
    std::string line(size_t(indent) * 2, ' ');
    if (!(n.ranks == parentRanks))
      line += "[ranks " + n.ranks.str() + "] ";
    if (n.isEvent()) {
      const Event &ev = n.event();
      // A call that names a file and returns a handle opens it, and so does
      // a dup (its `oldfd`): show the handle as its result.
      // Results (bytes moved, error) are shown there too.
      const bool opens = ev.param("file") != nullptr || ev.param("oldfd") != nullptr;
      auto isOutput = [&](const std::string &name) {
        return name == "result" || name == "error" ||
               (opens && (name == "fh" || name == "fd" || name == "stream" || name == "dir")) ||
               (ev.op == "fdopen" && name == "stream"); // a stream on the descriptor `fd`
      };
      layer_ = ev.layer;
      line += escapeControl(ev.op) + "(";
      bool first = true;
      for (const Param &p : ev.params) {
        if (isOutput(p.name))
          continue;
        line += (first ? "" : ", ") + escapeControl(p.name) + "=" + elastic(p.name, p.value);
        first = false;
      }
      line += ")";
      first = true;
      for (const Param &p : ev.params) {
        if (!isOutput(p.name))
          continue;
        line += (first ? " -> " : ", ") + escapeControl(p.name) + "=" + elastic(p.name, p.value);
        first = false;
      }
      if (ev.inner)
        line += " (inner)";
      if (std::string loc = location(t_, ev.site); !loc.empty())
        line += "   [" + loc + "]";
      if (timing_ && (ev.compute.count() || ev.duration.count())) {
        line += "   {";
        if (ev.duration.count())
          line += stats("duration", ev.duration);
        if (ev.compute.count())
          line += std::string(ev.duration.count() ? "; " : "") + stats("compute", ev.compute);
        line += "}";
      }
      os_ << line << "\n";
      return;
    }
    const Loop &loop = n.loop();
    line += "loop " + elastic("", loop.iterations) + " iterations (i" + std::to_string(depth) + ")";
    if (std::string loc = loopLocation(t_, loop.id); !loc.empty())
      line += "   [" + loc + "]";
    os_ << line << ":\n";
    for (const Node &c : loop.body)
      node(c, n.ranks, indent + 1, depth + 1);
  }

  const Trace &t_;
  std::ostream &os_;
  bool timing_;
  Layer layer_ = Layer::POSIX; ///< of the event being printed (names its `error`)
};

//===----------------------------------------------------------------------===//
// commands
//===----------------------------------------------------------------------===//

bool wantsHelp(std::span<const std::string> args) {
  for (const std::string &a : args)
    if (a == "-h" || a == "--help")
      return true;
  return false;
}

int cmdDump(std::span<const std::string> args) {
  if (wantsHelp(args)) {
    std::cout << kDumpHelp;
    return kExitOk;
  }
  bool timing = false;
  std::vector<std::string> files;
  for (const std::string &a : args) {
    if (a == "--timing")
      timing = true;
    else if (a.starts_with("-") && a != "-")
      usageError("dump: unknown option '" + a + "'");
    else
      files.push_back(a);
  }
  if (files.size() != 1)
    usageError("dump: expected one trace file");
  Trace t = readTraceFile(files[0]);
  Dumper(t, std::cout, timing).run();
  return kExitOk;
}

int cmdStats(std::span<const std::string> args) {
  if (wantsHelp(args)) {
    std::cout << kStatsHelp;
    return kExitOk;
  }
  std::vector<std::string> files;
  for (const std::string &a : args) {
    if (a.starts_with("-") && a != "-")
      usageError("stats: unknown option '" + a + "'");
    files.push_back(a);
  }
  if (files.size() != 1)
    usageError("stats: expected one trace file");
  Trace t = readTraceFile(files[0]);
  TraceSummary s = summarize(t);
  const TraceHeader &h = t.header;
  std::printf("program: %s\n", h.program.empty() ? "(unknown)" : escapeControl(h.program).c_str());
  std::printf("ranks: %llu active of %lld\n", (unsigned long long)s.activeRanks, (long long)s.nranks);
  if (h.complete)
    std::printf("complete: yes\n");
  else
    std::printf("complete: NO (%llu events dropped)\n", (unsigned long long)h.droppedEvents);
  if (!h.inexact.empty()) {
    std::printf("exact: no (the trace misses data)\n");
    for (const std::string &why : h.inexact)
      std::printf("  inexact: %s\n", escapeControl(why).c_str());
  } else {
    std::printf("exact: %s\n", s.exact ? "yes" : "no (some values could not be evaluated)");
  }
  std::printf("calls: %llu (inner: %llu)\n", (unsigned long long)s.totalCalls, (unsigned long long)s.innerCalls);
  std::printf("failed calls: %llu\n", (unsigned long long)s.failedCalls);
  std::printf("bytes read: %lld\n", (long long)s.bytesRead);
  std::printf("bytes written: %lld\n", (long long)s.bytesWritten);
  std::printf("compressed: %llu events, %llu loops\n", (unsigned long long)s.staticEvents,
              (unsigned long long)s.staticLoops);
  std::printf("operations:\n");
  std::printf("  %-32s %12s %16s\n", "operation", "calls", "bytes");
  for (const auto &[op, o] : s.byOp)
    std::printf("  %-32s %12llu %16lld\n", escapeControl(op).c_str(), (unsigned long long)o.calls, (long long)o.bytes);
  std::printf("files:\n");
  std::printf("  %-32s %12s %16s\n", "file", "calls", "bytes");
  for (const auto &[id, o] : s.byFile) {
    std::string name = "f" + std::to_string(id);
    if (const FileEntry *f = t.file(id))
      name += " " + quote(f->formatStr());
    std::printf("  %-32s %12llu %16lld\n", name.c_str(), (unsigned long long)o.calls, (long long)o.bytes);
  }
  return kExitOk;
}

int cmdDiff(std::span<const std::string> args) {
  if (wantsHelp(args)) {
    std::cout << kDiffHelp;
    return kExitOk;
  }
  DiffOptions opts;
  std::vector<std::string> files;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--ignore-sites") {
      opts.ignoreSites = true;
    } else if (a == "--timing") {
      opts.compareTiming = true;
    } else if (a == "--exact-races") {
      opts.exactRaceWinners = true;
    } else if (a == "--max" || a.starts_with("--max=")) {
      std::string v;
      if (a == "--max") {
        if (i + 1 >= args.size())
          usageError("diff: --max needs a number");
        v = args[++i];
      } else {
        v = a.substr(6);
      }
      size_t n = 0;
      auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec != std::errc() || p != v.data() + v.size())
        usageError("diff: --max needs a number, got '" + v + "'");
      opts.maxDifferences = n;
    } else if (a.starts_with("-") && a != "-") {
      usageError("diff: unknown option '" + a + "'");
    } else {
      files.push_back(a);
    }
  }
  if (files.size() != 2)
    usageError("diff: expected two trace files");
  Trace a = readTraceFile(files[0]);
  Trace b = readTraceFile(files[1]);
  std::vector<Difference> races;
  std::vector<Difference> diffs = diffTraces(a, b, opts, &races);
  if (!races.empty()) {
    std::cout << "races (inner calls whose winner timing decides; --exact-races counts them):\n";
    for (const Difference &d : races)
      std::cout << "  " << echoValue(d.where, kMessageLimit) << ": " << echoValue(d.what, kMessageLimit) << "\n";
  }
  if (diffs.empty())
    return kExitOk;
  std::cout << escapeControl(files[0]) << " and " << escapeControl(files[1]) << " differ:\n";
  for (const Difference &d : diffs)
    std::cout << "  " << echoValue(d.where, kMessageLimit) << ": " << echoValue(d.what, kMessageLimit) << "\n";
  if (opts.maxDifferences && diffs.size() >= opts.maxDifferences)
    std::cout << "  (stopped after " << diffs.size() << " differences; --max 0 shows all)\n";
  return kExitDifferent;
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  try {
    if (args.empty())
      usageError("no command given (try 'sio-trace --help')");
    const std::string cmd = args[0];
    std::span<const std::string> rest(args.data() + 1, args.size() - 1);
    if (cmd == "-h" || cmd == "--help" || cmd == "help") {
      std::cout << kMainHelp;
      return kExitOk;
    }
    if (cmd == "--version") {
      std::cout << "sio-trace " << SIO_VERSION << " (trace format " << kFormatVersion.major << "."
                << kFormatVersion.minor << ")\n";
      return kExitOk;
    }
    if (cmd == "dump")
      return cmdDump(rest);
    if (cmd == "stats")
      return cmdStats(rest);
    if (cmd == "diff")
      return cmdDiff(rest);
    if (cmd == "report")
      return sio::report::reportCommand(rest);
    if (cmd == "export")
      return sio::report::exportCommand(rest);
    usageError("unknown command '" + cmd + "' (try 'sio-trace --help')");
  } catch (const UsageError &e) {
    std::cerr << "sio-trace: error: " << printableMessage(e.message) << "\n";
  } catch (const std::bad_alloc &) {
    // A limit the checks above missed: still a refusal, not an abort.
    std::cerr << "sio-trace: error: out of memory (the trace asks for more than this machine has; see the "
                 "--max-* options of the command)\n";
  } catch (const std::exception &e) {
    std::cerr << "sio-trace: error: " << printableMessage(e.what()) << "\n";
  }
  return kExitBadInput;
}
