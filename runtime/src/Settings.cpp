#include "Settings.h"

#include <cctype>
#include <cstdlib>
#include <limits>

namespace sio::rt {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char &c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string_view> splitComma(std::string_view s) {
  std::vector<std::string_view> parts;
  while (true) {
    size_t comma = s.find(',');
    parts.push_back(trim(s.substr(0, comma)));
    if (comma == std::string_view::npos)
      break;
    s.remove_prefix(comma + 1);
  }
  return parts;
}

const char *expectation(SettingType type) {
  switch (type) {
  case SettingType::Bool: return "0/1, true/false, yes/no or on/off";
  case SettingType::Int: return "an integer";
  case SettingType::Size: return "a size such as 512K, 64M or 2G";
  case SettingType::Layers: return "a comma-separated list of mpiio, posix, stdio, sync or all";
  case SettingType::String:
  case SettingType::PathList: return "a string";
  }
  return "a value";
}

} // namespace

bool parseBool(std::string_view text, bool &out) {
  std::string t = lower(trim(text));
  if (t == "1" || t == "true" || t == "yes" || t == "on") {
    out = true;
    return true;
  }
  if (t == "0" || t == "false" || t == "no" || t == "off" || t.empty()) {
    out = false;
    return true;
  }
  return false;
}

bool parseInt(std::string_view text, int64_t &out) {
  text = trim(text);
  if (text.empty())
    return false;
  bool neg = text.front() == '-';
  if (neg || text.front() == '+')
    text.remove_prefix(1);
  if (text.empty())
    return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9')
      return false;
    if (v > (uint64_t(std::numeric_limits<int64_t>::max()) - uint64_t(c - '0')) / 10)
      return false;
    v = v * 10 + uint64_t(c - '0');
  }
  out = neg ? -int64_t(v) : int64_t(v);
  return true;
}

bool parseSize(std::string_view text, uint64_t &out) {
  text = trim(text);
  uint64_t mult = 1;
  if (!text.empty()) {
    switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K': mult = 1ull << 10; break;
    case 'M': mult = 1ull << 20; break;
    case 'G': mult = 1ull << 30; break;
    case 'B': mult = 1; break;
    default: mult = 0; break;
    }
    if (mult)
      text.remove_suffix(1);
    else
      mult = 1;
  }
  int64_t v = 0;
  if (!parseInt(text, v) || v <= 0 || uint64_t(v) > std::numeric_limits<uint64_t>::max() / mult)
    return false;
  out = uint64_t(v) * mult;
  return true;
}

bool parseLayers(std::string_view text, unsigned &out) {
  unsigned mask = 0;
  for (std::string_view part : splitComma(text)) {
    std::string p = lower(part);
    if (p == "mpiio" || p == "mpi-io")
      mask |= kLayerMpiio;
    else if (p == "posix")
      mask |= kLayerPosix;
    else if (p == "stdio")
      mask |= kLayerStdio;
    else if (p == "sync")
      mask |= kLayerSync;
    else if (p == "all")
      mask |= kLayerAll;
    else if (!p.empty())
      return false;
  }
  out = mask;
  return true;
}

Settings parseSettings(EnvLookup lookup, void *ctx, std::vector<std::string> &warnings) {
  Settings s;
  for (const SettingDecl &d : kSettings) {
    const char *raw = lookup(d.name, ctx);
    bool useDefault = raw == nullptr;
    std::string_view text = raw ? std::string_view(raw) : std::string_view(d.defaultValue);
    for (int attempt = 0; attempt < 2; ++attempt) {
      bool ok = true;
      std::string_view name = d.name;
      if (name == "SIO_DISABLE") {
        ok = parseBool(text, s.disable);
      } else if (name == "SIO_TRACE_FILE") {
        s.traceFile = std::string(trim(text));
      } else if (name == "SIO_MEMORY_CAP") {
        ok = parseSize(text, s.memoryCap);
      } else if (name == "SIO_LAYERS") {
        ok = parseLayers(text, s.layers);
      } else if (name == "SIO_EXCLUDE_PATHS") {
        s.excludePaths.clear();
        for (std::string_view p : splitComma(text))
          if (!p.empty())
            s.excludePaths.emplace_back(p);
      } else if (name == "SIO_BUFFER_RECORDS") {
        ok = parseInt(text, s.bufferRecords) && s.bufferRecords >= 16 && s.bufferRecords <= (1 << 20);
      } else if (name == "SIO_DRAIN_THREAD") {
        ok = parseBool(text, s.drainThread);
      } else if (name == "SIO_TRACE_CHILDREN") {
        ok = parseBool(text, s.traceChildren);
      } else if (name == "SIO_VERBOSE") {
        ok = parseInt(text, s.verbose) && s.verbose >= 0;
      } else if (name == "SIO_QUIET") {
        ok = parseBool(text, s.quiet);
      }
      if (ok || useDefault)
        break;
      warnings.push_back(std::string("sio: warning: ") + d.name + "='" + std::string(text) + "' is not " +
                         expectation(d.type) + "; using the default '" + d.defaultValue + "'");
      text = d.defaultValue;
      useDefault = true;
    }
  }
  return s;
}

Settings parseSettingsFromEnvironment(std::vector<std::string> &warnings) {
  return parseSettings([](const char *name, void *) -> const char * { return std::getenv(name); }, nullptr,
                       warnings);
}

std::string settingsMarkdown() {
  std::string out = "| variable | type | default | meaning |\n| --- | --- | --- | --- |\n";
  for (const SettingDecl &d : kSettings) {
    const char *type = "";
    switch (d.type) {
    case SettingType::Bool: type = "bool"; break;
    case SettingType::Int: type = "integer"; break;
    case SettingType::Size: type = "size"; break;
    case SettingType::String: type = "string"; break;
    case SettingType::Layers: type = "layer list"; break;
    case SettingType::PathList: type = "path list"; break;
    }
    std::string def = *d.defaultValue ? std::string("`") + d.defaultValue + "`" : "(empty)";
    out += std::string("| `") + d.name + "` | " + type + " | " + def + " | " + d.description + " |\n";
  }
  return out;
}

} // namespace sio::rt
