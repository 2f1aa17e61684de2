// MPI objects coded as small integers in order of first sight per rank, so
// SPMD ranks agree: file handles and requests by creation, communicators,
// datatypes and infos with a table entry that describes them (datatypes
// structurally, communicators by rule, infos by their key/values).
// MPI-IO calls cost microseconds, so a mutex and a hash map are fine here.
#include "Runtime.h"

#include <mpi.h>

#include <climits>

#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace sio::rt {
namespace {

using sio::trace::Expr;
using sio::trace::ObjectEntry;

struct MpiTables {
  std::mutex mu;
  std::unordered_map<const void *, int64_t> fh;
  std::set<int64_t> fhInUse; // codes of open file handles
  std::unordered_map<int64_t, int64_t> req;
  int64_t nextReq = 0;
  std::unordered_map<int64_t, int64_t> comm;
  std::vector<ObjectEntry> comms;
  std::unordered_map<uint64_t, int64_t> commsMadeAt; // site -> communicators made there
  int64_t derivedTypes = 0;                          // derived datatypes described so far
  struct TypeKey {
    int combiner, ni, na, nd;
  };
  std::unordered_map<int64_t, std::pair<int64_t, TypeKey>> dtype;
  std::unordered_map<std::string, int64_t> dtypeByDesc;   // types seen first at a use
  std::unordered_map<std::string, int64_t> dtypeMadeDesc; // site + description -> made type
  std::unordered_map<uint64_t, int64_t> dtypesMadeAt;     // site -> distinct types made there
  std::vector<ObjectEntry> datatypes;
  std::vector<ObjectEntry> infos;
};

MpiTables &T() {
  static MpiTables *t = new MpiTables; // never destroyed: used from atexit/signals
  return *t;
}

bool mpiUsable() {
  int init = 0, fin = 0;
  PMPI_Initialized(&init);
  PMPI_Finalized(&fin);
  return init && !fin;
}

const char *combinerName(int c) {
  switch (c) {
  case MPI_COMBINER_DUP: return "dup";
  case MPI_COMBINER_CONTIGUOUS: return "contiguous";
  case MPI_COMBINER_VECTOR: return "vector";
  case MPI_COMBINER_HVECTOR: return "hvector";
  case MPI_COMBINER_INDEXED: return "indexed";
  case MPI_COMBINER_HINDEXED: return "hindexed";
  case MPI_COMBINER_INDEXED_BLOCK: return "indexed_block";
  case MPI_COMBINER_HINDEXED_BLOCK: return "hindexed_block";
  case MPI_COMBINER_STRUCT: return "struct";
  case MPI_COMBINER_SUBARRAY: return "subarray";
  case MPI_COMBINER_DARRAY: return "darray";
  case MPI_COMBINER_RESIZED: return "resized";
  default: return "derived";
  }
}

std::vector<Expr> exprs(const int *v, int n) { return std::vector<Expr>(v, v + n); }
std::vector<Expr> exprs(const MPI_Aint *v, int n) {
  std::vector<Expr> out;
  for (int i = 0; i < n; ++i)
    out.emplace_back(int64_t(v[i]));
  return out;
}

int64_t describeType(MpiTables &t, MPI_Datatype type, int depth);

/// Named fields in the vocabulary of sio::trace::datatypeSize (count,
/// blocklength, stride, blocklengths, displacements, sizes, subsizes, starts,
/// order, oldtype), plus the raw envelope for the rest.
void structuralFields(MpiTables &t, ObjectEntry &e, int combiner, const std::vector<int> &ints,
                      const std::vector<MPI_Aint> &aints, const std::vector<int64_t> &types) {
  auto put = [&](const char *name, std::vector<Expr> v) { e.fields[name] = std::move(v); };
  auto intsAt = [&](size_t from, size_t n) {
    return from + n <= ints.size() ? exprs(ints.data() + from, int(n)) : std::vector<Expr>{};
  };
  if (!types.empty())
    put("oldtype", {Expr(types[0])});
  switch (combiner) {
  case MPI_COMBINER_CONTIGUOUS: put("count", intsAt(0, 1)); break;
  case MPI_COMBINER_VECTOR:
    put("count", intsAt(0, 1));
    put("blocklength", intsAt(1, 1));
    put("stride", intsAt(2, 1));
    break;
  case MPI_COMBINER_HVECTOR:
    put("count", intsAt(0, 1));
    put("blocklength", intsAt(1, 1));
    put("stride", exprs(aints.data(), int(aints.size())));
    break;
  case MPI_COMBINER_INDEXED:
    if (!ints.empty()) {
      put("blocklengths", intsAt(1, size_t(ints[0])));
      put("displacements", intsAt(1 + size_t(ints[0]), size_t(ints[0])));
    }
    break;
  case MPI_COMBINER_SUBARRAY:
    if (!ints.empty()) {
      size_t n = size_t(ints[0]);
      put("sizes", intsAt(1, n));
      put("subsizes", intsAt(1 + n, n));
      put("starts", intsAt(1 + 2 * n, n));
      put("order", intsAt(1 + 3 * n, 1));
    }
    break;
  default:
    put("ints", exprs(ints.data(), int(ints.size())));
    put("aints", exprs(aints.data(), int(aints.size())));
    std::vector<Expr> tv(types.begin(), types.end());
    put("types", tv);
    break;
  }
}

/// The envelope of a handle (combiner -1 for MPI_DATATYPE_NULL or an
/// invalid handle): what a cached code is checked against, since MPI reuses
/// the handles of freed types.
MpiTables::TypeKey envelopeKey(MPI_Datatype type) {
  MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
  int combiner = -1;
  if (type == MPI_DATATYPE_NULL || PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &combiner) != MPI_SUCCESS)
    return {-1, 0, 0, 0};
  return {combiner, int(ni), int(na + nc), int(nd)};
}

/// A derived type's constructor arguments in the layout of the int
/// constructors' MPI_Type_get_contents (MPI 4.0 §5.1.13): a type made by a
/// large-count `_c` constructor keeps its counts and displacements in
/// `counts`, which go back to where the int form has them.
bool typeContents(MPI_Datatype type, int combiner, std::vector<int> &ints, std::vector<MPI_Aint> &aints,
                  std::vector<MPI_Datatype> &types) {
  MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
  int comb = 0;
  if (PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &comb) != MPI_SUCCESS)
    return false;
  std::vector<int> i(static_cast<size_t>(ni));
  std::vector<MPI_Aint> a(static_cast<size_t>(na));
  std::vector<MPI_Count> c(static_cast<size_t>(nc));
  types.assign(static_cast<size_t>(nd), MPI_DATATYPE_NULL);
  if (PMPI_Type_get_contents_c(type, ni, na, nc, nd, i.data(), a.data(), c.data(), types.data()) != MPI_SUCCESS)
    return false;
  if (nc == 0) {
    ints = std::move(i);
    aints = std::move(a);
    return true;
  }
  // The int layout: a type with a count beyond int is not described (it
  // becomes an unreadable entry with its size and extent, which the replay
  // approximates and says so) rather than described with a cut value.
  bool fits = true;
  auto asInt = [&fits](MPI_Count v) {
    fits = fits && v >= INT_MIN && v <= INT_MAX;
    return int(v);
  };
  ints.clear();
  aints.clear();
  const size_t n = c.empty() ? 0 : size_t(c[0]);
  switch (combiner) {
  case MPI_COMBINER_CONTIGUOUS:
  case MPI_COMBINER_VECTOR:
  case MPI_COMBINER_INDEXED:
  case MPI_COMBINER_INDEXED_BLOCK:
    for (MPI_Count v : c)
      ints.push_back(asInt(v));
    return fits;
  case MPI_COMBINER_HVECTOR:
  case MPI_COMBINER_HINDEXED:
  case MPI_COMBINER_HINDEXED_BLOCK:
  case MPI_COMBINER_STRUCT: {
    // count, blocklength(s) as ints; the displacements (stride) as aints.
    const size_t nints = combiner == MPI_COMBINER_HVECTOR || combiner == MPI_COMBINER_HINDEXED_BLOCK ? 2 : 1 + n;
    for (size_t k = 0; k < c.size(); ++k)
      if (k < nints)
        ints.push_back(asInt(c[k]));
      else
        aints.push_back(MPI_Aint(c[k]));
    return fits;
  }
  case MPI_COMBINER_SUBARRAY: // ints = ndims, order; counts = sizes, subsizes, starts
    if (i.size() != 2)
      return false;
    ints.push_back(i[0]);
    for (MPI_Count v : c)
      ints.push_back(asInt(v));
    ints.push_back(i[1]);
    return fits;
  case MPI_COMBINER_DARRAY: { // ints = size, rank, ndims, distribs, dargs, psizes, order; counts = gsizes
    if (i.size() < 3)
      return false;
    ints.assign(i.begin(), i.begin() + 3);
    for (MPI_Count v : c)
      ints.push_back(asInt(v));
    ints.insert(ints.end(), i.begin() + 3, i.end());
    return fits;
  }
  case MPI_COMBINER_RESIZED:
    for (MPI_Count v : c)
      aints.push_back(MPI_Aint(v));
    return fits;
  default:
    return false;
  }
}

/// Describes a derived type (kind and fields, old types described first);
/// `desc` is the key under which equal descriptions share an entry.
bool describeDerived(MpiTables &t, MPI_Datatype type, int combiner, int depth, ObjectEntry &e, std::string &desc) {
  std::vector<int> ints;
  std::vector<MPI_Aint> aints;
  std::vector<MPI_Datatype> types;
  if (!typeContents(type, combiner, ints, aints, types))
    return false;
  std::vector<int64_t> codes;
  for (MPI_Datatype sub : types)
    codes.push_back(depth < 16 ? describeType(t, sub, depth + 1) : -1);
  // Contents return copies of derived types that we must free.
  for (MPI_Datatype sub : types) {
    if (envelopeKey(sub).combiner != MPI_COMBINER_NAMED)
      PMPI_Type_free(&sub);
  }
  e.kind = combinerName(combiner);
  structuralFields(t, e, combiner, ints, aints, codes);
  // Equal descriptions share an entry on this rank: the old types are
  // part of the description by name (named) or rank-local id.
  std::string olds;
  for (int64_t c : codes)
    olds +=
        (olds.empty() ? "" : ",") + (c >= 0 && size_t(c) < t.datatypes.size() && t.datatypes[size_t(c)].kind == "named"
                                         ? t.datatypes[size_t(c)].name
                                         : std::string("#") + std::to_string(c));
  desc = e.kind + ":";
  for (auto &[k, v] : e.fields) {
    desc += k + "=";
    for (auto &x : v)
      desc += x.str() + ",";
  }
  desc += olds;
  return true;
}

void putSizes(MPI_Datatype type, int combiner, ObjectEntry &e) {
  MPI_Count size = 0, lb = 0, extent = 0;
  PMPI_Type_size_c(type, &size);
  PMPI_Type_get_extent_c(type, &lb, &extent);
  e.fields["size"] = {Expr(int64_t(size))};
  e.fields["extent"] = {Expr(int64_t(extent))};
  // Derived types always carry lb, so that ranks whose lower bounds
  // differ (a struct displaced by 1024*rank) describe the same fields.
  if (lb || combiner != MPI_COMBINER_NAMED)
    e.fields["lb"] = {Expr(int64_t(lb))};
}

int64_t describeType(MpiTables &t, MPI_Datatype type, int depth) {
  const MpiTables::TypeKey key = envelopeKey(type);
  const int combiner = key.combiner, ni = key.ni, na = key.na, nd = key.nd;
  auto it = t.dtype.find(int64_t(type));
  if (it != t.dtype.end() && it->second.second.combiner == key.combiner && it->second.second.ni == ni &&
      it->second.second.na == na && it->second.second.nd == nd)
    return it->second.first;

  ObjectEntry e;
  std::string desc;
  if (combiner == MPI_COMBINER_NAMED || combiner == -1) {
    char name[MPI_MAX_OBJECT_NAME] = {};
    int len = 0;
    if (combiner == -1)
      std::snprintf(name, sizeof name, "MPI_DATATYPE_NULL");
    else
      PMPI_Type_get_name(type, name, &len);
    e.kind = "named";
    e.name = name;
    desc = "named:" + e.name;
  } else if (!describeDerived(t, type, combiner, depth, e, desc)) {
    e.kind = combinerName(combiner);
    e.fields["combiner"] = {Expr(int64_t(combiner))};
    desc = "unreadable:" + std::to_string(int64_t(type));
  }
  if (combiner != -1)
    putSizes(type, combiner, e);
  int64_t code;
  auto byDesc = t.dtypeByDesc.find(desc);
  if (byDesc != t.dtypeByDesc.end()) {
    code = byDesc->second;
  } else {
    code = int64_t(t.datatypes.size());
    e.id = code;
    // A derived type not seen made (before tracing, by a library through
    // PMPI, or with the SYNC layer off) is identified by the order in which
    // this rank first used it: SPMD ranks agree, and the merge turns
    // rank-dependent fields into functions of rank.
    if (e.kind != "named")
      e.serial = t.derivedTypes++;
    t.datatypes.push_back(std::move(e));
    t.dtypeByDesc.emplace(desc, code);
  }
  t.dtype[int64_t(type)] = {code, key};
  return code;
}

int64_t addComm(MpiTables &t, int64_t handle, ObjectEntry e) {
  e.id = int64_t(t.comms.size());
  t.comms.push_back(std::move(e));
  t.comm[handle] = t.comms.back().id;
  return t.comms.back().id;
}

void seedComms(MpiTables &t) {
  if (!t.comms.empty())
    return;
  ObjectEntry w;
  w.kind = "world";
  addComm(t, int64_t(MPI_COMM_WORLD), w);
  ObjectEntry s;
  s.kind = "self";
  addComm(t, int64_t(MPI_COMM_SELF), s);
}

/// The world ranks of a communicator's (local) group, in its rank order.
std::vector<Expr> worldMembers(int64_t comm) {
  std::vector<Expr> out;
  if (!mpiUsable())
    return out;
  MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
  if (PMPI_Comm_group(MPI_Comm(comm), &group) != MPI_SUCCESS)
    return out;
  PMPI_Comm_group(MPI_COMM_WORLD, &world);
  int size = 0;
  PMPI_Group_size(group, &size);
  std::vector<int> local(static_cast<size_t>(size)), global(static_cast<size_t>(size), MPI_UNDEFINED);
  for (int i = 0; i < size; ++i)
    local[size_t(i)] = i;
  PMPI_Group_translate_ranks(group, size, local.data(), world, global.data());
  for (int r : global)
    out.emplace_back(int64_t(r));
  PMPI_Group_free(&group);
  PMPI_Group_free(&world);
  return out;
}

/// A membership as fields: ascending world ranks as strided blocks
/// `member_blocks` = [start, stride, count, ...] (the lower half of N ranks is
/// [0, 1, N/2] at every N, so it extrapolates), any other order as the
/// explicit list `members`.
void putMembers(ObjectEntry &e, const std::vector<Expr> &worldRanks) {
  std::vector<int64_t> ranks;
  for (const Expr &x : worldRanks)
    ranks.push_back(x.constantValue().value_or(-1));
  bool ascending = !ranks.empty() && ranks.front() >= 0;
  for (size_t i = 1; i < ranks.size() && ascending; ++i)
    ascending = ranks[i] > ranks[i - 1];
  if (ascending) {
    std::vector<Expr> blocks;
    const sio::trace::RankList list = sio::trace::RankList::fromRanks(ranks);
    for (const sio::trace::RankBlock &b : list.blocks()) {
      if (b.dims.size() > 1) {
        blocks.clear();
        break;
      }
      blocks.insert(blocks.end(), {Expr(b.start), Expr(b.dims.empty() ? 1 : b.dims[0].stride),
                                   Expr(b.dims.empty() ? 1 : b.dims[0].count)});
    }
    if (!blocks.empty()) {
      e.fields["member_blocks"] = std::move(blocks);
      return;
    }
  }
  e.fields["members"] = worldRanks;
}

/// A communicator used before the runtime saw it made (a library's, or a
/// constructor not intercepted): described by its membership, identified by
/// the order in which the rank first saw it.
int64_t otherComm(MpiTables &t, int64_t comm) {
  ObjectEntry e;
  e.kind = "other";
  int size = 0;
  if (mpiUsable())
    PMPI_Comm_size(MPI_Comm(comm), &size);
  e.fields["size"] = {Expr(int64_t(size))};
  putMembers(e, worldMembers(comm));
  e.serial = t.commsMadeAt[0]++;
  return addComm(t, comm, e);
}

int64_t knownComm(MpiTables &t, int64_t handle) {
  auto it = t.comm.find(handle);
  return it != t.comm.end() ? it->second : otherComm(t, handle);
}

/// A communicator made by a call at `site`: identified by its creation event.
int64_t madeComm(MpiTables &t, ObjectEntry e, int64_t parent, uint64_t site, int64_t newcomm) {
  e.fields["parent"] = {Expr(knownComm(t, parent))};
  e.site = site;
  e.serial = t.commsMadeAt[site]++;
  return addComm(t, newcomm, std::move(e));
}

} // namespace

/// Bumped whenever a file handle gets or loses its code: invalidates every
/// thread's cached handle (ThreadState::lastFh).
std::atomic<uint64_t> g_handleEpoch{1};

int64_t fhCode(const void *fh) {
  ThreadState &ts = tls;
  const uint64_t epoch = g_handleEpoch.load(std::memory_order_acquire);
  if (ts.lastFh == fh && ts.lastFhEpoch == epoch)
    return ts.lastFhCode;
  int64_t code;
  {
    HoldSignals blk; // a signal handler must not find this lock held
    MpiTables &t = T();
    std::lock_guard lk(t.mu);
    auto it = t.fh.find(fh);
    code = it == t.fh.end() ? -1 : it->second;
  }
  ts.lastFh = fh;
  ts.lastFhCode = code;
  ts.lastFhEpoch = epoch;
  return code;
}

int64_t fhOpen(const void *fh) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  // The lowest free code, as for descriptors (see newFdCode).
  int64_t code = 0;
  while (t.fhInUse.count(code))
    ++code;
  t.fhInUse.insert(code);
  t.fh[fh] = code;
  g_handleEpoch.fetch_add(1, std::memory_order_acq_rel);
  return code;
}

void fhClose(const void *fh) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  auto it = t.fh.find(fh);
  if (it != t.fh.end()) {
    t.fhInUse.erase(it->second);
    t.fh.erase(it);
    g_handleEpoch.fetch_add(1, std::memory_order_acq_rel);
  }
}

/// I/O requests in the table: Wait and Test on other requests (halo
/// exchanges, polling loops) answer without the lock while there are none.
static std::atomic<int64_t> g_ioRequests{0};

int64_t requestCode(int64_t req) {
  if (req == int64_t(MPI_REQUEST_NULL) || g_ioRequests.load(std::memory_order_acquire) == 0)
    return -1;
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  auto it = t.req.find(req);
  return it == t.req.end() ? -1 : it->second;
}

int64_t requestNew(int64_t req) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  auto [it, inserted] = t.req.try_emplace(req, 0);
  if (inserted)
    g_ioRequests.fetch_add(1, std::memory_order_release);
  return it->second = t.nextReq++;
}

void requestRelease(int64_t req) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  if (t.req.erase(req))
    g_ioRequests.fetch_sub(1, std::memory_order_relaxed);
}

int64_t commCode(int64_t comm) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  seedComms(t);
  return knownComm(t, comm);
}

int64_t commSplit(int64_t parent, int64_t color, int64_t key, int64_t newcomm, uint64_t site) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  seedComms(t);
  ObjectEntry e;
  e.kind = "split";
  e.fields["color"] = {Expr(color)};
  e.fields["key"] = {Expr(key)};
  return madeComm(t, std::move(e), parent, site, newcomm);
}

int64_t commMade(const char *kind, int64_t parent, int64_t newcomm, uint64_t site,
                 std::initializer_list<std::pair<const char *, std::vector<int64_t>>> fields, bool members) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  seedComms(t);
  ObjectEntry e;
  e.kind = kind;
  for (const auto &[name, values] : fields)
    e.fields[name] = std::vector<Expr>(values.begin(), values.end());
  if (members)
    putMembers(e, worldMembers(newcomm));
  return madeComm(t, std::move(e), parent, site, newcomm);
}

int64_t commDup(int64_t parent, int64_t newcomm, uint64_t site) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  seedComms(t);
  ObjectEntry e;
  e.kind = "dup";
  return madeComm(t, std::move(e), parent, site, newcomm);
}

void commFree(int64_t comm) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  t.comm.erase(comm);
}

int64_t datatypeCode(int64_t datatype) {
  ThreadState &ts = tls;
  if (ts.lastNamedTypeCode != 0 && ts.lastNamedType == datatype)
    return ts.lastNamedTypeCode - 1;
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  auto it = t.dtype.find(datatype);
  if (it != t.dtype.end()) {
    // Only derived types can be freed and their handle reused: re-check the
    // envelope (cheap) before trusting the cached code.
    if (it->second.second.combiner == MPI_COMBINER_NAMED) {
      ts.lastNamedType = datatype;
      ts.lastNamedTypeCode = it->second.first + 1;
      return it->second.first;
    }
  }
  return describeType(t, MPI_Datatype(datatype), 0);
}

int64_t datatypeMade(int64_t newtype, uint64_t site, const char *op) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  MPI_Datatype type = MPI_Datatype(newtype);
  MPI_Count ni = 0, na = 0, nc = 0, nd = 0;
  int combiner = -1;
  if (PMPI_Type_get_envelope_c(type, &ni, &na, &nc, &nd, &combiner) != MPI_SUCCESS || combiner == MPI_COMBINER_NAMED)
    return describeType(t, type, 0);
  ObjectEntry e;
  std::string desc;
  if (!describeDerived(t, type, combiner, 0, e, desc))
    return describeType(t, type, 0);
  putSizes(type, combiner, e);
  e.name = op;
  // One entry per creation event: the site, and the order of the distinct
  // descriptions made there on this rank (re-making the same type in a
  // loop, after a free, is the same entry; constructions at two sites are
  // two entries even where they coincide on some ranks).
  const std::string key = std::to_string(site) + '\x01' + desc;
  int64_t code;
  if (auto it = t.dtypeMadeDesc.find(key); it != t.dtypeMadeDesc.end()) {
    code = it->second;
  } else {
    code = int64_t(t.datatypes.size());
    e.id = code;
    e.site = site;
    e.serial = t.dtypesMadeAt[site]++;
    t.datatypes.push_back(std::move(e));
    t.dtypeMadeDesc.emplace(key, code);
  }
  t.dtype[newtype] = {code, envelopeKey(type)};
  return code;
}

void datatypeFreed(int64_t datatype) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  t.dtype.erase(datatype);
}

int64_t infoCode(int64_t info) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  // Described at every use, never cached by handle: an application may set
  // more hints between two uses, or free an info and get the same handle
  // back for another; what ROMIO sees is the contents at this call.
  ObjectEntry e;
  if (info == int64_t(MPI_INFO_NULL)) {
    e.kind = "null";
  } else {
    e.kind = "info";
    int nkeys = 0;
    PMPI_Info_get_nkeys(MPI_Info(info), &nkeys);
    for (int i = 0; i < nkeys; ++i) {
      char key[MPI_MAX_INFO_KEY + 1] = {};
      char val[MPI_MAX_INFO_VAL + 1] = {};
      int flag = 0;
      PMPI_Info_get_nthkey(MPI_Info(info), i, key);
      PMPI_Info_get(MPI_Info(info), key, MPI_MAX_INFO_VAL, val, &flag);
      if (flag)
        e.strings[key] = val;
    }
  }
  // Equal contents share an entry.
  for (const ObjectEntry &x : t.infos)
    if (x.kind == e.kind && x.strings == e.strings)
      return x.id;
  e.id = int64_t(t.infos.size());
  t.infos.push_back(e);
  return e.id;
}

void fillObjectTables(sio::trace::Trace &tr, int rank) {
  HoldSignals blk; // a signal handler must not find this lock held
  MpiTables &t = T();
  std::lock_guard lk(t.mu);
  tr.datatypes = t.datatypes;
  tr.comms = t.comms;
  tr.infos = t.infos;
  for (auto *table : {&tr.datatypes, &tr.comms, &tr.infos})
    for (ObjectEntry &e : *table)
      e.ranks = sio::trace::RankList::single(rank);
}

} // namespace sio::rt
