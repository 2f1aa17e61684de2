// This rank's trace: the header (program, command line, what is incomplete
// or inexact and why), the file and site tables, the compressed body; the
// path it goes to, and writing it (streamed, through a temporary).
#include "RuntimeState.h"

#include "MpiIoEnv.h"
#include "RomioNames.h"
#include "Signals.h"
#include "Tools.h"
#include "TracePath.h"
#include "WriterProcess.h"
#include "compress/InterRank.h"

#include "sio/trace/AtomicFile.h"
#include "sio/trace/Json.h"

#include <algorithm>
#include <csignal>
#include <cstring>
#include <fstream>
#include <set>
#include <unistd.h>

namespace sio::rt {

using namespace sio::trace;
using namespace detail;

#ifndef SIO_VERSION
#define SIO_VERSION "0.1.0"
#endif

namespace {

std::vector<std::string> commandLine() {
  std::vector<std::string> args;
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string arg;
  while (std::getline(in, arg, '\0'))
    args.push_back(arg);
  return args;
}

void collectIds(const std::vector<Node> &nodes, std::set<uint64_t> &sites, std::set<uint64_t> &loops) {
  for (const Node &n : nodes) {
    if (n.isEvent()) {
      if (n.event().site)
        sites.insert(n.event().site);
    } else {
      if (n.loop().id)
        loops.insert(n.loop().id);
      collectIds(n.loop().body, sites, loops);
    }
  }
}

/// Testing hook: SIO_TEST_FINALIZE_FAULT=term-in-write:RANK (kill-in-write)
/// sends the process SIGTERM (SIGKILL) once the first piece of the final
/// trace is written, as a batch system's kill landing then would.
void testSignalInWrite(const State &s) {
  static const char *spec = std::getenv("SIO_TEST_FINALIZE_FAULT");
  static bool sent = false;
  if (spec == nullptr || sent)
    return;
  const std::string rank = ":" + std::to_string(s.rank);
  if (spec == "term-in-write" + rank) {
    sent = true;
    kill(getpid(), SIGTERM);
  } else if (spec == "kill-in-write" + rank) {
    sent = true;
    kill(getpid(), SIGKILL);
  }
}

} // namespace

namespace detail {

std::string exeBaseName() {
  char buf[4096];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0)
    return "program";
  buf[n] = 0;
  const char *slash = std::strrchr(buf, '/');
  return slash ? slash + 1 : buf;
}

std::string tracePath(const State &s) {
  if (s.role == Role::Child) // next to the application's trace, never in its place
    return childTracePath(s.settings.traceFile, s.startDirectory, exeBaseName(), long(s.pid));
  // MPI ranks merge into one trace: the launch's slot names only a process
  // that never initialised MPI.
  const auto slot = s.mpiInitialized ? std::nullopt : s.launchSlot;
  return chooseTracePath(s.settings.traceFile, s.startDirectory, defaultTraceName(exeBaseName(), s.nranks, slot), slot);
}

/// Site and loop descriptors of the ids the trace uses (and their parents),
/// so the tables do not grow with the program.
void fillSiteTables(State &s, Trace &t) {
  std::set<uint64_t> sites, loops;
  collectIds(t.body, sites, loops);
  const std::vector<RegisteredTables> &all = s.tables;
  std::unordered_map<uint64_t, const SioLoopDesc *> loopById;
  for (const auto &rt : all)
    for (const SioLoopDesc *l = rt.lb; l && l < rt.le; ++l)
      loopById.emplace(l->id, l);
  for (const auto &rt : all)
    for (const SioSiteDesc *d = rt.sb; d && d < rt.se; ++d)
      if (sites.erase(d->id)) {
        t.sites.push_back({d->id, d->file ? d->file : "", d->line, d->column, d->function ? d->function : "",
                           d->callee ? d->callee : "", d->loop_id});
        if (d->loop_id)
          loops.insert(d->loop_id);
      }
  std::set<uint64_t> done;
  std::vector<uint64_t> todo(loops.begin(), loops.end());
  while (!todo.empty()) {
    uint64_t id = todo.back();
    todo.pop_back();
    if (!done.insert(id).second)
      continue;
    auto it = loopById.find(id);
    if (it == loopById.end())
      continue;
    const SioLoopDesc *l = it->second;
    t.loops.push_back(
        {l->id, l->file ? l->file : "", l->line, l->column, l->function ? l->function : "", l->parent_id});
    if (l->parent_id)
      todo.push_back(l->parent_id);
  }
  std::sort(t.sites.begin(), t.sites.end(), [](auto &a, auto &b) { return a.id < b.id; });
  std::sort(t.loops.begin(), t.loops.end(), [](auto &a, auto &b) { return a.id < b.id; });
}

/// This rank's trace: header, tables, compressed body.
Trace buildRankTrace(State &s) {
  drainAll(s);
  writerProgress();
  Trace t;
  t.header.version = kFormatVersion;
  t.header.generator = "sio-runtime " SIO_VERSION;
  t.header.program = exeBaseName();
  t.header.commandLine = commandLine();
  t.header.nranks = s.nranks;
  t.header.droppedEvents = g_dropped.load();
  t.header.complete = t.header.droppedEvents == 0;
  t.header.inexact = inexactReasons(g_inexact.load());
  for (const auto &n : s.capNotes)
    t.header.notes.push_back(n);
  if (!s.execPredecessor.empty())
    // This program's calls are all here; the process's earlier ones are not.
    t.header.notes.push_back("this program was started by exec from a traced program of the same process; "
                             "the calls made before the exec are in " +
                             s.execPredecessor);
  if (g_inexact.load() & uint32_t(Inexact::ToolFirst)) {
    // Reads the tool served are missing: the trace must not say complete.
    t.header.complete = false;
    t.header.notes.push_back("libsio-prefetch.so intercepted MPI-IO before the tracer: the application's MPI-IO "
                             "calls it served are not in this trace");
  }
  if (toolBehindTracer())
    // The application's calls are as made; what MPI did under them is not
    // what it would do without the tool.
    t.header.notes.push_back("MPI calls went through libsio-prefetch.so (loaded after the tracer): the "
                             "application's calls are recorded as made; the inner POSIX calls under them are "
                             "what MPI did for the prefetcher, which served some reads from its cache");
  if (s.gapsSkipped)
    t.header.notes.push_back(std::to_string(s.gapsSkipped) + " calls on rank " + std::to_string(s.rank) +
                             " were still in progress at the end; calls of different threads around them "
                             "may be out of order");
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  t.header.metadata["hostname"] = host;
  t.header.metadata["start_time"] = s.startTime;
  for (const auto &[name, value] : s.mpiIoEnv)
    t.header.metadata[std::string(kMpiIoEnvPrefix) + name] = value;
  if (s.romioHintsContents)
    t.header.metadata[std::string(kRomioHintsContentsKey)] = *s.romioHintsContents;
  // The names move into the trace and the runtime's tables are freed: no
  // name is held twice at finalize (MemoryBudget.h counts it so). Nothing is
  // recorded after this (s.finished).
  std::unordered_map<std::string, int64_t>().swap(s.fileIds); // first: the peak is lower
  t.files.reserve(s.files.size());
  for (size_t i = 0; i < s.files.size(); ++i) {
    FileEntry f;
    f.id = int64_t(i);
    markRomioTemporary(s.files[i]);
    f.name.push_back(FileNamePart{std::move(s.files[i]), std::nullopt, 0});
    t.files.push_back(std::move(f));
  }
  std::vector<std::string>().swap(s.files);
  std::vector<std::string>().swap(s.strings);
  std::unordered_map<std::string, int64_t>().swap(s.stringIds);
  freeSpareBlocks(Q());
  writerProgress();
  fillObjectTables(t, s.rank);
  t.body = s.comp.finish(s.rank, s.nranks);
  seedRankTiming(t.body, s.rank); // per-rank timing for the merge, from the stats the calls added to
  writerProgress();
  formatLoopFileNames(t, s.rank); // dir.<rank>/file.<rank>.<i0>: one entry per format
  return t;
}

/// Writes a trace file (streamed, through a temporary: AtomicFile.h). Outside
/// a signal handler a SIGTERM is held until the file is in place; inside
/// one (in the writer process), every piece tells the handler the write is
/// moving. `final`: the
/// run's trace, after which temporaries that killed runs left beside it go.
bool writeTrace(State &s, Trace &t, const std::string &path, bool fromSignal, bool final) {
  std::optional<HeldTermination> hold;
  if (!fromSignal)
    hold.emplace();
  try {
    writeFileAtomically(path, [&](const TextSink &sink) {
      writeTraceTo(
          [&](std::string_view piece) {
            writerProgress();
            sink(piece);
            if (final)
              testSignalInWrite(s);
          },
          t);
    });
    if (final)
      removeStaleTemporaries(path);
    if (s.settings.verbose)
      message("sio: rank " + std::to_string(s.rank) + " wrote " + path);
    return true;
  } catch (const std::exception &e) {
    message(std::string("sio: warning: could not write the trace: ") + e.what());
    return false;
  }
}

/// The one line at exit that says where the trace went and whether it is
/// whole (docs/runtime.md, "At exit"): a dropped-events trace must not look
/// like a good one. Off with SIO_QUIET=1. `what`: "trace" or "partial trace".
void reportTrace(const State &s, const Trace &t, const std::string &path, const char *what) {
  if (s.settings.quiet)
    return;
  std::string state = "complete";
  if (!t.header.complete) {
    state = "INCOMPLETE: ";
    // Any rank's cap note (merged into the header) names the cause.
    const bool cap = std::any_of(t.header.notes.begin(), t.header.notes.end(),
                                 [](const std::string &n) { return n.find("SIO_MEMORY_CAP") != std::string::npos; });
    if (t.header.droppedEvents)
      state += std::to_string(t.header.droppedEvents) + " events dropped" + (cap ? " past SIO_MEMORY_CAP" : "") + "; ";
    else if (!t.header.notes.empty())
      state += t.header.notes.back() + "; ";
    state += "see sio-trace stats";
  }
  message(std::string("sio: ") + what + " written to " + path + " (" + state + ")");
}

} // namespace detail

} // namespace sio::rt
