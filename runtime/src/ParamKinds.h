// How each parameter kind of IoCalls.def (P(KIND, TYPE, name)) is recorded.
// Every kind has pre() (before the real call: records inputs, may veto
// recording, e.g. an fd whose open was not recorded) and post() (after it:
// outputs, new and released handles). All inline; no allocation except the
// first sight of a path, string or MPI object.
#pragma once

#include "PathProbe.h"
#include "Runtime.h"

#include <mpi.h>

#include <aio.h>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/uio.h>
#include <vector>
#include <wchar.h>

namespace sio::rt {

/// State of one intercepted call while its parameters are recorded.
struct Call {
  static constexpr int kInlineRequests = 16;
  Record *rec = nullptr;
  int64_t ret = 0;
  int64_t ints[4] = {};
  int nints = 0;
  int64_t comm = 0;
  int64_t peerComm = 0; ///< MPI_Intercomm_create's peer_comm
  int64_t dtype;        ///< MPI_Type_free's datatype (set by its pre(), left uninitialised)
  const int *arrays[2]; ///< IntArray parameters (topology arguments), left uninitialised
  int narrays = 0;
  int fd = -1;
  /// dup2/dup3: the codes of the source's and the target's files (-1: none).
  int32_t dupFromCode = -1, dupOntoCode = -1;
  /// The call reads or writes data (its return kind says so): a data call
  /// on a descriptor whose open was not recorded makes the trace inexact.
  bool movesData = false;
  /// freopen: the new name is not recorded (excluded), or there is none
  /// (a mode change of the same file).
  bool reopenExcluded = false, reopenSame = false;
  const void *text = nullptr; ///< fputs/puts string, fgets buffer
  FILE *posStream = nullptr;  ///< StreamPos: its position is read again after the call
  int64_t pos0 = -1;
  /// LineStream: the read pointer before an fgets whose line is in the
  /// stream's buffer (its bytes are then the pointer's advance).
  const char *lineStart = nullptr;
  const void *aioList = nullptr; ///< lio_listio's list, checked with its count
  const struct iovec *iov = nullptr;
  /// MPI calls read their paths before the call (pk::Path); POSIX and stdio
  /// calls after it, into these (settlePaths).
  bool mpi = false;
  int npaths = 0;
  const char *paths[2]; // left uninitialised
  uint8_t pathSlot[2];  // their slots in the record

  const void *fh = nullptr;
  /// A name the cap kept out of the file or string table (the cap was
  /// reached after the wrapper looked): the call counts as dropped.
  bool pastCap = false;
  /// Descriptor, stream and directory-stream codes released by finish()
  /// (indexed by pk::Table), -1 for none.
  int32_t released[3] = {-1, -1, -1};
  /// The I/O requests a Wait/Test family call was handed: the array and,
  /// per I/O request, its index there and its handle. The first few are kept
  /// inline (Call is built on every intercepted call); more spill into
  /// `moreRequests`, allocated only by a call given that many.
  MPI_Request *requests = nullptr;
  int nrequests = 0;
  int requestIndex[kInlineRequests]; // left uninitialised
  int64_t requestHandle[kInlineRequests];
  std::vector<std::pair<int, int64_t>> moreRequests;
  /// Stands in for MPI_STATUS_IGNORE so the bytes transferred can be read
  /// (pk::Status); left uninitialised like `requestIndex`.
  MPI_Status status;

  int64_t lastInt() const { return nints ? ints[nints - 1] : 0; }
  void noteRequest(MPI_Request *array, int index) {
    requests = array;
    if (nrequests < kInlineRequests) {
      requestIndex[nrequests] = index;
      requestHandle[nrequests++] = int64_t(array[index]);
    } else {
      moreRequests.emplace_back(index, int64_t(array[index]));
    }
  }
  /// After all post(): requests completed by Wait/Test stop being I/O requests.
  void finish() {
    if (released[0] >= 0)
      releaseFdCode(released[0]);
    if (released[1] >= 0)
      releaseStreamCode(released[1]);
    if (released[2] >= 0)
      releaseDirCode(released[2]);
    // MPI sets a request it completed (and freed) to MPI_REQUEST_NULL; only
    // those stop being I/O requests. One left in the table would later name
    // an unrelated request MPI hands out with the same handle.
    for (int i = 0; i < nrequests; ++i)
      if (requests[requestIndex[i]] == MPI_REQUEST_NULL)
        requestRelease(requestHandle[i]);
    for (const auto &[index, handle] : moreRequests)
      if (requests[index] == MPI_REQUEST_NULL)
        requestRelease(handle);
    if (fh)
      fhClose(fh);
  }
};

/// A parameter as the generated wrapper hands it over.
template <class K, class T> struct Arg {
  using Kind = K;
  const char *name;
  T value;
};

inline bool openNeedsMode(int flags) {
#ifdef O_TMPFILE
  return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
#else
  return flags & O_CREAT;
#endif
}

namespace pk {

/// What every kind does unless it says otherwise. A kind states in kSlots
/// how many record slots it fills at most (the base has none, so a kind
/// that forgets does not compile): the wrappers check at compile time that
/// no call of IoCalls.def can fill more than a Record holds (kMaxSlots).
struct KindBase {
  template <class T> static bool pre(Call &, const char *, T) { return true; }
  template <class T> static void post(Call &, const char *, T) {}
  /// The argument handed to the real function (a kind may substitute it).
  template <class T> static T pass(Call &, T v) { return v; }
};

struct Ign : KindBase {
  static constexpr int kSlots = 0;
};

struct Int : KindBase {
  static constexpr int kSlots = 1;
  template <class T> __attribute__((always_inline)) static bool pre(Call &c, const char *n, T v) {
    c.rec->add(n, int64_t(v));
    if (c.nints < 4)
      c.ints[c.nints++] = int64_t(v);
    return true;
  }
};

/// The variadic mode of open-like calls: present only with O_CREAT/O_TMPFILE.
struct VaMode : KindBase {
  static constexpr int kSlots = 1;
  template <class T> static bool pre(Call &c, const char *n, T v) {
    if (openNeedsMode(int(c.lastInt())))
      c.rec->add(n, int64_t(v));
    return true;
  }
};

/// Handles the runtime tables by their descriptor number: a file descriptor,
/// a stream (fileno) or a directory stream (dirfd). Recorded only if the
/// handle's open was. A closing kind takes the table entry before the real
/// close: once the close returns, the kernel may give the number to another
/// thread's open, whose entry a later clear would wipe (its calls then went
/// unrecorded until it reopened). On Linux close(), fclose() and closedir()
/// release the descriptor even when they fail. The code itself is released
/// after the call (Call::finish), so no other handle takes it meanwhile.
enum class Table { Fd, Stream, Dir }; // Call::released's order

template <Table T> struct TableOf;
template <> struct TableOf<Table::Fd> {
  static constexpr const char *kName = "fd"; ///< the new handle's name in the trace
  static int fdOf(int fd) { return fd; }
  static std::atomic<int32_t> *codes() { return g_fdCode; }
  static int32_t newCode() { return newFdCode(); }
};
template <> struct TableOf<Table::Stream> {
  static constexpr const char *kName = "stream";
  static int fdOf(FILE *s) { return s ? fileno_unlocked(s) : -1; }
  static std::atomic<int32_t> *codes() { return g_streamCode; }
  static int32_t newCode() { return newStreamCode(); }
};
template <> struct TableOf<Table::Dir> {
  static constexpr const char *kName = "dir";
  static int fdOf(DIR *d) { return d ? dirfd(d) : -1; }
  static std::atomic<int32_t> *codes() { return g_dirCode; }
  static int32_t newCode() { return newDirCode(); }
};

/// Stream buffer marks (StreamMarks): bytes that went through the buffer
/// between two recorded calls make the trace inexact.
/// glibc's _IO_IN_BACKUP (libio.h, not installed): an ungetc that could not
/// step back in the buffer moved the read pointer into a pushback area of
/// its own, which the next read leaves for the buffer again. Pointers in the
/// two areas do not compare: a read mark is compared only within one.
inline constexpr int kStreamInPushback = 0x100;
inline bool readsPushback(const FILE *s) { return (s->_flags & kStreamInPushback) != 0; }
inline void checkStreamMarks(FILE *s, int fd) {
  const StreamMarks &m = g_streamMarks[fd];
  const bool readMoved = m.read && m.readInPushback == readsPushback(s) && s->_IO_read_ptr > m.read;
  if ((m.write && s->_IO_write_ptr > m.write) || readMoved)
    noteInexact(Inexact::InlineStdio);
}
inline void setStreamMarks(FILE *s, int fd) {
  g_streamMarks[fd] = {s->_IO_write_ptr, s->_IO_read_ptr, readsPushback(s)};
}

template <Table T, bool Closing> struct TabledHandle : KindBase {
  static constexpr int kSlots = 1;
  template <class H> static void post(Call &c, const char *, H h) {
    if constexpr (T == Table::Stream && !Closing)
      if (h && c.fd >= 0)
        setStreamMarks(h, c.fd);
  }
  template <class H> static bool pre(Call &c, const char *n, H h) {
    const int fd = TableOf<T>::fdOf(h);
    if (unsigned(fd) >= unsigned(kMaxFd))
      return false;
    std::atomic<int32_t> &entry = TableOf<T>::codes()[fd];
    const int32_t code = Closing ? entry.exchange(0, std::memory_order_relaxed) : entry.load(std::memory_order_relaxed);
    if (code == 0) {
      // Not ours: the standard streams (0-2) by design, or a handle opened
      // before the runtime, inherited, or on an excluded path.
      if (c.movesData && fd > 2)
        noteUntrackedData(fd);
      if constexpr (Closing)
        forgetUntracked(fd);
      // The descriptor under an fopen stream (fopen gives it no code of its
      // own): closing it behind the stream's back is not recorded.
      if constexpr (Closing && T == Table::Fd)
        if (TableOf<Table::Stream>::codes()[fd].load(std::memory_order_relaxed) != 0)
          noteInexact(Inexact::StreamFdClosed);
      return false;
    }
    c.rec->add(n, code - 1);
    c.fd = fd;
    if constexpr (T == Table::Stream)
      checkStreamMarks(h, fd);
    if constexpr (Closing)
      c.released[int(T)] = code - 1;
    return true;
  }
};

using Fd = TabledHandle<Table::Fd, false>;
using FdClose = TabledHandle<Table::Fd, true>;
using Stream = TabledHandle<Table::Stream, false>;

/// A stream made by fdopen on a recorded descriptor holds that descriptor's
/// code too: closing or reopening the stream closes the descriptor, so its
/// code is released with the stream's and recorded as `fd`.
inline void takeFdCode(Call &c, int fd) {
  if (unsigned(fd) >= unsigned(kMaxFd))
    return;
  if (const int32_t code = g_fdCode[fd].exchange(0, std::memory_order_relaxed)) {
    c.rec->add("fd", code - 1);
    c.released[int(Table::Fd)] = code - 1;
  }
}

struct StreamClose : KindBase {
  static constexpr int kSlots = 2;
  static bool pre(Call &c, const char *n, FILE *s) {
    if (!TabledHandle<Table::Stream, true>::pre(c, n, s))
      return false;
    takeFdCode(c, c.fd);
    return true;
  }
};

/// freopen's file: recorded like any path; an excluded one (or none: a mode
/// change of the same file) is noted for StreamReopen, which decides.
struct ReopenPath : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, const char *path) {
    if (path == nullptr)
      c.reopenSame = true;
    else if (pathExcluded(path))
      c.reopenExcluded = true;
    else {
      const int64_t id = fileId(path); // as Path does
      c.pastCap |= id < 0;
      c.rec->add(n, id);
    }
    return true;
  }
};

/// freopen's stream: after the call it names the new file (a new `stream`
/// code, RetStream), so its old code is released. `oldstream` is that code,
/// or -1 for a stream whose open was not recorded (stdin, stdout, stderr),
/// with its descriptor as `oldfd` so a replay reopens the same one.
struct StreamReopen : KindBase {
  static constexpr int kSlots = 2;
  static bool pre(Call &c, const char *n, FILE *s) {
    if (c.reopenSame || s == nullptr)
      return false; // same file, same codes: nothing to record
    const int fd = fileno_unlocked(s);
    if (unsigned(fd) >= unsigned(kMaxFd))
      return false;
    const int32_t code = g_streamCode[fd].exchange(0, std::memory_order_relaxed);
    if (c.reopenExcluded) {
      // Not recorded, but the stream must stop naming its old file.
      if (code)
        releaseStreamCode(code - 1);
      if (const int32_t f = g_fdCode[fd].exchange(0, std::memory_order_relaxed))
        releaseFdCode(f - 1);
      return false;
    }
    c.rec->add(n, code - 1);
    if (code) {
      c.released[int(Table::Stream)] = code - 1;
      takeFdCode(c, fd);
    } else {
      c.rec->add("oldfd", fd);
    }
    return true;
  }
};

/// The stream position (the runtime's own ftello, never traced; -1 when the
/// stream has none: a pipe, a terminal).
inline int64_t streamPosition(FILE *s) {
  Blocked blk;
  return int64_t(ftello(s));
}

/// A stream whose position before and after the call gives the bytes moved
/// (RetPosDelta): scanf family and wide-character stdio, whose return value
/// counts conversions or characters.
struct StreamPos : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, FILE *s) {
    if (!Stream::pre(c, n, s))
      return false;
    c.posStream = s;
    c.pos0 = streamPosition(s);
    return true;
  }
  static void post(Call &c, const char *n, FILE *s) { Stream::post(c, n, s); }
};

/// fgets' stream. fgets stops at the first newline (or n - 1 bytes) and
/// refills the buffer only when it runs out first: when a newline is in the
/// buffer, the bytes it consumes are the read pointer's advance (lineStart),
/// read without a system call. Otherwise, as StreamPos: the position before
/// and after, an lseek each where glibc does not know the offset (a stream
/// opened for reading and never positioned), 2 x ~250 ns a call.
struct LineStream : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, FILE *s) {
    if (!Stream::pre(c, n, s))
      return false;
    c.posStream = s;
    const char *p = s ? s->_IO_read_ptr : nullptr;
    if (p && !readsPushback(s) && p < s->_IO_read_end && std::memchr(p, '\n', size_t(s->_IO_read_end - p)))
      c.lineStart = p;
    else
      c.pos0 = streamPosition(s);
    return true;
  }
  static void post(Call &c, const char *n, FILE *s) { Stream::post(c, n, s); }
};

/// The string of fputs/puts, the buffer of fgets: the bytes are its length.
struct Text : KindBase {
  static constexpr int kSlots = 0;
  template <class T> static bool pre(Call &c, const char *, T s) {
    c.text = s;
    return true;
  }
};
using LineBuf = Text;

/// The implicit stream of putchar, puts, printf (stdout) and scanf (stdin):
/// recorded as `stream` when it names a recorded file (after freopen), then
/// the parameter it rides on is handled by `Inner`.
template <bool Out, class S, class Inner> struct OnStd : KindBase {
  static constexpr int kSlots = S::kSlots + Inner::kSlots;
  template <class T> static bool pre(Call &c, const char *n, T v) {
    return S::pre(c, "stream", Out ? stdout : stdin) && Inner::pre(c, n, v);
  }
  template <class T> static void post(Call &c, const char *, T) { S::post(c, "stream", Out ? stdout : stdin); }
};
using StdoutIgn = OnStd<true, Stream, Ign>;
using StdoutText = OnStd<true, Stream, Text>;
using StdoutPos = OnStd<true, StreamPos, Ign>;
using StdinPos = OnStd<false, StreamPos, Ign>;

/// Ends recording: the calls below are never events.
struct Veto : KindBase {
  static constexpr int kSlots = 0;
  template <class T> static bool pre(Call &, const char *, T) { return false; }
};

/// A descriptor or stream the runtime follows (its open was recorded).
inline bool recordedFd(int fd) {
  return unsigned(fd) < unsigned(kMaxFd) &&
         (g_fdCode[fd].load(std::memory_order_relaxed) != 0 || g_streamCode[fd].load(std::memory_order_relaxed) != 0);
}

/// Data sio cannot follow (mapped memory, in-kernel copies): on a recorded
/// descriptor the trace becomes inexact. The call itself is not recorded
/// (its line ends with Veto).
template <Inexact Why> struct Unfollowed : KindBase {
  static constexpr int kSlots = 0;
  static bool pre(Call &, const char *, int fd) {
    if (recordedFd(fd))
      noteInexact(Why);
    return true;
  }
};
using MmapFd = Unfollowed<Inexact::Mmap>;
using CopyFd = Unfollowed<Inexact::KernelCopy>;

/// aio_read/aio_write: the control block's descriptor (aiocb and aiocb64
/// both begin with it). Never recorded. Inside an MPI-IO call (ROMIO's
/// MPI_File_iwrite_at on a Unix file system) it misses nothing: the MPI
/// call that asked for it records its bytes.
struct AioCb : KindBase {
  static constexpr int kSlots = 0;
  template <class Cb> static bool pre(Call &c, const char *, Cb *cb) {
    if (!c.rec->inner && cb && recordedFd(cb->aio_fildes))
      noteInexact(Inexact::Aio);
    return false;
  }
};
/// lio_listio's list and its length (AioCount).
struct AioList : KindBase {
  static constexpr int kSlots = 0;
  template <class L> static bool pre(Call &c, const char *, L list) {
    c.aioList = list;
    return true;
  }
};
struct AioCount : KindBase {
  static constexpr int kSlots = 0;
  static bool pre(Call &c, const char *, int nent) {
    auto *list = static_cast<const struct aiocb *const *>(c.aioList);
    for (int i = 0; list && !c.rec->inner && i < nent; ++i)
      if (list[i] && recordedFd(list[i]->aio_fildes)) {
        noteInexact(Inexact::Aio);
        break;
      }
    return true;
  }
};

/// glibc's inline getc_unlocked/putc_unlocked call __uflow/__overflow when
/// the stream buffer is empty/full: on a recorded stream, bytes went through
/// the buffer without a call the runtime sees.
template <bool Last> struct InlineStreamT : KindBase {
  static constexpr int kSlots = 0;
  static bool pre(Call &, const char *, FILE *s) {
    const int fd = s ? fileno_unlocked(s) : -1;
    if (unsigned(fd) < unsigned(kMaxFd) && g_streamCode[fd].load(std::memory_order_relaxed) != 0)
      noteInexact(Inexact::InlineStdio);
    return !Last;
  }
};
using InlineStream = InlineStreamT<false>;
using InlineStreamLast = InlineStreamT<true>;
using Dir = TabledHandle<Table::Dir, false>;
using DirClose = TabledHandle<Table::Dir, true>;

/// The code of descriptor `fd`'s file, -1 if its open was not recorded.
inline int32_t fdCodeOf(int fd) {
  return unsigned(fd) < unsigned(kMaxFd) ? g_fdCode[fd].load(std::memory_order_relaxed) - 1 : -1;
}

/// dup2/dup3's source: its code, or -1 if its open was not recorded (the
/// call is still recorded when the target's was: the kernel closes that file).
struct DupFrom : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, int fd) {
    c.fd = fd;
    c.dupFromCode = fdCodeOf(fd);
    c.rec->add(n, c.dupFromCode);
    return true;
  }
};

/// dup2/dup3's target: the code of the file it named (-1: none recorded),
/// released by RetDup2 once the call succeeded. A call where neither
/// descriptor is traced is not recorded. Read before the call: the target
/// cannot change hands meanwhile (dup2 replaces it atomically), short of the
/// application closing it on another thread while it dup2s onto it.
struct DupOnto : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, int fd) {
    c.dupOntoCode = fdCodeOf(fd);
    if (c.dupFromCode < 0 && c.dupOntoCode < 0)
      return false;
    c.rec->add(n, c.dupOntoCode);
    return true;
  }
};

/// fcntl: recorded (as `dup`) for the commands that duplicate only.
struct FcntlDup : KindBase {
  static constexpr int kSlots = 0;
  static bool pre(Call &, const char *, int cmd) { return cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC; }
};

/// A file name: its id in the rank's file table. Excluded paths veto.
/// The name is the application's memory and may be unreadable (a wild
/// pointer: the untraced call fails with EFAULT). A POSIX or stdio call's
/// name is read after the call (settlePaths): if the call succeeded, or
/// failed after its lookup, the kernel has read it, so it is readable; if it
/// failed before (EFAULT, EINVAL, ...) it is probed (probePath), and only
/// that costs a system call. An MPI call's name is
/// probed before the call (one system call next to a collective open).
struct Path : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, const char *path) {
    if (path == nullptr)
      return false;
    if (c.mpi) {
      const char *readable = probePath(path);
      if (readable == nullptr || pathExcluded(readable))
        return false;
      const int64_t id = fileId(readable);
      c.pastCap |= id < 0;
      c.rec->add(n, id);
      return true;
    }
    if (c.npaths < 2) {
      c.paths[c.npaths] = path;
      c.pathSlot[c.npaths++] = c.rec->nslots;
    }
    c.rec->add(n, -1); // the id once the name is read
    return true;
  }
};

/// What settlePaths decided for a call whose paths it read.
enum class Paths { Record, Skip, PastCap };

/// Whether a call that failed with `err` may have failed before the kernel
/// (or glibc) read its path. The kernel copies a path whole (getname) before
/// it looks anything up, so a lookup's failure (ENOENT, EEXIST, EACCES,
/// ENOTDIR, ...) means the name was readable. Before getname come only the
/// argument checks (EINVAL: open flags, truncate to a negative length, AT_*
/// flags, fopen's mode), getname's own failures (EFAULT, ENAMETOOLONG,
/// ENOMEM), and what a seccomp filter or an old kernel answers instead of
/// running the call (EPERM, ENOSYS); EBADF for the stdio calls that check a
/// stream first.
inline bool pathMayBeUnread(int err) {
  switch (err) {
  case EFAULT:
  case EINVAL:
  case ENAMETOOLONG:
  case ENOMEM:
  case EPERM:
  case ENOSYS:
  case EBADF:
    return true;
  default:
    return false;
  }
}

/// After a POSIX or stdio call: reads its paths into their slots, directly
/// when the kernel has read them (a success, or a failure past the lookup:
/// pathMayBeUnread), through probePath otherwise (`err`: the failed call's
/// errno, 0 after a success). Skip: a name is unreadable or excluded, the
/// call is not recorded; PastCap: a name the cap kept out of the file table,
/// the call counts as dropped.
__attribute__((noinline)) inline Paths settlePaths(Call &c, int err) {
  const bool probe = pathMayBeUnread(err);
  Paths verdict = Paths::Record;
  for (int k = 0; k < c.npaths; ++k) {
    const char *name = probe ? probePath(c.paths[k]) : c.paths[k];
    if (name == nullptr || pathExcluded(name))
      return Paths::Skip;
    const int64_t id = fileId(name);
    if (id < 0)
      verdict = Paths::PastCap;
    if (c.pathSlot[k] < c.rec->nslots)
      c.rec->slots[c.pathSlot[k]].value = id;
  }
  return verdict;
}

struct Str : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, const char *s) {
    const int64_t id = stringId(s ? s : "");
    c.pastCap |= id < 0;
    c.rec->addString(n, id);
    return true;
  }
};

struct Iov : KindBase {
  static constexpr int kSlots = 0;
  static bool pre(Call &c, const char *, const struct iovec *iov) {
    c.iov = iov;
    return true;
  }
};

/// iovcnt, plus the total of the iov lengths as `bytes` after a successful
/// call only: before the call, or after a failed one, the array may be
/// unreadable or shorter than iovcnt says (negative, past IOV_MAX), which
/// the kernel rejects (EFAULT, EINVAL) without reading it. What the call
/// moved is `result`.
struct IovCnt : KindBase {
  static constexpr int kSlots = 2;
  static bool pre(Call &c, const char *n, int cnt) {
    c.rec->add(n, cnt);
    return true;
  }
  static void post(Call &c, const char *, int cnt) {
    if (c.ret < 0 || c.iov == nullptr)
      return;
    int64_t bytes = 0;
    for (int i = 0; i < cnt; ++i)
      bytes += int64_t(c.iov[i].iov_len);
    c.rec->add("bytes", bytes);
  }
};

struct Fh : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_File fh) {
    c.rec->add(n, fhCode(fh));
    return true;
  }
};

struct FhOut : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, MPI_File *fh) {
    c.rec->add(n, c.ret == MPI_SUCCESS && fh ? fhOpen(*fh) : -1);
  }
};

struct FhClose : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_File *fh) {
    if (fh == nullptr)
      return false;
    c.rec->add(n, fhCode(*fh));
    c.fh = *fh;
    return true;
  }
};

struct Comm : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Comm comm) {
    c.comm = int64_t(comm);
    c.rec->add(n, commCode(int64_t(comm)));
    return true;
  }
};

/// New communicators are described in the comm table by rule and recorded
/// as the output parameter `newcomm` (their table id; -1 for
/// MPI_COMM_NULL or a failed call).
struct CommSplit : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, MPI_Comm *out) {
    int64_t code = -1;
    if (c.ret == MPI_SUCCESS && out && *out != MPI_COMM_NULL)
      code = commSplit(c.comm, c.ints[0], c.ints[1], int64_t(*out), c.rec->id);
    c.rec->add(n, code);
  }
};

struct CommDup : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, MPI_Comm *out) {
    int64_t code = -1;
    if (c.ret == MPI_SUCCESS && out && *out != MPI_COMM_NULL)
      code = commDup(c.comm, int64_t(*out), c.rec->id);
    c.rec->add(n, code);
  }
};

/// An int array argument of a communicator constructor (dims, periods,
/// remain_dims): kept for the constructor's table entry, not a parameter.
struct IntArray : KindBase {
  static constexpr int kSlots = 0;
  static bool pre(Call &c, const char *, const int *v) {
    if (c.narrays < 2)
      c.arrays[c.narrays++] = v;
    return true;
  }
};

/// MPI_Intercomm_create's peer communicator: a parameter, not the parent.
struct PeerComm : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Comm comm) {
    c.peerComm = int64_t(comm);
    c.rec->add(n, commCode(int64_t(comm)));
    return true;
  }
};

/// The other communicator constructors of MPI 4.0: each records how the
/// communicator was made (kind, parent, arguments) in the comm table and its
/// id as `newcomm`; `Made` gives the kind and the arguments.
template <class Made> struct CommMade : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, MPI_Comm *out) {
    int64_t code = -1;
    if (c.ret == MPI_SUCCESS && out && *out != MPI_COMM_NULL)
      code = Made::make(c, *out);
    c.rec->add(n, code);
  }
};

inline std::vector<int64_t> intArray(const Call &c, int k, int64_t n) {
  std::vector<int64_t> v;
  if (k < c.narrays && c.arrays[k])
    for (int64_t i = 0; i < n && i < 64; ++i)
      v.push_back(c.arrays[k][i]);
  return v;
}

struct SplitTypeMade {
  static int64_t make(Call &c, MPI_Comm out) {
    return commMade("split_type", c.comm, int64_t(out), c.rec->id, {{"split_type", {c.ints[0]}}, {"key", {c.ints[1]}}},
                    false);
  }
};
struct DupMade {
  static int64_t make(Call &c, MPI_Comm out) { return commMade("dup", c.comm, int64_t(out), c.rec->id, {}, false); }
};
struct CreateMade {
  static int64_t make(Call &c, MPI_Comm out) { return commMade("create", c.comm, int64_t(out), c.rec->id, {}, true); }
};
struct CreateGroupMade {
  static int64_t make(Call &c, MPI_Comm out) {
    return commMade("create_group", c.comm, int64_t(out), c.rec->id, {{"tag", {c.ints[0]}}}, true);
  }
};
struct CartMade {
  static int64_t make(Call &c, MPI_Comm out) {
    const int64_t nd = c.ints[0];
    return commMade("cart", c.comm, int64_t(out), c.rec->id,
                    {{"dims", intArray(c, 0, nd)}, {"periods", intArray(c, 1, nd)}, {"reorder", {c.ints[1]}}}, false);
  }
};
struct CartSubMade {
  static int64_t make(Call &c, MPI_Comm out) {
    int nd = 0;
    PMPI_Cartdim_get(MPI_Comm(c.comm), &nd);
    return commMade("cart_sub", c.comm, int64_t(out), c.rec->id, {{"remain_dims", intArray(c, 0, nd)}}, false);
  }
};
struct IntercommMade {
  static int64_t make(Call &c, MPI_Comm out) {
    return commMade("intercomm", c.comm, int64_t(out), c.rec->id,
                    {{"peer", {commCode(c.peerComm)}},
                     {"local_leader", {c.ints[0]}},
                     {"remote_leader", {c.ints[1]}},
                     {"tag", {c.ints[2]}}},
                    false);
  }
};
struct MergeMade {
  static int64_t make(Call &c, MPI_Comm out) {
    return commMade("merge", c.comm, int64_t(out), c.rec->id, {{"high", {c.ints[0]}}}, false);
  }
};
using CommSplitType = CommMade<SplitTypeMade>;
using CommDupAny = CommMade<DupMade>;
using CommCreate = CommMade<CreateMade>;
using CommCreateGroup = CommMade<CreateGroupMade>;
using CartCreate = CommMade<CartMade>;
using CartSub = CommMade<CartSubMade>;
using IntercommCreate = CommMade<IntercommMade>;
using IntercommMerge = CommMade<MergeMade>;

struct CommFree : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Comm *comm) {
    if (comm == nullptr)
      return false;
    c.comm = int64_t(*comm);
    c.rec->add("comm", commCode(int64_t(*comm)));
    return true;
  }
  static void post(Call &c, const char *, MPI_Comm *) { commFree(c.comm); }
};

/// MPI_Dims_create's output grid (ndims is the preceding Int), as dims0,
/// dims1, ... With its two Int parameters and `error` the call fills all
/// seven slots at four dimensions, so a grid of more dimensions keeps its
/// first four: the replay passes those and lets MPI_Dims_create choose the
/// rest (docs/trace-format.md, Limits).
struct DimsOut : KindBase {
  static constexpr int kSlots = 4;
  static void post(Call &c, const char *, int *dims) {
    static constexpr const char *kNames[kSlots] = {"dims0", "dims1", "dims2", "dims3"};
    const int64_t nd = c.lastInt();
    for (int64_t k = 0; dims && k < nd && k < kSlots; ++k)
      c.rec->add(kNames[k], c.ret == MPI_SUCCESS ? dims[k] : 0);
  }
};

struct Dtype : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Datatype t) {
    c.rec->add(n, datatypeCode(int64_t(t)));
    return true;
  }
};

/// The new type of a datatype constructor: a table entry made by its
/// creation event (datatypeMade), recorded as its id (-1 if the call failed).
struct DtypeOut : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, MPI_Datatype *out) {
    int64_t code = -1;
    if (c.ret == MPI_SUCCESS && out && *out != MPI_DATATYPE_NULL)
      code = datatypeMade(int64_t(*out), c.rec->id, kCallInfo[c.rec->call].op);
    c.rec->add(n, code);
  }
};

/// MPI_Type_commit's datatype (passed by address).
struct DtypeRef : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Datatype *t) {
    if (t == nullptr)
      return false;
    c.rec->add(n, datatypeCode(int64_t(*t)));
    return true;
  }
};

/// MPI_Type_free: after it the handle names nothing (MPI hands it out again).
struct DtypeFree : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Datatype *t) {
    if (t == nullptr)
      return false;
    c.dtype = int64_t(*t);
    c.rec->add(n, datatypeCode(c.dtype));
    return true;
  }
  static void post(Call &c, const char *, MPI_Datatype *) {
    if (c.ret == MPI_SUCCESS)
      datatypeFreed(c.dtype);
  }
};

struct Info : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Info info) {
    c.rec->add(n, infoCode(int64_t(info)));
    return true;
  }
};

struct ReqOut : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, MPI_Request *req) {
    c.rec->add(n, c.ret == MPI_SUCCESS && req ? requestNew(int64_t(*req)) : -1);
  }
};

/// MPI_Wait/MPI_Test: recorded only for requests of nonblocking MPI-IO.
struct Req : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Request *req) {
    if (req == nullptr)
      return false;
    int64_t code = requestCode(int64_t(*req));
    if (code < 0)
      return false;
    c.rec->add(n, code);
    c.noteRequest(req, 0);
    return true;
  }
};

/// Request arrays of Waitall/Waitany/Waitsome and the Test forms (count is
/// the preceding Int): recorded if any is an I/O request, as the code of the
/// first one. Those the call completes are released (Call::finish).
struct ReqAll : KindBase {
  static constexpr int kSlots = 1;
  static bool pre(Call &c, const char *n, MPI_Request *reqs) {
    const int64_t count = c.lastInt();
    int64_t first = -1;
    for (int64_t i = 0; reqs && i < count; ++i) {
      int64_t code = requestCode(int64_t(reqs[i]));
      if (code < 0)
        continue;
      if (first < 0)
        first = code;
      c.noteRequest(reqs, int(i));
    }
    if (first < 0)
      return false;
    c.rec->add(n, first);
    return true;
  }
};
using ReqAny = ReqAll;

/// The status of a blocking MPI-IO read or write: the bytes it moved are
/// recorded as `result` (MPI_Get_elements_x with MPI_BYTE, which MPICH and
/// Open MPI answer with the byte count the status holds). MPI_STATUS_IGNORE
/// is replaced by a status of the runtime's own, so the count is exact for
/// every call; the application still sees no status.
struct Status : KindBase {
  static constexpr int kSlots = 1;
  static MPI_Status *pass(Call &c, MPI_Status *s) { return s == MPI_STATUS_IGNORE ? &c.status : s; }
  static void post(Call &c, const char *, MPI_Status *s) {
    if (c.ret != MPI_SUCCESS || s == nullptr)
      return;
    MPI_Count bytes = 0;
    if (PMPI_Get_elements_x(s == MPI_STATUS_IGNORE ? &c.status : s, MPI_BYTE, &bytes) == MPI_SUCCESS &&
        bytes != MPI_UNDEFINED && bytes >= 0)
      c.rec->add("result", int64_t(bytes));
  }
};

struct FlagOut : KindBase {
  static constexpr int kSlots = 1;
  static void post(Call &c, const char *n, int *flag) {
    c.rec->add(n, flag ? *flag : 0);
  }
};

/// MPI's error class of a failed call's return code.
inline int64_t mpiErrorClass(int code) {
  int cls = code;
  if (PMPI_Error_class(code, &cls) != MPI_SUCCESS)
    cls = code;
  return cls;
}

// Return kinds.

/// open/fopen/opendir and friends: a new descriptor, stream or directory
/// stream gets the lowest free code of its table (-1: the call failed, or
/// its descriptor is past the table).
template <Table T> struct NewTabledHandle {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = false;
  template <class H> static void post(Call &c, H h) {
    int32_t code = -1;
    const int fd = TableOf<T>::fdOf(h);
    if (unsigned(fd) < unsigned(kMaxFd)) {
      code = TableOf<T>::newCode();
      TableOf<T>::codes()[fd].store(code + 1, std::memory_order_relaxed);
      // A new file holds this descriptor number: what was seen through an
      // earlier, unrecorded one of the same number (closed by fclose or a raw
      // syscall, so never forgotten) says nothing about it.
      forgetUntracked(fd);
      if constexpr (T == Table::Stream)
        setStreamMarks(h, fd);
    }
    c.rec->add(TableOf<T>::kName, code);
  }
};
struct None {
  static constexpr int kSlots = 0;
  static constexpr bool kMovesData = false;
  template <class R> static void post(Call &, R) {}
};
using RetFd = NewTabledHandle<Table::Fd>;
/// dup2/dup3's new descriptor (the target's number): a new code naming the
/// source's file (-1: the source is not traced, so neither is the target
/// from now on, or the call failed). The target's previous file is released
/// (Call::finish). dup2(fd, fd) changes nothing and keeps fd's code.
struct RetDup2 {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = false;
  static void post(Call &c, int r) {
    int32_t code = -1;
    if (r >= 0 && r == c.fd) {
      code = c.dupFromCode;
    } else if (r >= 0) {
      c.released[int(Table::Fd)] = c.dupOntoCode;
      if (c.dupFromCode >= 0 && unsigned(r) < unsigned(kMaxFd))
        code = newFdCode();
      if (unsigned(r) < unsigned(kMaxFd))
        g_fdCode[r].store(code + 1, std::memory_order_relaxed);
    }
    c.rec->add("fd", code);
  }
};
/// read/write-like calls: the bytes transferred (the return value when it
/// is not -1; a failure is recorded as `error` by the wrapper).
struct RetBytes {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  template <class R> static void post(Call &c, R r) {
    if (r >= 0)
      c.rec->add("result", int64_t(r));
  }
};
/// fread/fwrite: items transferred × item size (`size` is the first Int).
struct RetItems {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  static void post(Call &c, size_t items) {
    int64_t bytes = 0;
    if (!__builtin_mul_overflow(int64_t(items), c.ints[0], &bytes))
      c.rec->add("result", bytes);
  }
};
using RetStream = NewTabledHandle<Table::Stream>;

/// printf family, getline/getdelim: the return value is the bytes moved;
/// a failure or end of file moved none (`result` 0; `error` says which).
struct RetCount {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  template <class R> static void post(Call &c, R r) { c.rec->add("result", r >= 0 ? int64_t(r) : 0); }
};
/// fputc/fgetc family: one byte, or none (EOF).
struct RetChar {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  static void post(Call &c, int r) { c.rec->add("result", r == EOF ? 0 : 1); }
};
/// fputs: the string's length on success (puts: and the newline, RetLine).
template <int Extra> struct RetTextT {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  static void post(Call &c, int r) {
    c.rec->add("result", r >= 0 && c.text ? int64_t(std::strlen(static_cast<const char *>(c.text))) + Extra : 0);
  }
};
using RetText = RetTextT<0>;
using RetLine = RetTextT<1>;
/// fgets: the bytes it consumed, the change of the stream position (a line
/// holding a NUL byte is longer than the string's length); the string's
/// length only where the stream has no position (a pipe).
struct RetLineRead {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  static void post(Call &c, char *r) {
    if (c.lineStart) { // LineStream: the line was in the buffer
      const FILE *s = c.posStream;
      if (!readsPushback(s) && s->_IO_read_ptr >= c.lineStart) {
        c.rec->add("result", int64_t(s->_IO_read_ptr - c.lineStart));
        return;
      }
    }
    const int64_t pos1 = c.posStream && !c.lineStart ? streamPosition(c.posStream) : -1;
    if (c.pos0 >= 0 && pos1 >= c.pos0)
      c.rec->add("result", pos1 - c.pos0);
    else
      c.rec->add("result", r ? int64_t(std::strlen(r)) : 0);
  }
};
/// scanf family, wide-character stdio: the change of the stream position;
/// a stream without one leaves the bytes unknown (no `result`, an inexact
/// trace).
struct RetPosDelta {
  static constexpr int kSlots = 1;
  static constexpr bool kMovesData = true;
  template <class R> static void post(Call &c, R) {
    const int64_t pos1 = c.posStream ? streamPosition(c.posStream) : -1;
    if (c.pos0 >= 0 && pos1 >= 0)
      c.rec->add("result", pos1 >= c.pos0 ? pos1 - c.pos0 : c.pos0 - pos1);
    else
      noteInexact(Inexact::Position);
  }
};
using RetDir = NewTabledHandle<Table::Dir>;

// ---- calls after recording ended ------------------------------------------------

/// Whether a parameter names a file the trace would follow: a path, or a
/// handle the runtime recorded (never the standard streams or a handle
/// opened before the runtime, which are not recorded while recording runs
/// either). Side-effect free: it only reads the handle tables. Counts the
/// calls made after MPI_Finalize ended recording (Runtime.h, g_unrecorded).
template <class K> struct NamesFile {
  template <class T> static bool test(T) { return false; }
};
template <> struct NamesFile<Path> {
  static bool test(const char *path) {
    const char *readable = path ? probePath(path) : nullptr;
    return readable && !pathExcluded(readable);
  }
};
template <> struct NamesFile<ReopenPath> : NamesFile<Path> {};
template <Table T, bool Closing> struct NamesFile<TabledHandle<T, Closing>> {
  template <class H> static bool test(H h) {
    const int fd = TableOf<T>::fdOf(h);
    return unsigned(fd) < unsigned(kMaxFd) && TableOf<T>::codes()[fd].load(std::memory_order_relaxed) != 0;
  }
};
template <> struct NamesFile<StreamClose> : NamesFile<Stream> {};
template <> struct NamesFile<StreamPos> : NamesFile<Stream> {};
template <> struct NamesFile<LineStream> : NamesFile<Stream> {};
template <bool Out, class S, class Inner> struct NamesFile<OnStd<Out, S, Inner>> {
  template <class T> static bool test(T) { return NamesFile<Stream>::test(Out ? stdout : stdin); }
};

} // namespace pk
} // namespace sio::rt
