//===- sio-instrument.cpp - siotrace.so's instrumentation, as source ------===//
//
//   sio-instrument [-p BUILD_DIR] FILES... [-o OUT_DIR | --in-place] [-- FLAGS]
//
// Rewrites C and C++ sources so that any compiler builds what
// `clang -fplugin=siotrace.so` builds: the same site ids and loop markers, as
// plain calls into libsiotrace-rt (SourceInstrumenter.h). Compile commands
// come from a compilation database or from the flags after `--`, as in every
// libTooling tool; an MPI compiler wrapper in a compile command is asked for
// its include flags (`-show`), since mpi.h is not on the default path.
//
// Exit status (docs/cli.md): 0 when every file was instrumented and written,
// 2 otherwise (each failure is reported with the file it concerns) and on a
// usage error.
//
//===----------------------------------------------------------------------===//
#include "SourceInstrumenter.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace clang;
using namespace clang::tooling;
namespace cl = llvm::cl;
namespace path = llvm::sys::path;

namespace {

cl::OptionCategory Category("sio-instrument options");

cl::opt<std::string>
    OutDir("o", cl::value_desc("dir"),
           cl::desc("Write the instrumented files below <dir>, at their paths "
                    "relative to --root (default: sio-instrumented)"),
           cl::cat(Category));
cl::opt<bool>
    InPlace("in-place",
            cl::desc("Rewrite the files themselves, keeping each original as "
                     "<file>.sio-orig"),
            cl::cat(Category));
cl::opt<std::string> RootDir(
    "root", cl::value_desc("dir"),
    cl::desc("Only files below <dir> are rewritten (default: the common "
             "directory of FILES); headers elsewhere are left alone"),
    cl::cat(Category));
cl::opt<bool> Verbose("verbose",
                      cl::desc("Print every instrumented site and loop"),
                      cl::cat(Category));

const char *const Overview =
    R"(sio-instrument: put siotrace.so's instrumentation into the source

Writes, for every I/O call, its site id, and for every loop that does I/O,
enter/iteration/exit markers, as plain calls into the sio runtime, so that
GCC or any other compiler builds a program whose trace equals that of
`sio-cxx` (clang -fplugin=siotrace.so) on the original source. Compile the
result with -I<sio>/include and link -lsiotrace-rt (docs/plugin.md).

  sio-instrument -p build src/io.c src/main.cpp -o instrumented
  sio-instrument app.c -o out -- -I/usr/include/x86_64-linux-gnu/mpich
)";

// sio's own usage (LLVM's --help starts with its OVERVIEW and lists the
// libTooling options in LLVM's order); `--help-hidden` still prints LLVM's.
const char *const Usage =
    R"(usage: sio-instrument [options] FILES... [-o DIR | --in-place] [-- COMPILER FLAGS]

Puts siotrace.so's instrumentation into C and C++ sources: for every I/O call
its site id, for every loop that does I/O enter/iteration/exit markers, as
plain calls into the sio runtime, so that GCC or any other compiler builds a
program whose trace equals that of `sio-cxx` on the original source. Compile
the result with -I<sio>/include and link -lsiotrace-rt (docs/plugin.md).

  sio-instrument -p build src/io.c src/main.cpp -o instrumented
  sio-instrument app.c -o out -- -I/usr/include/x86_64-linux-gnu/mpich

Options with a value take it as --opt=value or --opt value (docs/cli.md).

options:
  -p DIR                the build directory holding compile_commands.json
  -- FLAGS              compile flags for every file (instead of -p)
  -o DIR                write the instrumented files below DIR, at their paths
                        relative to --root (default: sio-instrumented)
  --in-place            rewrite the files themselves, keeping each original as
                        FILE.sio-orig
  --root DIR            only files below DIR are rewritten (default: the
                        common directory of FILES); headers elsewhere are left
  --verbose             print every instrumented site and loop
  --extra-arg ARG       add ARG to each compile command (also --extra-arg-before)
  -h, --help            this text (--help-hidden: every LLVM option)
  --version             print the version

exit status: 0 every file written, 2 a file not instrumented (each named
with its reason) or a usage error
)";

/// The directory a compile command ran in, where the plugin's ids are
/// relative to.
std::string workingDirectory(CompilerInstance &CI) {
  if (!CI.getCodeGenOpts().DebugCompilationDir.empty())
    return CI.getCodeGenOpts().DebugCompilationDir;
  if (llvm::ErrorOr<std::string> Cwd = CI.getFileManager()
                                           .getVirtualFileSystem()
                                           .getCurrentWorkingDirectory())
    return *Cwd;
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  return std::string(Cwd.str());
}

class InstrumentConsumer : public ASTConsumer {
public:
  InstrumentConsumer(CompilerInstance &CI, const sio::InstrumentOptions &Opts,
                     sio::RewriteSet &Out, bool &Ok)
      : CI(CI), Opts(Opts), Out(Out), Ok(Ok) {}
  void HandleTranslationUnit(ASTContext &Ctx) override {
    // A translation unit that does not compile is not rewritten at all.
    if (CI.getDiagnostics().hasErrorOccurred()) {
      Ok = false;
      return;
    }
    // Edits go to a scratch set first: a failing unit adds nothing.
    sio::RewriteSet Mine = Out;
    if (!sio::instrumentTranslationUnit(Ctx, workingDirectory(CI), Opts,
                                        Mine) ||
        CI.getDiagnostics().hasErrorOccurred()) {
      Ok = false;
      return;
    }
    Out = std::move(Mine);
  }

private:
  CompilerInstance &CI;
  const sio::InstrumentOptions &Opts;
  sio::RewriteSet &Out;
  bool &Ok;
};

class InstrumentAction : public ASTFrontendAction {
public:
  InstrumentAction(const sio::InstrumentOptions &Opts, sio::RewriteSet &Out,
                   bool &Ok)
      : Opts(Opts), Out(Out), Ok(Ok) {}
  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef) override {
    return std::make_unique<InstrumentConsumer>(CI, Opts, Out, Ok);
  }

private:
  const sio::InstrumentOptions &Opts;
  sio::RewriteSet &Out;
  bool &Ok;
};

class InstrumentActionFactory : public FrontendActionFactory {
public:
  InstrumentActionFactory(const sio::InstrumentOptions &Opts,
                          sio::RewriteSet &Out, bool &Ok)
      : Opts(Opts), Out(Out), Ok(Ok) {}
  std::unique_ptr<FrontendAction> create() override {
    return std::make_unique<InstrumentAction>(Opts, Out, Ok);
  }

private:
  const sio::InstrumentOptions &Opts;
  sio::RewriteSet &Out;
  bool &Ok;
};

/// The include and macro flags an MPI compiler wrapper adds (`mpicc -show`),
/// or none if \p Compiler is not one.
std::vector<std::string> mpiWrapperFlags(llvm::StringRef Compiler) {
  static llvm::StringMap<std::vector<std::string>> Cache;
  llvm::StringRef Base = path::filename(Compiler);
  if (!Base.starts_with("mpic") && !Base.starts_with("mpiC"))
    return {};
  auto [It, New] = Cache.try_emplace(Compiler);
  if (!New)
    return It->second;
  llvm::ErrorOr<std::string> Exe = llvm::sys::findProgramByName(Compiler);
  if (!Exe)
    return {};
  llvm::SmallString<128> OutFile;
  if (llvm::sys::fs::createTemporaryFile("sio-instrument-mpi", "txt", OutFile))
    return {};
  std::optional<llvm::StringRef> Redirects[] = {
      std::nullopt, llvm::StringRef(OutFile), llvm::StringRef("")};
  int RC =
      llvm::sys::ExecuteAndWait(*Exe, {*Exe, "-show"}, std::nullopt, Redirects);
  auto Buf = llvm::MemoryBuffer::getFile(OutFile);
  llvm::sys::fs::remove(OutFile);
  if (RC != 0 || !Buf)
    return {};
  llvm::SmallVector<llvm::StringRef, 32> Words;
  (*Buf)->getBuffer().split(Words, ' ', -1, false);
  std::vector<std::string> Flags;
  for (size_t I = 0; I < Words.size(); ++I) {
    llvm::StringRef W = Words[I].trim();
    if (W.starts_with("-I") || W.starts_with("-D"))
      Flags.push_back(W.str());
    else if ((W == "-isystem" || W == "-idirafter") && I + 1 < Words.size()) {
      Flags.push_back(W.str());
      Flags.push_back(Words[++I].trim().str());
    }
  }
  It->second = Flags;
  return Flags;
}

ArgumentsAdjuster mpiWrapperAdjuster() {
  return [](const CommandLineArguments &Args, llvm::StringRef) {
    if (Args.empty())
      return Args;
    std::vector<std::string> Extra = mpiWrapperFlags(Args[0]);
    if (Extra.empty())
      return Args;
    CommandLineArguments Out(Args.begin(), Args.begin() + 1);
    Out.insert(Out.end(), Extra.begin(), Extra.end());
    Out.insert(Out.end(), Args.begin() + 1, Args.end());
    return Out;
  };
}

std::string absolute(llvm::StringRef P) {
  llvm::SmallString<256> A(P);
  llvm::sys::fs::make_absolute(A);
  path::remove_dots(A, /*remove_dot_dot=*/true);
  return std::string(A.str());
}

std::string commonDirectory(const std::vector<std::string> &Files) {
  std::string Common;
  for (const std::string &F : Files) {
    std::string Dir = path::parent_path(absolute(F)).str();
    if (Common.empty()) {
      Common = Dir;
      continue;
    }
    while (!Common.empty() && !(llvm::StringRef(Dir).starts_with(Common) &&
                                (Dir.size() == Common.size() ||
                                 Dir[Common.size()] == '/' || Common == "/")))
      Common = path::parent_path(Common).str();
  }
  return Common.empty() ? "/" : Common;
}

bool writeFile(llvm::StringRef Path, llvm::StringRef Text) {
  if (std::error_code EC =
          llvm::sys::fs::create_directories(path::parent_path(Path))) {
    llvm::errs() << "sio-instrument: error: cannot create directory "
                 << path::parent_path(Path) << ": " << EC.message() << "\n";
    return false;
  }
  std::error_code EC;
  llvm::raw_fd_ostream OS(Path, EC);
  if (!EC) {
    OS << Text;
    OS.close();
    if (OS.has_error())
      EC = OS.error();
  }
  if (EC) {
    llvm::errs() << "sio-instrument: error: cannot write " << Path << ": "
                 << EC.message() << "\n";
    OS.clear_error();
    return false;
  }
  return true;
}

} // namespace

int main(int argc, const char **argv) {
  for (int I = 1; I < argc; ++I) {
    llvm::StringRef A = argv[I];
    if (A == "--")
      break;
    if (A == "-h" || A == "--help") {
      llvm::outs() << Usage;
      return 0;
    }
    if (A == "--version") {
      llvm::outs() << "sio-instrument " SIO_VERSION "\n";
      cl::PrintVersionMessage();
      return 0;
    }
  }
  auto Parser = CommonOptionsParser::create(argc, argv, Category, cl::OneOrMore,
                                            Overview);
  if (!Parser) {
    // LLVM's lines start with the program name: one "sio-instrument: error:"
    // each instead.
    llvm::SmallVector<llvm::StringRef, 8> Lines;
    std::string Text = llvm::toString(Parser.takeError());
    llvm::StringRef(Text).split(Lines, '\n', -1, false);
    for (llvm::StringRef L : Lines) {
      L.consume_front("sio-instrument: ");
      llvm::errs() << "sio-instrument: error: " << L.trim() << "\n";
    }
    llvm::errs() << "(see sio-instrument --help)\n";
    return 2;
  }
  if (InPlace && !OutDir.empty()) {
    llvm::errs() << "sio-instrument: error: -o and --in-place exclude each "
                    "other\n";
    return 2;
  }
  std::string Out = OutDir.empty() ? "sio-instrumented" : OutDir.getValue();

  sio::InstrumentOptions Opts;
  Opts.Verbose = Verbose;
  std::vector<std::string> Sources = Parser->getSourcePathList();
  Opts.Root = RootDir.empty() ? commonDirectory(Sources) : absolute(RootDir);
  std::string OutAbs = absolute(Out);

  // A file with no entry of its own in a compilation database gets flags
  // guessed from a neighbour; sio's ids depend on the exact command, so that
  // is an error rather than a guess.
  CompilationDatabase &DB = Parser->getCompilations();
  bool Ok = true;
  std::vector<std::string> Runnable;
  for (const std::string &F : Sources) {
    std::vector<CompileCommand> Cmds = DB.getCompileCommands(absolute(F));
    if (Cmds.empty() || !Cmds.front().Heuristic.empty()) {
      llvm::errs() << "sio-instrument: error: " << F
                   << ": no entry in the compilation database";
      if (!Cmds.empty())
        llvm::errs() << " (flags would be " << Cmds.front().Heuristic << ")";
      llvm::errs() << "; add it to compile_commands.json or give the flags "
                      "after --\n";
      Ok = false;
      continue;
    }
    auto Text = llvm::MemoryBuffer::getFile(F);
    if (!Text) {
      llvm::errs() << "sio-instrument: error: " << F << ": "
                   << Text.getError().message() << "\n";
      Ok = false;
      continue;
    }
    if ((*Text)->getBuffer().contains("sio/instrument.h")) {
      llvm::errs() << "sio-instrument: error: " << F
                   << " is already instrumented (it includes "
                      "sio/instrument.h); instrument the original source\n";
      Ok = false;
      continue;
    }
    Runnable.push_back(F);
  }

  sio::RewriteSet Rewrites;
  if (!Runnable.empty()) {
    ClangTool Tool(DB, Runnable);
    Tool.appendArgumentsAdjuster(mpiWrapperAdjuster());
    // Clang's builtin headers live with clang, not next to this tool.
    Tool.appendArgumentsAdjuster(getInsertArgumentAdjuster(
        "-resource-dir=" SIO_CLANG_RESOURCE_DIR, ArgumentInsertPosition::END));
    bool UnitsOk = true;
    InstrumentActionFactory Factory(Opts, Rewrites, UnitsOk);
    if (Tool.run(&Factory) != 0 || !UnitsOk) {
      llvm::errs() << "sio-instrument: error: some files could not be "
                      "instrumented (see above); the others were\n";
      Ok = false;
    }
  }

  for (const auto &[File, R] : Rewrites.files()) {
    auto Buf = llvm::MemoryBuffer::getFile(File);
    if (!Buf) {
      llvm::errs() << "sio-instrument: error: cannot read " << File << ": "
                   << Buf.getError().message() << "\n";
      Ok = false;
      continue;
    }
    llvm::StringRef Original = (*Buf)->getBuffer();
    std::string Text =
        R.HasEdits() ? sio::applyRewrite(File, Original, R) : Original.str();
    if (InPlace) {
      if (!R.HasEdits())
        continue;
      std::string Backup = File + ".sio-orig";
      if (!writeFile(Backup, Original) || !writeFile(File, Text))
        Ok = false;
      else if (Verbose)
        llvm::errs() << "sio-instrument: rewrote " << File << " (original in "
                     << Backup << ")\n";
      continue;
    }
    llvm::SmallString<256> Target(File);
    if (!path::replace_path_prefix(Target, Opts.Root, OutAbs)) {
      llvm::errs() << "sio-instrument: error: " << File
                   << " is not below the root " << Opts.Root << "\n";
      Ok = false;
      continue;
    }
    if (Target == File) {
      llvm::errs() << "sio-instrument: error: output " << Target
                   << " would overwrite its source; use --in-place\n";
      Ok = false;
      continue;
    }
    if (!writeFile(Target, Text))
      Ok = false;
    else if (Verbose)
      llvm::errs() << "sio-instrument: wrote " << Target << "\n";
  }
  return Ok ? 0 : 2;
}
