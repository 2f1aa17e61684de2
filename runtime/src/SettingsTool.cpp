// sio-runtime-settings: the runtime's environment variables, generated from
// kSettings (Settings.h), as text or as the Markdown table of docs/runtime.md
// (`sio-runtime-settings --markdown`).
#include "Settings.h"
#include "sio/trace/CommandLine.h"

#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr const char *kUsage = R"(usage: sio-runtime-settings [options]

Prints the environment variables that configure the tracing runtime
(libsiotrace-rt, docs/runtime.md): name, type, default and meaning.

options:
  --format text|markdown
                        plain text (default) or the Markdown table of
                        docs/runtime.md
  --markdown            the same as --format markdown
  -h, --help            this text
  --version             print the version

exit status: 0 ok, 2 bad usage (docs/cli.md)
)";

const char *typeName(sio::rt::SettingType t) {
  switch (t) {
  case sio::rt::SettingType::Bool:
    return "bool";
  case sio::rt::SettingType::Int:
    return "integer";
  case sio::rt::SettingType::Size:
    return "size";
  case sio::rt::SettingType::String:
    return "string";
  case sio::rt::SettingType::Layers:
    return "layer list";
  case sio::rt::SettingType::PathList:
    return "path list";
  }
  return "";
}

void printText() {
  for (const sio::rt::SettingDecl &d : sio::rt::kSettings)
    std::printf("%s (%s, default %s)\n    %s\n", d.name, typeName(d.type), *d.defaultValue ? d.defaultValue : "empty",
                d.description);
}

} // namespace

int main(int argc, char **argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  std::string format = "text";
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      const std::string &arg = args[i];
      if (sio::cli::isHelp(arg)) {
        std::fputs(kUsage, stdout);
        return sio::cli::kExitOk;
      }
      if (arg == "--version") {
        sio::cli::printVersion("sio-runtime-settings", SIO_VERSION);
        return sio::cli::kExitOk;
      }
      if (arg == "--markdown")
        format = "markdown";
      else if (auto v = sio::cli::optionValue(args, i, "--format"))
        format = *v;
      else
        throw sio::cli::UsageError(arg.starts_with("-") ? "unknown option '" + arg + "'"
                                                        : "unexpected argument '" + arg + "' (it reads no file)");
      if (format != "text" && format != "markdown")
        throw sio::cli::UsageError("--format needs text or markdown, got '" + format + "'");
    }
  } catch (const sio::cli::UsageError &e) {
    std::fprintf(stderr, "sio-runtime-settings: error: %s\n(see sio-runtime-settings --help)\n", e.what());
    return sio::cli::kExitError;
  }
  if (format == "markdown")
    std::fputs(sio::rt::settingsMarkdown().c_str(), stdout);
  else
    printText();
  return sio::cli::kExitOk;
}
