// libFuzzer target: the trace reader must reject any input with a TraceError
// and never crash, hang or throw anything else (docs/trace-format.md).
#include "sio/trace/Json.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  try {
    sio::trace::Trace t = sio::trace::readTraceString(text, "fuzz.json");
    // Whatever reads must also write and read back.
    sio::trace::readTraceString(sio::trace::writeTraceString(t), "fuzz-rewritten.json");
  } catch (const sio::trace::TraceError &) {
  }
  return 0;
}
