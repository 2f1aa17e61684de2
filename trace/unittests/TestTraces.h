// Traces built in code for the JSON, diff and summary tests.
#pragma once

#include "sio/trace/Trace.h"

#include <gtest/gtest.h>

namespace sio::trace::testing {

inline Param param(std::string name, Value v, const RankList &ranks) {
  return Param{std::move(name), ElasticValue(std::move(v), ranks)};
}

inline Node eventNode(std::string op, Layer layer, uint64_t site, RankList ranks,
                      std::vector<std::pair<std::string, Value>> params) {
  Event ev;
  ev.op = std::move(op);
  ev.layer = layer;
  ev.site = site;
  for (auto &[name, v] : params)
    ev.params.push_back(param(name, std::move(v), ranks));
  return Node{std::move(ranks), std::move(ev)};
}

inline Node loopNode(uint64_t id, RankList ranks, ElasticValue iterations, std::vector<Node> body) {
  Loop l;
  l.id = id;
  l.iterations = std::move(iterations);
  l.body = std::move(body);
  return Node{std::move(ranks), std::move(l)};
}

inline Expr ex(std::string_view text) { return Expr::parse(text); }

/// The strong-scaling program of ARCHITECTURE.md: open, 3 writes of 960/N
/// bytes, barrier, 5 reads of 64 bytes, close.
inline Trace strongTrace(int64_t nranks = 4) {
  Trace t;
  t.header.generator = "sio-runtime 0.1.0";
  t.header.program = "strong";
  t.header.commandLine = {"./strong"};
  t.header.nranks = nranks;
  t.sites = {{0x11, "strong.cpp", 17, 3, "main", "MPI_File_open", 0},
             {0x14, "strong.cpp", 20, 5, "main", "MPI_File_write_at", 0xa1},
             {0x16, "strong.cpp", 22, 3, "main", "MPI_Barrier", 0},
             {0x18, "strong.cpp", 24, 5, "main", "MPI_File_read_at", 0xa2},
             {0x1a, "strong.cpp", 26, 3, "main", "MPI_File_close", 0}};
  t.loops = {{0xa1, "strong.cpp", 19, 3, "main", 0}, {0xa2, "strong.cpp", 23, 3, "main", 0}};
  t.files = {FileEntry{0, {FileNamePart{"data/strong.dat", std::nullopt, 0}}}};
  ObjectEntry byte;
  byte.id = 0;
  byte.kind = "named";
  byte.name = "MPI_BYTE";
  t.datatypes = {byte};
  ObjectEntry world;
  world.kind = "world";
  t.comms = {world};
  ObjectEntry infoNull;
  infoNull.kind = "null";
  t.infos = {infoNull};
  const RankList all = RankList::all(nranks);
  const int64_t chunk = 960 / nranks;
  t.body.push_back(eventNode("MPI_File_open", Layer::MPIIO, 0x11, all,
                             {{"comm", Expr(0)}, {"file", Expr(0)}, {"amode", Expr(9)}, {"info", Expr(0)}, {"fh", Expr(0)}}));
  t.body.push_back(loopNode(
      0xa1, all, ElasticValue(Expr(3), all),
      {eventNode("MPI_File_write_at", Layer::MPIIO, 0x14, all,
                 {{"fh", Expr(0)},
                  {"offset", Expr(chunk) * Expr::rank() + Expr(960) * Expr::loopIndex(0)},
                  {"count", Expr(chunk)},
                  {"datatype", Expr(0)}})}));
  t.body.push_back(eventNode("MPI_Barrier", Layer::SYNC, 0x16, all, {{"comm", Expr(0)}}));
  t.body.push_back(loopNode(
      0xa2, all, ElasticValue(Expr(5), all),
      {eventNode("MPI_File_read_at", Layer::MPIIO, 0x18, all,
                 {{"fh", Expr(0)},
                  {"offset", Expr(320) * Expr::rank() + Expr(64) * Expr::loopIndex(0)},
                  {"count", Expr(64)},
                  {"datatype", Expr(0)}})}));
  t.body.push_back(eventNode("MPI_File_close", Layer::MPIIO, 0x1a, all, {{"fh", Expr(0)}}));
  return t;
}

/// A trace that uses every feature of the format: rank-varying values,
/// strided and nested rank lists, loop-dependent iteration counts, file name
/// fields, derived datatypes, info strings, inner calls, string values and
/// timing statistics.
inline Trace richTrace() {
  Trace t;
  TraceHeader &h = t.header;
  h.generator = "sio-runtime 0.1.0";
  h.program = "mixed";
  h.commandLine = {"./mixed", "-n", "3"};
  h.nranks = 8;
  h.complete = false;
  h.droppedEvents = 12;
  h.notes = {"event buffer full on rank 5"};
  h.metadata = {{"host", "node01"}, {"start", "2024-05-02T10:00:00Z"}};
  t.sites = {{0x101, "mixed.c", 10, 3, "main", "fopen", 0}, {0x102, "mixed.c", 12, 5, "main", "fwrite", 0x201}};
  t.loops = {{0x201, "mixed.c", 11, 3, "main", 0}, {0x202, "mixed.c", 13, 5, "main", 0x201}};
  t.files = {FileEntry{0, {FileNamePart{"logs/out_", std::nullopt, 0}, FileNamePart{"", Expr::rank(), 4},
                           FileNamePart{".txt", std::nullopt, 0}}},
             FileEntry{1, {FileNamePart{"data/shared.dat", std::nullopt, 0}}},
             FileEntry{2, {FileNamePart{"scratch/node", std::nullopt, 0},
                           FileNamePart{"", ex("(rank - rank % 4)/4"), 0}}}};
  ObjectEntry byte, dbl, vec;
  byte.id = 0, byte.kind = "named", byte.name = "MPI_BYTE";
  dbl.id = 1, dbl.kind = "named", dbl.name = "MPI_DOUBLE";
  vec.id = 2, vec.kind = "vector";
  vec.fields = {{"count", {Expr(2)}}, {"blocklength", {Expr(1)}}, {"stride", {Expr(4)}}, {"oldtype", {Expr(1)}}};
  t.datatypes = {byte, dbl, vec};
  ObjectEntry world, split;
  world.id = 0, world.kind = "world";
  split.id = 1, split.kind = "split";
  split.fields = {{"parent", {Expr(0)}}, {"color", {ex("rank % 2")}}, {"key", {Expr::rank()}}};
  t.comms = {world, split};
  ObjectEntry infoNull, hints;
  infoNull.id = 0, infoNull.kind = "null";
  hints.id = 1, hints.kind = "info";
  hints.strings = {{"cb_nodes", "2"}, {"romio_cb_write", "enable"}};
  t.infos = {infoNull, hints};

  const RankList all = RankList::all(8), low = RankList::range(0, 4), high = RankList::range(4, 4);
  const RankList even = RankList::range(0, 4, 2);
  t.body.push_back(eventNode("fopen", Layer::STDIO, 0x101, all,
                             {{"file", Expr(0)}, {"mode", std::string("w")}, {"stream", Expr(0)}}));
  ElasticValue iters;
  iters.entries() = {{low, Expr(2)}, {high, Expr(3)}};
  Node fwrite = eventNode("fwrite", Layer::STDIO, 0x102, all,
                          {{"size", Expr(8)}, {"nmemb", ex("16*i0 + 16")}, {"stream", Expr(0)}});
  for (uint64_t ns : {100, 120, 90, 4000})
    fwrite.event().compute.add(ns);
  for (uint64_t ns : {0, 1, 1500})
    fwrite.event().duration.add(ns);
  Node fseek = eventNode("fseek", Layer::STDIO, 0, all,
                         {{"stream", Expr(0)}, {"offset", ex("64*i1 + 8*rank")}, {"whence", Expr(0)}});
  t.body.push_back(loopNode(0x201, all, iters,
                            {fwrite, loopNode(0x202, all, ElasticValue(ex("i0 + 1"), all), {fseek})}));
  t.body.push_back(eventNode("MPI_File_open", Layer::MPIIO, 0, even,
                             {{"comm", Expr(1)}, {"file", Expr(1)}, {"amode", Expr(9)}, {"info", Expr(1)}, {"fh", Expr(0)}}));
  Node write = eventNode("MPI_File_write_at_all", Layer::MPIIO, 0, even,
                         {{"fh", Expr(0)}, {"offset", Expr(0)}, {"count", Expr(25)}, {"datatype", Expr(2)}});
  write.event().param("offset")->value.entries() = {{RankList::range(0, 2, 2), ex("100*rank")},
                                                    {RankList::range(4, 2, 2), Expr(1000)}};
  t.body.push_back(write);
  Node inner = eventNode("pwrite64", Layer::POSIX, 0, RankList::single(0),
                         {{"fd", Expr(3)}, {"count", Expr(400)}, {"offset", Expr(0)}});
  inner.event().inner = true;
  t.body.push_back(inner);
  t.body.push_back(eventNode("unlink", Layer::POSIX, 0, RankList::fromRanks({0, 1, 4, 5}), {{"file", Expr(2)}}));
  t.body.push_back(eventNode("fclose", Layer::STDIO, 0, all, {{"stream", Expr(0)}}));
  t.body.push_back(eventNode("MPI_File_close", Layer::MPIIO, 0, even, {{"fh", Expr(0)}}));
  return t;
}

} // namespace sio::trace::testing
