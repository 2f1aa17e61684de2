// Traces built in code: the access programs of Byna et al.'s (SC08) examples.
#pragma once

#include "sio/signature/Signature.h"

#include <string_view>

namespace sio::signature::testing {

using trace::Expr;
using trace::Layer;
using trace::Node;
using trace::RankList;
using trace::Trace;

inline Expr ex(std::string_view text) { return Expr::parse(text); }

/// A trace of `nranks` ranks with file f0 "data.bin" and datatypes
/// 0 = MPI_BYTE, 1 = MPI_INT.
inline Trace baseTrace(int64_t nranks = 1) {
  Trace t;
  t.header.program = "test";
  t.header.nranks = nranks;
  t.files = {trace::FileEntry{0, {trace::FileNamePart{"data.bin", std::nullopt, 0}}}};
  trace::ObjectEntry byte, integer;
  byte.id = 0;
  byte.kind = "named";
  byte.name = "MPI_BYTE";
  integer.id = 1;
  integer.kind = "named";
  integer.name = "MPI_INT";
  t.datatypes = {byte, integer};
  return t;
}

inline Node event(const Trace &t, std::string op, Layer layer, std::vector<std::pair<std::string, trace::Value>> params) {
  trace::Event ev;
  ev.op = std::move(op);
  ev.layer = layer;
  const RankList ranks = RankList::all(t.header.nranks);
  for (auto &[name, v] : params)
    ev.params.push_back(trace::Param{name, trace::ElasticValue(std::move(v), ranks)});
  return Node{ranks, std::move(ev)};
}

inline Node loop(const Trace &t, Expr iterations, std::vector<Node> body) {
  trace::Loop l;
  l.iterations = trace::ElasticValue(std::move(iterations), RankList::all(t.header.nranks));
  l.body = std::move(body);
  return Node{RankList::all(t.header.nranks), std::move(l)};
}

inline Node mpiOpen(const Trace &t) {
  return event(t, "MPI_File_open", Layer::MPIIO, {{"comm", Expr(0)}, {"file", Expr(0)}, {"amode", Expr(2)}, {"info", Expr(0)}, {"fh", Expr(0)}});
}

/// MPI_File_read_at / write_at of `count` bytes at `offset`.
inline Node readAt(const Trace &t, Expr offset, Expr count) {
  return event(t, "MPI_File_read_at", Layer::MPIIO, {{"fh", Expr(0)}, {"offset", offset}, {"count", count}, {"datatype", Expr(0)}});
}
inline Node writeAt(const Trace &t, Expr offset, Expr count) {
  return event(t, "MPI_File_write_at", Layer::MPIIO, {{"fh", Expr(0)}, {"offset", offset}, {"count", count}, {"datatype", Expr(0)}});
}

inline StreamSignature only(const Trace &t, int64_t rank = 0, Options o = {}) {
  auto streams = extractStreams(t, rank, o);
  if (streams.size() != 1)
    throw std::runtime_error("expected one stream, got " + std::to_string(streams.size()));
  return detect(streams[0], o);
}

/// The text of the report's groups, trace and pattern signature per group.
inline std::vector<std::string> groupTexts(const SignatureReport &r) {
  std::vector<std::string> out;
  for (const SignatureGroup &g : r.groups) {
    out.push_back(traceSignatureText(g.signature.trace, g.initialPosition));
    out.push_back(patternSignatureText(g.signature.pattern));
  }
  return out;
}

} // namespace sio::signature::testing
