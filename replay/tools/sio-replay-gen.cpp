// sio-replay-gen TRACE -o replay.cpp: writes the replay program of a trace
// (the same as `sio-extrap TRACE --emit-replay replay.cpp` without extrapolation).
#include "sio/replay/ReplayGenerator.h"
#include "sio/trace/AtomicFile.h"
#include "sio/trace/CommandLine.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"

#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr const char *kUsage = R"(usage: sio-replay-gen [options] TRACE

Writes a self-contained C++ MPI program that replays the trace's I/O (to
standard output without -o). See docs/replay.md.

options:
  -o, --output FILE     write the program to FILE (written whole or not at all)
  -h, --help            this text
  --version             print the version

exit status: 0 written, 2 bad usage, an unreadable or malformed trace, or a
trace the generator refuses (docs/cli.md)
)";

} // namespace

int main(int argc, char **argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string input, output;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string &arg = args[i];
      if (sio::cli::isHelp(arg)) {
        std::fputs(kUsage, stdout);
        return sio::cli::kExitOk;
      }
      if (arg == "--version") {
        sio::cli::printVersion("sio-replay-gen", SIO_VERSION);
        return sio::cli::kExitOk;
      }
      if (auto v = sio::cli::optionValue(args, i, "--output", "-o"))
        output = *v;
      else if (!arg.empty() && arg[0] == '-' && arg != "-")
        throw sio::cli::UsageError("unknown option '" + arg + "'");
      else if (input.empty())
        input = arg;
      else
        throw sio::cli::UsageError("expected one trace file, got '" + input + "' and '" + arg + "'");
    }
    if (input.empty())
      throw sio::cli::UsageError("no trace file given");
  } catch (const sio::cli::UsageError &e) {
    std::fprintf(stderr, "sio-replay-gen: error: %s\n(see sio-replay-gen --help)\n",
                 sio::trace::printableMessage(e.what()).c_str());
    return sio::cli::kExitError;
  }
  try {
    sio::trace::Trace trace = sio::trace::readTraceFile(input);
    sio::replay::ReplayOptions options;
    options.traceName = input;
    std::string program = sio::replay::generateReplay(trace, options);
    if (output.empty()) {
      std::cout << program;
      return sio::cli::kExitOk;
    }
    // A failed write leaves no partial program.
    sio::trace::writeFileAtomically(output, program);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sio-replay-gen: error: %s\n", sio::trace::printableMessage(e.what()).c_str());
    return sio::cli::kExitError;
  }
  return sio::cli::kExitOk;
}
