// The `report` and `export` commands of sio-trace, kept in the report
// library so the tool's own source stays small. Usage errors throw
// std::invalid_argument (sio-trace exits 2); bad traces throw TraceError.
#pragma once

#include <span>
#include <string>

namespace sio::report {

extern const char *const kReportHelp;
extern const char *const kExportHelp;

int reportCommand(std::span<const std::string> args);
int exportCommand(std::span<const std::string> args);

} // namespace sio::report
