// OTF2 archive of a trace: one location (process) per rank, every call an
// Enter/Leave of a region named after the operation, and every read or write
// an IoOperationBegin/IoOperationComplete pair on an I/O handle per file and
// layer (paradigms MPI-IO, POSIX, ISO C). Timestamps are nanoseconds of the
// reconstructed timeline (Expand.h). Built only when libotf2 was found.
#include "sio/report/Export.h"

#include "sio/report/Expand.h"
#include "sio/trace/Summary.h"

#include <stdexcept>

#ifdef SIO_HAVE_OTF2
#include <otf2/otf2.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#endif

namespace sio::report {

using namespace sio::trace;

#ifndef SIO_HAVE_OTF2

bool otf2Available() { return false; }

ExportStats writeOtf2(const std::string &, const Trace &, const ExportOptions &) {
  throw std::runtime_error("this sio-trace was built without OTF2 (install libotf2-trace-dev and reconfigure)");
}

#else

bool otf2Available() { return true; }

namespace {

OTF2_FlushType preFlush(void *, OTF2_FileType, OTF2_LocationRef, void *, bool) { return OTF2_FLUSH; }
OTF2_TimeStamp postFlush(void *, OTF2_FileType, OTF2_LocationRef) { return 0; }
OTF2_FlushCallbacks kFlushCallbacks = {preFlush, postFlush};

void check(OTF2_ErrorCode code, const char *what) {
  if (code != OTF2_SUCCESS)
    throw std::runtime_error(std::string("OTF2: ") + what + ": " + OTF2_Error_GetName(code) + " (" +
                             OTF2_Error_GetDescription(code) + ")");
}

struct Strings {
  std::map<std::string, OTF2_StringRef> refs;
  OTF2_StringRef operator()(const std::string &s) {
    auto [it, added] = refs.emplace(s, OTF2_StringRef(refs.size()));
    return it->second;
  }
};

uint8_t paradigmOf(Layer layer) {
  switch (layer) {
  case Layer::MPIIO:
    return 0;
  case Layer::STDIO:
    return 2;
  default:
    return 1;
  }
}

/// The region's role: synchronization and collectives for the sync layer
/// (MPI_Barrier is a barrier, not file I/O), FILE_IO for reads and writes,
/// FILE_IO_METADATA for the other file calls (open, seek, close, stat, ...).
OTF2_RegionRole regionRole(std::string_view op, Layer layer) {
  if (layer == Layer::SYNC) {
    if (op == "MPI_Barrier" || op == "MPI_Ibarrier")
      return OTF2_REGION_ROLE_BARRIER;
    if (op.starts_with("MPI_Bcast") || op.starts_with("MPI_Scatter"))
      return OTF2_REGION_ROLE_COLL_ONE2ALL;
    if (op.starts_with("MPI_Reduce") || op.starts_with("MPI_Gather"))
      return OTF2_REGION_ROLE_COLL_ALL2ONE;
    if (op.starts_with("MPI_All"))
      return OTF2_REGION_ROLE_COLL_ALL2ALL;
    if (op.starts_with("MPI_Comm_") || op.starts_with("MPI_Cart_") || op.starts_with("MPI_Intercomm_"))
      return OTF2_REGION_ROLE_COLL_OTHER; // communicator construction is collective
    return OTF2_REGION_ROLE_FUNCTION;     // MPI_Dims_create, datatype constructors
  }
  if (direction(op) != Direction::None)
    return OTF2_REGION_ROLE_FILE_IO;
  return OTF2_REGION_ROLE_FILE_IO_METADATA;
}

} // namespace

ExportStats writeOtf2(const std::string &dir, const Trace &trace, const ExportOptions &options) {
  ExportStats stats;
  const int64_t nranks = trace.header.nranks;
  const std::vector<int64_t> ranks = sampleRanks(nranks, options.maxRanks > 0 ? options.maxRanks : nranks);
  stats.ranks = int64_t(ranks.size());
  stats.sampled = stats.ranks < nranks;

  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (std::filesystem::exists(std::filesystem::path(dir) / "traces.otf2"))
    throw std::runtime_error(dir + ": already holds an OTF2 archive (traces.otf2); remove it first");
  OTF2_Archive *archive = OTF2_Archive_Open(dir.c_str(), "traces", OTF2_FILEMODE_WRITE, 1024 * 1024,
                                            4 * 1024 * 1024, OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
  if (!archive)
    throw std::runtime_error(dir + ": cannot create the OTF2 archive");
  struct Closer {
    OTF2_Archive *a;
    ~Closer() { OTF2_Archive_Close(a); }
  } closer{archive};
  check(OTF2_Archive_SetFlushCallbacks(archive, &kFlushCallbacks, nullptr), "flush callbacks");
  check(OTF2_Archive_SetSerialCollectiveCallbacks(archive), "collective callbacks");
  check(OTF2_Archive_SetCreator(archive, "sio-trace export"), "creator");
  check(OTF2_Archive_OpenEvtFiles(archive), "open event files");

  // Definitions gathered while writing events, written afterwards.
  struct RegionInfo {
    OTF2_RegionRef ref;
    Layer layer;
  };
  std::map<std::string, RegionInfo> regions;                       // op -> region
  std::map<std::pair<int64_t, uint8_t>, OTF2_IoHandleRef> handles; // (file, paradigm) -> handle
  std::map<int64_t, uint64_t> eventsPerRank;
  TimelineFlags flags;
  uint64_t end = 0;

  for (int64_t r : ranks) {
    OTF2_EvtWriter *w = OTF2_Archive_GetEvtWriter(archive, OTF2_LocationRef(r));
    if (!w)
      throw std::runtime_error("OTF2: cannot open the event writer of rank " + std::to_string(r));
    uint64_t last = 0, events = 0;
    OTF2_ErrorCode err = OTF2_SUCCESS;
    // The top-level call still open: inner calls (POSIX inside MPI-IO)
    // follow it and are written inside it, so its Leave waits for them.
    struct Open {
      OTF2_RegionRef region;
      uint64_t end;
      std::optional<std::pair<OTF2_IoHandleRef, uint64_t>> io; // handle, bytes
      uint64_t seq;
    };
    std::optional<Open> open;
    auto at = [&](double ns) { return last = std::max(last, uint64_t(std::llround(ns))); };
    auto leave = [&](const Open &call) {
      const uint64_t t1 = at(double(call.end));
      if (call.io && err == OTF2_SUCCESS)
        err = OTF2_EvtWriter_IoOperationComplete(w, nullptr, t1, call.io->first, call.io->second, call.seq);
      if (err == OTF2_SUCCESS)
        err = OTF2_EvtWriter_Leave(w, nullptr, t1, call.region);
      end = std::max(end, t1);
    };
    auto close = [&] {
      if (open)
        leave(*open);
      open.reset();
    };
    bool complete = expandRank(trace, r, options.maxCallsPerRank, [&](const Call &c) {
      const Event &ev = *c.event;
      flags.perRank |= c.perRank;
      flags.merged |= c.timed && !c.perRank;
      flags.reconstructed |= c.reconstructed;
      flags.nested |= c.parentSeq.has_value();
      flags.untimed |= !c.timed;
      if (!c.parentSeq)
        close();
      auto [rit, addedRegion] = regions.emplace(ev.op, RegionInfo{OTF2_RegionRef(regions.size()), ev.layer});
      if (++stats.calls > options.maxTotalCalls && options.maxTotalCalls)
        throw ExportBudgetExceeded();
      // Non-decreasing integer nanoseconds per location.
      const uint64_t t0 = at(c.startNs);
      const uint64_t t1 = std::max(t0, uint64_t(std::llround(c.startNs + c.durationNs)));
      if (err == OTF2_SUCCESS)
        err = OTF2_EvtWriter_Enter(w, nullptr, t0, rit->second.ref);
      events += 2; // Enter and Leave
      std::optional<std::pair<OTF2_IoHandleRef, uint64_t>> io;
      if (isIoOperation(c)) {
        // Reads and writes without a known file go to one "(unknown file)"
        // handle per paradigm, so that both exports count the same operations.
        auto key = std::pair(c.file.value_or(-1), paradigmOf(ev.layer));
        auto [hit, addedHandle] = handles.emplace(key, OTF2_IoHandleRef(handles.size()));
        const uint64_t bytes = *c.bytes > 0 ? uint64_t(*c.bytes) : 0;
        const OTF2_IoOperationMode mode =
            direction(ev.op) == Direction::Read ? OTF2_IO_OPERATION_MODE_READ : OTF2_IO_OPERATION_MODE_WRITE;
        if (err == OTF2_SUCCESS)
          err = OTF2_EvtWriter_IoOperationBegin(w, nullptr, t0, hit->second, mode, OTF2_IO_OPERATION_FLAG_NONE, bytes,
                                                c.seq);
        io = std::pair(hit->second, bytes);
        events += 2;
        ++stats.ioOperations;
      }
      if (c.parentSeq)
        leave(Open{rit->second.ref, t1, io, c.seq}); // nothing nests in an inner call
      else
        open = Open{rit->second.ref, t1, io, c.seq};
    });
    close();
    check(err, "writing events");
    stats.truncated |= !complete;
    eventsPerRank[r] = events;
    check(OTF2_Archive_CloseEvtWriter(archive, w), "close event writer");
  }
  check(OTF2_Archive_CloseEvtFiles(archive), "close event files");
  // What the timestamps are: the archive's description (otf2-print -A).
  check(OTF2_Archive_SetDescription(archive, timelineTimingNote(trace, flags, "", "", "", "").c_str()), "description");

  // Local definition files are required even when empty.
  check(OTF2_Archive_OpenDefFiles(archive), "open definition files");
  for (int64_t r : ranks) {
    OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(archive, OTF2_LocationRef(r));
    check(OTF2_Archive_CloseDefWriter(archive, dw), "close definition writer");
  }
  check(OTF2_Archive_CloseDefFiles(archive), "close definition files");

  OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(archive);
  if (!g)
    throw std::runtime_error("OTF2: cannot open the global definition writer");
  check(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, 0, end + 1, OTF2_UNDEFINED_TIMESTAMP),
        "clock properties");
  // Strings first (they must be defined before use): collect every name.
  Strings s;
  const std::string program = trace.header.program.empty() ? "program" : trace.header.program;
  std::vector<std::pair<OTF2_StringRef, std::string>> order;
  auto str = [&](const std::string &text) {
    size_t before = s.refs.size();
    OTF2_StringRef ref = s(text);
    if (s.refs.size() != before)
      order.emplace_back(ref, text);
    return ref;
  };
  OTF2_StringRef empty = str("");
  OTF2_StringRef node = str("node"), machine = str(program);
  for (const auto &[op, info] : regions)
    str(op);
  const char *paradigmIds[] = {"MPI-IO", "POSIX", "ISOC"};
  const char *paradigmNames[] = {"MPI I/O", "POSIX I/O", "ISO C I/O"};
  for (int p = 0; p < 3; ++p) {
    str(paradigmIds[p]);
    str(paradigmNames[p]);
  }
  std::map<int64_t, std::string> fileNames;
  for (const auto &[key, ref] : handles) {
    const FileEntry *f = trace.file(key.first);
    fileNames[key.first] = f ? f->formatStr() : key.first < 0 ? "(unknown file)" : "f" + std::to_string(key.first);
    str(fileNames[key.first]);
  }
  for (int64_t r : ranks)
    str("rank " + std::to_string(r));
  for (const auto &[ref, text] : order)
    check(OTF2_GlobalDefWriter_WriteString(g, ref, text.c_str()), "string");

  check(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, machine, node, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
        "system tree");
  for (int64_t r : ranks) {
    OTF2_StringRef name = s("rank " + std::to_string(r));
    check(OTF2_GlobalDefWriter_WriteLocationGroup(g, OTF2_LocationGroupRef(r), name, OTF2_LOCATION_GROUP_TYPE_PROCESS,
                                                  0, OTF2_UNDEFINED_LOCATION_GROUP),
          "location group");
    check(OTF2_GlobalDefWriter_WriteLocation(g, OTF2_LocationRef(r), name, OTF2_LOCATION_TYPE_CPU_THREAD,
                                             eventsPerRank[r], OTF2_LocationGroupRef(r)),
          "location");
  }
  // Definitions of each kind go in reference order (otf2-print warns otherwise).
  std::vector<std::pair<OTF2_RegionRef, std::pair<std::string, Layer>>> regionOrder;
  for (const auto &[op, info] : regions)
    regionOrder.emplace_back(info.ref, std::pair(op, info.layer));
  std::sort(regionOrder.begin(), regionOrder.end());
  for (const auto &[ref, what] : regionOrder) {
    const auto &[op, layer] = what;
    check(OTF2_GlobalDefWriter_WriteRegion(g, ref, s(op), s(op), empty, regionRole(op, layer),
                                           op.starts_with("MPI_") ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_UNKNOWN,
                                           OTF2_REGION_FLAG_NONE, empty, 0, 0),
          "region");
  }
  for (uint8_t p = 0; p < 3; ++p)
    check(OTF2_GlobalDefWriter_WriteIoParadigm(g, p, s(paradigmIds[p]), s(paradigmNames[p]),
                                               p == 0 ? OTF2_IO_PARADIGM_CLASS_PARALLEL : OTF2_IO_PARADIGM_CLASS_SERIAL,
                                               p == 1 ? OTF2_IO_PARADIGM_FLAG_OS : OTF2_IO_PARADIGM_FLAG_NONE, 0,
                                               nullptr, nullptr, nullptr),
          "I/O paradigm");
  std::map<int64_t, OTF2_IoFileRef> files;
  for (const auto &[key, ref] : handles) {
    auto [fit, added] = files.emplace(key.first, OTF2_IoFileRef(files.size()));
    if (added)
      check(OTF2_GlobalDefWriter_WriteIoRegularFile(g, fit->second, s(fileNames[key.first]), 0), "I/O file");
  }
  std::vector<std::pair<OTF2_IoHandleRef, std::pair<int64_t, uint8_t>>> handleOrder;
  for (const auto &[key, ref] : handles)
    handleOrder.emplace_back(ref, key);
  std::sort(handleOrder.begin(), handleOrder.end());
  for (const auto &[ref, key] : handleOrder)
    check(OTF2_GlobalDefWriter_WriteIoHandle(g, ref, s(fileNames[key.first]), files[key.first], key.second,
                                             OTF2_IO_HANDLE_FLAG_NONE, OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE),
          "I/O handle");
  check(OTF2_Archive_CloseGlobalDefWriter(archive, g), "close global definitions");
  return stats;
}

#endif

} // namespace sio::report
