// Runtime configuration: every setting is declared once in kSettings (name,
// type, default, description); parsing, warnings and the table in
// docs/runtime.md (sio-runtime-settings --markdown) all come from there.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sio::rt {

enum class SettingType { Bool, Int, Size, String, Layers, PathList };

struct SettingDecl {
  const char *name;
  SettingType type;
  const char *defaultValue;
  const char *description;
};

/// The one declaration of the runtime's environment variables.
inline constexpr SettingDecl kSettings[] = {
    {"SIO_DISABLE", SettingType::Bool, "0", "1 turns tracing off: every call goes straight to the real function."},
    {"SIO_TRACE_FILE", SettingType::String, "",
     "Trace path. Empty: `<exe>.<nranks>.sio.json` in the working directory (`<exe>` the executable's base "
     "name; `<exe>.pmi<rank>-of-<size>.sio.json` for each process of a launch of several that never calls "
     "MPI_Init). An existing directory, or a path ending in `/`: that name inside it. A relative path is taken "
     "from the working directory at start-up, so a program that changes directory still writes its trace where it "
     "was started. Partial traces of killed ranks go to `<path>.rank<N>.partial.sio.json`. See \"Where the trace "
     "goes\"."},
    {"SIO_MEMORY_CAP", SettingType::Size, "64M",
     "Memory the runtime may hold per process (suffix K, M, G), finalize included (see Failure modes). Past it "
     "recording stops, dropped events are counted and the trace is marked incomplete; the program goes on."},
    {"SIO_LAYERS", SettingType::Layers, "mpiio,posix,stdio,sync",
     "Layers recorded, comma-separated from `mpiio`, `posix`, `stdio`, `sync`, or `all`."},
    {"SIO_EXCLUDE_PATHS", SettingType::PathList, "/proc/,/sys/,/dev/,/etc/,/usr/",
     "Path prefixes whose files are never recorded (system files read by libraries)."},
    {"SIO_BUFFER_RECORDS", SettingType::Int, "2048",
     "Records (152 bytes each) in each block of a thread's buffer (16..1048576); when a block is full the calling "
     "thread converts and compresses what was recorded (or hands it to the drain thread)."},
    {"SIO_DRAIN_THREAD", SettingType::Bool, "0",
     "0: the calling thread converts and compresses in batches when its buffer block fills, and the process "
     "stays single-threaded; 1: a helper thread does it, off the calling threads (the calling thread pays ~35 "
     "ns more per call for the hand-off and for being in a multithreaded process; see Measurements)."},
    {"SIO_TRACE_CHILDREN", SettingType::Bool, "0",
     "1: child processes (`fork`, and programs a traced process starts) write traces of their own, "
     "`<exe>.<pid>.sio.json` next to the trace; 0: they write none and never touch the application's trace."},
    {"SIO_VERBOSE", SettingType::Int, "0",
     "1: each rank reports its event and dropped-event counts and rank 0 the trace path, on stderr."},
    {"SIO_QUIET", SettingType::Bool, "0",
     "1: no `sio: trace written to ...` line at exit (warnings are still printed). See \"At exit\"."},
};

/// Layer bits for SIO_LAYERS (indexed by sio::trace::Layer).
inline constexpr unsigned kLayerMpiio = 1u << 0, kLayerPosix = 1u << 1, kLayerStdio = 1u << 2,
                          kLayerSync = 1u << 3, kLayerAll = 0xF;

struct Settings {
  bool disable = false;
  std::string traceFile;
  uint64_t memoryCap = 64ull << 20;
  unsigned layers = kLayerAll;
  std::vector<std::string> excludePaths;
  int64_t bufferRecords = 2048;
  bool drainThread = false;
  bool traceChildren = false;
  int64_t verbose = 0;
  bool quiet = false;
};

/// Reads settings through `getenv` (a function so tests can inject values).
/// Bad values keep the default and add one message per setting to `warnings`.
using EnvLookup = const char *(*)(const char *name, void *ctx);
Settings parseSettings(EnvLookup lookup, void *ctx, std::vector<std::string> &warnings);
Settings parseSettingsFromEnvironment(std::vector<std::string> &warnings);

/// Parsers of the individual types (exposed for tests); nullopt-like false
/// return on bad input.
bool parseBool(std::string_view text, bool &out);
bool parseInt(std::string_view text, int64_t &out);
bool parseSize(std::string_view text, uint64_t &out);
bool parseLayers(std::string_view text, unsigned &out);

/// The Markdown table of kSettings for docs/runtime.md.
std::string settingsMarkdown();

} // namespace sio::rt
