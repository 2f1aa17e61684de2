// What the writer and the reader of the JSON form of a trace share
// (docs/trace-format.md). Internal to the trace library.
#pragma once

#include <nlohmann/json.hpp>

namespace sio::trace::json {

/// Keys keep the order they were written in: a trace reads top-down.
using OJson = nlohmann::ordered_json;

/// The value of the "format" field that names a sio trace.
inline constexpr const char *kFormatName = "sio-trace";

} // namespace sio::trace::json
