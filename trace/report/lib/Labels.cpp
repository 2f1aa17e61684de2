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

namespace sio::report::detail {

// Inner events follow the call they ran in (docs/trace-format.md: "POSIX
// calls made inside an MPI-IO call follow that call"), so the outer call of
// an inner event is the last non-inner event before it in body order.
void Writer::findOuterCalls(const std::vector<Node> &body, const Event *&last) {
  for (const Node &n : body) {
    if (n.isLoop()) {
      findOuterCalls(n.loop().body, last);
      continue;
    }
    const Event &e = n.event();
    if (!e.inner)
      last = &e;
    else if (last)
      outerOf_[&e] = last;
  }
}

std::string Writer::siteText(const Event &e) const {
  if (e.site || !e.inner)
    return siteLocation(t_, e.site);
  auto it = outerOf_.find(&e);
  if (it == outerOf_.end())
    return "inner call (its outer call is not in the trace)";
  const Event &outer = *it->second;
  return "inside " + outer.op + " at " + siteLocation(t_, outer.site);
}

} // namespace sio::report::detail
