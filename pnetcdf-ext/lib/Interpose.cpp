// libsio-pnetcdf.so: transparent file partitioning interposed on PnetCDF's C
// API (Son et al. 2013 §III). Link it before libpnetcdf or LD_PRELOAD it.
//
// With the hint nc_partitioning_enabled=true (MPI_Info of ncmpi_create, or
// PNETCDF_HINTS), every array with a fixed-size dimension is defined in the
// master file as a scalar placeholder; ncmpi_enddef probes the storage
// targets, cuts each array along its most significant fixed dimension long
// enough for the partition count (or the one named by the attribute
// sio_partition_dim), and creates the K partition files, each collectively by
// the sub-communicator of ranks that owns it (§III-B). Every put/get form
// (var, var1, vara, vars, varm, varn; blocking, nonblocking and buffered;
// collective and independent; typed and flexible; the mput/mget
// multi-variable forms) on a partitioned variable is split per partition;
// collectively the request lists are exchanged by MPI_Alltoall(v), the data
// by isend/irecv, and the delegates of each partition issue PnetCDF
// nonblocking calls on it (§III-C); in independent mode a rank accesses the
// partitions itself. Derived MPI buffer types are packed through the type
// into contiguous elements (and unpacked after reads). What cannot be
// transformed (vard, independent access to record variables) returns
// NC_ENOTSUPPORT with a message; nothing changes for other files and
// variables.
#include "sio/part/BufferType.h"
#include "sio/part/Layout.h"
#include "sio/part/PartitionCount.h"
#include "sio/part/Probe.h"
#include "sio/part/ProbeCache.h"
#include "sio/part/ProbeRounds.h"
#include "sio/part/Select.h"

#include <mpi.h>
#include <pnetcdf.h>

#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using sio::part::Range;

namespace {

// --- the real PnetCDF functions ------------------------------------------

void *resolveReal(const char *name) {
  void *p = dlsym(RTLD_NEXT, name);
  if (!p) {
    std::fprintf(stderr,
                 "sio-pnetcdf: error: cannot find PnetCDF's %s (link libsio-pnetcdf before libpnetcdf, or "
                 "LD_PRELOAD it)\n",
                 name);
    std::abort();
  }
  return p;
}

#define REAL(fn)                                                                                                       \
  ([]() {                                                                                                              \
    static auto f = reinterpret_cast<decltype(&fn)>(resolveReal(#fn));                                                 \
    return f;                                                                                                          \
  }())

// --- memory types ------------------------------------------------------------

// The typed API's twelve, then the predefined types PnetCDF also accepts in
// the flexible API only (its dtype_filter): MPI_BYTE and MPI_UNSIGNED_LONG.
const MPI_Datatype kTypes[] = {
#define SIO_PNC_TYPE(suffix, ctype, mpitype) mpitype,
#include "Types.def"
    MPI_BYTE, MPI_UNSIGNED_LONG};
const int kTypeSize[] = {
#define SIO_PNC_TYPE(suffix, ctype, mpitype) int(sizeof(ctype)),
#include "Types.def"
    1, int(sizeof(unsigned long))};
enum TypeIndex {
#define SIO_PNC_TYPE(suffix, ctype, mpitype) kType_##suffix,
#include "Types.def"
  kType_byte,
  kType_ulong,
  kNumTypes
};

/// Whether the PnetCDF library was built with its Fortran interface: only
/// then does its dtype_filter accept MPI's Fortran types (MPI_INTEGER, ...).
bool pnetcdfHasFortran() {
  static const bool has = dlsym(RTLD_DEFAULT, "nfmpi_create_") || dlsym(RTLD_DEFAULT, "nfmpi_create") ||
                          dlsym(RTLD_DEFAULT, "nfmpi_create__");
  return has;
}

/// The memory type index of a predefined MPI datatype, with PnetCDF's
/// aliases (dtype_filter: MPI_LONG_LONG_INT, and the Fortran types when its
/// Fortran interface is built); -1 when PnetCDF does not support it.
int typeIndexOf(MPI_Datatype t) {
  for (int i = 0; i < kNumTypes; ++i)
    if (kTypes[i] == t)
      return i;
  if (t == MPI_LONG_LONG_INT)
    return kType_longlong;
  if (t == MPI_DATATYPE_NULL || !pnetcdfHasFortran())
    return -1;
  const std::pair<MPI_Datatype, int> fortran[] = {{MPI_CHARACTER, kType_text}, {MPI_INTEGER1, kType_schar},
                                                  {MPI_INTEGER2, kType_short}, {MPI_INTEGER, kType_int},
                                                  {MPI_INTEGER4, kType_int},   {MPI_INTEGER8, kType_long},
                                                  {MPI_REAL, kType_float},     {MPI_REAL4, kType_float},
                                                  {MPI_REAL8, kType_double},   {MPI_DOUBLE_PRECISION, kType_double}};
  for (auto [f, i] : fortran)
    if (f == t)
      return i;
  return -1;
}

MPI_Datatype canonicalType(MPI_Datatype t) {
  int i = typeIndexOf(t);
  return i < 0 ? MPI_DATATYPE_NULL : kTypes[i];
}

/// The data of a derived buffer type as contiguous elements of its one
/// predefined type: packed through the type at the call (writes), unpacked
/// into the application's buffer once every operation reading into it has
/// completed (reads; a nonblocking get at ncmpi_wait_all). Shared by the
/// operations of one buffer (a varn call's subarrays).
struct Staging {
  bool write = false;
  void *user = nullptr;                  ///< the application's buffer
  MPI_Count count = 0;                   ///< items of `type` in it
  MPI_Datatype type = MPI_DATATYPE_NULL; ///< a duplicate: the application may free its handle before the wait
  std::vector<char> linear;
  int pending = 0;     ///< operations still to complete
  bool failed = false; ///< one of them failed: the application's buffer is left alone
  Staging() = default;
  Staging(const Staging &) = delete;
  Staging &operator=(const Staging &) = delete;
  ~Staging() {
    int done = 0;
    MPI_Finalized(&done);
    if (!done && type != MPI_DATATYPE_NULL)
      MPI_Type_free(&type);
  }
};

// --- state -----------------------------------------------------------------

constexpr int kReqBase = 1 << 29; ///< our nonblocking request ids (PnetCDF's count up from 0)
constexpr int kTagData = 7301, kTagReply = 7302, kTagProbe = 7303, kTagGroup = 7304;

struct Hints {
  bool enabled = false;
  int numPartitions = 0; ///< 0: choosePartitionCount (sio/part/PartitionCount.h)
  std::vector<std::string> targets;
  double threshold = sio::part::kDefaultSlopeThreshold;
  /// How long a confident probe of the same target list is reused
  /// (sio/part/ProbeCache.h); 0: probe every file.
  double probeLifetime = sio::part::kDefaultProbeLifetime;
  /// The application's header layout hints ("key=value;..."), kept in the
  /// master for sio-part-merge (kLayoutAttribute).
  std::string layout;
};

/// PnetCDF 1.12.3's hints that place the header and the variables in the
/// file (ncmpio_set_pnetcdf_hints), and the MPI-IO hint its enddef derives
/// the alignments from when they are not given.
const char *const kLayoutHints[] = {"nc_header_align_size", "nc_var_align_size", "nc_record_align_size",
                                    "striping_unit"};
/// The master's global text attribute with the header layout settings the
/// unpartitioned file would have used: those hints and ncmpi__enddef's
/// arguments (h_minfree, v_align, v_minfree, r_align). sio-part-merge
/// creates the merged file with them, so it is the unpartitioned file byte
/// for byte.
constexpr const char *kLayoutAttribute = "sio_layout";

struct PVar {
  int varid = -1;
  std::string name;
  nc_type xtype = NC_NAT;
  std::vector<int> dimids;
  std::vector<int64_t> len; ///< 0 for the record dimension
  bool record = false;
  int dim = -1; ///< partitioned dimension
  int k = 0;    ///< partitions of this variable (files 0..k-1)
  std::vector<int> partVarid;
};

struct Part {
  std::string path;
  std::vector<int> members; ///< ranks of the sub-communicator that owns it
  MPI_Comm comm = MPI_COMM_NULL;
  int ncid = -1; ///< open on this rank when it is a member
};

struct Op {
  bool write = false;
  const PVar *var = nullptr;
  std::vector<int64_t> start, count, stride;
  void *buf = nullptr;
  int type = 0;
  int req = -1;
  std::vector<char> owned;          ///< the data of a buffered (bput) or mapped (varm) access
  void *mapped = nullptr;           ///< a mapped read: where `owned` goes after the I/O
  std::vector<int64_t> imap;        ///< of a mapped access
  std::shared_ptr<Staging> staging; ///< a derived buffer type's data (buf points into it)
};

struct Master {
  int ncid = -1;
  MPI_Comm comm = MPI_COMM_NULL; ///< privateComm(the application's): shared with other files, not freed
  int rank = 0, size = 1;
  std::string path;
  int cmode = 0;
  Hints hints;
  bool partitioned = false; ///< enddef done (or opened): the partitions exist
  std::map<int, PVar> vars; ///< partitioned variables by master varid
  int k = 0;
  std::vector<Part> parts;
  int unlimdim = -1;
  int64_t numrecs = 0; ///< largest record count over the partitions (as far as known)
  std::vector<Op> pending;
  int nextReq = kReqBase;
  bool writable = true;
  bool indep = false;                      ///< in independent data mode
  std::map<int, int> selfNcid;             ///< partitions this rank opened alone for independent access
  MPI_Offset enddefArgs[4] = {0, 0, 0, 0}; ///< of ncmpi__enddef: h_minfree, v_align, v_minfree, r_align
  /// What ncmpi_inq_put_size / ncmpi_inq_get_size add to the master's count
  /// (the unpartitioned file's count): the external bytes of this rank's
  /// accesses to partitioned variables and, on rank 0 of a created file, the
  /// unpartitioned header's size minus the master's (headerBytes).
  int64_t putBytes = 0, getBytes = 0, headerDelta = 0;
};

std::map<int, std::unique_ptr<Master>> &masters() {
  static std::map<int, std::unique_ptr<Master>> m;
  return m;
}

Master *masterOf(int ncid) {
  auto it = masters().find(ncid);
  return it == masters().end() ? nullptr : it->second.get();
}

const PVar *partitionedVar(int ncid, int varid, Master **mp = nullptr) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return nullptr;
  auto it = m->vars.find(varid);
  if (it == m->vars.end())
    return nullptr;
  if (mp)
    *mp = m;
  return &it->second;
}

/// sio's own communicator for a file created or opened on `comm`: a
/// duplicate, so its collectives and tagged messages never mix with the
/// application's, made once per group of ranks and kept for the process (a
/// duplicate costs collectives: ~0.1 s per file at 8 ranks on the 2-core
/// development machine, paid by each of FLASH-IO's three files). A file on a
/// communicator with the same ranks in the same order (MPI_Comm_compare:
/// congruent) takes the earlier duplicate. Every rank of `comm` took part in
/// the same duplicates in the same order (each is collective over that
/// group), so all find the same one. Sharing it between files is safe: every
/// exchange of sio completes within the call that starts it, and collective
/// calls on files of one group come in the same order on every rank.
MPI_Comm privateComm(MPI_Comm comm) {
  static std::vector<MPI_Comm> dups;
  for (MPI_Comm d : dups) {
    int cmp = MPI_UNEQUAL;
    MPI_Comm_compare(comm, d, &cmp);
    if (cmp == MPI_CONGRUENT || cmp == MPI_IDENT)
      return d;
  }
  MPI_Comm d;
  MPI_Comm_dup(comm, &d);
  dups.push_back(d);
  return d;
}

bool reportEnabled() {
  const char *r = std::getenv("SIO_PART_REPORT");
  return r && *r && std::strcmp(r, "0") != 0;
}

void report(const Master &m, const std::string &line) {
  if (m.rank != 0 || !reportEnabled())
    return;
  const char *r = std::getenv("SIO_PART_REPORT");
  FILE *f = stderr;
  bool file = std::strcmp(r, "1") != 0 && std::strcmp(r, "stderr") != 0;
  if (file && !(f = std::fopen(r, "a")))
    f = stderr;
  std::fprintf(f, "sio-part: %s\n", line.c_str());
  if (f != stderr)
    std::fclose(f);
}

// --- hints -----------------------------------------------------------------

/// The MPI-IO hints of every partition file handle: no data sieving on
/// writes. A rank that writes rows of a partition it does not own does so
/// through its own MPI_COMM_SELF handle (runIndependent), one row a
/// contiguous write that ROMIO does not lock; the owner's strided write to
/// the rows around it would read, modify and write back that row with data
/// sieving, and could put the old bytes back (pnetcdf/forms.test, K=3:
/// "get_var_int_all of put_varm_int: 6 wrong", once in a loaded CI run).
/// Without sieving each rank writes only its own bytes.
/// And collective buffering always on collective writes: an owner group is
/// often one rank, for which ROMIO's "automatic" skips two-phase I/O (no
/// interleaving between processes) and, without sieving, writes each
/// contiguous piece on its own. The delegates' requests of one partition
/// together cover it (an S3D-kind block of a 3-D decomposition: rows of 384
/// bytes), so two-phase I/O writes it in large contiguous pieces: the S3D
/// benchmark at 8 ranks over 7 throttled targets took 20.9 s without, 3.1 s
/// with (bench/partitioning.sh, docs/partitioning.md).
struct PartitionInfo {
  MPI_Info info = MPI_INFO_NULL;
  PartitionInfo() {
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_ds_write", "disable");
    MPI_Info_set(info, "romio_cb_write", "enable");
  }
  ~PartitionInfo() { MPI_Info_free(&info); }
  PartitionInfo(const PartitionInfo &) = delete;
  PartitionInfo &operator=(const PartitionInfo &) = delete;
};

std::string infoGet(MPI_Info info, const char *key) {
  if (info == MPI_INFO_NULL)
    return {};
  int flag = 0, len = 0;
  char probe[1];
  MPI_Info_get_string(info, key, &len, probe, &flag);
  if (!flag)
    return {};
  std::string v(len, '\0');
  MPI_Info_get_string(info, key, &len, v.data(), &flag);
  v.resize(std::strlen(v.c_str()));
  return v;
}

/// Reads the partitioning hints from the info object, then PNETCDF_HINTS
/// ("key=value;key=value", which wins as in PnetCDF). Returns an error text
/// for a malformed value.
std::string readHints(MPI_Info info, Hints &h) {
  std::map<std::string, std::string> kv;
  for (const char *key : {"nc_partitioning_enabled", "nc_num_partitions", "sio_part_targets", "sio_part_threshold",
                          "sio_part_probe_lifetime"}) {
    std::string v = infoGet(info, key);
    if (!v.empty())
      kv[key] = v;
  }
  for (const char *key : kLayoutHints) {
    std::string v = infoGet(info, key);
    if (!v.empty())
      kv[key] = v;
  }
  if (const char *env = std::getenv("PNETCDF_HINTS")) {
    std::string s = env;
    size_t pos = 0;
    while (pos <= s.size()) {
      size_t semi = s.find(';', pos);
      std::string item = s.substr(pos, semi == std::string::npos ? std::string::npos : semi - pos);
      size_t eq = item.find('=');
      if (eq != std::string::npos)
        kv[item.substr(0, eq)] = item.substr(eq + 1);
      if (semi == std::string::npos)
        break;
      pos = semi + 1;
    }
  }
  h.enabled = kv["nc_partitioning_enabled"] == "true" || kv["nc_partitioning_enabled"] == "1";
  if (auto &n = kv["nc_num_partitions"]; !n.empty()) {
    char *end = nullptr;
    long v = std::strtol(n.c_str(), &end, 10);
    if (*end || v < 1 || v > 65536)
      return "hint nc_num_partitions='" + n + "' is not a partition count (1..65536)";
    h.numPartitions = int(v);
  }
  h.targets = sio::part::splitTargets(kv["sio_part_targets"]);
  for (const char *key : kLayoutHints)
    if (auto it = kv.find(key); it != kv.end() && !it->second.empty())
      h.layout += std::string(key) + "=" + it->second + ";";
  if (auto &t = kv["sio_part_threshold"]; !t.empty()) {
    std::string err;
    auto v = sio::part::parseThreshold(t, &err);
    if (!v)
      return "hint sio_part_threshold: " + err;
    h.threshold = *v;
  }
  if (auto &t = kv["sio_part_probe_lifetime"]; !t.empty()) {
    std::string err;
    auto v = sio::part::parseProbeLifetime(t, &err);
    if (!v)
      return "hint sio_part_probe_lifetime: " + err;
    h.probeLifetime = *v;
  }
  return {};
}

std::string dirName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string baseName(const std::string &path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Where a partition path stored in the master (relative to the master's
/// directory unless absolute) is.
std::string resolvePartPath(const std::string &master, const std::string &stored) {
  if (!stored.empty() && stored[0] == '/')
    return stored;
  return dirName(master) + "/" + stored;
}

// --- ownership: which ranks own partition p, who serves a request ----------

std::vector<int> membersOf(int p, int k, int size) {
  std::vector<int> m;
  if (size >= k) {
    for (int r = 0; r < size; ++r)
      if (int64_t(r) * k / size == p)
        m.push_back(r);
  } else {
    m.push_back(p % size);
  }
  return m;
}

/// The delegate of partition p for requests of rank r: r itself when it owns
/// p, else the owners in turn, so every group serves the others evenly.
int delegateOf(const Part &part, int r) {
  if (std::find(part.members.begin(), part.members.end(), r) != part.members.end())
    return r;
  return part.members[r % part.members.size()];
}

/// Opens or creates the partitions this rank owns, each collectively over the
/// sub-communicator of its owners: with at least as many ranks as partitions
/// each rank's group (its ranks in order) made with MPI_Comm_create_group,
/// which synchronizes the group only, not every rank of the file as
/// MPI_Comm_split would (each collective over all ranks of a file waits for
/// the last to arrive: under an oversubscribed node the split took up to
/// 0.8 s per file at 8 ranks on 2 cores); a group of one is a duplicate of
/// MPI_COMM_SELF (no communication). MPI_COMM_SELF per partition otherwise.
void setUpPartComms(Master &m) {
  m.parts.resize(m.k);
  for (int p = 0; p < m.k; ++p)
    m.parts[p].members = membersOf(p, m.k, m.size);
  if (m.size >= m.k) {
    int color = int(int64_t(m.rank) * m.k / m.size);
    const std::vector<int> &members = m.parts[color].members;
    MPI_Comm sub;
    if (members.size() == 1) {
      MPI_Comm_dup(MPI_COMM_SELF, &sub);
    } else {
      MPI_Group all, group;
      MPI_Comm_group(m.comm, &all);
      MPI_Group_incl(all, int(members.size()), members.data(), &group);
      MPI_Comm_create_group(m.comm, group, kTagGroup, &sub);
      MPI_Group_free(&group);
      MPI_Group_free(&all);
    }
    m.parts[color].comm = sub;
  } else {
    for (int p = m.rank; p < m.k; p += m.size)
      MPI_Comm_dup(MPI_COMM_SELF, &m.parts[p].comm);
  }
}

// --- the collective transformation (§III-C) -------------------------------

int64_t elements(const std::vector<int64_t> &count) {
  int64_t n = 1;
  for (int64_t c : count)
    n *= c;
  return n;
}

int validate(const Op &op) {
  const PVar &v = *op.var;
  for (size_t d = 0; d < v.len.size(); ++d) {
    if (op.stride[d] < 1)
      return NC_ESTRIDE;
    if (op.start[d] < 0 || op.count[d] < 0)
      return NC_EINVALCOORDS;
    if (v.record && d == 0)
      continue; // PnetCDF checks records against numrecs in the partition
    if (op.start[d] > v.len[d])
      return NC_EINVALCOORDS;
    if (op.count[d] > 0 && op.start[d] + (op.count[d] - 1) * op.stride[d] >= v.len[d])
      return NC_EEDGE;
  }
  return NC_NOERR;
}

/// The largest MPI message of the data exchange, in bytes: INT_MAX (MPI's
/// int count), so a pair exchanging 2 GiB or more sends several messages.
/// Testing hook: SIO_PART_MAX_MSG=N (bytes, >= 1) lowers it, so the lit tests
/// exercise the split with small data (lit-tests/pnetcdf/big-messages.test).
int64_t maxMessageBytes() {
  static const int64_t limit = [] {
    int64_t l = std::numeric_limits<int>::max();
    if (const char *e = std::getenv("SIO_PART_MAX_MSG")) {
      char *end = nullptr;
      long long v = std::strtoll(e, &end, 10);
      if (end != e && *end == '\0' && v >= 1 && v < l)
        l = v;
      else
        std::fprintf(stderr, "sio-pnetcdf: warning: SIO_PART_MAX_MSG='%s' is not a byte count in [1, %d]; ignored\n", e,
                     std::numeric_limits<int>::max());
    }
    return l;
  }();
  return limit;
}

/// Sends to[r] to every rank r and receives from[r] (fromBytes[r] bytes) from
/// each, with isend/irecv in messages of at most maxMessageBytes() (both
/// sides know the size, and messages of one pair and tag arrive in order);
/// this rank's own share is moved, not sent.
std::vector<std::vector<char>> exchangeBytes(Master &m, std::vector<std::vector<char>> &to,
                                             const std::vector<int64_t> &fromBytes, int tag) {
  const int64_t piece = maxMessageBytes();
  std::vector<std::vector<char>> from(size_t(m.size));
  std::vector<MPI_Request> reqs;
  for (int r = 0; r < m.size; ++r) {
    if (r == m.rank) {
      from[r] = std::move(to[r]);
      continue;
    }
    if (fromBytes[r] > 0) {
      from[r].resize(size_t(fromBytes[r]));
      for (int64_t at = 0; at < fromBytes[r]; at += piece) {
        reqs.emplace_back();
        MPI_Irecv(from[r].data() + at, int(std::min(piece, fromBytes[r] - at)), MPI_BYTE, r, tag, m.comm, &reqs.back());
      }
    }
    const int64_t n = int64_t(to[r].size());
    for (int64_t at = 0; at < n; at += piece) {
      reqs.emplace_back();
      MPI_Isend(to[r].data() + at, int(std::min(piece, n - at)), MPI_BYTE, r, tag, m.comm, &reqs.back());
    }
  }
  MPI_Waitall(int(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  return from;
}

/// Gives every partition the master's record count. Each partition has its
/// own record dimension (Son et al. 2013 §III-B), so a record written only in
/// some partitions extends only those, and reading that record (or merging)
/// from another failed with NC_EINVALCOORDS where the unpartitioned file
/// reads unwritten data. After a collective write of records, the group of a
/// partition with fewer records writes one element of its first record
/// variable at the last record: zero bytes, what a fresh file holds there
/// (the partitions are in PnetCDF's default NC_NOFILL mode, in which the
/// unpartitioned file's unwritten elements are undefined as well). Collective
/// over each partition's group; every member sees the same record count.
int extendRecords(Master &m) {
  int err = NC_NOERR;
  for (int p = 0; p < int(m.parts.size()); ++p) {
    Part &part = m.parts[size_t(p)];
    if (part.ncid < 0)
      continue;
    const PVar *rv = nullptr;
    for (auto &[id, v] : m.vars)
      if (v.record && v.k > p) {
        rv = &v;
        break;
      }
    if (!rv)
      continue;
    int unlim = -1;
    MPI_Offset len = 0;
    int e = REAL(ncmpi_inq_unlimdim)(part.ncid, &unlim);
    if (e == NC_NOERR && unlim >= 0)
      e = REAL(ncmpi_inq_dimlen)(part.ncid, unlim, &len);
    if (e == NC_NOERR && unlim >= 0 && len < m.numrecs) {
      int groupRank = 0;
      MPI_Comm_rank(part.comm, &groupRank);
      std::vector<MPI_Offset> st(rv->len.size(), 0), ct(rv->len.size(), groupRank == 0 ? 1 : 0);
      st[0] = m.numrecs - 1;
      const char zero[8] = {};
      e = REAL(ncmpi_put_vara_all)(part.ncid, rv->partVarid[size_t(p)], st.data(), ct.data(), zero,
                                   groupRank == 0 ? 1 : 0, MPI_DATATYPE_NULL);
    }
    if (e != NC_NOERR && err == NC_NOERR)
      err = e;
  }
  return err;
}

void finishOp(Op &op, bool ok);
int64_t externalSize(nc_type t);

/// Counts a completed access for ncmpi_inq_put_size / ncmpi_inq_get_size:
/// its elements in the variable's external type, as PnetCDF counts the
/// bytes a request moves in the file.
void countBytes(Master &m, const Op &op) {
  int64_t bytes = elements(op.count) * externalSize(op.var->xtype);
  (op.write ? m.putBytes : m.getBytes) += bytes;
}

/// PnetCDF's own ncmpi_wait_all on the master, for requests of variables kept
/// in it, run by runOps: `pending` says whether this rank has any; `wait`
/// is called on every rank when any rank has, and its result goes to `err`.
struct MasterWait {
  bool pending = false;
  std::function<int()> wait;
  int err = NC_NOERR;
};

/// Runs a set of operations collectively over the master's communicator: every
/// rank calls it (with its own, possibly empty, list). Returns the first error
/// of any rank, the same on all ranks; sets per-operation status.
int runOps(Master &m, std::vector<Op> &ops, std::vector<int> *status = nullptr, int err0 = NC_NOERR,
           MasterWait *master = nullptr) {
  const int P = m.size;
  int err = err0;
  std::vector<int> localStatus;
  if (!status)
    status = &localStatus;
  status->assign(ops.size(), NC_NOERR);

  // 1. my_req: each operation's share of each partition, to its delegate.
  struct Outgoing {
    size_t op;
    sio::part::SubRequest sub;
  };
  std::vector<std::vector<int64_t>> descTo(P);
  std::vector<std::vector<char>> dataTo(P);
  std::vector<std::vector<Outgoing>> readsFrom(P); // the replies to expect, in order
  std::vector<int64_t> replyBytes(P, 0);
  for (size_t i = 0; i < ops.size(); ++i) {
    Op &op = ops[i];
    int e = validate(op);
    if (e != NC_NOERR) {
      (*status)[i] = e;
      if (err == NC_NOERR)
        err = e;
      continue;
    }
    const PVar &v = *op.var;
    int64_t dimLen = v.len[v.dim];
    auto subs = sio::part::splitRequest(op.start, op.count, op.stride, v.dim, dimLen, v.k);
    const size_t esize = size_t(kTypeSize[op.type]);
    for (auto &sub : subs) {
      int dest = delegateOf(m.parts[sub.part], m.rank);
      auto &d = descTo[dest];
      d.push_back(op.write);
      d.push_back(v.varid);
      d.push_back(sub.part);
      d.push_back(op.type);
      d.push_back(int64_t(v.len.size()));
      d.insert(d.end(), sub.start.begin(), sub.start.end());
      d.insert(d.end(), sub.count.begin(), sub.count.end());
      d.insert(d.end(), op.stride.begin(), op.stride.end());
      size_t bytes = size_t(elements(sub.count)) * esize;
      if (op.write) {
        auto &buf = dataTo[dest];
        size_t at = buf.size();
        buf.resize(at + bytes);
        sio::part::packSlab(op.buf, buf.data() + at, op.count, v.dim, sub.first, sub.num, esize);
      } else {
        readsFrom[dest].push_back({i, sub});
        replyBytes[dest] += int64_t(bytes);
      }
    }
  }

  // 2. others_req: who sends me how many request words and data bytes, and
  // whether it has requests on the master's own variables.
  std::vector<int64_t> sendCounts(3 * P), recvCounts(3 * P);
  for (int r = 0; r < P; ++r) {
    sendCounts[3 * r] = int64_t(descTo[r].size());
    sendCounts[3 * r + 1] = int64_t(dataTo[r].size());
    sendCounts[3 * r + 2] = master && master->pending;
  }
  MPI_Alltoall(sendCounts.data(), 3, MPI_INT64_T, recvCounts.data(), 3, MPI_INT64_T, m.comm);
  // PnetCDF's wait on the master is collective (an MPI_Allreduce even with no
  // request anywhere, ~40 ms at 8 ranks on 2 cores): only when some rank has
  // a request there (FLASH-IO's files have none: all its arrays are
  // partitioned). Every rank sees the same flags, so all take the same way.
  bool anyMaster = false;
  for (int r = 0; r < P; ++r)
    anyMaster |= recvCounts[3 * r + 2] != 0;
  if (master && anyMaster)
    master->err = master->wait();
  // Large-count form (MPI 4): the request words of one pair may pass INT_MAX.
  std::vector<MPI_Count> sc(P), rc(P);
  std::vector<MPI_Aint> sd(P), rd(P);
  std::vector<int64_t> sendDesc, recvDesc;
  MPI_Aint stot = 0, rtot = 0;
  for (int r = 0; r < P; ++r) {
    sc[r] = MPI_Count(sendCounts[3 * r]);
    sd[r] = stot;
    stot += MPI_Aint(sc[r]);
    rc[r] = MPI_Count(recvCounts[3 * r]);
    rd[r] = rtot;
    rtot += MPI_Aint(rc[r]);
    sendDesc.insert(sendDesc.end(), descTo[r].begin(), descTo[r].end());
  }
  recvDesc.resize(size_t(rtot));
  MPI_Alltoallv_c(sendDesc.data(), sc.data(), sd.data(), MPI_INT64_T, recvDesc.data(), rc.data(), rd.data(),
                  MPI_INT64_T, m.comm);

  // 3. the data of writes, requester -> delegate.
  std::vector<int64_t> dataBytes(P);
  for (int r = 0; r < P; ++r)
    dataBytes[r] = recvCounts[3 * r + 1];
  std::vector<std::vector<char>> dataFrom = exchangeBytes(m, dataTo, dataBytes, kTagData);

  // 4. the delegates issue nonblocking PnetCDF calls on their partitions.
  // Requests that overlap an earlier one of this rank go to a later round
  // (PnetCDF's one file view per wait_all cannot hold overlapping pieces,
  // and a later write must win), so a round is one ncmpi_wait_all.
  struct Work {
    bool write;
    int varid, type;
    std::vector<MPI_Offset> st, cnt, str;
    char *buf;
    int round;
    int sameAs; ///< a read identical to an earlier one: copied from it after the I/O
  };
  std::vector<std::vector<char>> replyTo(P);
  std::vector<std::vector<Work>> work(m.k);
  for (int src = 0; src < P; ++src) {
    // First pass sizes the reply, so the iget buffers never move.
    int64_t replySize = 0;
    for (size_t w = size_t(rd[src]); w < size_t(rd[src] + rc[src]);) {
      int64_t *d = &recvDesc[w];
      int nd = int(d[4]);
      std::vector<int64_t> cnt(d + 5 + nd, d + 5 + 2 * nd);
      if (!d[0])
        replySize += elements(cnt) * kTypeSize[d[3]];
      w += size_t(5 + 3 * nd);
    }
    replyTo[src].resize(size_t(replySize));
    size_t dataAt = 0, replyAt = 0;
    for (size_t w = size_t(rd[src]); w < size_t(rd[src] + rc[src]);) {
      int64_t *d = &recvDesc[w];
      int nd = int(d[4]);
      Work wk{bool(d[0]),
              int(d[1]),
              int(d[3]),
              std::vector<MPI_Offset>(d + 5, d + 5 + nd),
              std::vector<MPI_Offset>(d + 5 + nd, d + 5 + 2 * nd),
              std::vector<MPI_Offset>(d + 5 + 2 * nd, d + 5 + 3 * nd),
              nullptr,
              0,
              -1};
      int p = int(d[2]);
      w += size_t(5 + 3 * nd);
      size_t bytes = size_t(elements(wk.cnt)) * size_t(kTypeSize[wk.type]);
      if (wk.write) {
        wk.buf = dataFrom[src].data() + dataAt;
        dataAt += bytes;
      } else {
        wk.buf = replyTo[src].data() + replyAt;
        replyAt += bytes;
      }
      work[p].push_back(std::move(wk));
    }
  }
  auto overlaps = [](const Work &a, const Work &b) {
    if (a.varid != b.varid)
      return false;
    for (size_t d = 0; d < a.st.size(); ++d) {
      MPI_Offset aHi = a.st[d] + (a.cnt[d] - 1) * a.str[d], bHi = b.st[d] + (b.cnt[d] - 1) * b.str[d];
      if (aHi < b.st[d] || bHi < a.st[d])
        return false;
    }
    return true;
  };
  for (int p = 0; p < m.k; ++p) {
    Part &part = m.parts[p];
    if (part.ncid < 0)
      continue;
    auto &list = work[p];
    int rounds = 0;
    for (size_t i = 0; i < list.size(); ++i) {
      // Every rank reading the same piece (a whole array, say) is read once.
      if (!list[i].write)
        for (size_t j = 0; j < i && list[i].sameAs < 0; ++j)
          if (!list[j].write && list[j].sameAs < 0 && list[j].varid == list[i].varid && list[j].type == list[i].type &&
              list[j].st == list[i].st && list[j].cnt == list[i].cnt && list[j].str == list[i].str)
            list[i].sameAs = int(j);
      if (list[i].sameAs >= 0)
        continue;
      for (size_t j = 0; j < i; ++j)
        if (list[j].sameAs < 0 && list[j].round >= list[i].round && overlaps(list[i], list[j]))
          list[i].round = list[j].round + 1;
      rounds = std::max(rounds, list[i].round + 1);
    }
    MPI_Allreduce(MPI_IN_PLACE, &rounds, 1, MPI_INT, MPI_MAX, part.comm);
    for (int round = 0; round < rounds; ++round) {
      std::vector<int> ids;
      for (auto &wk : list) {
        if (wk.round != round || wk.sameAs >= 0)
          continue;
        const PVar &v = m.vars.at(wk.varid);
        MPI_Offset n = elements(wk.cnt);
        int nreq = NC_REQ_NULL;
        int e = wk.write ? REAL(ncmpi_iput_vars)(part.ncid, v.partVarid[p], wk.st.data(), wk.cnt.data(), wk.str.data(),
                                                 wk.buf, n, kTypes[wk.type], &nreq)
                         : REAL(ncmpi_iget_vars)(part.ncid, v.partVarid[p], wk.st.data(), wk.cnt.data(), wk.str.data(),
                                                 wk.buf, n, kTypes[wk.type], &nreq);
        if (e == NC_NOERR)
          ids.push_back(nreq);
        else if (err == NC_NOERR)
          err = e;
      }
      std::vector<int> st(ids.size());
      int e = REAL(ncmpi_wait_all)(part.ncid, int(ids.size()), ids.data(), st.data());
      if (e != NC_NOERR && err == NC_NOERR)
        err = e;
      for (int x : st)
        if (x != NC_NOERR && err == NC_NOERR)
          err = x;
    }
    for (auto &wk : list)
      if (wk.sameAs >= 0)
        std::memcpy(wk.buf, list[size_t(wk.sameAs)].buf, size_t(elements(wk.cnt)) * size_t(kTypeSize[wk.type]));
  }

  // 5. the data of reads, delegate -> requester.
  std::vector<std::vector<char>> replyFrom = exchangeBytes(m, replyTo, replyBytes, kTagReply);
  for (int r = 0; r < P; ++r) {
    size_t at = 0;
    for (auto &o : readsFrom[r]) {
      Op &op = ops[o.op];
      size_t esize = size_t(kTypeSize[op.type]);
      sio::part::unpackSlab(replyFrom[r].data() + at, op.buf, op.count, op.var->dim, o.sub.first, o.sub.num, esize);
      at += size_t(elements(o.sub.count)) * esize;
    }
  }

  // Mapped reads (varm) into the application's layout, derived buffer types
  // unpacked through the type.
  for (size_t i = 0; i < ops.size(); ++i) {
    finishOp(ops[i], (*status)[i] == NC_NOERR);
    if ((*status)[i] == NC_NOERR)
      countBytes(m, ops[i]);
  }

  // Every rank returns the same outcome; record variables: the new extent.
  int64_t recs = 0;
  for (auto &op : ops)
    if (op.write && op.var->record && op.count[0] > 0)
      recs = std::max(recs, op.start[0] + (op.count[0] - 1) * op.stride[0] + 1);
  int64_t local[2] = {-int64_t(err), recs}, global[2];
  MPI_Allreduce(local, global, 2, MPI_INT64_T, MPI_MAX, m.comm);
  m.numrecs = std::max(m.numrecs, global[1]);
  if (global[1] > 0) {
    int e = extendRecords(m);
    if (err == NC_NOERR)
      err = e;
  }
  return err != NC_NOERR ? err : int(-global[0]);
}

/// Builds an operation from a PnetCDF call's arguments (start/count/stride may
/// be null for the var and var1 forms).
void makeOp(Master &m, const PVar &v, bool write, const MPI_Offset *start, const MPI_Offset *count,
            const MPI_Offset *stride, const void *buf, int type, Op &op) {
  size_t nd = v.len.size();
  op.write = write;
  op.var = &v;
  op.buf = const_cast<void *>(buf);
  op.type = type;
  op.start.assign(nd, 0);
  op.count.assign(nd, 1);
  op.stride.assign(nd, 1);
  for (size_t d = 0; d < nd; ++d) {
    if (start)
      op.start[d] = start[d];
    if (count == reinterpret_cast<const MPI_Offset *>(1)) // var1: one element
      op.count[d] = 1;
    else if (count)
      op.count[d] = count[d];
    else // whole variable
      op.count[d] = (v.record && d == 0) ? m.numrecs : v.len[d];
    if (stride)
      op.stride[d] = stride[d];
  }
}

const MPI_Offset *const kVar1 = reinterpret_cast<const MPI_Offset *>(1);
constexpr int kFlexible = -2; ///< Access::type of the flexible API: the memory type comes from buftype

/// One data access of a partitioned variable as the application's call gives
/// it (every put/get form reduces to a list of these): the index arguments of
/// the var (all null), var1 (count kVar1), vara, vars and varm forms, the
/// buffer, and its memory type.
struct Access {
  bool write = false;
  const MPI_Offset *start = nullptr, *count = nullptr, *stride = nullptr, *imap = nullptr;
  const void *buf = nullptr;
  int type = kFlexible;     ///< the typed API's memory type, or kFlexible
  MPI_Offset bufcount = -1; ///< flexible API: elements in buf (-1: as many as the request)
  MPI_Datatype buftype = MPI_DATATYPE_NULL;
  std::shared_ptr<Staging> staging = nullptr; ///< set by stageDerived: buf is its contiguous copy
};

struct Piece {
  const PVar *var;
  Access access;
};

/// How the call completes: a collective or an independent blocking call, a
/// nonblocking request, or a buffered one (the data copied at the call).
enum class Mode { Collective, Independent, Nonblocking, Buffered };

/// Refuses an access on a partitioned variable with a PnetCDF error code and
/// says why on stderr.
int refuse(const char *fn, const PVar &v, int err, const char *why) {
  std::fprintf(stderr, "sio-pnetcdf: error: %s on partitioned variable '%s': %s (%s)\n", fn, v.name.c_str(), why,
               ncmpi_strerror(err));
  return err;
}

/// The memory type of a flexible-API call: a predefined MPI datatype, or
/// MPI_DATATYPE_NULL for the variable's own external type; -1 for a type
/// PnetCDF does not support (derived ones are staged before: stageDerived).
int flexibleType(const PVar &v, MPI_Datatype buftype) {
  if (buftype != MPI_DATATYPE_NULL)
    return typeIndexOf(buftype);
  switch (v.xtype) {
  case NC_CHAR:
    return kType_text;
  case NC_BYTE:
    return kType_schar;
  case NC_UBYTE:
    return kType_uchar;
  case NC_SHORT:
    return kType_short;
  case NC_USHORT:
    return kType_ushort;
  case NC_INT:
    return kType_int;
  case NC_UINT:
    return kType_uint;
  case NC_FLOAT:
    return kType_float;
  case NC_DOUBLE:
    return kType_double;
  case NC_INT64:
    return kType_longlong;
  case NC_UINT64:
    return kType_ulonglong;
  default:
    return -1;
  }
}

int memoryType(const PVar &v, const Access &a) { return a.type == kFlexible ? flexibleType(v, a.buftype) : a.type; }

/// A flexible access whose buffer type is a derived MPI datatype becomes one
/// with that type's predefined element type over a contiguous buffer (a
/// Staging): for a write the data packed through the type now (MPI_Pack, as
/// PnetCDF's own ncmpio_pack_xbuf does), for a read a buffer unpacked into
/// the application's at completion (finishOp). Types PnetCDF refuses keep
/// its error code: NC_EMULTITYPES for more than one element type,
/// NC_EUNSPTETYPE for an unsupported one. Other accesses are unchanged.
int stageDerived(Access &a) {
  if (a.type != kFlexible || a.buftype == MPI_DATATYPE_NULL || a.staging)
    return NC_NOERR;
  int nints = 0, naddrs = 0, ntypes = 0, combiner = 0;
  MPI_Type_get_envelope(a.buftype, &nints, &naddrs, &ntypes, &combiner);
  if (combiner == MPI_COMBINER_NAMED)
    return NC_NOERR; // predefined: flexibleType maps it (or it is refused there)
  sio::part::ElementType et = sio::part::elementTypeOf(a.buftype, canonicalType);
  if (et.status == sio::part::ElementStatus::MultipleTypes)
    return NC_EMULTITYPES;
  if (et.status != sio::part::ElementStatus::Ok)
    return NC_EUNSPTETYPE;
  const int type = typeIndexOf(et.element);
  MPI_Count typeBytes = 0;
  MPI_Type_size_c(a.buftype, &typeBytes);
  const MPI_Count perItem = typeBytes / kTypeSize[type];
  if (a.bufcount < 0)
    return NC_EINVAL; // PnetCDF takes bufcount -1 as a predefined type's: a derived one has no meaning there
  auto s = std::make_shared<Staging>();
  s->write = a.write;
  s->user = const_cast<void *>(a.buf);
  s->count = MPI_Count(a.bufcount);
  s->linear.resize(size_t(a.bufcount * perItem * kTypeSize[type]));
  if (a.write) {
    MPI_Count pos = 0;
    if (MPI_Pack_c(a.buf, s->count, a.buftype, s->linear.data(), MPI_Count(s->linear.size()), &pos, MPI_COMM_SELF) !=
        MPI_SUCCESS)
      return NC_EINVAL;
  } else {
    MPI_Type_dup(a.buftype, &s->type);
  }
  a.buf = s->linear.data();
  a.bufcount = a.bufcount * perItem;
  a.buftype = kTypes[type];
  a.staging = std::move(s);
  return NC_NOERR;
}

/// After a read operation: the mapped (varm) copy into the application's
/// layout, then, once every operation of a derived buffer type has
/// completed, the unpack into the application's buffer through its type.
void finishOp(Op &op, bool ok) {
  if (op.write)
    return;
  if (ok && op.mapped)
    sio::part::mappedCopy(op.buf, op.mapped, op.count, op.imap, size_t(kTypeSize[op.type]), true);
  if (Staging *s = op.staging.get()) {
    s->failed |= !ok;
    if (--s->pending == 0 && !s->failed) {
      MPI_Count pos = 0;
      MPI_Unpack_c(s->linear.data(), MPI_Count(s->linear.size()), &pos, s->user, s->count, s->type, MPI_COMM_SELF);
    }
    op.staging.reset();
  }
}

/// Turns one access into an operation of the transformation: checks it, and
/// for a mapped (varm) access or a buffered write keeps the data packed in
/// the operation itself.
int prepare(const char *fn, Master &m, const PVar &v, const Access &access, bool copy, Op &op) {
  Access a = access;
  if (int e = stageDerived(a); e != NC_NOERR)
    return e;
  int type = memoryType(v, a);
  if (type < 0)
    return NC_EUNSPTETYPE; // a predefined type PnetCDF has no conversion for (MPI_C_BOOL, ...), as PnetCDF
  makeOp(m, v, a.write, a.start, a.count, a.stride, a.buf, type, op);
  int err = validate(op);
  if (err != NC_NOERR)
    return err;
  const int64_t n = elements(op.count);
  if (a.type == kFlexible && a.buftype != MPI_DATATYPE_NULL && a.bufcount >= 0 && a.bufcount != n)
    return NC_EIOMISMATCH; // as PnetCDF: bufcount differs from the request, larger or smaller
  const size_t bytes = size_t(n) * size_t(kTypeSize[type]);
  if (a.staging && a.imap) {
    // The mapped layout may reach past the buffer's elements (gaps): cover it.
    int64_t extent = 1;
    for (size_t d = 0; d < v.len.size(); ++d)
      extent += op.count[d] > 0 ? (op.count[d] - 1) * a.imap[d] : 0;
    size_t need = size_t(std::max<int64_t>(extent, n)) * size_t(kTypeSize[type]);
    if (a.staging->linear.size() < need && elements(op.count) > 0) {
      a.staging->linear.resize(need);
      a.buf = a.staging->linear.data();
    }
  }
  if (a.staging && !a.write) {
    op.staging = a.staging;
    ++op.staging->pending;
  }
  if (a.imap) {
    op.imap.assign(a.imap, a.imap + v.len.size());
    op.owned.resize(bytes);
    if (a.write)
      sio::part::mappedCopy(op.owned.data(), const_cast<void *>(a.buf), op.count, op.imap, size_t(kTypeSize[type]),
                            false);
    else
      op.mapped = const_cast<void *>(a.buf);
    op.buf = op.owned.data();
  } else if (a.staging) {
    op.buf = const_cast<void *>(a.buf); // already a copy (bput too)
    if (a.write)
      op.staging = a.staging; // keeps the packed data alive until the wait
  } else if (copy && a.write) {
    op.owned.assign(static_cast<const char *>(a.buf), static_cast<const char *>(a.buf) + bytes);
    op.buf = op.owned.data();
  }
  return NC_NOERR;
}

/// Independent access by one rank: no other rank takes part, so it reads or
/// writes each partition itself, through its own handle when it owns the
/// partition and otherwise through the partition file opened alone
/// (MPI_COMM_SELF, kept until close). Record variables are refused by the
/// caller: a second handle would keep its own record count in the
/// partition's header.
int runIndependent(Master &m, Op &op) {
  const PVar &v = *op.var;
  const size_t esize = size_t(kTypeSize[op.type]);
  std::vector<char> tmp;
  for (auto &sub : sio::part::splitRequest(op.start, op.count, op.stride, v.dim, v.len[v.dim], v.k)) {
    Part &part = m.parts[sub.part];
    int handle = part.ncid, pvar = v.partVarid[sub.part];
    if (handle < 0) {
      auto it = m.selfNcid.find(sub.part);
      if (it == m.selfNcid.end()) {
        int h = -1;
        PartitionInfo hints;
        int e = REAL(ncmpi_open)(MPI_COMM_SELF, part.path.c_str(), m.writable ? NC_WRITE : NC_NOWRITE, hints.info, &h);
        if (e != NC_NOERR)
          return e;
        e = REAL(ncmpi_begin_indep_data)(h);
        if (e != NC_NOERR) {
          REAL(ncmpi_close)(h); // not kept: the handle would leak
          return e;
        }
        it = m.selfNcid.emplace(sub.part, h).first;
      }
      handle = it->second;
      int e = ncmpi_inq_varid(handle, v.name.c_str(), &pvar);
      if (e != NC_NOERR)
        return e;
    }
    MPI_Offset n = elements(sub.count);
    tmp.resize(size_t(n) * esize);
    std::vector<MPI_Offset> st(sub.start.begin(), sub.start.end()), cnt(sub.count.begin(), sub.count.end()),
        str(op.stride.begin(), op.stride.end());
    int err;
    if (op.write) {
      sio::part::packSlab(op.buf, tmp.data(), op.count, v.dim, sub.first, sub.num, esize);
      err = REAL(ncmpi_put_vars)(handle, pvar, st.data(), cnt.data(), str.data(), tmp.data(), n, kTypes[op.type]);
    } else {
      err = REAL(ncmpi_get_vars)(handle, pvar, st.data(), cnt.data(), str.data(), tmp.data(), n, kTypes[op.type]);
      if (err == NC_NOERR)
        sio::part::unpackSlab(tmp.data(), op.buf, op.count, v.dim, sub.first, sub.num, esize);
    }
    if (err != NC_NOERR)
      return err;
  }
  finishOp(op, true);
  countBytes(m, op);
  return NC_NOERR;
}

int independent(const char *fn, Master &m, const std::vector<Piece> &pieces) {
  if (!m.indep)
    return NC_ENOTINDEP; // as PnetCDF: an independent form in collective data mode
  // All prepared before any runs: the subarrays of one derived buffer type
  // are unpacked together once the last is read.
  std::vector<Op> ops(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    auto &[v, a] = pieces[i];
    if (v->record)
      return refuse(fn, *v, NC_ENOTSUPPORT, "independent access to a partitioned record variable");
    if (int err = prepare(fn, m, *v, a, false, ops[i]); err != NC_NOERR)
      return err;
  }
  for (auto &op : ops)
    if (int err = runIndependent(m, op); err != NC_NOERR)
      return err;
  return NC_NOERR;
}

/// A collective call: every rank of the master takes part in the exchange,
/// with the accesses it prepared (none after an error, which all ranks then
/// return).
int collective(const char *fn, Master &m, const std::vector<Piece> &pieces, int err = NC_NOERR) {
  if (m.indep)
    return NC_EINDEP; // as PnetCDF: a collective form in independent data mode (all ranks are in it)
  std::vector<Op> ops;
  for (auto &[v, a] : pieces) {
    Op op;
    int e = err == NC_NOERR ? prepare(fn, m, *v, a, false, op) : err;
    if (e != NC_NOERR) {
      err = e;
      ops.clear();
      continue;
    }
    ops.push_back(std::move(op));
  }
  if (err != NC_NOERR)
    ops.clear();
  return runOps(m, ops, nullptr, err);
}

/// A nonblocking (or buffered) request: checked now, queued under one request
/// id, transformed by ncmpi_wait_all. A buffered write keeps a copy of the
/// data, so the buffer is free on return as with bput.
int nonblocking(const char *fn, Master &m, const std::vector<Piece> &pieces, bool buffered, int *req) {
  if (req)
    *req = NC_REQ_NULL;
  if (buffered) {
    MPI_Offset size = 0;
    int e = REAL(ncmpi_inq_buffer_size)(m.ncid, &size); // NC_ENULLABUF without ncmpi_buffer_attach
    if (e != NC_NOERR)
      return e;
  }
  std::vector<Op> ops(pieces.size());
  for (size_t i = 0; i < pieces.size(); ++i) {
    int e = prepare(fn, m, *pieces[i].var, pieces[i].access, buffered, ops[i]);
    if (e != NC_NOERR)
      return e;
  }
  const int id = m.nextReq++;
  for (auto &op : ops) {
    op.req = id;
    m.pending.push_back(std::move(op));
  }
  if (req)
    *req = id;
  return NC_NOERR;
}

int run(const char *fn, Mode mode, Master &m, const std::vector<Piece> &pieces, int *req = nullptr,
        int err = NC_NOERR) {
  switch (mode) {
  case Mode::Collective:
    return collective(fn, m, pieces, err);
  case Mode::Independent:
    return err != NC_NOERR ? err : independent(fn, m, pieces);
  case Mode::Nonblocking:
  case Mode::Buffered:
    return err != NC_NOERR ? err : nonblocking(fn, m, pieces, mode == Mode::Buffered, req);
  }
  return NC_EINVAL;
}

/// A single-variable call (var, var1, vara, vars, varm) on a partitioned variable.
int accessOne(const char *fn, Mode mode, int ncid, int varid, const Access &a, int *req = nullptr) {
  Master *m = nullptr;
  const PVar *v = partitionedVar(ncid, varid, &m);
  return run(fn, mode, *m, {{v, a}}, req);
}

/// The list (varn) forms: num subarrays whose data follow one another in the
/// buffer; each is one access (a null count: one element, as var1).
int accessN(const char *fn, Mode mode, int ncid, int varid, int num, MPI_Offset *const *starts,
            MPI_Offset *const *counts, const Access &access, int *req = nullptr) {
  Master *m = nullptr;
  const PVar *v = partitionedVar(ncid, varid, &m);
  std::vector<Piece> pieces;
  Access a = access;
  int err = stageDerived(a); // one buffer (and type) for all subarrays
  int type = memoryType(*v, a);
  if (err == NC_NOERR && num < 0)
    err = NC_EINVAL;
  else if (err == NC_NOERR && num > 0 && !starts)
    err = NC_ENULLSTART;
  else if (err == NC_NOERR && type < 0)
    pieces.push_back({v, a}); // prepare refuses it
  int64_t total = 0;
  for (int i = 0; err == NC_NOERR && type >= 0 && i < num; ++i) {
    if (!starts[i]) {
      err = NC_ENULLSTART;
      break;
    }
    Access one = a;
    one.start = starts[i];
    one.count = counts && counts[i] ? counts[i] : kVar1;
    one.buf = static_cast<const char *>(a.buf) + total * kTypeSize[type];
    one.type = type;
    pieces.push_back({v, one});
    int64_t n = 1;
    for (size_t d = 0; one.count != kVar1 && d < v->len.size(); ++d)
      n *= one.count[d];
    total += n;
  }
  if (err == NC_NOERR && a.type == kFlexible && a.buftype != MPI_DATATYPE_NULL && a.bufcount >= 0 &&
      a.bufcount != total)
    err = NC_EIOMISMATCH;
  return run(fn, mode, *m, pieces, req, err);
}

/// The multi-variable (mput/mget) forms on a partitioned master: the
/// partitioned variables' accesses go through the transformation, the others
/// to PnetCDF's own call of the same form with just those (a collective one
/// on every rank, even with none).
enum class Multi { Var, Var1, Vara, Vars, Varm };

int realMulti(Multi kind, bool write, bool coll, int ncid, int n, int *ids, MPI_Offset *const *st,
              MPI_Offset *const *ct, MPI_Offset *const *sd, MPI_Offset *const *im, void **bufs, const MPI_Offset *bc,
              const MPI_Datatype *bt) {
#define SIO_M_REAL(put, get, ...)                                                                                      \
  return write ? (coll ? REAL(put##_all)(ncid, n, ids, __VA_ARGS__) : REAL(put)(ncid, n, ids, __VA_ARGS__))            \
               : (coll ? REAL(get##_all)(ncid, n, ids, __VA_ARGS__) : REAL(get)(ncid, n, ids, __VA_ARGS__))
  switch (kind) {
  case Multi::Var:
    SIO_M_REAL(ncmpi_mput_var, ncmpi_mget_var, bufs, bc, bt);
  case Multi::Var1:
    SIO_M_REAL(ncmpi_mput_var1, ncmpi_mget_var1, st, bufs, bc, bt);
  case Multi::Vara:
    SIO_M_REAL(ncmpi_mput_vara, ncmpi_mget_vara, st, ct, bufs, bc, bt);
  case Multi::Vars:
    SIO_M_REAL(ncmpi_mput_vars, ncmpi_mget_vars, st, ct, sd, bufs, bc, bt);
  case Multi::Varm:
    SIO_M_REAL(ncmpi_mput_varm, ncmpi_mget_varm, st, ct, sd, im, bufs, bc, bt);
  }
#undef SIO_M_REAL
  return NC_EINVAL;
}

int multi(const char *fn, Multi kind, bool write, bool coll, int ncid, int nvars, int *varids,
          MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides, MPI_Offset *const *imaps,
          const void *bufs, const MPI_Offset *bufcounts, const MPI_Datatype *buftypes, int type) {
  Master *m = masterOf(ncid);
  auto *bufv = static_cast<void *const *>(bufs);
  std::vector<int> ids;
  std::vector<MPI_Offset *> st, ct, sd, im;
  std::vector<void *> bf;
  std::vector<MPI_Offset> bc;
  std::vector<MPI_Datatype> bt;
  std::vector<Piece> pieces;
  auto at = [](MPI_Offset *const *list, int i) { return list ? list[i] : nullptr; };
  for (int i = 0; i < nvars; ++i) {
    if (const PVar *v = partitionedVar(ncid, varids[i])) {
      Access a{write,
               nullptr,
               nullptr,
               nullptr,
               nullptr,
               bufv[i],
               type,
               bufcounts ? bufcounts[i] : -1,
               buftypes ? buftypes[i] : MPI_DATATYPE_NULL};
      if (kind != Multi::Var)
        a.start = at(starts, i), a.count = kind == Multi::Var1 ? kVar1 : at(counts, i);
      if (kind == Multi::Vars || kind == Multi::Varm)
        a.stride = at(strides, i);
      if (kind == Multi::Varm)
        a.imap = at(imaps, i);
      pieces.push_back({v, a});
      continue;
    }
    ids.push_back(varids[i]);
    st.push_back(at(starts, i)), ct.push_back(at(counts, i)), sd.push_back(at(strides, i)), im.push_back(at(imaps, i));
    bf.push_back(bufv[i]);
    // The typed forms become the flexible one with the predefined type (bufcount -1, as PnetCDF's typed API does).
    bc.push_back(type == kFlexible ? bufcounts[i] : -1);
    bt.push_back(type == kFlexible ? buftypes[i] : kTypes[type]);
  }
  int err = NC_NOERR;
  if (coll || !ids.empty())
    err = realMulti(kind, write, coll, ncid, int(ids.size()), ids.data(), starts ? st.data() : nullptr,
                    counts ? ct.data() : nullptr, strides ? sd.data() : nullptr, imaps ? im.data() : nullptr, bf.data(),
                    bc.data(), bt.data());
  if (coll || !pieces.empty()) {
    int e = run(fn, coll ? Mode::Collective : Mode::Independent, *m, pieces);
    if (err == NC_NOERR)
      err = e;
  }
  return err;
}

// --- defining and creating the partitioned layout (§III-B) ----------------

int64_t externalSize(nc_type t) {
  switch (t) {
  case NC_BYTE:
  case NC_CHAR:
  case NC_UBYTE:
    return 1;
  case NC_SHORT:
  case NC_USHORT:
    return 2;
  case NC_INT:
  case NC_UINT:
  case NC_FLOAT:
    return 4;
  default:
    return 8;
  }
}

std::string partFileName(const Master &m, int p, const std::string &dir) {
  return dir + "/" + baseName(m.path) + "." + std::to_string(p);
}

int putIntAtt(int ncid, int varid, const char *name, std::vector<int> vals) {
  return ncmpi_put_att_int(ncid, varid, name, NC_INT, MPI_Offset(vals.size()), vals.data());
}

/// Probes this rank's targets (t mod size == rank), one thread each, and
/// ends the round early for slow targets (Son et al. 2013 §III-A, with a
/// deadline): the first target to finish anywhere sets the deadline at
/// kProbeDeadlineFactor times its time. Within a rank the threads move it
/// themselves; across ranks each probing rank's main thread sends the time
/// its first target finished (infinity when none did) to the other probing
/// ranks and polls for theirs while its threads write. Only the main thread
/// calls MPI.
void probeRound(Master &m, const std::vector<std::string> &targets, size_t perTarget,
                std::vector<sio::part::ProbeResult> &results) {
  sio::part::ProbeDeadline deadline;
  std::atomic<int> done{0};
  std::vector<std::thread> probes;
  for (size_t t = size_t(m.rank); t < targets.size(); t += size_t(m.size))
    probes.emplace_back([&, t] {
      results[t] = sio::part::probeDirectory(targets[t], perTarget, &deadline);
      if (results[t].error.empty() && !results[t].stopped)
        deadline.finished(deadline.elapsed());
      ++done;
    });
  const int mine = int(probes.size());
  const int probers = int(std::min<size_t>(targets.size(), size_t(m.size)));
  if (m.rank < probers && probers > 1) {
    std::vector<double> theirs(size_t(probers), 0.0);
    std::vector<MPI_Request> recvs, sends;
    for (int r = 0; r < probers; ++r)
      if (r != m.rank) {
        recvs.emplace_back();
        MPI_Irecv(&theirs[size_t(r)], 1, MPI_DOUBLE, r, kTagProbe, m.comm, &recvs.back());
      }
    double sent = 0;
    bool haveSent = false;
    int received = 0;
    std::vector<int> idx(recvs.size());
    while (!haveSent || received < int(recvs.size()) || done.load() < mine) {
      if (!haveSent && (deadline.firstFinish.load() < std::numeric_limits<double>::infinity() || done.load() == mine)) {
        sent = deadline.firstFinish.load();
        for (int r = 0; r < probers; ++r)
          if (r != m.rank) {
            sends.emplace_back();
            MPI_Isend(&sent, 1, MPI_DOUBLE, r, kTagProbe, m.comm, &sends.back());
          }
        haveSent = true;
      }
      int n = 0;
      if (received < int(recvs.size())) {
        MPI_Testsome(int(recvs.size()), recvs.data(), &n, idx.data(), MPI_STATUSES_IGNORE);
        received += n == MPI_UNDEFINED ? 0 : n;
      }
      for (int r = 0; r < probers; ++r)
        if (r != m.rank && theirs[size_t(r)] > 0)
          deadline.finished(theirs[size_t(r)]);
      if (n <= 0)
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
  }
  for (auto &th : probes)
    th.join();
}

/// The probes kept for the next files of this process (sio/part/ProbeCache.h).
sio::part::ProbeCache &probeCache() {
  static sio::part::ProbeCache cache;
  return cache;
}

/// Whether this file reuses a probe of the same target list: rank 0 decides
/// (its cache, its clock; the ranks of this communicator may have created
/// other files on other communicators) and broadcasts the rounds, so every
/// rank selects from the same numbers. Reused only when that selection,
/// with this file's threshold, is confident. Sets `age` (seconds since the
/// probe ended) and `probeSeconds` (what it took then). The broadcast is an
/// MPI_Allreduce (the other ranks add zeros), which also lines the ranks up
/// for a probe that follows: one collective instead of a broadcast and a
/// barrier (each ~40 ms at 8 ranks on the 2-core development machine).
bool reuseProbe(Master &m, const std::vector<std::string> &targets, std::vector<std::vector<double>> &rounds,
                sio::part::RoundsSelection &sel, double &age, double &probeSeconds) {
  const size_t T = targets.size();
  // One broadcast: rounds (0: probe), age, the probe's seconds, then up to
  // kMaxProbeRounds rounds of T bandwidths.
  std::vector<double> msg(3 + size_t(sio::part::kMaxProbeRounds) * T, 0.0);
  if (m.rank == 0) {
    const double now = MPI_Wtime();
    if (auto c = probeCache().find(targets, now, m.hints.probeLifetime)) {
      auto s = sio::part::selectFromRounds(c->rounds, m.hints.threshold);
      if (s.confident && c->rounds.size() <= size_t(sio::part::kMaxProbeRounds)) {
        msg[0] = double(c->rounds.size());
        msg[1] = now - c->probedAt;
        msg[2] = c->probeSeconds;
        for (size_t j = 0; j < c->rounds.size(); ++j)
          std::copy(c->rounds[j].begin(), c->rounds[j].end(), msg.begin() + std::ptrdiff_t(3 + j * T));
      }
    }
  }
  MPI_Allreduce(MPI_IN_PLACE, msg.data(), int(msg.size()), MPI_DOUBLE, MPI_SUM, m.comm);
  const size_t n = size_t(msg[0]);
  if (n < 1)
    return false;
  rounds.clear();
  for (size_t j = 0; j < n; ++j)
    rounds.emplace_back(msg.begin() + std::ptrdiff_t(3 + j * T), msg.begin() + std::ptrdiff_t(3 + (j + 1) * T));
  sel = sio::part::selectFromRounds(rounds, m.hints.threshold);
  age = msg[1];
  probeSeconds = msg[2];
  return true;
}

int createPartitions(Master &m) {
  // Phases, for SIO_PART_REPORT (the longest rank's, from one reduction at
  // the end): probe, master attributes, the owner groups' communicators, per partition
  // create / define / enddef.
  enum { kProbe, kAttrs, kGroups, kCreate, kDefine, kEnddef, kPhases };
  double phase[kPhases] = {};
  double mark = MPI_Wtime();
  auto lap = [&](int which) {
    double now = MPI_Wtime();
    phase[which] += now - mark;
    mark = now;
  };
  // The pending data: 1 % of it is probed (Son et al. 2013 §III-A).
  int64_t pendingBytes = 0;
  for (auto &[id, v] : m.vars) {
    int64_t n = 1;
    for (size_t d = 0; d < v.len.size(); ++d)
      n *= (v.record && d == 0) ? 1 : v.len[d];
    pendingBytes += n * externalSize(v.xtype);
  }
  std::vector<std::string> targets = m.hints.targets;
  if (targets.empty())
    targets.push_back(dirName(m.path));
  std::vector<size_t> chosen(1, 0);
  std::vector<double> chosenBw; // their bandwidths, in the listed order (empty: one target, not probed)
  if (targets.size() > 1) {
    // Each rank probes the targets t with t % size == rank, all at once (one
    // thread per target, doing POSIX I/O only), so every target is probed
    // concurrently; a target still writing at kProbeDeadlineFactor times the
    // first finish anywhere stops early (probeRound), so a slow target does
    // not set the probe's length.
    size_t perTarget =
        size_t(std::max<int64_t>(int64_t(sio::part::kProbeBlock), pendingBytes / 100 / int64_t(targets.size())));
    const size_t T = targets.size();
    // Rounds until the selection is trusted (sio/part/ProbeRounds.h): every
    // rank gets every round's numbers from the reduction, so all take the
    // same decision to go on.
    std::vector<std::vector<double>> rounds;
    sio::part::RoundsSelection sel;
    std::vector<double> all(3 * T + 1, 0.0);
    double probeTime = 0, age = 0;
    const bool reused = reuseProbe(m, targets, rounds, sel, age, probeTime);
    if (!reused) {
      // The ranks start together: reuseProbe's reduction synchronized them.
      do {
        std::vector<sio::part::ProbeResult> results(T);
        double t0 = MPI_Wtime();
        probeRound(m, targets, perTarget, results);
        // One MAX-reduction: per target its bandwidth, bytes and seconds (from
        // the rank that probed it), and the longest probe round.
        std::fill(all.begin(), all.end(), 0.0);
        for (size_t t = size_t(m.rank); t < T; t += size_t(m.size)) {
          if (!results[t].error.empty() && rounds.empty())
            std::fprintf(stderr, "sio-pnetcdf: warning: %s (target left out)\n", results[t].error.c_str());
          all[t] = results[t].bytesPerSecond;
          all[T + t] = double(results[t].bytes);
          all[2 * T + t] = results[t].seconds;
        }
        all[3 * T] = MPI_Wtime() - t0;
        MPI_Allreduce(MPI_IN_PLACE, all.data(), int(all.size()), MPI_DOUBLE, MPI_MAX, m.comm);
        probeTime += all[3 * T];
        rounds.emplace_back(all.begin(), all.begin() + std::ptrdiff_t(T));
        sel = sio::part::selectFromRounds(rounds, m.hints.threshold);
      } while (sio::part::wantAnotherRound(sel));
      // Every rank has the same rounds (from the reduction); only a trusted
      // selection is kept for the next file.
      if (sel.confident)
        probeCache().store(targets, {rounds, MPI_Wtime(), probeTime});
    }
    const std::vector<double> &bw = sel.estimate;
    const double *written = all.data() + T, *seconds = all.data() + 2 * T;
    chosen = sel.selection.selected();
    std::sort(chosen.begin(), chosen.end()); // partitions go to the selected targets in the listed order
    for (size_t t : chosen)
      chosenBw.push_back(bw[t]);
    char margin[32];
    std::snprintf(margin, sizeof margin, "%.1f", sel.margin * 100);
    std::string line = "probe " + std::to_string(targets.size()) + " targets";
    if (reused)
      line += " reused, probed " + std::to_string(age) + " s ago (" + std::to_string(sel.rounds) + " rounds, " +
              std::to_string(probeTime) + " s), lifetime " +
              (std::isinf(m.hints.probeLifetime) ? std::string("run") : std::to_string(m.hints.probeLifetime) + " s");
    else
      line += ", " + std::to_string(perTarget) + " bytes each, " + std::to_string(sel.rounds) + " rounds, " +
              std::to_string(probeTime) + " s";
    line += "; selected " + std::to_string(sel.selection.count) + " (threshold " +
            std::to_string(m.hints.threshold * 100) + "%), " + (sel.confident ? "confident" : "NOT confident") +
            ": nearest slope " + margin + " points from the threshold, " + (sel.stable ? "unchanged" : "changed") +
            " by the last round:";
    for (size_t i = 0; i < sel.selection.order.size(); ++i) {
      size_t t = sel.selection.order[i];
      const bool in = i < sel.selection.count;
      line += "\n  " + targets[t] + " " + std::to_string(bw[t] / 1e6) + " MB/s (last round " +
              std::to_string(rounds.back()[t] / 1e6) + " MB/s" +
              (reused ? std::string() : ", " + std::to_string(seconds[t]) + " s") + ") slope " +
              std::to_string(sel.selection.slope[i] * 100) + "%" + (in ? " selected" : " left out") + ", " +
              (in ? "selected" : "left out") + " by " + std::to_string(in ? sel.votes[t] : sel.rounds - sel.votes[t]) +
              " of " + std::to_string(sel.rounds) + " rounds alone" +
              (!reused && written[t] < double(perTarget)
                   ? " (last round stopped at the deadline after " + std::to_string(int64_t(written[t])) + " bytes)"
                   : "");
    }
    report(m, line);
  }
  // Partition p goes to the (p mod S)-th selected target in the listed order;
  // by default K by the estimated write time (sio/part/PartitionCount.h):
  // one per selected target on slow targets, a divisor of the rank count
  // (no slab straddles partitions) when the exchange would cost more.
  m.k = m.hints.numPartitions > 0 ? m.hints.numPartitions : sio::part::choosePartitionCount(chosenBw, m.size);
  if (m.hints.numPartitions <= 0)
    report(m, "partitions " + std::to_string(m.k) + " over " + std::to_string(m.size) + " ranks (slab share moved " +
                  std::to_string(sio::part::straddleFraction(m.k, m.size)) + ")");
  std::vector<std::string> paths(m.k);
  for (int p = 0; p < m.k; ++p) {
    const std::string &dir = targets[chosen[size_t(p) % chosen.size()]];
    paths[p] = partFileName(m, p, dir);
  }

  // Each variable: the dimension to cut and its partition count.
  for (auto &[id, v] : m.vars) {
    int forced = -1;
    nc_type at;
    MPI_Offset alen;
    if (ncmpi_inq_att(m.ncid, id, "sio_partition_dim", &at, &alen) == NC_NOERR && alen == 1)
      ncmpi_get_att_int(m.ncid, id, "sio_partition_dim", &forced);
    int dim = -1;
    if (forced >= 0 && forced < int(v.len.size()) && !(v.record && forced == 0)) {
      dim = forced;
    } else {
      for (size_t d = v.record ? 1 : 0; d < v.len.size(); ++d)
        if (v.len[d] >= m.k) {
          dim = int(d);
          break;
        }
      if (dim < 0) // every fixed dimension is shorter than K: the longest, fewer partitions
        for (size_t d = v.record ? 1 : 0; d < v.len.size(); ++d)
          if (dim < 0 || v.len[d] > v.len[dim])
            dim = int(d);
    }
    v.dim = dim;
    v.k = int(std::min<int64_t>(m.k, std::max<int64_t>(1, v.len[dim])));
    v.partVarid.assign(m.k, -1);
  }

  lap(kProbe);
  // The master's metadata (Figure 5(b)): still in define mode.
  int err = putIntAtt(m.ncid, NC_GLOBAL, "num_partitions", {m.k});
  for (int p = 0; p < m.k && err == NC_NOERR; ++p) {
    std::string stored = dirName(paths[p]) == dirName(m.path) ? baseName(paths[p]) : paths[p];
    std::string name = "partition_" + std::to_string(p);
    err = ncmpi_put_att_text(m.ncid, NC_GLOBAL, name.c_str(), MPI_Offset(stored.size()), stored.c_str());
    m.parts.resize(m.k);
  }
  if (err == NC_NOERR) {
    std::string layout = m.hints.layout;
    const char *args[] = {"h_minfree", "v_align", "v_minfree", "r_align"};
    for (int i = 0; i < 4; ++i)
      layout += std::string(args[i]) + "=" + std::to_string(m.enddefArgs[i]) + ";";
    err = ncmpi_put_att_text(m.ncid, NC_GLOBAL, kLayoutAttribute, MPI_Offset(layout.size()), layout.c_str());
  }
  for (auto &[id, v] : m.vars) {
    if (err != NC_NOERR)
      break;
    err = putIntAtt(m.ncid, id, "num_partitions", {v.k});
    if (err == NC_NOERR)
      err = putIntAtt(m.ncid, id, "ndims_org", {int(v.len.size())});
    if (err == NC_NOERR)
      err = putIntAtt(m.ncid, id, "dimids_org", v.dimids);
    if (err == NC_NOERR)
      err = putIntAtt(m.ncid, id, "partition_dim", {v.dim});
  }
  if (err != NC_NOERR)
    return err;

  lap(kAttrs);
  setUpPartComms(m);
  lap(kGroups);
  const bool cdf5 = (m.cmode & NC_64BIT_DATA) != 0;
  for (int p = 0; p < m.k; ++p) {
    Part &part = m.parts[p];
    part.path = paths[p];
    if (part.comm == MPI_COMM_NULL)
      continue;
    int cmode = NC_CLOBBER | (m.cmode & (NC_64BIT_OFFSET | NC_64BIT_DATA));
    PartitionInfo hints;
    int e = REAL(ncmpi_create)(part.comm, part.path.c_str(), cmode, hints.info, &part.ncid);
    lap(kCreate);
    if (e != NC_NOERR) {
      std::fprintf(stderr, "sio-pnetcdf: error: cannot create partition file %s: %s\n", part.path.c_str(),
                   ncmpi_strerror(e));
      err = e;
      part.ncid = -1;
      continue;
    }
    int recdim = -1;
    std::string what; // the definition in progress, for the error message
    for (auto &[id, v] : m.vars) {
      if (p >= v.k || e != NC_NOERR)
        continue;
      std::vector<int> dims(v.len.size());
      Range r = sio::part::partitionRange(v.len[v.dim], v.k, p);
      for (size_t d = 0; d < v.len.size() && e == NC_NOERR; ++d) {
        char dname[NC_MAX_NAME + 1];
        ncmpi_inq_dimname(m.ncid, v.dimids[d], dname);
        if (v.record && d == 0) {
          what = std::string("dimension '") + dname + "'";
          if (recdim < 0)
            e = ncmpi_def_dim(part.ncid, dname, NC_UNLIMITED, &recdim);
          dims[d] = recdim;
        } else {
          std::string n = std::string(dname) + "." + v.name;
          what = "dimension '" + n + "'";
          e = ncmpi_def_dim(part.ncid, n.c_str(), int(d) == v.dim ? r.size() : v.len[d], &dims[d]);
        }
      }
      if (e == NC_NOERR)
        what = "variable '" + v.name + "'";
      if (e == NC_NOERR)
        e = REAL(ncmpi_def_var)(part.ncid, v.name.c_str(), v.xtype, int(dims.size()), dims.data(), &v.partVarid[p]);
      if (e == NC_NOERR) {
        char dname[NC_MAX_NAME + 1];
        ncmpi_inq_dimname(m.ncid, v.dimids[v.dim], dname);
        std::string an = std::string("range(") + dname + ")";
        what = "attribute '" + v.name + ":" + an + "'";
        long long range[2] = {r.lo, r.hi};
        if (cdf5) {
          e = ncmpi_put_att_longlong(part.ncid, v.partVarid[p], an.c_str(), NC_INT64, 2, range);
        } else {
          int r32[2] = {int(r.lo), int(r.hi)};
          e = ncmpi_put_att_int(part.ncid, v.partVarid[p], an.c_str(), NC_INT, 2, r32);
        }
      }
    }
    if (e == NC_NOERR)
      what = "the global attributes";
    if (e == NC_NOERR)
      e = putIntAtt(part.ncid, NC_GLOBAL, "partition_index", {p});
    if (e == NC_NOERR)
      e = putIntAtt(part.ncid, NC_GLOBAL, "num_partitions", {m.k});
    if (e == NC_NOERR) {
      std::string mb = baseName(m.path);
      e = ncmpi_put_att_text(part.ncid, NC_GLOBAL, "master", MPI_Offset(mb.size()), mb.c_str());
    }
    lap(kDefine);
    if (e == NC_NOERR) {
      what = "ncmpi_enddef";
      e = REAL(ncmpi_enddef)(part.ncid);
    }
    lap(kEnddef);
    if (e != NC_NOERR)
      std::fprintf(stderr, "sio-pnetcdf: error: creating partition file %s: %s: %s\n", part.path.c_str(), what.c_str(),
                   ncmpi_strerror(e));
    if (e != NC_NOERR && err == NC_NOERR)
      err = e;
  }
  // Every rank needs the partition variable ids of the partitions it serves only;
  // those are all defined above. Agree on the outcome.
  // One reduction: the worst error (the most negative code) and each
  // phase's longest rank.
  double agree[1 + kPhases];
  agree[0] = -double(err);
  std::copy(phase, phase + kPhases, agree + 1);
  MPI_Allreduce(MPI_IN_PLACE, agree, 1 + kPhases, MPI_DOUBLE, MPI_MAX, m.comm);
  int worst = -int(agree[0]);
  const double *most = agree + 1;
  char times[256];
  std::snprintf(times, sizeof times,
                " (longest rank: probe %.3f s, master attributes %.3f s, groups %.3f s, partition create %.3f s, "
                "define %.3f s, enddef %.3f s)",
                most[kProbe], most[kAttrs], most[kGroups], most[kCreate], most[kDefine], most[kEnddef]);
  std::string line = "file " + m.path + ": " + std::to_string(m.k) + " partitions, " + std::to_string(m.vars.size()) +
                     " partitioned variables" + times;
  for (int p = 0; p < m.k; ++p)
    line += "\n  partition " + std::to_string(p) + ": " + paths[p];
  report(m, line);
  return worst;
}

/// Reads a partitioned master's metadata and opens the partitions this rank
/// owns. Returns NC_NOERR with m.partitioned false for an ordinary file.
int openPartitions(Master &m, int omode) {
  int k = 0;
  nc_type at;
  MPI_Offset alen;
  if (ncmpi_inq_att(m.ncid, NC_GLOBAL, "num_partitions", &at, &alen) != NC_NOERR || alen != 1 ||
      ncmpi_inq_att(m.ncid, NC_GLOBAL, "partition_0", &at, &alen) != NC_NOERR)
    return NC_NOERR;
  ncmpi_get_att_int(m.ncid, NC_GLOBAL, "num_partitions", &k);
  if (k < 1)
    return NC_NOERR;
  m.k = k;
  int nvars = 0;
  ncmpi_inq_nvars(m.ncid, &nvars);
  ncmpi_inq_unlimdim(m.ncid, &m.unlimdim);
  for (int id = 0; id < nvars; ++id) {
    int ndims = 0;
    if (ncmpi_inq_att(m.ncid, id, "ndims_org", &at, &alen) != NC_NOERR)
      continue;
    ncmpi_get_att_int(m.ncid, id, "ndims_org", &ndims);
    PVar v;
    v.varid = id;
    char name[NC_MAX_NAME + 1];
    REAL(ncmpi_inq_var)(m.ncid, id, name, &v.xtype, nullptr, nullptr, nullptr);
    v.name = name;
    v.dimids.resize(size_t(ndims));
    ncmpi_get_att_int(m.ncid, id, "dimids_org", v.dimids.data());
    ncmpi_get_att_int(m.ncid, id, "partition_dim", &v.dim);
    ncmpi_get_att_int(m.ncid, id, "num_partitions", &v.k);
    for (int d : v.dimids) {
      MPI_Offset len = 0;
      REAL(ncmpi_inq_dimlen)(m.ncid, d, &len);
      bool rec = d == m.unlimdim;
      v.len.push_back(rec ? 0 : len);
      if (rec)
        v.record = true;
    }
    v.partVarid.assign(k, -1);
    m.vars[id] = std::move(v);
  }
  setUpPartComms(m);
  int err = NC_NOERR;
  int64_t recs = 0;
  for (int p = 0; p < k; ++p) {
    Part &part = m.parts[p];
    std::string an = "partition_" + std::to_string(p);
    MPI_Offset len = 0;
    ncmpi_inq_attlen(m.ncid, NC_GLOBAL, an.c_str(), &len);
    std::string stored(size_t(len), '\0');
    ncmpi_get_att_text(m.ncid, NC_GLOBAL, an.c_str(), stored.data());
    part.path = resolvePartPath(m.path, stored);
    if (part.comm == MPI_COMM_NULL)
      continue;
    PartitionInfo hints;
    int e = REAL(ncmpi_open)(part.comm, part.path.c_str(), omode, hints.info, &part.ncid);
    if (e != NC_NOERR) {
      std::fprintf(stderr, "sio-pnetcdf: error: cannot open partition file %s: %s\n", part.path.c_str(),
                   ncmpi_strerror(e));
      err = e;
      part.ncid = -1;
      continue;
    }
    for (auto &[id, v] : m.vars)
      if (p < v.k && ncmpi_inq_varid(part.ncid, v.name.c_str(), &v.partVarid[p]) != NC_NOERR && err == NC_NOERR)
        err = NC_ENOTVAR;
    int ud = -1;
    ncmpi_inq_unlimdim(part.ncid, &ud);
    if (ud >= 0) {
      MPI_Offset n = 0;
      REAL(ncmpi_inq_dimlen)(part.ncid, ud, &n);
      recs = std::max<int64_t>(recs, n);
    }
  }
  int64_t in[2] = {-int64_t(err), recs}, out[2];
  MPI_Allreduce(in, out, 2, MPI_INT64_T, MPI_MAX, m.comm);
  m.numrecs = out[1];
  m.partitioned = true;
  return int(-out[0]);
}

void closePartitions(Master &m) {
  for (auto &[p, ncid] : m.selfNcid)
    REAL(ncmpi_close)(ncid);
  m.selfNcid.clear();
  for (auto &part : m.parts) {
    if (part.ncid >= 0)
      REAL(ncmpi_close)(part.ncid);
    if (part.comm != MPI_COMM_NULL)
      MPI_Comm_free(&part.comm);
  }
  m.parts.clear();
}

int forEachOwnedPart(Master &m, int (*fn)(int)) {
  int err = NC_NOERR;
  for (auto &part : m.parts)
    if (part.ncid >= 0) {
      int e = fn(part.ncid);
      if (e != NC_NOERR && err == NC_NOERR)
        err = e;
    }
  return err;
}

/// A collective single-variable form on variable `varid`. The ranks may name
/// different variables, some partitioned and some kept whole in the master,
/// so whether the call goes to PnetCDF (`real`), through the transformation
/// (`ours`) or both is agreed by an MPI_Allreduce: a per-rank decision would
/// leave some ranks in PnetCDF's collective and the others in the exchange.
/// Mixed, every rank joins PnetCDF's collective as one ncmpi_wait_all (the
/// ranks with a master variable post it with the nonblocking form `nb`, the
/// others none) and then the exchange (those with none). In independent data
/// mode (entered by all ranks together) nothing is collective: both paths
/// return NC_EINDEP at once.
template <class Real, class Nb, class Ours>
int collectiveForm(const char *fn, int ncid, int varid, Real real, Nb nb, Ours ours) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return real();
  const bool mine = partitionedVar(ncid, varid) != nullptr;
  if (m->indep)
    return mine ? ours(fn) : real();
  int local[2] = {mine, !mine}, any[2];
  MPI_Allreduce(local, any, 2, MPI_INT, MPI_MAX, m->comm);
  if (!any[0])
    return real();
  if (!any[1])
    return ours(fn);
  if (mine) {
    int err = REAL(ncmpi_wait_all)(ncid, 0, nullptr, nullptr);
    int e = ours(fn);
    return err != NC_NOERR ? err : e;
  }
  int req = NC_REQ_NULL, status = NC_NOERR;
  int err = nb(&req);
  int e = REAL(ncmpi_wait_all)(ncid, err == NC_NOERR ? 1 : 0, &req, &status);
  if (err == NC_NOERR)
    err = e != NC_NOERR ? e : status;
  e = collective(fn, *m, {});
  return err != NC_NOERR ? err : e;
}

} // namespace

// --- the interposed PnetCDF API -------------------------------------------

extern "C" {

int ncmpi_create(MPI_Comm comm, const char *path, int cmode, MPI_Info info, int *ncidp) {
  Hints h;
  std::string bad = readHints(info, h);
  if (!bad.empty() && h.enabled) {
    std::fprintf(stderr, "sio-pnetcdf: error: %s\n", bad.c_str());
    return NC_EINVAL;
  }
  int err = REAL(ncmpi_create)(comm, path, cmode, info, ncidp);
  if (err != NC_NOERR || !h.enabled)
    return err;
  auto m = std::make_unique<Master>();
  m->ncid = *ncidp;
  m->comm = privateComm(comm);
  MPI_Comm_rank(m->comm, &m->rank);
  MPI_Comm_size(m->comm, &m->size);
  m->path = path;
  m->cmode = cmode;
  m->hints = h;
  masters()[*ncidp] = std::move(m);
  return err;
}

int ncmpi_open(MPI_Comm comm, const char *path, int omode, MPI_Info info, int *ncidp) {
  int err = REAL(ncmpi_open)(comm, path, omode, info, ncidp);
  if (err != NC_NOERR)
    return err;
  auto m = std::make_unique<Master>();
  m->ncid = *ncidp;
  m->comm = privateComm(comm);
  MPI_Comm_rank(m->comm, &m->rank);
  MPI_Comm_size(m->comm, &m->size);
  m->path = path;
  m->writable = (omode & NC_WRITE) != 0;
  err = openPartitions(*m, omode);
  if (!m->partitioned)
    return err;
  masters()[*ncidp] = std::move(m);
  return err;
}

// Fill settings (§ Limits in docs/partitioning.md): the partitions are
// created in PnetCDF's default NC_NOFILL mode and fill values are not
// forwarded to them, so asking for fill on a partitioned file or variable is
// refused with NC_ENOTSUPPORT and a message rather than silently applied to
// the master's scalar placeholder only.

/// The array variable `varid` of a file created with partitioning (defined
/// as a placeholder), before or after ncmpi_enddef; null otherwise.
static const PVar *placeholderVar(int ncid, int varid) {
  Master *m = masterOf(ncid);
  if (!m)
    return nullptr;
  auto it = m->vars.find(varid);
  return it == m->vars.end() ? nullptr : &it->second;
}

int ncmpi_set_fill(int ncid, int fillmode, int *old_modep) {
  if (masterOf(ncid) && fillmode == NC_FILL) {
    std::fprintf(stderr,
                 "sio-pnetcdf: error: ncmpi_set_fill(NC_FILL) on a partitioned file: the partition files are "
                 "written in NC_NOFILL mode, fill values are not forwarded to them (%s)\n",
                 ncmpi_strerror(NC_ENOTSUPPORT));
    return NC_ENOTSUPPORT;
  }
  return REAL(ncmpi_set_fill)(ncid, fillmode, old_modep);
}

int ncmpi_def_var_fill(int ncid, int varid, int no_fill, const void *fill_value) {
  const PVar *v = placeholderVar(ncid, varid);
  if (v && !no_fill)
    return refuse("ncmpi_def_var_fill", *v, NC_ENOTSUPPORT,
                  "fill mode is not forwarded to the partition files (only NC_NOFILL, their mode)");
  return REAL(ncmpi_def_var_fill)(ncid, varid, no_fill, fill_value);
}

int ncmpi_inq_var_fill(int ncid, int varid, int *no_fill, void *fill_value) {
  int err = REAL(ncmpi_inq_var_fill)(ncid, varid, no_fill, fill_value);
  if (err == NC_NOERR && no_fill && placeholderVar(ncid, varid))
    *no_fill = 1; // the partitions' mode (the fill value is the placeholder's, of the same type)
  return err;
}

int ncmpi_fill_var_rec(int ncid, int varid, MPI_Offset recno) {
  if (const PVar *v = placeholderVar(ncid, varid))
    return refuse("ncmpi_fill_var_rec", *v, NC_ENOTSUPPORT, "the partition files are in NC_NOFILL mode");
  return REAL(ncmpi_fill_var_rec)(ncid, varid, recno);
}

int ncmpi_inq_varoffset(int ncid, int varid, MPI_Offset *offset) {
  if (const PVar *v = placeholderVar(ncid, varid))
    return refuse("ncmpi_inq_varoffset", *v, NC_ENOTSUPPORT, "its data lies in several partition files");
  return REAL(ncmpi_inq_varoffset)(ncid, varid, offset);
}

int ncmpi_def_var(int ncid, const char *name, nc_type xtype, int ndims, const int *dimidsp, int *varidp) {
  Master *m = masterOf(ncid);
  if (!m || m->partitioned || ndims == 0)
    return REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp);
  int unlim = -1;
  ncmpi_inq_unlimdim(ncid, &unlim);
  PVar v;
  v.name = name;
  v.xtype = xtype;
  bool hasFixed = false;
  for (int d = 0; d < ndims; ++d) {
    MPI_Offset len = 0;
    int e = REAL(ncmpi_inq_dimlen)(ncid, dimidsp[d], &len);
    if (e != NC_NOERR)
      return e;
    bool rec = dimidsp[d] == unlim;
    if (rec && d != 0)
      return REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp); // PnetCDF reports the error
    v.record |= rec;
    hasFixed |= !rec;
    v.dimids.push_back(dimidsp[d]);
    v.len.push_back(rec ? 0 : len);
  }
  if (!hasFixed) // a 1-D record variable stays whole in the master
    return REAL(ncmpi_def_var)(ncid, name, xtype, ndims, dimidsp, varidp);
  // The master keeps a scalar placeholder (Figure 5(b)); the data goes to the partitions.
  int err = REAL(ncmpi_def_var)(ncid, name, xtype, 0, nullptr, varidp);
  if (err != NC_NOERR)
    return err;
  m->unlimdim = unlim;
  v.varid = *varidp;
  m->vars[*varidp] = std::move(v);
  return err;
}

/// The bytes of one attribute in a netCDF header (CDF-1/2: 4-byte counts,
/// CDF-5: 8-byte), as PnetCDF's ncmpio_hdr_len_NC counts them.
static int64_t attributeHeaderBytes(int ncid, int varid, const char *name, bool cdf5) {
  nc_type t;
  MPI_Offset n = 0;
  if (ncmpi_inq_att(ncid, varid, name, &t, &n) != NC_NOERR)
    return 0;
  auto pad4 = [](int64_t b) { return (b + 3) / 4 * 4; };
  const int64_t count = cdf5 ? 8 : 4;
  return count + pad4(int64_t(std::strlen(name))) + 4 + count + pad4(n * externalSize(t));
}

/// The size of the header the unpartitioned file would have minus the
/// master's: the master has sio's attributes (global and per partitioned
/// variable), and its placeholders have no dimension ids.
static int64_t headerDelta(const Master &m) {
  const bool cdf5 = (m.cmode & NC_64BIT_DATA) != 0;
  int64_t extra = attributeHeaderBytes(m.ncid, NC_GLOBAL, "num_partitions", cdf5) +
                  attributeHeaderBytes(m.ncid, NC_GLOBAL, kLayoutAttribute, cdf5);
  for (int p = 0; p < m.k; ++p)
    extra += attributeHeaderBytes(m.ncid, NC_GLOBAL, ("partition_" + std::to_string(p)).c_str(), cdf5);
  int64_t dimids = 0;
  for (auto &[id, v] : m.vars) {
    for (const char *a : {"num_partitions", "ndims_org", "dimids_org", "partition_dim"})
      extra += attributeHeaderBytes(m.ncid, id, a, cdf5);
    dimids += int64_t(v.dimids.size()) * (cdf5 ? 8 : 4);
  }
  return dimids - extra;
}

static int enddefPartitioned(int ncid, Master *m, const MPI_Offset *args) {
  if (args)
    std::copy(args, args + 4, m->enddefArgs);
  int err = createPartitions(*m);
  m->partitioned = true;
  int e = args ? REAL(ncmpi__enddef)(ncid, args[0], args[1], args[2], args[3]) : REAL(ncmpi_enddef)(ncid);
  if (e == NC_NOERR && m->rank == 0)
    m->headerDelta = headerDelta(*m); // rank 0 wrote the header (PnetCDF counts it in its put size)
  return err != NC_NOERR ? err : e;
}

int ncmpi_enddef(int ncid) {
  Master *m = masterOf(ncid);
  if (!m || m->partitioned)
    return REAL(ncmpi_enddef)(ncid);
  return enddefPartitioned(ncid, m, nullptr);
}

int ncmpi__enddef(int ncid, MPI_Offset h_minfree, MPI_Offset v_align, MPI_Offset v_minfree, MPI_Offset r_align) {
  Master *m = masterOf(ncid);
  if (!m || m->partitioned)
    return REAL(ncmpi__enddef)(ncid, h_minfree, v_align, v_minfree, r_align);
  const MPI_Offset args[4] = {h_minfree, v_align, v_minfree, r_align};
  return enddefPartitioned(ncid, m, args);
}

int ncmpi_redef(int ncid) {
  Master *m = masterOf(ncid);
  if (m && m->partitioned)
    return NC_ENOTSUPPORT; // the partition files' headers are fixed at enddef
  return REAL(ncmpi_redef)(ncid);
}

int ncmpi_close(int ncid) {
  Master *m = masterOf(ncid);
  if (!m)
    return REAL(ncmpi_close)(ncid);
  if (!m->partitioned) // created with the hint but never ended define mode
    ncmpi_enddef(ncid);
  // Nonblocking requests of partitioned variables never waited for: as
  // PnetCDF 1.12.3's ncmpio_close (built without COMPLETE_NONBLOCKING_IO),
  // this rank warns, cancels them and returns NC_EPENDING. Cancelling is
  // local, so the ranks need not agree; every rank still takes the same
  // collective path below.
  int status = NC_NOERR;
  std::vector<int> gets, puts;
  for (const Op &op : m->pending) {
    auto &ids = op.write ? puts : gets;
    if (std::find(ids.begin(), ids.end(), op.req) == ids.end())
      ids.push_back(op.req);
  }
  for (auto [n, kind] : {std::pair{gets.size(), "get"}, std::pair{puts.size(), "put"}})
    if (n > 0) {
      std::fprintf(stderr,
                   "sio-pnetcdf: warning: %zu nonblocking %s requests of partitioned variables still pending on "
                   "process %d at ncmpi_close. Cancelling ...\n",
                   n, kind, m->rank);
      status = NC_EPENDING;
    }
  m->pending.clear();
  closePartitions(*m); // m->comm is kept for the next file (privateComm)
  masters().erase(ncid);
  int err = REAL(ncmpi_close)(ncid);
  return status != NC_NOERR ? status : err;
}

// The bytes moved so far: the unpartitioned file's count (Master::putBytes).
int ncmpi_inq_put_size(int ncid, MPI_Offset *size) {
  int err = REAL(ncmpi_inq_put_size)(ncid, size);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && size)
    *size += m->putBytes + m->headerDelta;
  return err;
}

int ncmpi_inq_get_size(int ncid, MPI_Offset *size) {
  int err = REAL(ncmpi_inq_get_size)(ncid, size);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && size)
    *size += m->getBytes;
  return err;
}

int ncmpi_sync(int ncid) {
  Master *m = masterOf(ncid);
  int err = m ? forEachOwnedPart(*m, REAL(ncmpi_sync)) : NC_NOERR;
  int e = REAL(ncmpi_sync)(ncid);
  return err != NC_NOERR ? err : e;
}

int ncmpi_begin_indep_data(int ncid) {
  Master *m = masterOf(ncid);
  int err = m ? forEachOwnedPart(*m, REAL(ncmpi_begin_indep_data)) : NC_NOERR;
  int e = REAL(ncmpi_begin_indep_data)(ncid);
  if (m && e == NC_NOERR)
    m->indep = true;
  return err != NC_NOERR ? err : e;
}

int ncmpi_end_indep_data(int ncid) {
  Master *m = masterOf(ncid);
  int err = NC_NOERR;
  if (m) {
    // What this rank wrote alone reaches the file before collective access resumes.
    for (auto &[p, self] : m->selfNcid) {
      int e = REAL(ncmpi_sync)(self);
      if (e != NC_NOERR && err == NC_NOERR)
        err = e;
    }
    int e = forEachOwnedPart(*m, REAL(ncmpi_end_indep_data));
    if (e != NC_NOERR && err == NC_NOERR)
      err = e;
    m->indep = false;
  }
  int e = REAL(ncmpi_end_indep_data)(ncid);
  return err != NC_NOERR ? err : e;
}

// The original shape of a partitioned variable, as the application defined it.
/// The attributes sio adds to a partitioned variable's placeholder at
/// ncmpi_enddef (num_partitions, ndims_org, dimids_org, partition_dim), after
/// the application's (define mode cannot be reentered): hidden from the
/// attribute count and indices.
static int bookkeepingAtts(int ncid, int varid) {
  Master *m = masterOf(ncid);
  return m && m->partitioned && m->vars.count(varid) ? 4 : 0;
}

int ncmpi_inq_varnatts(int ncid, int varid, int *nattsp) {
  int err = REAL(ncmpi_inq_varnatts)(ncid, varid, nattsp);
  if (err == NC_NOERR && nattsp)
    *nattsp -= bookkeepingAtts(ncid, varid);
  return err;
}

int ncmpi_inq_attname(int ncid, int varid, int attnum, char *name) {
  if (int hidden = bookkeepingAtts(ncid, varid)) {
    int natts = 0;
    int err = REAL(ncmpi_inq_varnatts)(ncid, varid, &natts);
    if (err != NC_NOERR)
      return err;
    if (attnum >= natts - hidden)
      return NC_ENOTATT;
  }
  return REAL(ncmpi_inq_attname)(ncid, varid, attnum, name);
}

int ncmpi_inq_var(int ncid, int varid, char *name, nc_type *xtypep, int *ndimsp, int *dimidsp, int *nattsp) {
  Master *m = masterOf(ncid);
  auto it = m ? m->vars.find(varid) : decltype(m->vars.end()){};
  if (!m || it == m->vars.end())
    return REAL(ncmpi_inq_var)(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp);
  int err = REAL(ncmpi_inq_var)(ncid, varid, name, xtypep, nullptr, nullptr, nattsp);
  if (err == NC_NOERR && nattsp)
    *nattsp -= bookkeepingAtts(ncid, varid);
  if (ndimsp)
    *ndimsp = int(it->second.dimids.size());
  if (dimidsp)
    std::copy(it->second.dimids.begin(), it->second.dimids.end(), dimidsp);
  return err;
}

int ncmpi_inq_varndims(int ncid, int varid, int *ndimsp) {
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, ndimsp, nullptr, nullptr);
}

int ncmpi_inq_vardimid(int ncid, int varid, int *dimidsp) {
  return ncmpi_inq_var(ncid, varid, nullptr, nullptr, nullptr, dimidsp, nullptr);
}

// The record dimension's length counts the records in the partitions.
int ncmpi_inq_dimlen(int ncid, int dimid, MPI_Offset *lenp) {
  int err = REAL(ncmpi_inq_dimlen)(ncid, dimid, lenp);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && m->partitioned && dimid == m->unlimdim && lenp)
    *lenp = std::max<MPI_Offset>(*lenp, m->numrecs);
  return err;
}

int ncmpi_inq_dim(int ncid, int dimid, char *name, MPI_Offset *lenp) {
  int err = REAL(ncmpi_inq_dim)(ncid, dimid, name, lenp);
  Master *m = masterOf(ncid);
  if (err == NC_NOERR && m && m->partitioned && dimid == m->unlimdim && lenp)
    *lenp = std::max<MPI_Offset>(*lenp, m->numrecs);
  return err;
}

int ncmpi_wait_all(int ncid, int num, int *reqs, int *statuses) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return REAL(ncmpi_wait_all)(ncid, num, reqs, statuses);
  // Ours are transformed collectively (a request of a list form is several
  // operations); PnetCDF's own (on master variables) go to PnetCDF.
  std::vector<Op> ops;
  std::vector<int> realReqs, realPos, opPos; // opPos: the reqs[] index of each operation
  if (num == NC_REQ_ALL) {
    ops = std::move(m->pending);
    m->pending.clear();
  } else {
    for (int i = 0; i < num; ++i) {
      if (reqs[i] < kReqBase) {
        realReqs.push_back(reqs[i]);
        realPos.push_back(i);
        continue;
      }
      size_t before = ops.size();
      for (auto it = m->pending.begin(); it != m->pending.end();) {
        if (it->req != reqs[i]) {
          ++it;
          continue;
        }
        ops.push_back(std::move(*it));
        opPos.push_back(i);
        it = m->pending.erase(it);
      }
      if (statuses)
        statuses[i] = ops.size() == before ? NC_EINVAL_REQUEST : NC_NOERR;
    }
  }
  std::vector<int> realSt(realReqs.size());
  MasterWait master;
  master.wait = [&] {
    return num == NC_REQ_ALL ? REAL(ncmpi_wait_all)(ncid, NC_REQ_ALL, nullptr, nullptr)
                             : REAL(ncmpi_wait_all)(ncid, int(realReqs.size()), realReqs.data(), realSt.data());
  };
  int nreqs = 0;
  master.pending = num == NC_REQ_ALL ? ncmpi_inq_nreqs(ncid, &nreqs) != NC_NOERR || nreqs > 0 : !realReqs.empty();
  // In independent data mode PnetCDF's wait_all returns NC_EINDEP: called as before.
  if (m->indep)
    master.err = master.wait();
  std::vector<int> st;
  int e = runOps(*m, ops, &st, NC_NOERR, m->indep ? nullptr : &master);
  int err = master.err;
  if (num != NC_REQ_ALL) {
    for (size_t i = 0; i < realPos.size(); ++i) {
      reqs[realPos[i]] = NC_REQ_NULL;
      if (statuses)
        statuses[realPos[i]] = realSt[i];
    }
    for (size_t i = 0; i < opPos.size(); ++i) {
      reqs[opPos[i]] = NC_REQ_NULL;
      if (statuses && statuses[opPos[i]] == NC_NOERR)
        statuses[opPos[i]] = st[i] != NC_NOERR ? st[i] : e;
    }
  }
  return err != NC_NOERR ? err : e;
}

/// ncmpi_wait is independent: in independent data mode a rank completes its
/// own requests on partitioned variables itself, as the independent forms do.
int ncmpi_wait(int ncid, int num, int *reqs, int *statuses) {
  Master *m = masterOf(ncid);
  bool ours = false;
  for (int i = 0; m && m->partitioned && num != NC_REQ_ALL && i < num; ++i)
    ours |= reqs[i] >= kReqBase;
  if (m && m->partitioned && num == NC_REQ_ALL)
    ours = !m->pending.empty();
  if (!ours)
    return REAL(ncmpi_wait)(ncid, num, reqs, statuses);
  if (!m->indep) {
    std::fprintf(stderr,
                 "sio-pnetcdf: error: ncmpi_wait on requests of partitioned variables in collective data "
                 "mode: use ncmpi_wait_all, or ncmpi_begin_indep_data first (%s)\n",
                 ncmpi_strerror(NC_ENOTSUPPORT));
    return NC_ENOTSUPPORT;
  }
  int err = NC_NOERR;
  auto complete = [&](int id) {
    int status = NC_EINVAL_REQUEST;
    for (auto it = m->pending.begin(); it != m->pending.end();) {
      if (it->req != id) {
        ++it;
        continue;
      }
      int e = it->var->record ? refuse("ncmpi_wait", *it->var, NC_ENOTSUPPORT,
                                       "independent access to a partitioned record variable")
                              : runIndependent(*m, *it);
      status = status == NC_EINVAL_REQUEST || status == NC_NOERR ? e : status;
      it = m->pending.erase(it);
    }
    return status;
  };
  if (num == NC_REQ_ALL) {
    std::vector<int> ids;
    for (auto &op : m->pending)
      if (ids.empty() || ids.back() != op.req)
        ids.push_back(op.req);
    for (int id : ids)
      if (int e = complete(id); e != NC_NOERR && err == NC_NOERR)
        err = e;
    int e = REAL(ncmpi_wait)(ncid, NC_REQ_ALL, nullptr, nullptr);
    return err != NC_NOERR ? err : e;
  }
  std::vector<int> realReqs, realPos;
  for (int i = 0; i < num; ++i) {
    if (reqs[i] < kReqBase) {
      realReqs.push_back(reqs[i]);
      realPos.push_back(i);
      continue;
    }
    int s = complete(reqs[i]);
    if (statuses)
      statuses[i] = s;
    reqs[i] = NC_REQ_NULL;
  }
  std::vector<int> st(realReqs.size());
  int e = REAL(ncmpi_wait)(ncid, int(realReqs.size()), realReqs.data(), st.data());
  for (size_t i = 0; i < realPos.size(); ++i) {
    reqs[realPos[i]] = NC_REQ_NULL;
    if (statuses)
      statuses[realPos[i]] = st[i];
  }
  return err != NC_NOERR ? err : e;
}

int ncmpi_cancel(int ncid, int num, int *reqs, int *statuses) {
  Master *m = masterOf(ncid);
  if (!m || !m->partitioned)
    return REAL(ncmpi_cancel)(ncid, num, reqs, statuses);
  std::vector<int> realReqs, realPos;
  for (int i = 0; num != NC_REQ_ALL && i < num; ++i) {
    if (reqs[i] >= kReqBase) {
      std::erase_if(m->pending, [&](const Op &o) { return o.req == reqs[i]; });
      reqs[i] = NC_REQ_NULL;
      if (statuses)
        statuses[i] = NC_NOERR;
    } else {
      realReqs.push_back(reqs[i]);
      realPos.push_back(i);
    }
  }
  if (num == NC_REQ_ALL) {
    m->pending.clear();
    return REAL(ncmpi_cancel)(ncid, num, reqs, statuses);
  }
  std::vector<int> st(realReqs.size());
  int err = REAL(ncmpi_cancel)(ncid, int(realReqs.size()), realReqs.data(), st.data());
  for (size_t i = 0; i < realPos.size(); ++i) {
    reqs[realPos[i]] = NC_REQ_NULL;
    if (statuses)
      statuses[realPos[i]] = st[i];
  }
  return err;
}

// --- data access -------------------------------------------------------------
// Every put/get form of PnetCDF 1.12.3 that names a variable is interposed.
// On a variable that is not partitioned it goes to PnetCDF unchanged; on a
// partitioned one it becomes a list of accesses (one for the var, var1, vara,
// vars and varm forms, one per subarray for varn, one per partitioned
// variable for the mput/mget forms) run by the helper of its kind:
// collective, independent, nonblocking or buffered. Only vard (an MPI
// filetype over the file layout) is refused.

// The index arguments of each single-variable form: parameters, the same as
// arguments, and as Access fields (start, count, stride, imap).
#define SIO_IDX_PARAMS_var
#define SIO_IDX_PARAMS_var1 const MPI_Offset *start,
#define SIO_IDX_PARAMS_vara const MPI_Offset *start, const MPI_Offset *count,
#define SIO_IDX_PARAMS_vars const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride,
#define SIO_IDX_PARAMS_varm                                                                                            \
  const MPI_Offset *start, const MPI_Offset *count, const MPI_Offset *stride, const MPI_Offset *imap,
#define SIO_IDX_ARGS_var
#define SIO_IDX_ARGS_var1 start,
#define SIO_IDX_ARGS_vara start, count,
#define SIO_IDX_ARGS_vars start, count, stride,
#define SIO_IDX_ARGS_varm start, count, stride, imap,
#define SIO_IDX_ACCESS_var nullptr, nullptr, nullptr, nullptr
#define SIO_IDX_ACCESS_var1 start, kVar1, nullptr, nullptr
#define SIO_IDX_ACCESS_vara start, count, nullptr, nullptr
#define SIO_IDX_ACCESS_vars start, count, stride, nullptr
#define SIO_IDX_ACCESS_varm start, count, stride, imap

// Typed single-variable forms of kind K: put/get, collective (_all) and
// independent; iput/iget (nonblocking) and bput (buffered).
#define SIO_TYPED(K, T, C)                                                                                             \
  int ncmpi_put_##K##_##T##_all(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op) {                                 \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_put_##K##_##T##_all)(ncid, varid, SIO_IDX_ARGS_##K op); },      \
        [&](int *req) { return REAL(ncmpi_iput_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op, req); },                   \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T});              \
        });                                                                                                            \
  }                                                                                                                    \
  int ncmpi_get_##K##_##T##_all(int ncid, int varid, SIO_IDX_PARAMS_##K C *ip) {                                       \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_get_##K##_##T##_all)(ncid, varid, SIO_IDX_ARGS_##K ip); },      \
        [&](int *req) { return REAL(ncmpi_iget_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K ip, req); },                   \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid, {false, SIO_IDX_ACCESS_##K, ip, kType_##T});             \
        });                                                                                                            \
  }                                                                                                                    \
  int ncmpi_put_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op) {                                       \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_put_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op);                                              \
    return accessOne(__func__, Mode::Independent, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T});             \
  }                                                                                                                    \
  int ncmpi_get_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K C *ip) {                                             \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_get_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K ip);                                              \
    return accessOne(__func__, Mode::Independent, ncid, varid, {false, SIO_IDX_ACCESS_##K, ip, kType_##T});            \
  }                                                                                                                    \
  int ncmpi_iput_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op, int *req) {                            \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iput_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op, req);                                        \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T}, req);        \
  }                                                                                                                    \
  int ncmpi_iget_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K C *ip, int *req) {                                  \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iget_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K ip, req);                                        \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid, {false, SIO_IDX_ACCESS_##K, ip, kType_##T}, req);       \
  }                                                                                                                    \
  int ncmpi_bput_##K##_##T(int ncid, int varid, SIO_IDX_PARAMS_##K const C *op, int *req) {                            \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_bput_##K##_##T)(ncid, varid, SIO_IDX_ARGS_##K op, req);                                        \
    return accessOne(__func__, Mode::Buffered, ncid, varid, {true, SIO_IDX_ACCESS_##K, op, kType_##T}, req);           \
  }

// The same in the flexible API (buffer, bufcount, MPI datatype).
#define SIO_FLEX_BUF const void *op, MPI_Offset bufcount, MPI_Datatype buftype
#define SIO_FLEX(K)                                                                                                    \
  int ncmpi_put_##K##_all(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF) {                                      \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid,                                                                                         \
        [&] { return REAL(ncmpi_put_##K##_all)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype); },                \
        [&](int *req) { return REAL(ncmpi_iput_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype, req); },      \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid,                                                          \
                           {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype});                              \
        });                                                                                                            \
  }                                                                                                                    \
  int ncmpi_get_##K##_all(int ncid, int varid, SIO_IDX_PARAMS_##K void *ip, MPI_Offset bufcount,                       \
                          MPI_Datatype buftype) {                                                                      \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid,                                                                                         \
        [&] { return REAL(ncmpi_get_##K##_all)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype); },                \
        [&](int *req) { return REAL(ncmpi_iget_##K)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype, req); },      \
        [&](const char *fn) {                                                                                          \
          return accessOne(fn, Mode::Collective, ncid, varid,                                                          \
                           {false, SIO_IDX_ACCESS_##K, ip, kFlexible, bufcount, buftype});                             \
        });                                                                                                            \
  }                                                                                                                    \
  int ncmpi_put_##K(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF) {                                            \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_put_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype);                                 \
    return accessOne(__func__, Mode::Independent, ncid, varid,                                                         \
                     {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype});                                    \
  }                                                                                                                    \
  int ncmpi_get_##K(int ncid, int varid, SIO_IDX_PARAMS_##K void *ip, MPI_Offset bufcount, MPI_Datatype buftype) {     \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_get_##K)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype);                                 \
    return accessOne(__func__, Mode::Independent, ncid, varid,                                                         \
                     {false, SIO_IDX_ACCESS_##K, ip, kFlexible, bufcount, buftype});                                   \
  }                                                                                                                    \
  int ncmpi_iput_##K(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF, int *req) {                                 \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iput_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype, req);                           \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid,                                                         \
                     {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype}, req);                               \
  }                                                                                                                    \
  int ncmpi_iget_##K(int ncid, int varid, SIO_IDX_PARAMS_##K void *ip, MPI_Offset bufcount, MPI_Datatype buftype,      \
                     int *req) {                                                                                       \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iget_##K)(ncid, varid, SIO_IDX_ARGS_##K ip, bufcount, buftype, req);                           \
    return accessOne(__func__, Mode::Nonblocking, ncid, varid,                                                         \
                     {false, SIO_IDX_ACCESS_##K, ip, kFlexible, bufcount, buftype}, req);                              \
  }                                                                                                                    \
  int ncmpi_bput_##K(int ncid, int varid, SIO_IDX_PARAMS_##K SIO_FLEX_BUF, int *req) {                                 \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_bput_##K)(ncid, varid, SIO_IDX_ARGS_##K op, bufcount, buftype, req);                           \
    return accessOne(__func__, Mode::Buffered, ncid, varid,                                                            \
                     {true, SIO_IDX_ACCESS_##K, op, kFlexible, bufcount, buftype}, req);                               \
  }

// The list forms (varn), typed and flexible.
#define SIO_VARN_PARAMS int ncid, int varid, int num, MPI_Offset *const *starts, MPI_Offset *const *counts
#define SIO_PNC_TYPE(T, C, M)                                                                                          \
  SIO_TYPED(var, T, C)                                                                                                 \
  SIO_TYPED(var1, T, C)                                                                                                \
  SIO_TYPED(vara, T, C)                                                                                                \
  SIO_TYPED(vars, T, C)                                                                                                \
  SIO_TYPED(varm, T, C)                                                                                                \
  int ncmpi_put_varn_##T##_all(SIO_VARN_PARAMS, const C *buf) {                                                        \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_put_varn_##T##_all)(ncid, varid, num, starts, counts, buf); },  \
        [&](int *req) { return REAL(ncmpi_iput_varn_##T)(ncid, varid, num, starts, counts, buf, req); },               \
        [&](const char *fn) {                                                                                          \
          return accessN(fn, Mode::Collective, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T});  \
        });                                                                                                            \
  }                                                                                                                    \
  int ncmpi_get_varn_##T##_all(SIO_VARN_PARAMS, C *buf) {                                                              \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(ncmpi_get_varn_##T##_all)(ncid, varid, num, starts, counts, buf); },  \
        [&](int *req) { return REAL(ncmpi_iget_varn_##T)(ncid, varid, num, starts, counts, buf, req); },               \
        [&](const char *fn) {                                                                                          \
          return accessN(fn, Mode::Collective, ncid, varid, num, starts, counts, {false, SIO_NO_IDX, buf, kType_##T}); \
        });                                                                                                            \
  }                                                                                                                    \
  int ncmpi_put_varn_##T(SIO_VARN_PARAMS, const C *buf) {                                                              \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_put_varn_##T)(ncid, varid, num, starts, counts, buf);                                          \
    return accessN(__func__, Mode::Independent, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T}); \
  }                                                                                                                    \
  int ncmpi_get_varn_##T(SIO_VARN_PARAMS, C *buf) {                                                                    \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_get_varn_##T)(ncid, varid, num, starts, counts, buf);                                          \
    return accessN(__func__, Mode::Independent, ncid, varid, num, starts, counts,                                      \
                   {false, SIO_NO_IDX, buf, kType_##T});                                                               \
  }                                                                                                                    \
  int ncmpi_iput_varn_##T(SIO_VARN_PARAMS, const C *buf, int *req) {                                                   \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iput_varn_##T)(ncid, varid, num, starts, counts, buf, req);                                    \
    return accessN(__func__, Mode::Nonblocking, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T},  \
                   req);                                                                                               \
  }                                                                                                                    \
  int ncmpi_iget_varn_##T(SIO_VARN_PARAMS, C *buf, int *req) {                                                         \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_iget_varn_##T)(ncid, varid, num, starts, counts, buf, req);                                    \
    return accessN(__func__, Mode::Nonblocking, ncid, varid, num, starts, counts, {false, SIO_NO_IDX, buf, kType_##T}, \
                   req);                                                                                               \
  }                                                                                                                    \
  int ncmpi_bput_varn_##T(SIO_VARN_PARAMS, const C *buf, int *req) {                                                   \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(ncmpi_bput_varn_##T)(ncid, varid, num, starts, counts, buf, req);                                    \
    return accessN(__func__, Mode::Buffered, ncid, varid, num, starts, counts, {true, SIO_NO_IDX, buf, kType_##T},     \
                   req);                                                                                               \
  }
#define SIO_NO_IDX nullptr, nullptr, nullptr, nullptr
#include "Types.def"

SIO_FLEX(var)
SIO_FLEX(var1)
SIO_FLEX(vara)
SIO_FLEX(vars)
SIO_FLEX(varm)

#define SIO_FLEX_VARN(name, mode, write, bufparam, ...)                                                                \
  int name(SIO_VARN_PARAMS, bufparam, MPI_Offset bufcount, MPI_Datatype buftype __VA_OPT__(, int *req)) {              \
    if (!partitionedVar(ncid, varid))                                                                                  \
      return REAL(name)(ncid, varid, num, starts, counts, buf, bufcount, buftype __VA_OPT__(, req));                   \
    return accessN(__func__, mode, ncid, varid, num, starts, counts,                                                   \
                   {write, SIO_NO_IDX, buf, kFlexible, bufcount, buftype} __VA_OPT__(, req));                          \
  }
#define SIO_FLEX_VARN_ALL(name, iname, write, bufparam)                                                                \
  int name(SIO_VARN_PARAMS, bufparam, MPI_Offset bufcount, MPI_Datatype buftype) {                                     \
    return collectiveForm(                                                                                             \
        __func__, ncid, varid, [&] { return REAL(name)(ncid, varid, num, starts, counts, buf, bufcount, buftype); },   \
        [&](int *req) { return REAL(iname)(ncid, varid, num, starts, counts, buf, bufcount, buftype, req); },          \
        [&](const char *fn) {                                                                                          \
          return accessN(fn, Mode::Collective, ncid, varid, num, starts, counts,                                       \
                         {write, SIO_NO_IDX, buf, kFlexible, bufcount, buftype});                                      \
        });                                                                                                            \
  }
SIO_FLEX_VARN_ALL(ncmpi_put_varn_all, ncmpi_iput_varn, true, const void *buf)
SIO_FLEX_VARN_ALL(ncmpi_get_varn_all, ncmpi_iget_varn, false, void *buf)
SIO_FLEX_VARN(ncmpi_put_varn, Mode::Independent, true, const void *buf)
SIO_FLEX_VARN(ncmpi_get_varn, Mode::Independent, false, void *buf)
SIO_FLEX_VARN(ncmpi_iput_varn, Mode::Nonblocking, true, const void *buf, req)
SIO_FLEX_VARN(ncmpi_iget_varn, Mode::Nonblocking, false, void *buf, req)
SIO_FLEX_VARN(ncmpi_bput_varn, Mode::Buffered, true, const void *buf, req)

// vard: the access is an MPI filetype over the variable's layout in one file,
// which has no counterpart in the partitions.
#define SIO_VARD(name, bufparam)                                                                                       \
  int name(int ncid, int varid, MPI_Datatype filetype, bufparam, MPI_Offset bufcount, MPI_Datatype buftype) {          \
    Master *m = nullptr;                                                                                               \
    const PVar *v = partitionedVar(ncid, varid, &m);                                                                   \
    if (!v)                                                                                                            \
      return REAL(name)(ncid, varid, filetype, buf, bufcount, buftype);                                                \
    return refuse(__func__, *v, NC_ENOTSUPPORT, "an MPI filetype describes one file's layout, not the partitions'");   \
  }
SIO_VARD(ncmpi_put_vard, const void *buf)
SIO_VARD(ncmpi_get_vard, void *buf)

// The collective vard forms: refused on every rank when any names a
// partitioned variable (agreed, so no rank waits in PnetCDF's collective).
#define SIO_VARD_ALL(name, bufparam)                                                                                   \
  int name(int ncid, int varid, MPI_Datatype filetype, bufparam, MPI_Offset bufcount, MPI_Datatype buftype) {          \
    Master *m = masterOf(ncid);                                                                                        \
    const PVar *v = partitionedVar(ncid, varid);                                                                       \
    int any = v != nullptr;                                                                                            \
    if (m && m->partitioned && !m->indep)                                                                              \
      MPI_Allreduce(MPI_IN_PLACE, &any, 1, MPI_INT, MPI_MAX, m->comm);                                                 \
    if (!any)                                                                                                          \
      return REAL(name)(ncid, varid, filetype, buf, bufcount, buftype);                                                \
    if (!v) {                                                                                                          \
      std::fprintf(stderr, "sio-pnetcdf: error: %s: another rank named a partitioned variable (%s)\n", __func__,       \
                   ncmpi_strerror(NC_ENOTSUPPORT));                                                                    \
      return NC_ENOTSUPPORT;                                                                                           \
    }                                                                                                                  \
    return refuse(__func__, *v, NC_ENOTSUPPORT, "an MPI filetype describes one file's layout, not the partitions'");   \
  }
SIO_VARD_ALL(ncmpi_put_vard_all, const void *buf)
SIO_VARD_ALL(ncmpi_get_vard_all, void *buf)

// The multi-variable forms (mput/mget of var, var1, vara, vars, varm; typed
// and flexible; collective and independent).
#define SIO_MPARAMS_var
#define SIO_MPARAMS_var1 MPI_Offset *const *starts,
#define SIO_MPARAMS_vara MPI_Offset *const *starts, MPI_Offset *const *counts,
#define SIO_MPARAMS_vars MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides,
#define SIO_MPARAMS_varm                                                                                               \
  MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides, MPI_Offset *const *imaps,
#define SIO_MARGS_var
#define SIO_MARGS_var1 starts,
#define SIO_MARGS_vara starts, counts,
#define SIO_MARGS_vars starts, counts, strides,
#define SIO_MARGS_varm starts, counts, strides, imaps,
#define SIO_MIDX_var nullptr, nullptr, nullptr, nullptr
#define SIO_MIDX_var1 starts, nullptr, nullptr, nullptr
#define SIO_MIDX_vara starts, counts, nullptr, nullptr
#define SIO_MIDX_vars starts, counts, strides, nullptr
#define SIO_MIDX_varm starts, counts, strides, imaps

bool partitionedMaster(int ncid) {
  Master *m = masterOf(ncid);
  return m && m->partitioned;
}

#define SIO_MULTI_ONE(name, K, kind, write, coll, bufparams, bufargs, type, bufcounts, buftypes)                       \
  int name(int ncid, int nvars, int *varids, SIO_MPARAMS_##K bufparams) {                                              \
    if (!partitionedMaster(ncid))                                                                                      \
      return REAL(name)(ncid, nvars, varids, SIO_MARGS_##K bufargs);                                                   \
    return multi(__func__, kind, write, coll, ncid, nvars, varids, SIO_MIDX_##K, bufs, bufcounts, buftypes, type);     \
  }
#define SIO_MULTI_TYPED(K, kind, T, C)                                                                                 \
  SIO_MULTI_ONE(ncmpi_mput_##K##_##T##_all, K, kind, true, true, C *const *bufs, bufs, kType_##T, nullptr, nullptr)    \
  SIO_MULTI_ONE(ncmpi_mput_##K##_##T, K, kind, true, false, C *const *bufs, bufs, kType_##T, nullptr, nullptr)         \
  SIO_MULTI_ONE(ncmpi_mget_##K##_##T##_all, K, kind, false, true, C **bufs, bufs, kType_##T, nullptr, nullptr)         \
  SIO_MULTI_ONE(ncmpi_mget_##K##_##T, K, kind, false, false, C **bufs, bufs, kType_##T, nullptr, nullptr)
#define SIO_MULTI_FLEX(K, kind)                                                                                        \
  SIO_MULTI_ONE(ncmpi_mput_##K##_all, K, kind, true, true,                                                             \
                void *const *bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,        \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)                           \
  SIO_MULTI_ONE(ncmpi_mput_##K, K, kind, true, false,                                                                  \
                void *const *bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,        \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)                           \
  SIO_MULTI_ONE(ncmpi_mget_##K##_all, K, kind, false, true,                                                            \
                void **bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,              \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)                           \
  SIO_MULTI_ONE(ncmpi_mget_##K, K, kind, false, false,                                                                 \
                void **bufs SIO_COMMA const MPI_Offset *bufcounts SIO_COMMA const MPI_Datatype *buftypes,              \
                bufs SIO_COMMA bufcounts SIO_COMMA buftypes, kFlexible, bufcounts, buftypes)
#define SIO_COMMA ,

SIO_MULTI_FLEX(var, Multi::Var)
SIO_MULTI_FLEX(var1, Multi::Var1)
SIO_MULTI_FLEX(vara, Multi::Vara)
SIO_MULTI_FLEX(vars, Multi::Vars)
SIO_MULTI_FLEX(varm, Multi::Varm)
#define SIO_PNC_TYPE(T, C, M)                                                                                          \
  SIO_MULTI_TYPED(var, Multi::Var, T, C)                                                                               \
  SIO_MULTI_TYPED(var1, Multi::Var1, T, C)                                                                             \
  SIO_MULTI_TYPED(vara, Multi::Vara, T, C)                                                                             \
  SIO_MULTI_TYPED(vars, Multi::Vars, T, C)                                                                             \
  SIO_MULTI_TYPED(varm, Multi::Varm, T, C)
#include "Types.def"

} // extern "C"
