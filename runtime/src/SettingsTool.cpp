// Prints the runtime's settings table (generated from kSettings), the source
// of the table in docs/runtime.md: `sio-runtime-settings --markdown`.
#include "Settings.h"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--markdown") != 0) {
    std::fprintf(stderr, "usage: %s [--markdown]\n", argv[0]);
    return 2;
  }
  std::fputs(sio::rt::settingsMarkdown().c_str(), stdout);
  return 0;
}
