// Property test of the generator's honesty about MPI objects (issue 28,
// item 4; docs/replay.md, Objects the replay cannot rebuild): traces with
// random datatype graphs, some of whose members are unknown (missing ids,
// -1 where the runtime could not describe a type, MPI_DATATYPE_NULL, kinds
// without a size, a type built on itself), used by random calls. Every
// trace is either refused naming the first call that uses an object the
// replay cannot make and that object, or generated with no reference to
// such an object, and its header says "rebuilt exactly" only when nothing
// is approximated. The expected outcome comes from an oracle written here,
// independently of replay/lib/Rebuildable.cpp.
#include "TestTraces.h"

#include "sio/replay/ReplayGenerator.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <regex>
#include <set>

namespace sio::replay {
namespace {

using sio::trace::Expr;
using sio::trace::ObjectEntry;
using test::event;
using test::makeTrace;

enum class Status { Exact, Approx, Null, Impossible };

struct Case {
  sio::trace::Trace trace;
  std::map<int64_t, Status> own;                    ///< the status of each entry on its own
  std::vector<std::pair<std::string, int64_t>> use; ///< op, datatype id, in body order
  std::vector<bool> failed;                         ///< whether that call failed in the application
};

/// The oracle: an entry's status with its members (a member that cannot be
/// made, or is null, makes it impossible).
Status deep(const Case &c, int64_t id, std::set<int64_t> &seen) {
  auto own = c.own.find(id);
  if (own == c.own.end())
    return Status::Impossible;
  if (own->second == Status::Null || own->second == Status::Impossible)
    return own->second;
  if (!seen.insert(id).second)
    return Status::Impossible; // built on itself
  Status s = own->second;
  for (const ObjectEntry &t : c.trace.datatypes)
    if (t.id == id && t.fields.count("oldtype")) {
      Status m = deep(c, *t.fields.at("oldtype")[0].constantValue(), seen);
      if (m == Status::Null || m == Status::Impossible)
        s = Status::Impossible;
      else if (m == Status::Approx && s == Status::Exact)
        s = Status::Approx;
    }
  seen.erase(id);
  return s;
}

Case draw(std::mt19937 &rng) {
  auto pick = [&](int n) { return int(std::uniform_int_distribution<int>(0, n - 1)(rng)); };
  const int types = 1 + pick(6);
  std::string body =
      "[" + event(2, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 5, "info": 0, "fh": 0})");
  Case c;
  std::vector<std::pair<std::string, int64_t>> uses;
  std::vector<bool> failed;
  for (int k = 0; k < 1 + pick(4); ++k) {
    static const char *const kOps[] = {"MPI_Type_commit", "MPI_File_set_view", "MPI_File_write_at"};
    std::string op = kOps[pick(3)];
    int64_t id = pick(types + 1); // 0 is MPI_BYTE
    bool fails = pick(4) == 0;
    // Written with MPI_BYTE (the reader checks ids against the table),
    // set to `id` below, as an extrapolated trace arrives from memory.
    std::string params =
        op == "MPI_Type_commit" ? R"({"datatype": 0)"
        : op == "MPI_File_set_view"
            ? R"({"fh": 0, "disp": 0, "etype": 0, "filetype": 0, "datarep": {"string": "native"}, "info": 0)"
            : R"({"fh": 0, "offset": 0, "count": 1, "datatype": 0)";
    params += fails ? R"(, "error": 13})" : "}";
    body += ", " + event(2, op, op == "MPI_Type_commit" ? "sync" : "mpiio", params);
    uses.push_back({op, id});
    failed.push_back(fails);
  }
  body += ", " + event(2, "MPI_File_close", "mpiio", R"({"fh": 0})") + "]";
  c.trace = makeTrace(2, R"([{"id": 0, "name": [{"text": "fuzz.dat"}]}])", body);
  for (size_t k = 0; k < uses.size(); ++k)
    for (auto &param : c.trace.body[k + 1].event().params)
      if (param.name == (uses[k].first == "MPI_File_set_view" ? "filetype" : "datatype"))
        param.value = sio::trace::ElasticValue(Expr(uses[k].second), sio::trace::RankList::all(2));
  c.use = uses;
  c.failed = failed;
  c.own[0] = Status::Exact;
  for (int64_t id = 1; id <= types; ++id) {
    ObjectEntry t;
    t.id = id;
    auto sized = [&](ObjectEntry &e) {
      e.fields["size"] = {Expr(4)};
      e.fields["extent"] = {Expr(4)};
    };
    // A member: an earlier type, itself, a missing id, or -1.
    auto member = [&]() -> int64_t {
      switch (pick(6)) {
      case 0:
        return id;
      case 1:
        return types + 5;
      case 2:
        return -1;
      default:
        return pick(int(id));
      }
    };
    switch (pick(7)) {
    case 0:
      t.kind = "named", t.name = "MPI_INT", sized(t);
      c.own[id] = Status::Exact;
      break;
    case 1:
      t.kind = "named", t.name = "MPI_VENDOR_INT", sized(t);
      c.own[id] = Status::Approx;
      break;
    case 2:
      t.kind = "named", t.name = pick(2) ? "MPI_VENDOR_INT" : "";
      c.own[id] = Status::Impossible;
      break;
    case 3:
      t.kind = "named", t.name = "MPI_DATATYPE_NULL";
      c.own[id] = Status::Null;
      break;
    case 4:
      t.kind = "f90_integer";
      if (pick(2))
        sized(t), c.own[id] = Status::Approx;
      else
        c.own[id] = Status::Impossible;
      break;
    default:
      t.kind = pick(2) ? "contiguous" : "vector";
      t.fields["count"] = {Expr(2)};
      if (t.kind == "vector")
        t.fields["blocklength"] = {Expr(1)}, t.fields["stride"] = {Expr(3)};
      t.fields["oldtype"] = {Expr(member())};
      sized(t);
      c.own[id] = Status::Exact;
      break;
    }
    c.trace.datatypes.push_back(t);
  }
  return c;
}

TEST(RebuildFuzz, EveryTraceIsRefusedNamingTheCallOrGeneratedWithoutNullObjects) {
  std::mt19937 rng(28);
  int refused = 0, exact = 0, approximated = 0;
  for (int n = 0; n < 400; ++n) {
    Case c = draw(rng);
    std::optional<size_t> firstBad;
    for (size_t k = 0; k < c.use.size() && !firstBad; ++k) {
      std::set<int64_t> seen;
      Status s = deep(c, c.use[k].second, seen);
      if (s == Status::Impossible || (s == Status::Null && !c.failed[k]))
        firstBad = k;
    }
    bool approx = false;
    for (const auto &[id, s] : c.own) {
      std::set<int64_t> seen;
      Status d = deep(c, id, seen);
      approx |= s == Status::Approx && d != Status::Impossible;
    }
    SCOPED_TRACE("case " + std::to_string(n) + ": " + sio::trace::writeTraceString(c.trace));
    try {
      std::string program = generateReplay(c.trace);
      ASSERT_FALSE(firstBad) << "accepted a use of datatype " << c.use[*firstBad].second << " by "
                             << c.use[*firstBad].first;
      EXPECT_EQ(program.find("datatype[-1]"), std::string::npos);
      // Every table slot the program reads is one it can make.
      static const std::regex kSlot(R"(datatype\[(\d+)\])");
      for (std::sregex_iterator it(program.begin(), program.end(), kSlot), end; it != end; ++it) {
        int64_t id = std::stoll((*it)[1]);
        std::set<int64_t> seen;
        Status s = deep(c, id, seen);
        EXPECT_TRUE(s == Status::Exact || s == Status::Approx || s == Status::Null) << "datatype[" << id << "]";
      }
      const bool saysExact = program.find("rebuilt exactly") != std::string::npos;
      EXPECT_EQ(saysExact, !approx) << program.substr(0, 3000);
      ++(saysExact ? exact : approximated);
    } catch (const UnsupportedTrace &e) {
      ASSERT_TRUE(firstBad) << e.what();
      const std::string what = e.what();
      EXPECT_NE(what.find(c.use[*firstBad].first), std::string::npos) << what;
      EXPECT_NE(what.find("datatype " + std::to_string(c.use[*firstBad].second)), std::string::npos) << what;
      EXPECT_NE(what.find("cannot rebuild"), std::string::npos) << what;
      ++refused;
    }
  }
  std::printf("rebuild fuzz: %d refused, %d exact, %d approximated\n", refused, exact, approximated);
  EXPECT_GT(refused, 40);
  EXPECT_GT(exact, 40);
  EXPECT_GT(approximated, 40);
}

} // namespace
} // namespace sio::replay
