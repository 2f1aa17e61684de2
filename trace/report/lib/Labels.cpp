// How the report names and links the trace's call sites, loops, files and layers.
#include "Writer.h"

namespace sio::report::detail {

using namespace sio::trace;

double toD(const Rational &r) { return double(r.num()) / double(r.den()); }

std::string siteAnchor(uint64_t id) { return "site-" + formatId(id); }
std::string loopAnchor(uint64_t id) { return "loop-" + formatId(id); }

std::string siteLocation(const Trace &t, uint64_t id) {
  if (const SiteInfo *s = t.site(id))
    return s->file + ":" + std::to_string(s->line) + ":" + std::to_string(s->column);
  return id ? "site " + formatId(id) : "unknown site";
}

std::string loopLocation(const Trace &t, uint64_t id) {
  if (const LoopInfo *l = t.loopInfo(id))
    return l->file + ":" + std::to_string(l->line) + ":" + std::to_string(l->column);
  return id ? "loop " + formatId(id) : "loop found by the runtime";
}

std::string fileLabel(const Trace &t, int64_t id) {
  if (const FileEntry *f = t.file(id))
    return f->formatStr();
  return "f" + std::to_string(id);
}

std::string layerTitle(Layer l) {
  switch (l) {
  case Layer::MPIIO:
    return "MPI-IO";
  case Layer::POSIX:
    return "POSIX";
  case Layer::STDIO:
    return "stdio";
  case Layer::SYNC:
    return "MPI (sync)";
  }
  return "?";
}

} // namespace sio::report::detail
