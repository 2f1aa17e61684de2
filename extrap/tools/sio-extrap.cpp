// sio-extrap: extrapolate traces taken at small rank counts to a large one,
// and/or write a replay program (docs/extrap.md, docs/replay.md).
#include "sio/extrap/Extrapolate.h"
#include "sio/replay/ReplayGenerator.h"
#include "sio/trace/AtomicFile.h"
#include "sio/trace/CommandLine.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"

#include <charconv>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

namespace {

constexpr const char *kUsage = R"(usage: sio-extrap TRACE... [--ranks N] [-o OUT.json] [--emit-replay REPLAY.cpp]
                  [--min-inputs K] [--path-map OLD=NEW]... [--prefer MODEL[@WHERE]]...
                  [--verbose]

Extrapolates traces of one program taken at several rank counts (at least
four by default, any order) to the trace the program would write at N ranks.
Every value is fitted exactly (zero residual on every input) as a function
of the rank count; timing is fitted by least squares. With a single trace and
no --ranks, the trace is taken as it is (for --emit-replay).

Options with a value take it as --opt=value or --opt value (docs/cli.md).

options:
  --ranks N             target rank count
  -o, --output FILE     write the extrapolated trace (JSON) to FILE
  --emit-replay FILE    write a C++ MPI program that performs the trace's I/O
  --min-inputs K        rank counts required (default 4)
  --path-map OLD=NEW    read input file names starting with OLD as starting
                        with NEW (repeatable; longest OLD wins): traces taken
                        in per-run directories then name the same files
  --prefer MODEL[@WHERE]
                        when models that reproduce every input differ at N
                        (sio-extrap refuses and names them), take MODEL: a
                        model name (constant, k/N, ...) or a family (scaling,
                        grid, preset); with @WHERE only for values whose
                        description contains WHERE (repeatable, first wins).
                        The choices are recorded in the output's metadata
                        (extrap_choices)
  --verbose             print every timing fit and its error
  -h, --help            this text
  --version             print the version

exit status: 0 success, 2 bad input, a value that no model fits, or one that
two models fit with different values at N
)";

[[noreturn]] void usageError(const std::string &message) {
  std::fprintf(stderr, "sio-extrap: error: %s\n(see sio-extrap --help)\n",
               sio::trace::printableMessage(message).c_str());
  std::exit(sio::cli::kExitError);
}

int64_t parseCount(const std::string &option, const std::string &text) {
  int64_t v = 0;
  const char *end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || v <= 0)
    usageError(option + " needs a positive integer, got '" + text + "'");
  return v;
}

/// Prints a refusal. One longer than printableMessage keeps (a value that
/// follows no model lists its values per input: a random stream's run to
/// megabytes) is cut on stderr and written whole, escaped line by line, next
/// to the output the user asked for, and the message says where.
void reportError(const std::string &message, const std::string &output) {
  std::string shown = sio::trace::printableMessage(message);
  if (message.size() > sio::trace::kMessageLimit && !output.empty()) {
    const std::string full = output + ".error.txt";
    std::string text;
    for (size_t at = 0; at <= message.size();) {
      size_t nl = message.find('\n', at);
      if (nl == std::string::npos)
        nl = message.size();
      text += sio::trace::escapeControl(std::string_view(message).substr(at, nl - at)) + "\n";
      at = nl + 1;
    }
    try {
      sio::trace::writeFileAtomically(full, text);
      shown += "\n(the whole message, " + std::to_string(message.size()) + " bytes, is in " + full + ")";
    } catch (const std::exception &e) {
      shown += "\n(the whole message could not be written: " + sio::trace::printableMessage(e.what()) + ")";
    }
  }
  std::fprintf(stderr, "sio-extrap: error: %s\n", shown.c_str());
}

} // namespace

int main(int argc, char **argv) {
  std::vector<std::string> inputs;
  std::string output, replayPath;
  int64_t ranks = 0;
  sio::extrap::ExtrapOptions options;
  bool verbose = false;
  const std::vector<std::string> args(argv + 1, argv + argc);
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string &arg = args[i];
      auto value = [&](std::string_view name, std::string_view shortName = {}) {
        return sio::cli::optionValue(args, i, name, shortName);
      };
      if (sio::cli::isHelp(arg)) {
        std::fputs(kUsage, stdout);
        return sio::cli::kExitOk;
      } else if (arg == "--version") {
        sio::cli::printVersion("sio-extrap", SIO_VERSION);
        return sio::cli::kExitOk;
      } else if (auto v = value("--ranks")) {
        ranks = parseCount("--ranks", *v);
      } else if (auto v = value("--output", "-o")) {
        output = *v;
      } else if (auto v = value("--emit-replay")) {
        replayPath = *v;
      } else if (auto v = value("--min-inputs")) {
        options.minInputs = static_cast<size_t>(parseCount("--min-inputs", *v));
      } else if (auto v = value("--path-map")) {
        size_t eq = v->find('=');
        if (eq == std::string::npos || eq == 0)
          usageError("--path-map needs OLD=NEW, got '" + *v + "'");
        options.pathMaps.emplace_back(v->substr(0, eq), v->substr(eq + 1));
      } else if (auto v = value("--prefer")) {
        if (v->empty() || (*v)[0] == '@')
          usageError("--prefer needs MODEL or MODEL@WHERE, got '" + *v + "'");
        options.prefer.push_back(*v);
      } else if (arg == "--verbose") {
        verbose = true;
      } else if (!arg.empty() && arg[0] == '-') {
        usageError("unknown option '" + arg + "'");
      } else {
        inputs.push_back(arg);
      }
    }
  } catch (const sio::cli::UsageError &e) {
    usageError(e.what());
  }
  if (inputs.empty())
    usageError("no input traces");
  if (output.empty() && replayPath.empty())
    usageError("nothing to write: give -o OUT.json and/or --emit-replay REPLAY.cpp");
  if (ranks == 0 && inputs.size() > 1)
    usageError("--ranks N is required to extrapolate several traces");

  try {
    std::vector<sio::trace::Trace> traces;
    for (const std::string &path : inputs)
      traces.push_back(sio::trace::readTraceFile(path));
    sio::trace::Trace result;
    if (ranks == 0) {
      result = std::move(traces.front()); // one trace, taken as it is (file names mapped)
      sio::extrap::mapPaths(result, options.pathMaps);
    } else {
      options.targetRanks = ranks;
      options.inputNames = inputs;
      if (verbose)
        options.verbose = [](const std::string &line) {
          std::fprintf(stderr, "sio-extrap: timing: %s\n", line.c_str());
        };
      result = sio::extrap::extrapolate(std::move(traces), options);
    }
    if (!output.empty())
      sio::trace::writeTraceFile(output, result);
    if (!replayPath.empty()) {
      sio::replay::ReplayOptions ro;
      ro.traceName = output.empty() ? inputs.front() : output;
      ro.generator = "sio-extrap --emit-replay";
      // The whole program first: a trace the generator refuses leaves no
      // file behind (nor a truncated one), and a failed write does not either.
      sio::trace::writeFileAtomically(replayPath, sio::replay::generateReplay(result, ro));
    }
  } catch (const std::exception &e) {
    reportError(e.what(), output.empty() ? replayPath : output);
    return sio::cli::kExitError;
  }
  return sio::cli::kExitOk;
}
