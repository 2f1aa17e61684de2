// sio-signature: the I/O signatures of a traced run (docs/signatures.md).
//
// Exit codes: 0 success, 2 bad input or usage.
#include "sio/signature/Signature.h"
#include "sio/trace/CommandLine.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"

#include <nlohmann/json.hpp>

#include <charconv>
#include <chrono>
#include <iostream>
#include <string>
#include <string_view>

#ifndef SIO_VERSION
#define SIO_VERSION "unknown"
#endif

using namespace sio::signature;

namespace {

// docs/cli.md: the exit statuses of every sio tool.
constexpr int kExitOk = sio::cli::kExitOk;
constexpr int kExitBadInput = sio::cli::kExitError;

constexpr const char *kHelp = R"(usage: sio-signature [options] <trace>

Prints the I/O signatures of a traced run (Byna et al. SC08, docs/signatures.md):
per rank, file and operation a trace signature

  {READ, initial position, dimension, ([stride, size, count], ...), repetitions}

and a pattern signature

  {Read, <spatial>, <repetition>, <size>, <temporal>}

Ranks whose signatures differ only by their initial position are grouped, with
the initial position as a function of rank where one fits.

options:
  --rank R              only rank R
  --all-ranks           every rank (the default)
  --op read|write|all   which accesses to describe (default all; with all,
                        reads and writes that interleave on a file form one
                        read/write pattern)
  --format text|json    output form (default text)
  --page-size BYTES     page size for small/medium/large (default 4096)
  -h, --help            this help
  --version             print the version

exit status: 0 ok, 2 bad input or usage
)";

int usageError(const std::string &message) {
  std::cerr << "sio-signature: error: " << sio::trace::printableMessage(message) << " (try 'sio-signature --help')\n";
  return kExitBadInput;
}

std::optional<int64_t> parseInt(std::string_view text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size())
    return std::nullopt;
  return v;
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  std::string format = "text";
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&](std::string_view name) -> std::optional<std::string_view> {
      if (arg.substr(0, name.size()) == name && arg.size() > name.size() && arg[name.size()] == '=')
        return arg.substr(name.size() + 1);
      if (arg == name && i + 1 < argc)
        return std::string_view(argv[++i]);
      return std::nullopt;
    };
    auto isOption = [&](std::string_view name) {
      return arg == name || (arg.substr(0, name.size()) == name && arg.size() > name.size() && arg[name.size()] == '=');
    };
    if (arg == "-h" || arg == "--help") {
      std::cout << kHelp;
      return kExitOk;
    }
    if (arg == "--version") {
      std::cout << "sio-signature " << SIO_VERSION << "\n";
      return kExitOk;
    }
    if (arg == "--all-ranks") {
      options.rank.reset();
    } else if (isOption("--rank")) {
      auto v = value("--rank");
      auto r = v ? parseInt(*v) : std::nullopt;
      if (!r)
        return usageError("--rank needs a rank number");
      options.rank = *r;
    } else if (isOption("--op")) {
      auto v = value("--op");
      if (v == "read")
        options.ops = OpFilter::Read;
      else if (v == "write")
        options.ops = OpFilter::Write;
      else if (v == "all")
        options.ops = OpFilter::All;
      else
        return usageError("--op needs read, write or all");
    } else if (isOption("--format")) {
      auto v = value("--format");
      if (v != "text" && v != "json")
        return usageError("--format needs text or json");
      format = std::string(*v);
    } else if (isOption("--page-size")) {
      auto v = value("--page-size");
      auto p = v ? parseInt(*v) : std::nullopt;
      if (!p || *p <= 0)
        return usageError("--page-size needs a positive number of bytes");
      options.pageSize = *p;
    } else if (arg.size() > 1 && arg[0] == '-') {
      return usageError("unknown option '" + std::string(arg) + "'");
    } else if (!path.empty()) {
      return usageError("expected one trace file");
    } else {
      path = std::string(arg);
    }
  }
  if (path.empty())
    return usageError("no trace file given");
  // A line on stderr at most once a second, from the first second on, while
  // ranks are analysed (ranks whose offsets no formula covers go one by one).
  const auto started = std::chrono::steady_clock::now();
  auto shown = started;
  options.progress = [&](int64_t done, int64_t total) {
    const auto now = std::chrono::steady_clock::now();
    if (now - started < std::chrono::seconds(1) || now - shown < std::chrono::seconds(1))
      return;
    shown = now;
    std::cerr << "sio-signature: " << done << " of " << total << " ranks analysed ("
              << std::chrono::duration_cast<std::chrono::seconds>(now - started).count() << " s)\n";
  };
  try {
    const sio::trace::Trace trace = sio::trace::readTraceFile(path);
    const SignatureReport report = analyze(trace, options);
    if (format == "json")
      std::cout << toJson(report).dump(2) << "\n";
    else
      std::cout << reportText(report);
    return kExitOk;
  } catch (const sio::trace::TraceError &e) {
    std::cerr << "sio-signature: error: " << e.what() << "\n";
  } catch (const std::exception &e) {
    std::cerr << "sio-signature: error: " << sio::trace::printableMessage(path + ": " + e.what()) << "\n";
  }
  return kExitBadInput;
}
