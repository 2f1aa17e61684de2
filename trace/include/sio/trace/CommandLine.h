// The command-line convention every sio tool follows (docs/cli.md): options
// with a value are written `--opt=value` or `--opt value`; `-h`/`--help`
// prints the usage on stdout; `--version` prints "TOOL VERSION"; errors go
// to stderr as "TOOL: error: FILE: what" and end the tool with kExitError.
// Header-only: the tools that do not link the trace model (sio-part-merge,
// sio-runtime-settings) use it too.
#pragma once

#include <cstdio>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace sio::cli {

/// Exit statuses of every sio tool.
inline constexpr int kExitOk = 0;
/// A negative answer, not an error: `sio-trace diff` found differences.
inline constexpr int kExitDiffer = 1;
/// Bad usage, a file that cannot be read or written, malformed input, or a
/// refusal (an extrapolation no model supports, an export over its budget).
inline constexpr int kExitError = 2;

/// A bad command line: the tool prints "TOOL: error: MESSAGE" and a pointer
/// to --help, and exits with kExitError.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

inline bool isHelp(std::string_view arg) { return arg == "-h" || arg == "--help"; }

/// The value of an option taking one, when `args[i]` is that option:
/// `--name=value`, `--name value` or, with `shortName`, `-x value`. Moves `i`
/// past a value taken from the next argument. nullopt when `args[i]` is
/// another argument; UsageError when the value is missing.
inline std::optional<std::string> optionValue(std::span<const std::string> args, size_t &i, std::string_view name,
                                              std::string_view shortName = {}) {
  std::string_view a = args[i];
  if (a.size() > name.size() && a.starts_with(name) && a[name.size()] == '=')
    return std::string(a.substr(name.size() + 1));
  if (a != name && (shortName.empty() || a != shortName))
    return std::nullopt;
  if (i + 1 >= args.size())
    throw UsageError(std::string(a) + " needs a value");
  return args[++i];
}

/// Prints "TOOL VERSION" (the first line of every tool's --version).
inline void printVersion(std::string_view tool, std::string_view version) {
  std::printf("%.*s %.*s\n", int(tool.size()), tool.data(), int(version.size()), version.data());
}

} // namespace sio::cli
