//===- SourceInstrumenter.h - The plugin's instrumentation as source edits ===//
//
// sio-instrument's core. For one parsed translation unit it computes the edits
// that put the plugin's instrumentation into the source text:
//
//   * `(__sio_site(ID), call(...))` around every I/O call,
//   * around every loop that does I/O, directly or through functions defined
//     in the translation unit: in C, `{ __sio_loop_enter(ID); LOOP
//     __sio_loop_exit(ID); }` plus exits before a `return` or `goto` that
//     leaves it; in C++, `{ SioLoopScope sio_loopN(ID); LOOP }`, whose
//     destructor marks every exit including unwinding,
//   * `__sio_loop_iter(ID);` first in every loop body,
//   * `#include <sio/instrument.h>` and, in the main file, the site and loop
//     tables with a constructor that registers them.
//
// Ids are those SioTracePass computes for the same source (SiteIds.h) in the
// same order (AstIoWalker.h), so the traces of both builds are equal.
// Edits are collected over all translation units first and applied at the
// end, so that a header shared by several of them is read in its original
// form by each.
//
//===----------------------------------------------------------------------===//
#ifndef SIO_CLANG_PLUGIN_SOURCEINSTRUMENTER_H
#define SIO_CLANG_PLUGIN_SOURCEINSTRUMENTER_H

#include "clang/AST/ASTContext.h"
#include "llvm/ADT/StringMap.h"

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sio {

/// One insertion (or replacement) at a byte offset of the original file.
/// Edits at one offset apply in increasing Order: closing text of inner
/// constructs first (negative), then opening text of outer ones first.
struct SourceEdit {
  unsigned Offset = 0;
  unsigned RemoveLength = 0;
  std::string Text;
  int Order = 0;
  bool operator<(const SourceEdit &O) const {
    return Offset != O.Offset ? Offset < O.Offset : Order < O.Order;
  }
};

/// Everything to change in one file, collected over translation units.
struct FileRewrite {
  std::vector<SourceEdit> Edits;
  /// Original byte ranges to reformat (a wrapped loop, a rewritten return).
  std::vector<std::pair<unsigned, unsigned>> FormatRanges;
  /// Appended at the end (the main file's tables), then formatted.
  std::string Trailer;
  bool HasEdits() const { return !Edits.empty() || !Trailer.empty(); }
};

/// Edits of every file touched so far, by absolute path.
class RewriteSet {
public:
  /// Adds an edit; an identical one (a header seen by two translation units,
  /// a template instantiated twice) is kept once. False if another edit
  /// already put different text at the same offset and order.
  bool add(llvm::StringRef File, SourceEdit E);
  void addFormatRange(llvm::StringRef File, unsigned Begin, unsigned End);
  void setTrailer(llvm::StringRef File, std::string Text);
  /// A file of a translation unit that must appear in the output even
  /// without edits (so that the rewritten sources find their headers).
  void addUnchanged(llvm::StringRef File) { (void)Files[File.str()]; }
  const std::map<std::string, FileRewrite> &files() const { return Files; }

private:
  std::map<std::string, FileRewrite> Files;
};

/// What a rewrite may touch and how to report.
struct InstrumentOptions {
  /// Files are rewritten only below this directory (absolute, canonical).
  std::string Root;
  /// Prints each instrumented site and loop.
  bool Verbose = false;
};

/// Adds the edits for one translation unit to \p Out; false if it could not
/// be instrumented (diagnostics reported through the context's engine).
/// \p CompDir is the directory the compile command runs in: ids name files
/// relative to it, as the plugin's do.
bool instrumentTranslationUnit(clang::ASTContext &Ctx, llvm::StringRef CompDir,
                               const InstrumentOptions &Opts, RewriteSet &Out);

/// The original text with \p R applied and the touched regions formatted with
/// clang-format's library (style from a .clang-format next to the file,
/// else LLVM).
std::string applyRewrite(llvm::StringRef Path, llvm::StringRef Original,
                         const FileRewrite &R);

} // namespace sio

#endif // SIO_CLANG_PLUGIN_SOURCEINSTRUMENTER_H
