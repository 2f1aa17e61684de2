// Each traced call as the replay's C++: MPI-IO, POSIX and stdio calls, the
// constructors of datatypes and communicators, and which communicator a
// constructor's call makes.
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

std::string Generator::path(Params &p, const std::string &name) {
  auto use = [&](int64_t id) {
    usedFiles_.insert(id);
    if (!callFailed_)
      namedBySucceededCalls_.insert(id);
  };
  if (auto id = p.constant(name)) {
    use(*id);
  } else {
    // An id that is itself a function of rank or the indices: any file may be meant.
    for (const auto &file : trace_.files)
      use(file.id);
  }
  std::vector<std::string> indices;
  for (size_t d = 0; d < loops_.size(); ++d)
    indices.push_back("i" + std::to_string(d));
  return std::string(callFailed_ ? "resolvedPath" : "mappedPath") + "(fileName(" + p(name) +
         (indices.empty() ? "" : ", {" + join(indices, ", ") + "}") + ")).c_str()";
}

std::string Generator::expectedOrAny(const std::string &expected) {
  return expected.empty() ? "-1, \"a failure\"" : expected;
}

std::string Generator::expectedError(const Event &e, Params &p) {
  if (!p.has("error"))
    return "";
  auto code = p.constant("error");
  if (code)
    if (auto name = sio::trace::errorName(e.layer, *code); name && *code > 0)
      return *name + ", " + cppStringLiteral(*name);
  std::string value = code ? std::to_string(*code) : "toInt(" + p("error") + ")";
  std::string what = e.layer == Layer::MPIIO || e.layer == Layer::SYNC ? "MPI error class " : "errno ";
  return value + ", " + cppStringLiteral(what + (code ? std::to_string(*code) : "of the trace"));
}

std::vector<std::string> Generator::callText(const Node &node, Params &p) {
  const Event &e = node.event();
  const std::string &op = e.op;
  // A call that failed in the application is an attempt expected to fail
  // the same way (docs/replay.md, Failed calls).
  const std::string expected = expectedError(e, p);
  // Failed everywhere (an error that differs between ranks may be success on
  // some: their parents are made); an open that failed returned no handle.
  callFailed_ = p.constant("error").value_or(0) != 0;
  for (const char *handle : {"fh", "fd", "stream", "dir"})
    callFailed_ |= p.has(handle) && p.constant(handle).value_or(0) < 0;
  auto mpi = [&](const std::string &call) {
    return expected.empty() ? "countMpi(" + call + ");" : "expectMpiFailure(" + call + ", " + expected + ");";
  };
  auto posix = [&](const std::string &call) {
    return expected.empty() ? "countPosix(" + call + ");" : "expectPosixFailure(" + call + ", " + expected + ");";
  };
  // A file handle the application never got (its open failed) is MPI_FILE_NULL.
  auto fhArg = [&] { return p.constant("fh") == -1 ? std::string("failedFile") : "fh[" + p("fh") + "]"; };
  auto intArg = [&](const std::string &name) {
    auto c = p.constant(name);
    return c && *c >= INT32_MIN && *c <= INT32_MAX ? std::to_string(*c) : "toInt(" + p(name) + ")";
  };

  switch (e.layer) {
  case Layer::MPIIO: {
    if (op == "MPI_File_open") {
      std::string amode = p.constant("amode") ? decodeFlags(*p.constant("amode"), kAmodes, nullptr) : intArg("amode");
      std::string head = "MPI_File_open(" + comm(p) + ", " + path(p) + ", " + amode + ", info[" + p("info") + "], &";
      auto recorded = p.constant("fh");
      if (recorded && *recorded < 0) // it failed in the application: the fh table skips it
        return {"expectMpiOpenFailure(" + head + "failedFile), " + expectedOrAny(expected) + ");"};
      // An amode that differs between ranks or iterations counts as writing
      // (MPI_MODE_WRONLY as the default), as POSIX flags do: the overwrite
      // check stays on.
      const int64_t amodeBits = p.constant("amode").value_or(4);
      noteOpen(p, "fh",
               amodeBits & (1 | 4) ? OpenIntent::Writing
               : amodeBits & 8     ? OpenIntent::ReadWrite
                                   : OpenIntent::Reading,
               p.constant("amode") && !(amodeBits & 1)); // MPI_MODE_CREATE
      return {"mustSucceedMpi(" + head + fhArg() + "));"};
    }
    if (op == "MPI_File_close")
      return {mpi("MPI_File_close(&" + fhArg() + ")")};
    if (op == "MPI_File_delete")
      return {mpi("MPI_File_delete(" + path(p) + ", info[" + p("info") + "])")};
    if (op == "MPI_File_set_size" || op == "MPI_File_preallocate")
      return {mpi(op + "(" + fhArg() + ", " + p("size") + ")")};
    if (op == "MPI_File_get_size" || op == "MPI_File_get_position" || op == "MPI_File_get_position_shared")
      return {mpi(op + "(" + fhArg() + ", &scratchOffset)")};
    if (op == "MPI_File_get_byte_offset")
      return {mpi(op + "(" + fhArg() + ", " + p("offset") + ", &scratchOffset)")};
    if (op == "MPI_File_set_view") {
      noteView(p);
      return {mpi("MPI_File_set_view(" + fhArg() + ", " + p("disp") + ", " + type(p, "etype") + ", " +
                  type(p, "filetype") + ", " + p.string("datarep") + ", info[" + p("info") + "])")};
    }
    if (op == "MPI_File_get_view")
      return {
          mpi("MPI_File_get_view(" + fhArg() + ", &scratchOffset, &scratchEtype, &scratchFiletype, scratchDatarep)")};
    if (op == "MPI_File_seek" || op == "MPI_File_seek_shared")
      return {mpi(op + "(" + fhArg() + ", " + p("offset") + ", " + intArg("whence") + ")")};
    if (op == "MPI_File_sync")
      return {mpi(op + "(" + fhArg() + ")")};
    if (op == "MPI_File_set_atomicity")
      return {mpi(op + "(" + fhArg() + ", " + intArg("flag") + ")")};
    if (op == "MPI_File_get_atomicity" || op == "MPI_File_get_amode")
      return {mpi(op + "(" + fhArg() + ", &scratchInt)")};
    if (op == "MPI_File_set_info")
      return {mpi(op + "(" + fhArg() + ", info[" + p("info") + "])")};
    if (op == "MPI_File_get_info")
      return {mpi(op + "(" + fhArg() + ", &scratchInfo)"), "MPI_Info_free(&scratchInfo);"};
    if (op == "MPI_File_get_group")
      return {mpi(op + "(" + fhArg() + ", &scratchGroup)"), "MPI_Group_free(&scratchGroup);"};
    if (op == "MPI_File_get_type_extent")
      return {mpi(op + "(" + fhArg() + ", " + type(p) + ", &scratchAint)")};
    if (op == "MPI_Wait")
      return {mpi("MPI_Wait(&request[" + p("request") + "], MPI_STATUS_IGNORE)")};
    if (op == "MPI_Test")
      return {mpi("MPI_Test(&request[" + p("request") + "], &scratchInt, MPI_STATUS_IGNORE)")};
    if (op == "MPI_Waitall" || op == "MPI_Waitany" || op == "MPI_Waitsome" || op == "MPI_Testall" ||
        op == "MPI_Testany" || op == "MPI_Testsome") {
      std::string count = p("count"), first = p("request");
      std::string tail = op == "MPI_Waitall"    ? "MPI_STATUSES_IGNORE"
                         : op == "MPI_Waitany"  ? "&scratchIndex, MPI_STATUS_IGNORE"
                         : op == "MPI_Waitsome" ? "&scratchIndex, indices(" + count + "), MPI_STATUSES_IGNORE"
                         : op == "MPI_Testall"  ? "&scratchInt, MPI_STATUSES_IGNORE"
                         : op == "MPI_Testany"  ? "&scratchIndex, &scratchInt, MPI_STATUS_IGNORE"
                                                : "&scratchIndex, indices(" + count + "), MPI_STATUSES_IGNORE";
      return {"{", "  std::vector<MPI_Request> requests = requestArray(" + count + ", " + first + ");",
              "  " + mpi(op + "(toInt(" + count + "), requests.data(), " + tail + ")"),
              "  storeRequests(requests, " + first + ");", "}"};
    }
    return dataAccess(op, p, fhArg, intArg, mpi);
  }
  case Layer::POSIX: {
    auto fdArg = [&] { return "fd[" + p("fd") + "]"; };
    auto bytes = [&](const std::string &name) { return "buffer.bytes(" + p(name) + "), size_t(" + p(name) + ")"; };
    if (op == "open" || op == "openat" || op == "creat") {
      std::string flags =
          op == "creat"
              ? ""
              : (p.constant("flags") ? decodeFlags(*p.constant("flags"), kOpenFlags, "O_RDONLY") : intArg("flags"));
      std::string mode;
      if (p.has("mode")) {
        auto m = p.constant("mode");
        char octal[32];
        std::snprintf(octal, sizeof octal, "0%llo", static_cast<unsigned long long>(m ? *m : 0));
        mode = m ? std::string(octal) : "mode_t(" + p("mode") + ")";
      }
      int64_t flagBits = op == "creat" ? 01 : p.constant("flags").value_or(02);
      auto recorded = p.constant("fd");
      const bool failed = recorded && *recorded < 0;
      if (!failed)
        noteOpen(p, "fd",
                 (flagBits & 03) == 01 || (flagBits & (0100 | 01000 | 02000)) ? OpenIntent::Writing
                 : (flagBits & 03) == 02                                      ? OpenIntent::ReadWrite
                                                                              : OpenIntent::Reading,
                 op != "creat" && p.constant("flags") && !(flagBits & 0100)); // O_CREAT
      std::string args = op == "openat" ? "AT_FDCWD, " : "";
      args += path(p);
      if (!flags.empty())
        args += ", " + flags;
      if (!mode.empty())
        args += ", " + mode;
      if (failed) // it failed in the application: the fd table skips it
        return {"expectOpenFailure(" + op + "(" + args + "), " + expectedOrAny(expected) + ");"};
      return {fdArg() + " = " + op + "(" + args + ");", "mustSucceedPosix(" + fdArg() + " >= 0);"};
    }
    if (op == "close" || op == "fsync" || op == "fdatasync")
      return {posix(op + "(" + fdArg() + ")")};
    if (op == "dup" || op == "dup2")
      return duplicate(op, p, expected, posix);
    // `bytes` is recorded for successful calls only (a failed call's iovec
    // array may not be readable): a failed one gets an empty array.
    auto iov = [&] { return "buffer.iov(" + p("iovcnt") + ", " + (p.has("bytes") ? p("bytes") : "0") + ")"; };
    // A read that succeeded finds the file shaped for it and must move what
    // the application's did (Prelude: fitRead, expectBytes).
    const bool vectored = op == "readv" || op == "preadv";
    if (expected.empty() && p.has("result") && (op == "read" || op == "pread" || (vectored && p.has("bytes")))) {
      const bool positioned = op == "pread" || op == "preadv";
      const std::string offset = positioned ? p("offset") : "-1";
      std::string args = fdArg() + ", " + (vectored ? iov() + ", " + intArg("iovcnt") : bytes("count"));
      if (positioned)
        args += ", off_t(" + offset + ")";
      return {"fitRead(" + fdArg() + ", " + offset + ", " + p(vectored ? "bytes" : "count") + ", " + p("result") + ");",
              "expectBytes(" + op + "(" + args + "), " + p("result") + ");"};
    }
    if (op == "read" || op == "write")
      return {posix(op + "(" + fdArg() + ", " + bytes("count") + ")")};
    if (op == "pread" || op == "pwrite")
      return {posix(op + "(" + fdArg() + ", " + bytes("count") + ", off_t(" + p("offset") + "))")};
    if (op == "readv" || op == "writev")
      return {posix(op + "(" + fdArg() + ", " + iov() + ", " + intArg("iovcnt") + ")")};
    if (op == "preadv" || op == "pwritev")
      return {posix(op + "(" + fdArg() + ", " + iov() + ", " + intArg("iovcnt") + ", off_t(" + p("offset") + "))")};
    if (op == "lseek")
      return {posix("lseek(" + fdArg() + ", off_t(" + p("offset") + "), " + whence(p) + ")")};
    if (op == "ftruncate")
      return {posix("ftruncate(" + fdArg() + ", off_t(" + p("length") + "))")};
    if (op == "unlink")
      return {posix("unlink(" + path(p) + ")")};
    // Metadata calls (issue 15): paths through the same file table.
    if (op == "unlinkat")
      return {posix("unlinkat(AT_FDCWD, " + path(p) + ", " + intArg("flags") + ")")};
    if (op == "mkdir" || op == "mkdirat") {
      auto m = p.constant("mode");
      char octal[32];
      std::snprintf(octal, sizeof octal, "0%llo", static_cast<unsigned long long>(m ? *m : 0));
      return {posix("mkdir(" + path(p) + ", " + (m ? std::string(octal) : "mode_t(" + p("mode") + ")") + ")")};
    }
    if (op == "rmdir" || op == "stat" || op == "lstat")
      return {posix(op + "(" + path(p) + (op == "rmdir" ? "" : ", &scratchStat") + ")")};
    if (op == "rename" || op == "renameat")
      return {posix("rename(" + path(p) + ", " + path(p, "newfile") + ")")};
    if (op == "access")
      return {posix("access(" + path(p) + ", " + intArg("mode") + ")")};
    if (op == "faccessat")
      return {posix("faccessat(AT_FDCWD, " + path(p) + ", " + intArg("mode") + ", " + intArg("flags") + ")")};
    if (op == "fstat")
      return {posix("fstat(" + fdArg() + ", &scratchStat)")};
    if (op == "fstatat")
      return {posix("fstatat(AT_FDCWD, " + path(p) + ", &scratchStat, " + intArg("flags") + ")")};
    if (op == "statx")
      return {posix("statx(AT_FDCWD, " + path(p) + ", " + intArg("flags") + ", unsigned(" + p("mask") +
                    "), &scratchStatx)")};
    if (op == "truncate")
      return {posix("truncate(" + path(p) + ", off_t(" + p("length") + "))")};
    if (op == "opendir") {
      auto recorded = p.constant("dir");
      if (recorded && *recorded < 0) // it failed in the application too
        return {"if (DIR *failed = opendir(" + path(p) + "))", "  closedir(failed);"};
      std::string dirArg = "dir[" + p("dir") + "]";
      return {dirArg + " = opendir(" + path(p) + ");", "mustSucceedPosix(" + dirArg + " != nullptr);"};
    }
    if (op == "readdir")
      return {"readdir(dir[" + p("dir") + "]);"};
    if (op == "closedir")
      return {posix("closedir(dir[" + p("dir") + "])")};
    break;
  }
  case Layer::STDIO: {
    auto streamArg = [&] { return "stream[" + p("stream") + "]"; };
    if (op == "fopen") {
      std::string mode = p.string("mode");
      const OpenIntent intent = streamOpenIntent(e);
      auto recorded = p.constant("stream");
      if (recorded && *recorded < 0) // it failed in the application: the stream table skips it
        return {"expectFopenFailure(fopen(" + path(p) + ", " + mode + "), " + expectedOrAny(expected) + ");"};
      noteOpen(p, "stream", intent, streamMustExist(e));
      return {streamArg() + " = fopen(" + path(p) + ", " + mode + ");",
              "mustSucceedPosix(" + streamArg() + " != nullptr);"};
    }
    if (op == "fclose" || op == "fflush")
      return {posix(op + "(" + streamArg() + ")")};
    // A stream on a recorded descriptor (fclose releases both).
    if (op == "fdopen") {
      auto recorded = p.constant("stream");
      if (recorded && *recorded < 0)
        return {"expectFopenFailure(fdopen(fd[" + p("fd") + "], " + p.string("mode") + "), " + expectedOrAny(expected) +
                ");"};
      if (auto fdCode = p.constant("fd"), code = p.constant("stream"); fdCode && code)
        if (auto file = handleFile_.find({"fd", *fdCode}); file != handleFile_.end()) {
          handleFile_[{"stream", *code}] = file->second; // its reads reach that file
          streamPos_.erase(*code);
        }
      return {streamArg() + " = fdopen(fd[" + p("fd") + "], " + p.string("mode") + ");",
              "mustSucceedPosix(" + streamArg() + " != nullptr);"};
    }
    // The stream now names another file: a recorded stream, a standard
    // stream (`oldfd` 0-2), or one the replay does not have (opened before
    // the runtime), for which a scratch stream on /dev/null stands in.
    if (op == "freopen") {
      std::string old;
      if (p.constant("oldstream").value_or(0) >= 0)
        old = "stream[" + p("oldstream") + "]";
      else if (auto fdNo = p.constant("oldfd"); fdNo && *fdNo >= 0 && *fdNo <= 2)
        old = *fdNo == 0 ? "stdin" : *fdNo == 1 ? "stdout" : "stderr";
      else
        old = "std::fopen(\"/dev/null\", \"r\")";
      const OpenIntent intent = streamOpenIntent(e);
      auto recorded = p.constant("stream");
      std::string call = "freopen(" + path(p) + ", " + p.string("mode") + ", " + old + ")";
      if (recorded && *recorded < 0)
        return {"expectFopenFailure(" + call + ", " + expectedOrAny(expected) + ");"};
      noteOpen(p, "stream", intent, streamMustExist(e));
      return {streamArg() + " = " + call + ";", "mustSucceedPosix(" + streamArg() + " != nullptr);"};
    }
    // Character, string and formatted output: `result` bytes through the
    // same kind of call (content is not kept), so tracing the replay
    // records the same operation and bytes.
    // A call that failed everywhere wrote nothing (`result` 0) but tried: the
    // replay tries one byte, since glibc's fputs, fputws and dprintf succeed
    // on an empty text whatever the stream.
    auto written = [&] { return callFailed_ ? std::string("1") : p("result"); };
    if (op == "fputc")
      return {!callFailed_ && p.constant("result") == 0 ? "// fputc: nothing written in the application"
                                                        : posix("fputc('r', " + streamArg() + ")")};
    if (op == "fputs")
      return {posix("fputs(buffer.text(" + written() + "), " + streamArg() + ")")};
    if (op == "fprintf")
      return {
          posix("fprintf(" + streamArg() + ", \"%.*s\", toInt(" + written() + "), buffer.text(" + written() + "))")};
    if (op == "dprintf")
      return {
          posix("dprintf(fd[" + p("fd") + "], \"%.*s\", toInt(" + written() + "), buffer.text(" + written() + "))")};
    if (op == "fputws")
      return {posix("fputws(buffer.wideText(" + written() + "), " + streamArg() + ")")};
    // Input: `result` bytes (the input file is made long enough and holds
    // no line ends, so each call reads what it read in the application).
    if (op == "fgetc" && p.has("result"))
      return {"fitStreamRead(" + streamArg() + ", 1, " + p("result") + ");",
              "expectBytes(fgetc(" + streamArg() + ") == EOF ? 0 : 1, " + p("result") + ");"};
    if (op == "fgetc")
      return {"fgetc(" + streamArg() + ");"};
    // Line input: the bytes ahead are made to end the line where the
    // application's ended (prepareLine), so the call runs with its own limit.
    if (op == "fgets")
      return {"prepareLine(" + streamArg() + ", " + p("result") + ", " + p("result") + " < " + p("n") + " - 1);",
              "fgets(static_cast<char *>(buffer.bytes(" + p("n") + ")), toInt(" + p("n") + "), " + streamArg() + ");"};
    if (op == "getline" || op == "getdelim")
      return {"readLine(" + streamArg() + ", " + (op == "getdelim" ? intArg("delim") : std::string("'\\n'")) + ", " +
              p("result") + ", " + (op == "getdelim" ? "true" : "false") + ");"};
    if (op == "fscanf")
      return {"fscanf(" + streamArg() + ", scanChars(" + p("result") + "));"};
    if (op == "fgetws")
      return {"fgetws(static_cast<wchar_t *>(buffer.bytes((" + p("result") + " + 1) * i64(sizeof(wchar_t)))), toInt(" +
              p("result") + " + 1), " + streamArg() + ");"};
    if (op == "fwscanf")
      return {"fwscanf(" + streamArg() + ", wideScanChars(" + p("result") + "));"};
    if (op == "fread" && expected.empty() && p.has("result"))
      return {"fitStreamRead(" + streamArg() + ", " + p("size") + " * " + p("nmemb") + ", " + p("result") + ");",
              "expectBytes(i64(fread(buffer.bytes(" + p("size") + " * " + p("nmemb") + "), size_t(" + p("size") +
                  "), size_t(" + p("nmemb") + "), " + streamArg() + ")) * " + p("size") + ", " + p("result") + ");"};
    if (op == "fread" || op == "fwrite")
      return {posix(op + "(buffer.bytes(" + p("size") + " * " + p("nmemb") + "), size_t(" + p("size") + "), size_t(" +
                    p("nmemb") + "), " + streamArg() + ")")};
    if (op == "fseek")
      return {posix("fseeko(" + streamArg() + ", off_t(" + p("offset") + "), " + whence(p) + ")")};
    if (op == "ftell")
      return {posix("ftello(" + streamArg() + ")")};
    break;
  }
  case Layer::SYNC: {
    auto root = [&] { return intArg("root"); };
    if (op == "MPI_Barrier")
      return {mpi("MPI_Barrier(" + comm(p) + ")")};
    if (op == "MPI_Bcast")
      return {mpi("MPI_Bcast(&syncSend, 1, MPI_INT, " + root() + ", " + comm(p) + ")")};
    if (op == "MPI_Reduce")
      return {mpi("MPI_Reduce(&syncSend, &syncReceive, 1, MPI_INT, MPI_SUM, " + root() + ", " + comm(p) + ")")};
    if (op == "MPI_Allreduce")
      return {mpi("MPI_Allreduce(&syncSend, &syncReceive, 1, MPI_INT, MPI_SUM, " + comm(p) + ")")};
    if (op == "MPI_Gather")
      return {mpi("MPI_Gather(&syncSend, 1, MPI_INT, perRank(syncReceiveAll, " + comm(p) + "), 1, MPI_INT, " + root() +
                  ", " + comm(p) + ")")};
    if (op == "MPI_Allgather")
      return {mpi("MPI_Allgather(&syncSend, 1, MPI_INT, perRank(syncReceiveAll, " + comm(p) + "), 1, MPI_INT, " +
                  comm(p) + ")")};
    if (op == "MPI_Scatter")
      return {mpi("MPI_Scatter(perRank(syncSendAll, " + comm(p) + "), 1, MPI_INT, &syncReceive, 1, MPI_INT, " + root() +
                  ", " + comm(p) + ")")};
    if (op == "MPI_Alltoall")
      return {mpi("MPI_Alltoall(perRank(syncSendAll, " + comm(p) + "), 1, MPI_INT, perRank(syncReceiveAll, " + comm(p) +
                  "), 1, MPI_INT, " + comm(p) + ")")};
    if (op == "MPI_Comm_split" || op == "MPI_Comm_dup") {
      std::string out;
      if (p.has("newcomm")) {
        out = "newComm(" + p("newcomm") + ")"; // its comm-table id; -1: MPI_COMM_NULL
      } else { // traces before `newcomm` was recorded: the k-th call makes the k-th entry
        auto slot = newComms_.find(&e);
        if (slot == newComms_.end())
          throw UnsupportedTrace(context_ + ": no " + (op == "MPI_Comm_split" ? "split" : "dup") +
                                 " communicator in the trace's comm table for it");
        out = "&comm[" + std::to_string(slot->second) + "]";
      }
      if (op == "MPI_Comm_dup")
        return throughCommMaker(e, {mpi("MPI_Comm_dup(" + comm(p) + ", " + out + ")")});
      return throughCommMaker(
          e, {mpi("MPI_Comm_split(" + comm(p) + ", " + intArg("color") + ", " + intArg("key") + ", " + out + ")")});
    }
    if (op == "MPI_Comm_split_type" || op == "MPI_Comm_dup_with_info" || op == "MPI_Comm_idup" ||
        op == "MPI_Comm_create" || op == "MPI_Comm_create_group" || op == "MPI_Cart_create" || op == "MPI_Cart_sub" ||
        op == "MPI_Intercomm_create" || op == "MPI_Intercomm_merge")
      return throughCommMaker(e, commConstructor(node, p, intArg));
    if (op == "MPI_Dims_create") {
      // The recorded grid as the input: MPI keeps a complete grid, so the
      // replay's trace records the same output whatever constraints the
      // application passed.
      std::vector<std::string> dims;
      for (int k = 0; p.has("dims" + std::to_string(k)); ++k)
        dims.push_back("toInt(" + p("dims" + std::to_string(k)) + ")");
      return {"{", "  std::vector<int> dims = {" + join(dims, ", ") + "};",
              "  dims.resize(size_t(" + intArg("ndims") + " > 0 ? " + intArg("ndims") + " : 1));",
              "  " + mpi("MPI_Dims_create(" + intArg("nnodes") + ", " + intArg("ndims") + ", dims.data())"), "}"};
    }
    if (op == "MPI_Comm_free")
      return {mpi("MPI_Comm_free(&" + comm(p) + ")")};
    if (op == "MPI_Type_commit")
      return {mpi("MPI_Type_commit(&" + type(p) + ")")};
    if (op == "MPI_Type_free")
      return {mpi("MPI_Type_free(&" + type(p) + ")"), "typeFreed(" + p("datatype") + ");"};
    if (op.rfind("MPI_Type_", 0) == 0 && p.has("newtype"))
      return typeConstructor(node, p);
    break;
  }
  }
  throw UnsupportedTrace(context_ + ": the replay generator does not support " +
                         std::string(sio::trace::layerName(e.layer)) + " operation '" + op + "'");
}

Generator::TypeArgs Generator::typeArgs(const ObjectEntry &t) const {
  TypeArgs a;
  auto field = [&](const char *name) { return fieldCpp(t, name, false); };
  auto append = [](std::vector<std::string> &to, const std::vector<std::string> &from) {
    to.insert(to.end(), from.begin(), from.end());
  };
  const std::string &k = t.kind;
  if (k == "contiguous") {
    a.ints = fieldCpp(t, "count");
  } else if (k == "vector") {
    a.ints = fieldCpp(t, "count");
    append(a.ints, fieldCpp(t, "blocklength"));
    append(a.ints, fieldCpp(t, "stride"));
  } else if (k == "hvector") {
    a.ints = fieldCpp(t, "count");
    append(a.ints, fieldCpp(t, "blocklength"));
    a.aints = fieldCpp(t, "stride");
  } else if (k == "indexed") {
    auto lengths = fieldCpp(t, "blocklengths");
    a.ints = {std::to_string(lengths.size())};
    append(a.ints, lengths);
    append(a.ints, fieldCpp(t, "displacements"));
  } else if (k == "subarray") {
    auto sizes = fieldCpp(t, "sizes");
    a.ints = {std::to_string(sizes.size())};
    append(a.ints, sizes);
    append(a.ints, fieldCpp(t, "subsizes"));
    append(a.ints, fieldCpp(t, "starts"));
    append(a.ints, fieldCpp(t, "order"));
  } else if (k != "dup") {
    a.ints = field("ints");
    a.aints = field("aints");
  }
  if (auto it = t.fields.find("types"); it != t.fields.end() && k == "struct")
    for (const Expr &x : it->second)
      a.types.push_back(exprToCpp(x));
  else
    a.types = fieldCpp(t, "oldtype");
  return a;
}

std::vector<std::string> Generator::typeConstructor(const Node &node, Params &p) {
  const Event &e = node.event();
  const std::string &op = e.op;
  static const std::map<std::string, std::string> kCalls = {
      {"MPI_Type_contiguous", "MPI_Type_contiguous(I[0], T[0], out)"},
      {"MPI_Type_vector", "MPI_Type_vector(I[0], I[1], I[2], T[0], out)"},
      {"MPI_Type_create_hvector", "MPI_Type_create_hvector(I[0], I[1], A[0], T[0], out)"},
      {"MPI_Type_indexed", "MPI_Type_indexed(I[0], &I[1], &I[size_t(1 + I[0])], T[0], out)"},
      {"MPI_Type_create_hindexed", "MPI_Type_create_hindexed(I[0], &I[1], A.data(), T[0], out)"},
      {"MPI_Type_create_indexed_block", "MPI_Type_create_indexed_block(I[0], I[1], &I[2], T[0], out)"},
      {"MPI_Type_create_hindexed_block", "MPI_Type_create_hindexed_block(I[0], I[1], A.data(), T[0], out)"},
      {"MPI_Type_create_struct", "MPI_Type_create_struct(I[0], &I[1], A.data(), T.data(), out)"},
      {"MPI_Type_create_subarray",
       "MPI_Type_create_subarray(I[0], &I[1], &I[size_t(1 + I[0])], &I[size_t(1 + 2 * I[0])], "
       "I[size_t(1 + 3 * I[0])], T[0], out)"},
      {"MPI_Type_create_darray",
       "MPI_Type_create_darray(I[0], I[1], I[2], &I[3], &I[size_t(3 + I[2])], &I[size_t(3 + 2 * I[2])], "
       "&I[size_t(3 + 3 * I[2])], I[size_t(3 + 4 * I[2])], T[0], out)"},
      {"MPI_Type_create_resized", "MPI_Type_create_resized(T[0], A[0], A[1], out)"},
      {"MPI_Type_dup", "MPI_Type_dup(T[0], out)"},
  };
  auto call = kCalls.find(op);
  if (call == kCalls.end())
    throw UnsupportedTrace(context_ + ": the replay generator does not support datatype constructor '" + op + "'");
  std::vector<const ObjectEntry *> made;
  for (const auto &t : trace_.datatypes)
    if (madeAtEvent(t) && t.name == op && t.site == e.site)
      made.push_back(&t);
  if (made.empty()) {
    // It failed on every rank (newtype -1): nothing of its arguments is in
    // the trace.
    noteApproximation(op + " at " + siteText(e) + " failed in the application and is not replayed");
    return {"// " + op + ": failed in the application, not replayed"};
  }
  std::vector<std::string> lines = {"{",
                                    "  const i64 madeId = " + p("newtype") + ";",
                                    "  std::vector<int> I;",
                                    "  std::vector<MPI_Aint> A;",
                                    "  std::vector<MPI_Datatype> T;",
                                    "  switch (madeId) {"};
  for (const ObjectEntry *t : made) {
    TypeArgs a = typeArgs(*t);
    std::vector<std::string> types;
    for (const std::string &id : a.types)
      types.push_back("datatype[" + id + "]");
    lines.push_back("  case " + std::to_string(t->id) + ":");
    lines.push_back("    " + vectorAssign("I", "int", a.ints, intArray));
    lines.push_back("    " + vectorAssign("A", "MPI_Aint", a.aints, aintArray));
    lines.push_back("    T = {" + join(types, ", ") + "};");
    lines.push_back("    break;");
  }
  lines.push_back("  default:");
  lines.push_back("    fail(std::string(currentCall) + \": no datatype \" + std::to_string(madeId) + \" made here in "
                  "the trace\");");
  lines.push_back("  }");
  lines.push_back("  MPI_Datatype *out = newType(madeId);");
  lines.push_back("  countMpi(" + typeMaker(e, call->second) + "(I, A, T, out));");
  lines.push_back("}");
  return lines;
}

std::string Generator::typeMaker(const Event &e, const std::string &call) {
  const auto key = std::make_pair(e.op, e.site);
  auto it = typeMakers_.find(key);
  if (it != typeMakers_.end())
    return it->second;
  const std::string name = "makeDatatypeAtSite" + std::to_string(typeMakers_.size());
  typeMakers_.emplace(key, name);
  siteFunctionDefs_.comment(e.op + " at " + siteText(e) + ": every type the application made there.");
  siteFunctionDefs_.open(
      "int " + name +
      "(const std::vector<int> &I, const std::vector<MPI_Aint> &A, const std::vector<MPI_Datatype> &T, "
      "MPI_Datatype *out)");
  siteFunctionDefs_.line("(void)I, (void)A, (void)T;");
  siteFunctionDefs_.line("return " + call + ";");
  siteFunctionDefs_.close();
  siteFunctionDefs_.blank();
  return name;
}

const ObjectEntry &Generator::madeEntry(const Event &e) const {
  if (const auto *param = e.param("newcomm"))
    for (const auto &entry : param->value.entries())
      if (const Expr *x = std::get_if<Expr>(&entry.value))
        if (auto id = x->constantValue(); id && *id >= 0)
          for (const auto &c : trace_.comms)
            if (c.id == *id)
              return c;
  throw UnsupportedTrace(context_ + ": no rank got a communicator from it, so its arguments are not in the trace");
}

std::string Generator::fieldInts(const ObjectEntry &c, const std::string &name) const {
  auto it = c.fields.find(name);
  if (it == c.fields.end() || it->second.empty())
    throw UnsupportedTrace(context_ + ": communicator " + std::to_string(c.id) + " has no field '" + name + "'");
  std::vector<std::string> v;
  for (const Expr &x : it->second)
    v.push_back("toInt(" + exprToCpp(x) + ")");
  return join(v, ", ");
}

std::vector<std::string> Generator::throughCommMaker(const Event &e, std::vector<std::string> lines) {
  static const std::map<std::string, std::pair<std::string, std::string>> kSignatures = {
      {"MPI_Comm_split", {"MPI_Comm comm, int color, int key, MPI_Comm *newcomm", "comm, color, key, newcomm"}},
      {"MPI_Comm_dup", {"MPI_Comm comm, MPI_Comm *newcomm", "comm, newcomm"}},
      {"MPI_Comm_split_type",
       {"MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm",
        "comm, split_type, key, info, newcomm"}},
      {"MPI_Comm_dup_with_info", {"MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm", "comm, info, newcomm"}},
      {"MPI_Comm_idup", {"MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request", "comm, newcomm, request"}},
      {"MPI_Comm_create", {"MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm", "comm, group, newcomm"}},
      {"MPI_Comm_create_group",
       {"MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm", "comm, group, tag, newcomm"}},
      {"MPI_Cart_create",
       {"MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *newcomm",
        "comm, ndims, dims, periods, reorder, newcomm"}},
      {"MPI_Cart_sub", {"MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm", "comm, remain_dims, newcomm"}},
      {"MPI_Intercomm_create",
       {"MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newcomm",
        "local_comm, local_leader, peer_comm, remote_leader, tag, newcomm"}},
      {"MPI_Intercomm_merge", {"MPI_Comm intercomm, int high, MPI_Comm *newcomm", "intercomm, high, newcomm"}},
  };
  auto signature = kSignatures.find(e.op);
  if (signature == kSignatures.end())
    return lines;
  const auto key = std::make_pair(e.op, e.site);
  auto it = commMakers_.find(key);
  if (it == commMakers_.end()) {
    // MPI_Cart_create -> makeCartCreateAtSite2: the body still says which
    // constructor it calls.
    std::string name = "make";
    for (size_t k = 4; k < e.op.size(); ++k)
      if (e.op[k] != '_')
        name += e.op[k - 1] == '_' ? char(std::toupper(static_cast<unsigned char>(e.op[k]))) : e.op[k];
    name += "AtSite" + std::to_string(commMakers_.size());
    it = commMakers_.emplace(key, name).first;
    siteFunctionDefs_.comment(e.op + " at " + siteText(e) + ": every communicator the application made there.");
    siteFunctionDefs_.open("int " + name + "(" + signature->second.first + ")");
    siteFunctionDefs_.line("return " + e.op + "(" + signature->second.second + ");");
    siteFunctionDefs_.close();
    siteFunctionDefs_.blank();
  }
  const std::string call = e.op + "(";
  for (std::string &line : lines)
    if (size_t at = line.find(call); at != std::string::npos)
      line.replace(at, call.size(), it->second + "(");
  return lines;
}

template <class IntArg>
std::vector<std::string> Generator::commConstructor(const Node &node, Params &p, IntArg intArg) {
  const Event &e = node.event();
  const std::string &op = e.op;
  auto mpi = [](const std::string &call) { return "countMpi(" + call + ");"; };
  if (!p.has("newcomm"))
    throw UnsupportedTrace(context_ + ": the trace does not say which communicator it made");
  std::string out = "newComm(" + p("newcomm") + ")";
  if (op == "MPI_Comm_split_type")
    return {mpi("MPI_Comm_split_type(" + comm(p) + ", " + intArg("split_type") + ", " + intArg("key") + ", info[" +
                p("info") + "], " + out + ")")};
  if (op == "MPI_Comm_dup_with_info")
    return {mpi("MPI_Comm_dup_with_info(" + comm(p) + ", info[" + p("info") + "], " + out + ")")};
  if (op == "MPI_Comm_idup") {
    noteApproximation("MPI_Comm_idup at " + siteText(e) + " completes at once (the application waited later)");
    return {"{", "  MPI_Request dupRequest = MPI_REQUEST_NULL;",
            "  " + mpi("MPI_Comm_idup(" + comm(p) + ", " + out + ", &dupRequest)"),
            "  MPI_Wait(&dupRequest, MPI_STATUS_IGNORE);", "}"};
  }
  if (op == "MPI_Comm_create" || op == "MPI_Comm_create_group") {
    std::string call = op == "MPI_Comm_create"
                           ? "MPI_Comm_create(" + comm(p) + ", group, " + out + ")"
                           : "MPI_Comm_create_group(" + comm(p) + ", group, " + intArg("tag") + ", " + out + ")";
    return {"{", "  MPI_Group group = memberGroup(" + p("newcomm") + ");", "  " + mpi(call), "  freeGroup(group);",
            "}"};
  }
  if (op == "MPI_Cart_create") {
    const ObjectEntry &c = madeEntry(e);
    return {"{", "  const int dims[] = {" + fieldInts(c, "dims") + "};",
            "  const int periods[] = {" + fieldInts(c, "periods") + "};",
            "  " + mpi("MPI_Cart_create(" + comm(p) + ", " + intArg("ndims") + ", dims, periods, " + intArg("reorder") +
                       ", " + out + ")"),
            "}"};
  }
  if (op == "MPI_Cart_sub") {
    const ObjectEntry &c = madeEntry(e);
    return {"{", "  const int remain[] = {" + fieldInts(c, "remain_dims") + "};",
            "  " + mpi("MPI_Cart_sub(" + comm(p) + ", remain, " + out + ")"), "}"};
  }
  if (op == "MPI_Intercomm_create")
    return {mpi("MPI_Intercomm_create(" + comm(p) + ", " + intArg("local_leader") + ", comm[" + p("peer_comm") + "], " +
                intArg("remote_leader") + ", " + intArg("tag") + ", " + out + ")")};
  return {mpi("MPI_Intercomm_merge(" + comm(p) + ", " + intArg("high") + ", " + out + ")")};
}

void Generator::noteApproximation(const std::string &what) {
  if (std::find(approximations_.begin(), approximations_.end(), what) == approximations_.end())
    approximations_.push_back(what);
}

std::string Generator::whence(Params &p) {
  auto w = p.constant("whence");
  if (w && *w >= 0 && *w <= 2)
    return std::vector<std::string>{"SEEK_SET", "SEEK_CUR", "SEEK_END"}[size_t(*w)];
  return "toInt(" + p("whence") + ")";
}

template <class FhArg, class IntArg, class Mpi>
std::vector<std::string> Generator::dataAccess(const std::string &op, Params &p, FhArg fhArg, IntArg intArg, Mpi mpi) {
  static const std::set<std::string> kPlain = {
      "MPI_File_read",        "MPI_File_read_at",      "MPI_File_read_all",     "MPI_File_read_at_all",
      "MPI_File_read_shared", "MPI_File_read_ordered", "MPI_File_write",        "MPI_File_write_at",
      "MPI_File_write_all",   "MPI_File_write_at_all", "MPI_File_write_shared", "MPI_File_write_ordered"};
  static const std::set<std::string> kBegin = {"MPI_File_read_all_begin",     "MPI_File_read_at_all_begin",
                                               "MPI_File_read_ordered_begin", "MPI_File_write_all_begin",
                                               "MPI_File_write_at_all_begin", "MPI_File_write_ordered_begin"};
  static const std::set<std::string> kEnd = {"MPI_File_read_all_end",     "MPI_File_read_at_all_end",
                                             "MPI_File_read_ordered_end", "MPI_File_write_all_end",
                                             "MPI_File_write_at_all_end", "MPI_File_write_ordered_end"};
  static const std::set<std::string> kNonblocking = {
      "MPI_File_iread",         "MPI_File_iread_at",     "MPI_File_iread_all", "MPI_File_iread_at_all",
      "MPI_File_iread_shared",  "MPI_File_iwrite",       "MPI_File_iwrite_at", "MPI_File_iwrite_all",
      "MPI_File_iwrite_at_all", "MPI_File_iwrite_shared"};
  if (kEnd.count(op))
    return {mpi(op + "(" + fhArg() + ", buffer.base(), MPI_STATUS_IGNORE)")};
  bool plain = kPlain.count(op), begin = kBegin.count(op), nonblocking = kNonblocking.count(op);
  if (!plain && !begin && !nonblocking)
    throw UnsupportedTrace(context_ + ": the replay generator does not support MPI-IO operation '" + op + "'");
  std::string args = fhArg();
  if (op.find("_at") != std::string::npos)
    args += ", " + p("offset");
  args += ", buffer.elements(" + p("count") + ", " + type(p) + "), " + intArg("count") + ", " + type(p);
  if (plain)
    args += ", MPI_STATUS_IGNORE";
  if (nonblocking)
    args += p.constant("request").value_or(-1) >= 0 ? ", &request[" + p("request") + "]"
                                                    : ", requestSlot(" + p("request") + ")";
  return {mpi(op + "(" + args + ")")};
}

void Generator::assignCommunicators() {
  std::map<std::string, std::vector<int64_t>> entries;
  for (const auto &c : trace_.comms)
    if (c.kind == "split" || c.kind == "dup")
      entries[c.kind].push_back(c.id);
  std::map<std::string, size_t> used;
  forEachEvent(trace_.body, [&](const Event &e) {
    std::string kind = e.op == "MPI_Comm_split" ? "split" : e.op == "MPI_Comm_dup" ? "dup" : "";
    if (kind.empty() || e.inner)
      return;
    size_t &k = used[kind];
    if (k < entries[kind].size())
      newComms_[&e] = entries[kind][k++];
  });
}

} // namespace sio::replay::detail
