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
//
// The library's parts, one concept a file, share the state below (this
// header is internal, not installed):
//   RealPnetcdf.cpp     PnetCDF's own functions, behind the interposed names
//   MemoryTypes.cpp     memory types of the API calls, external types' sizes
//   State.cpp           the masters open with partitioning, sio's
//                       communicators, the SIO_PART_REPORT report
//   Hints.cpp           the partitioning hints
//   Ownership.cpp       which ranks own a partition, who serves a request
//   Exchange.cpp        the collective transformation (§III-C): runOps
//   Access.cpp          a call's accesses as operations: collective,
//                       independent, nonblocking, buffered, multi-variable
//   ProbeTargets.cpp    the storage targets' probe (§III-A)
//   PartitionFiles.cpp  the partitioned layout, its files created, opened
//                       and closed (§III-B)
//   ApiFile.cpp         the interposed file, define and inquire calls
//   ApiRequests.cpp     the interposed wait and cancel calls
//   ApiData.cpp         the interposed put/get forms
// The library's symbols are hidden (CXX_VISIBILITY_PRESET): only the
// interposed ncmpi_* functions, marked SIO_PNC_API, are exported.
#pragma once

#include "sio/part/Probe.h"
#include "sio/part/ProbeCache.h"
#include "sio/part/ProbeRounds.h"
#include "sio/part/Select.h"

#include <mpi.h>
#include <pnetcdf.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

/// The interposed PnetCDF functions: exported, the library's other symbols
/// are hidden.
#define SIO_PNC_API __attribute__((visibility("default")))

namespace sio::part::interpose {

// --- the real PnetCDF functions ------------------------------------------

/// PnetCDF's own function `name`: the next definition after this
/// library's. Aborts with a message when there is none.
void *resolveReal(const char *name);

#define REAL(fn)                                                                                                       \
  ([]() {                                                                                                              \
    static auto f = reinterpret_cast<decltype(&fn)>(resolveReal(#fn));                                                 \
    return f;                                                                                                          \
  }())

// --- memory types ------------------------------------------------------------

// The typed API's twelve, then the predefined types PnetCDF also accepts in
// the flexible API only (its dtype_filter): MPI_BYTE and MPI_UNSIGNED_LONG.
enum TypeIndex {
#define SIO_PNC_TYPE(suffix, ctype, mpitype) kType_##suffix,
#include "Types.def"
  kType_byte,
  kType_ulong,
  kNumTypes
};

extern const MPI_Datatype kTypes[kNumTypes];
extern const int kTypeSize[kNumTypes];

/// The memory type index of a predefined MPI datatype, with PnetCDF's
/// aliases (dtype_filter: MPI_LONG_LONG_INT, and the Fortran types when its
/// Fortran interface is built); -1 when PnetCDF does not support it.
int typeIndexOf(MPI_Datatype t);

/// The predefined type of kTypes that `t` stands for (typeIndexOf);
/// MPI_DATATYPE_NULL when PnetCDF does not support it.
MPI_Datatype canonicalType(MPI_Datatype t);

/// The bytes of one element of external type `t` in a netCDF file.
int64_t externalSize(nc_type t);

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

/// The master's global text attribute with the header layout settings the
/// unpartitioned file would have used: the layout hints (kLayoutHints,
/// Hints.cpp) and ncmpi__enddef's arguments (h_minfree, v_align, v_minfree,
/// r_align). sio-part-merge creates the merged file with them, so it is the
/// unpartitioned file byte for byte.
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

/// A bput request's share of the attached buffer, in external bytes as
/// PnetCDF counts it.
struct BufferShare {
  int req = -1;
  int64_t bytes = 0;
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
  /// This rank's bput requests on partitioned variables in posting order:
  /// PnetCDF's attached buffer is a stack, a share is given back when it and
  /// every share above it are done (bufferInUse).
  std::vector<BufferShare> bputShares;
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

/// The attached buffer's bytes held by this rank's bput requests on
/// partitioned variables, counted as PnetCDF counts its own: the shares up
/// to the last one still pending, the done ones above it given back first.
/// (PnetCDF's own bputs, on variables kept whole, are a stack of their own
/// here: with both kinds pending the usage is the sum of the two.)
int64_t bufferInUse(Master &m);

/// The number of pending nonblocking requests on partitioned variables (one
/// per request id, as PnetCDF counts a list request once).
int pendingRequests(const Master &m);

/// The files created or opened with partitioning, by ncid.
std::map<int, std::unique_ptr<Master>> &masters();

/// The master of `ncid`; null for a file without partitioning.
Master *masterOf(int ncid);

/// Variable `varid` of `ncid` when it is partitioned and its partitions
/// exist (sets *mp to the master); null otherwise.
const PVar *partitionedVar(int ncid, int varid, Master **mp = nullptr);

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
MPI_Comm privateComm(MPI_Comm comm);

/// Writes `line` on rank 0 when SIO_PART_REPORT is set: to stderr ("1",
/// "stderr"), else appended to the file it names.
void report(const Master &m, const std::string &line);

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

/// Reads the partitioning hints from the info object, then PNETCDF_HINTS
/// ("key=value;key=value", which wins as in PnetCDF). Returns an error text
/// for a malformed value.
std::string readHints(MPI_Info info, Hints &h);

// --- ownership: which ranks own partition p, who serves a request ----------

/// The delegate of partition p for requests of rank r: r itself when it owns
/// p, else the owners in turn, so every group serves the others evenly.
int delegateOf(const Part &part, int r);

/// Opens or creates the partitions this rank owns, each collectively over the
/// sub-communicator of its owners: with at least as many ranks as partitions
/// each rank's group (its ranks in order) made with MPI_Comm_create_group,
/// which synchronizes the group only, not every rank of the file as
/// MPI_Comm_split would (each collective over all ranks of a file waits for
/// the last to arrive: under an oversubscribed node the split took up to
/// 0.8 s per file at 8 ranks on 2 cores); a group of one is a duplicate of
/// MPI_COMM_SELF (no communication). MPI_COMM_SELF per partition otherwise.
void setUpPartComms(Master &m);

// --- the collective transformation (§III-C) -------------------------------

/// The elements of a request of `count`.
int64_t elements(const std::vector<int64_t> &count);

/// Checks an operation against its variable's shape as PnetCDF does
/// (NC_ESTRIDE, NC_EINVALCOORDS, NC_EEDGE).
int validate(const Op &op);

/// Counts a completed access for ncmpi_inq_put_size / ncmpi_inq_get_size:
/// its elements in the variable's external type, as PnetCDF counts the
/// bytes a request moves in the file.
void countBytes(Master &m, const Op &op);

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
           MasterWait *master = nullptr);

// --- accesses: what a call asks for, as operations of the transformation ---

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
int refuse(const char *fn, const PVar &v, int err, const char *why);

/// After a read operation: the mapped (varm) copy into the application's
/// layout, then, once every operation of a derived buffer type has
/// completed, the unpack into the application's buffer through its type.
void finishOp(Op &op, bool ok);

/// Independent access by one rank: no other rank takes part, so it reads or
/// writes each partition itself, through its own handle when it owns the
/// partition and otherwise through the partition file opened alone
/// (MPI_COMM_SELF, kept until close). Record variables are refused by the
/// caller: a second handle would keep its own record count in the
/// partition's header.
int runIndependent(Master &m, Op &op);

/// A collective call: every rank of the master takes part in the exchange,
/// with the accesses it prepared (none after an error, which all ranks then
/// return).
int collective(const char *fn, Master &m, const std::vector<Piece> &pieces, int err = NC_NOERR);

/// A single-variable call (var, var1, vara, vars, varm) on a partitioned variable.
int accessOne(const char *fn, Mode mode, int ncid, int varid, const Access &a, int *req = nullptr);

/// The list (varn) forms: num subarrays whose data follow one another in the
/// buffer; each is one access (a null count: one element, as var1).
int accessN(const char *fn, Mode mode, int ncid, int varid, int num, MPI_Offset *const *starts,
            MPI_Offset *const *counts, const Access &access, int *req = nullptr);

/// The multi-variable (mput/mget) forms on a partitioned master: the
/// partitioned variables' accesses go through the transformation, the others
/// to PnetCDF's own call of the same form with just those (a collective one
/// on every rank, even with none).
enum class Multi { Var, Var1, Vara, Vars, Varm };

int multi(const char *fn, Multi kind, bool write, bool coll, int ncid, int nvars, int *varids,
          MPI_Offset *const *starts, MPI_Offset *const *counts, MPI_Offset *const *strides, MPI_Offset *const *imaps,
          const void *bufs, const MPI_Offset *bufcounts, const MPI_Datatype *buftypes, int type);

// --- probing the storage targets (§III-A) ----------------------------------

/// Probes this rank's targets (t mod size == rank), one thread each, and
/// ends the round early for slow targets (Son et al. 2013 §III-A, with a
/// deadline): the first target to finish anywhere sets the deadline at
/// kProbeDeadlineFactor times its time. Within a rank the threads move it
/// themselves; across ranks each probing rank's main thread sends the time
/// its first target finished (infinity when none did) to the other probing
/// ranks and polls for theirs while its threads write. Only the main thread
/// calls MPI.
void probeRound(Master &m, const std::vector<std::string> &targets, size_t perTarget,
                std::vector<sio::part::ProbeResult> &results);

/// The probes kept for the next files of this process (sio/part/ProbeCache.h).
sio::part::ProbeCache &probeCache();

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
                sio::part::RoundsSelection &sel, double &age, double &probeSeconds);

// --- defining and creating the partitioned layout (§III-B) ----------------

/// At the master's enddef: probes the targets, chooses K and each
/// variable's cut, writes the master's metadata and creates the partitions.
/// Collective; every rank returns the worst error of any.
int createPartitions(Master &m);

/// Reads a partitioned master's metadata and opens the partitions this rank
/// owns. Returns NC_NOERR with m.partitioned false for an ordinary file.
int openPartitions(Master &m, int omode);

/// Closes this rank's partition handles (and those it opened alone) and
/// frees the owner groups' communicators.
void closePartitions(Master &m);

} // namespace sio::part::interpose
