// sio-replay-gen TRACE -o replay.cpp: writes the replay program of a trace
// (the same as `sio-extrap TRACE --emit-replay replay.cpp` without extrapolation).
#include "sio/replay/ReplayGenerator.h"
#include "sio/trace/AtomicFile.h"
#include "sio/trace/Json.h"
#include "sio/trace/Printable.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <unistd.h>
#include <iostream>
#include <string>

namespace {

void usage(std::FILE *to) {
  std::fprintf(to, "usage: sio-replay-gen TRACE [-o replay.cpp]\n"
                   "Writes a self-contained C++ MPI program that replays the trace's I/O\n"
                   "(to standard output without -o). See docs/replay.md.\n");
}

} // namespace

int main(int argc, char **argv) {
  std::string input, output;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      usage(stdout);
      return 0;
    }
    if (arg == "--version") {
      std::printf("sio-replay-gen %s\n", SIO_VERSION);
      return 0;
    }
    if (arg == "-o" && i + 1 < argc) {
      output = argv[++i];
    } else if (!arg.empty() && arg[0] == '-' && arg != "-") {
      std::fprintf(stderr, "sio-replay-gen: error: unknown option '%s'\n", sio::trace::echoValue(arg).c_str());
      usage(stderr);
      return 2;
    } else if (input.empty()) {
      input = arg;
    } else {
      usage(stderr);
      return 2;
    }
  }
  if (input.empty()) {
    usage(stderr);
    return 2;
  }
  try {
    sio::trace::Trace trace = sio::trace::readTraceFile(input);
    sio::replay::ReplayOptions options;
    options.traceName = input;
    std::string program = sio::replay::generateReplay(trace, options);
    if (output.empty()) {
      std::cout << program;
      return 0;
    }
    // A failed write leaves no partial program.
    sio::trace::writeFileAtomically(output, program);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "sio-replay-gen: error: %s\n", sio::trace::printableMessage(e.what()).c_str());
    return 1;
  }
  return 0;
}
