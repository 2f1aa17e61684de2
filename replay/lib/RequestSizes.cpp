// What the replay's calls need besides their arguments: the buffer size,
// the input files it provides (and how far each is read), views, and which
// files a handle names.
#include "Generator.h"

#include "sio/trace/Handles.h"
#include "sio/trace/Summary.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <numeric>
#include <sstream>

namespace sio::replay::detail {

std::optional<int64_t> Generator::maxOver(const std::function<std::optional<int64_t>(const ExprEnv &)> &f,
                                          const RankList &ranks) const {
  // The first and last 128 ranks, without enumerating the ones between.
  const std::vector<int64_t> sample = ranks.endRanks(128);
  std::optional<int64_t> best;
  std::vector<int64_t> indices;
  std::function<void(int64_t, size_t)> descend = [&](int64_t rank, size_t depth) {
    if (depth == loops_.size() || depth >= 10) {
      indices.resize(loops_.size(), 0);
      ExprEnv env{rank, N_, indices};
      if (auto v = f(env))
        best = std::max(best.value_or(*v), *v);
      return;
    }
    const Value *count = loops_[depth].iterations->valueFor(rank);
    const Expr *expr = count ? std::get_if<Expr>(count) : nullptr;
    ExprEnv outer{rank, N_, std::span<const int64_t>(indices.data(), depth)};
    std::optional<int64_t> n = expr ? expr->evaluate(outer) : std::nullopt;
    if (!n || *n <= 0)
      return;
    for (int64_t i : {int64_t(0), *n - 1}) {
      indices.resize(depth);
      indices.push_back(i);
      descend(rank, depth + 1);
      if (*n == 1)
        break;
    }
  };
  for (int64_t r : sample) {
    indices.clear();
    descend(r, 0);
  }
  return best;
}

std::optional<int64_t> Generator::evalParam(const Event &e, const std::string &name, const ExprEnv &env) {
  const sio::trace::Param *param = e.param(name);
  if (!param)
    return std::nullopt;
  const Value *v = param->value.valueFor(env.rank);
  const Expr *expr = v ? std::get_if<Expr>(v) : nullptr;
  return expr ? expr->evaluate(env) : std::nullopt;
}

std::optional<int64_t> Generator::typeExtent(int64_t id, int64_t rank) const {
  const ObjectEntry *t = trace_.datatype(id);
  if (t) {
    auto it = t->fields.find("extent");
    if (it != t->fields.end() && !it->second.empty())
      if (auto v = it->second[0].evaluate(ExprEnv{rank, N_, {}}))
        return v;
  }
  return sio::trace::datatypeSize(trace_, id, rank);
}

std::optional<int64_t> Generator::requestBytes(const Event &e, const ExprEnv &env) const {
  auto get = [&](const char *name) { return evalParam(e, name, env); };
  switch (e.layer) {
  case Layer::MPIIO: {
    auto count = get("count"), type = get("datatype");
    if (!count || !type || !e.param("fh"))
      return std::nullopt;
    auto extent = typeExtent(*type, env.rank);
    return extent ? std::optional<int64_t>(*count * *extent) : std::nullopt;
  }
  case Layer::POSIX:
    return e.param("bytes") ? get("bytes") : get("count");
  case Layer::STDIO: {
    auto size = get("size"), nmemb = get("nmemb");
    if (!e.param("size")) // character, line and formatted calls: what they moved
      return get("result");
    return size && nmemb ? std::optional<int64_t>(*size * *nmemb) : std::nullopt;
  }
  case Layer::SYNC:
    break;
  }
  return std::nullopt;
}

void Generator::noteSeek(const Event &e, Params &p) {
  if (e.op != "fseek" || e.inner)
    return;
  auto h = p.constant("stream");
  if (!h)
    return;
  auto offset = p.constant("offset"), whence = p.constant("whence");
  auto known = streamPos_.find(*h);
  if (offset && whence == 0 && !e.param("error"))
    streamPos_[*h] = *offset;
  else if (offset && whence == 1 && known != streamPos_.end() && !e.param("error"))
    known->second += *offset;
  else
    streamPos_.erase(*h);
}

void Generator::noteRequestSizes(const Node &node, Params &p, uint32_t) {
  const Event &e = node.event();
  auto bytes = maxOver([&](const ExprEnv &env) { return requestBytes(e, env); }, node.ranks);
  if (bytes)
    largestRequest_ = std::max(largestRequest_, *bytes);
  // A read that failed reached nothing; one that came up short reached
  // only what it got (its `result`): the input file is made that long, so
  // that the replay's reads end where the application's did.
  if (!bytes || !isRead(e) || e.param("error"))
    return;
  auto moved = [&](const ExprEnv &env) -> std::optional<int64_t> {
    return e.param("result") ? evalParam(e, "result", env) : requestBytes(e, env);
  };
  if (auto m = maxOver(moved, node.ranks))
    bytes = *m;
  std::string handle = e.layer == Layer::MPIIO ? "fh" : e.layer == Layer::STDIO ? "stream" : "fd";
  auto h = p.constant(handle);
  if (!h)
    return;
  auto file = handleFile_.find({handle, *h});
  if (file == handleFile_.end())
    return;
  InputFile &in = reads_[file->second];
  // A stream an fseek placed: the read reaches from there.
  if (auto pos = streamPos_.find(*h); handle == "stream" && pos != streamPos_.end()) {
    int64_t repeats = 1;
    for (const auto &frame : loops_)
      if (const Value *v = frame.iterations->valueFor(node.ranks.first().value_or(0)))
        if (const Expr *x = std::get_if<Expr>(v))
          repeats *= std::max<int64_t>(1, x->evaluate(ExprEnv{node.ranks.first().value_or(0), N_, {}}).value_or(1));
    pos->second += *bytes * repeats;
    in.reach = std::max(in.reach, pos->second);
    return;
  }
  // Explicit offsets: offset (in etype units of the view) plus the request.
  int64_t reach = *bytes;
  if (e.param("offset")) {
    auto offsetEnd = maxOver(
        [&](const ExprEnv &env) -> std::optional<int64_t> {
          auto offset = evalParam(e, "offset", env);
          auto got = moved(env);
          if (!offset || !got || *got == 0)
            return std::nullopt;
          return *offset * viewUnit(*h, handle, env.rank) + *got;
        },
        node.ranks);
    reach = offsetEnd.value_or(*bytes);
  } else {
    // Sequential reads: all of them, one after another.
    int64_t repeats = 1;
    for (const auto &frame : loops_)
      if (const Value *v = frame.iterations->valueFor(node.ranks.first().value_or(0)))
        if (const Expr *x = std::get_if<Expr>(v))
          repeats *= std::max<int64_t>(1, x->evaluate(ExprEnv{node.ranks.first().value_or(0), N_, {}}).value_or(1));
    in.sequential += *bytes * repeats;
  }
  auto view = views_.find(*h);
  int64_t scale = 1;
  if (handle == "fh" && view != views_.end())
    scale = view->second.ratio, in.reach = std::max(in.reach, view->second.disp);
  in.reach = std::max(in.reach, reach * scale);
  in.reach =
      std::max(in.reach, in.sequential * scale + (view != views_.end() && handle == "fh" ? view->second.disp : 0));
}

int64_t Generator::viewUnit(int64_t fh, const std::string &handle, int64_t) const {
  if (handle != "fh")
    return 1;
  auto view = views_.find(fh);
  return view == views_.end() ? 1 : view->second.etype;
}

void Generator::noteView(Params &p) {
  auto fh = p.constant("fh");
  auto etype = p.constant("etype"), filetype = p.constant("filetype");
  if (!fh)
    return;
  View view;
  if (etype)
    view.etype = std::max<int64_t>(1, sio::trace::datatypeSize(trace_, *etype, 0).value_or(1));
  if (filetype) {
    int64_t size = sio::trace::datatypeSize(trace_, *filetype, 0).value_or(1);
    int64_t extent = typeExtent(*filetype, 0).value_or(size);
    view.ratio = size > 0 ? std::max<int64_t>(1, (extent + size - 1) / size) : 1;
  }
  const Event *setView = nullptr;
  (void)setView;
  if (auto disp = p.constant("disp"))
    view.disp = *disp;
  views_[*fh] = view;
}

Generator::OpenIntent Generator::streamOpenIntent(const Event &e) {
  const auto *param = e.param("mode");
  if (param && param->value.isUniform())
    if (const auto *m = std::get_if<std::string>(&param->value.entries()[0].value))
      return isWriteMode(*m) ? OpenIntent::Writing : isReadWriteMode(*m) ? OpenIntent::ReadWrite : OpenIntent::Reading;
  return OpenIntent::Writing;
}

std::vector<std::string> Generator::duplicate(const std::string &op, Params &p, const std::string &expected,
                                              const std::function<std::string(const std::string &)> &posix) {
  const bool failed = !expected.empty();
  std::string call = op == "dup" ? "dup(fd[" + p("oldfd") + "])"
                                 : "dup2Codes(" + p("oldfd") + ", " + p("newfd") + (failed ? ", true)" : ", false)");
  if (failed) // failed in the application: the same attempt
    return {posix(call)};
  if (auto from = p.constant("oldfd"), to = p.constant("fd"); from && to && *to >= 0)
    if (auto file = handleFile_.find({"fd", *from}); file != handleFile_.end())
      handleFile_[{"fd", *to}] = file->second;
  return {"storeDescriptor(" + p("fd") + ", " + call + ");"};
}

bool Generator::streamMustExist(const Event &e) {
  const auto *param = e.param("mode");
  if (param && param->value.isUniform())
    if (const auto *m = std::get_if<std::string>(&param->value.entries()[0].value))
      return !m->empty() && m->front() == 'r';
  return false;
}

void Generator::noteOpen(Params &p, const std::string &handle, OpenIntent intent, bool mustExist) {
  auto file = p.constant("file");
  auto h = p.constant(handle);
  if (!file)
    return;
  if (openedFiles_.insert(*file).second && mustExist) {
    preexisting_.insert(*file);
    reads_[*file]; // an input of at least zero bytes, written or not
  }
  if (intent == OpenIntent::Writing)
    writtenFiles_.insert(*file);
  else if (intent == OpenIntent::ReadWrite)
    readWriteFiles_.insert(*file);
  // An open that neither creates nor truncates succeeded in the
  // application: the file existed, whether or not a traced call then read
  // it (ROMIO reads a hints file underneath its MPI_File_open; a program
  // may open a file only to get its size). It is an input of at least
  // zero bytes unless something writes it.
  if (intent != OpenIntent::Writing)
    reads_[*file];
  if (h)
    handleFile_[{handle, *h}] = *file;
  if (h && handle == "stream")
    streamPos_.erase(*h); // reads from the start: counted as sequential
}

void Generator::noteWrites(const Node &node, Params &p) {
  const Event &e = node.event();
  if (sio::trace::direction(e.op) != sio::trace::Direction::Write && e.op != "ftruncate" &&
      e.op != "MPI_File_set_size" && e.op != "MPI_File_preallocate")
    return;
  const std::string handle = e.layer == Layer::MPIIO ? "fh" : e.layer == Layer::STDIO ? "stream" : "fd";
  if (!e.param(handle.c_str()))
    return;
  auto h = p.constant(handle);
  if (!h) {
    writtenFiles_.insert(readWriteFiles_.begin(), readWriteFiles_.end());
    return;
  }
  if (auto file = handleFile_.find({handle, *h}); file != handleFile_.end())
    writtenFiles_.insert(file->second);
}

} // namespace sio::replay::detail
