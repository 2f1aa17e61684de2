// Runs LLVMFuzzerTestOneInput over files and directories of inputs without
// libFuzzer, so that the seed corpus is exercised in every build (ctest
// sio-trace-fuzz-corpus). Any exception other than TraceError escapes the
// entry point and fails the run.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv) {
  namespace fs = std::filesystem;
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    fs::path p(argv[i]);
    if (fs::is_directory(p)) {
      for (const auto &entry : fs::directory_iterator(p))
        if (entry.is_regular_file())
          inputs.push_back(entry.path());
    } else {
      inputs.push_back(p);
    }
  }
  if (inputs.empty()) {
    std::cerr << "usage: " << argv[0] << " <corpus file or directory>...\n";
    return 2;
  }
  std::sort(inputs.begin(), inputs.end());
  for (const fs::path &p : inputs) {
    std::ifstream in(p, std::ios::binary);
    if (!in) {
      std::cerr << p.string() << ": cannot open\n";
      return 1;
    }
    std::ostringstream buf;
    buf << in.rdbuf();
    const std::string data = buf.str();
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(data.data()), data.size());
  }
  std::cout << "ran " << inputs.size() << " inputs\n";
  return 0;
}
