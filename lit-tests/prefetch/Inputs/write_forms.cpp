// Coherence of every MPI-IO write form with libsio-prefetch.so's cache
// (Byna et al. SC08 §V-F: a process sees its own writes, MPI-4 §14.6.1).
//   write_forms [--complete CALL] [FORM...]   (default: every form below)
// CALL completes the nonblocking writes: wait (default), test, waitall,
// testall, waitany, testany, waitsome, testsome (Test forms in a loop until
// done). (Not MPI_Request_get_status: MPICH 4.0's does not progress ROMIO's
// requests, so a loop on it never ends.)
// For each form, on a file opened anew (a fresh predictor): every rank reads
// 8 strided accesses of S bytes (the online detector learns the stride and
// the prefetch thread loads the block ahead), a 9th one (served from that
// block), then overwrites its 13th access with the form (version 1 of the
// bytes) and reads the 10th to 16th, comparing each byte with the file's.
// Nonblocking forms read the 10th and 11th access and wait a little between
// the start and MPI_Wait, so the prefetch thread reloads the block while the
// write may still be in flight (it reaches the file only when the request
// completes); split collectives read between begin and end likewise.
// Prints "FORM: W wrong bytes" per form from rank 0, then
// "forms: N run, W wrong bytes"; exits 1 on wrong bytes.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

int rank = 0, nranks = 1;
const char *kFile = "forms.bin";
constexpr int S = 2048;       // one access
constexpr int kAccesses = 16; // per rank and form; 16 * 2 ranks * S = one 64 KiB block
constexpr int kWritten = 12;  // the access each form overwrites

unsigned char byteAt(int64_t o, int version) {
  return (unsigned char)(((uint64_t(o) * 2654435761u) >> 11) + version * 37u);
}

struct Form {
  const char *names; // the IoCalls.def names this case covers, space separated
  enum Kind { Individual, Explicit, Shared, Ordered } kind;
  bool nonblocking;
  /// Writes S bytes of `buf`: at `off` (Explicit), at the individual file
  /// pointer (the caller seeks it to `off`), or at the shared one.
  std::function<void(MPI_File, MPI_Offset, const void *, MPI_Request *)> write;
};

#define BLOCKING(EXPR) [](MPI_File fh, MPI_Offset off, const void *buf, MPI_Request *) { (void)off, EXPR; }
#define NONBLOCKING(EXPR) [](MPI_File fh, MPI_Offset off, const void *buf, MPI_Request *req) { (void)off, EXPR; }
#define ST MPI_STATUS_IGNORE

const std::vector<Form> &forms() {
  static const std::vector<Form> all = {
      {"MPI_File_write", Form::Individual, false, BLOCKING(MPI_File_write(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_at", Form::Explicit, false, BLOCKING(MPI_File_write_at(fh, off, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_all", Form::Individual, false, BLOCKING(MPI_File_write_all(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_at_all", Form::Explicit, false, BLOCKING(MPI_File_write_at_all(fh, off, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_shared", Form::Shared, false, BLOCKING(MPI_File_write_shared(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_ordered", Form::Ordered, false, BLOCKING(MPI_File_write_ordered(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_c", Form::Individual, false, BLOCKING(MPI_File_write_c(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_at_c", Form::Explicit, false, BLOCKING(MPI_File_write_at_c(fh, off, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_all_c", Form::Individual, false, BLOCKING(MPI_File_write_all_c(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_at_all_c", Form::Explicit, false,
       BLOCKING(MPI_File_write_at_all_c(fh, off, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_shared_c", Form::Shared, false, BLOCKING(MPI_File_write_shared_c(fh, buf, S, MPI_BYTE, ST))},
      {"MPI_File_write_ordered_c", Form::Ordered, false, BLOCKING(MPI_File_write_ordered_c(fh, buf, S, MPI_BYTE, ST))},
      // Split collectives: begin here, end after the reads in between.
      {"MPI_File_write_all_begin MPI_File_write_all_end", Form::Individual, true,
       BLOCKING(MPI_File_write_all_begin(fh, buf, S, MPI_BYTE))},
      {"MPI_File_write_at_all_begin MPI_File_write_at_all_end", Form::Explicit, true,
       BLOCKING(MPI_File_write_at_all_begin(fh, off, buf, S, MPI_BYTE))},
      {"MPI_File_write_ordered_begin MPI_File_write_ordered_end", Form::Ordered, true,
       BLOCKING(MPI_File_write_ordered_begin(fh, buf, S, MPI_BYTE))},
      {"MPI_File_write_all_begin_c", Form::Individual, true,
       BLOCKING(MPI_File_write_all_begin_c(fh, buf, S, MPI_BYTE))},
      {"MPI_File_write_at_all_begin_c", Form::Explicit, true,
       BLOCKING(MPI_File_write_at_all_begin_c(fh, off, buf, S, MPI_BYTE))},
      {"MPI_File_write_ordered_begin_c", Form::Ordered, true,
       BLOCKING(MPI_File_write_ordered_begin_c(fh, buf, S, MPI_BYTE))},
      {"MPI_File_iwrite", Form::Individual, true, NONBLOCKING(MPI_File_iwrite(fh, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_at", Form::Explicit, true, NONBLOCKING(MPI_File_iwrite_at(fh, off, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_all", Form::Individual, true, NONBLOCKING(MPI_File_iwrite_all(fh, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_at_all", Form::Explicit, true,
       NONBLOCKING(MPI_File_iwrite_at_all(fh, off, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_shared", Form::Shared, true, NONBLOCKING(MPI_File_iwrite_shared(fh, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_c", Form::Individual, true, NONBLOCKING(MPI_File_iwrite_c(fh, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_at_c", Form::Explicit, true, NONBLOCKING(MPI_File_iwrite_at_c(fh, off, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_all_c", Form::Individual, true, NONBLOCKING(MPI_File_iwrite_all_c(fh, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_at_all_c", Form::Explicit, true,
       NONBLOCKING(MPI_File_iwrite_at_all_c(fh, off, buf, S, MPI_BYTE, req))},
      {"MPI_File_iwrite_shared_c", Form::Shared, true,
       NONBLOCKING(MPI_File_iwrite_shared_c(fh, buf, S, MPI_BYTE, req))},
  };
  return all;
}

/// The end of a split collective begun by `f` (begin forms only).
void endSplit(const Form &f, MPI_File fh, const void *buf) {
  const std::string n = f.names;
  if (n.rfind("MPI_File_write_all_begin", 0) == 0)
    MPI_File_write_all_end(fh, buf, ST);
  else if (n.rfind("MPI_File_write_at_all_begin", 0) == 0)
    MPI_File_write_at_all_end(fh, buf, ST);
  else
    MPI_File_write_ordered_end(fh, buf, ST);
}

std::string completeWith = "wait";

/// Completes `req` with the chosen call.
void complete(MPI_Request &req) {
  int flag = 0, index = 0, outcount = 0;
  const std::string &c = completeWith;
  if (c == "wait")
    MPI_Wait(&req, ST);
  else if (c == "waitall")
    MPI_Waitall(1, &req, MPI_STATUSES_IGNORE);
  else if (c == "waitany")
    MPI_Waitany(1, &req, &index, ST);
  else if (c == "waitsome")
    MPI_Waitsome(1, &req, &outcount, &index, MPI_STATUSES_IGNORE);
  else if (c == "test")
    while (!flag)
      MPI_Test(&req, &flag, ST);
  else if (c == "testall")
    while (!flag)
      MPI_Testall(1, &req, &flag, MPI_STATUSES_IGNORE);
  else if (c == "testany")
    while (!flag)
      MPI_Testany(1, &req, &index, &flag, ST);
  else if (c == "testsome")
    while (!outcount)
      MPI_Testsome(1, &req, &outcount, &index, MPI_STATUSES_IGNORE);
  else {
    std::fprintf(stderr, "write_forms: unknown completion call %s\n", c.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
}

/// Access j of this rank in the region starting at `base`.
int64_t accessAt(int64_t base, int j) { return base + (int64_t(j) * nranks + rank) * S; }

long readAndCheck(MPI_File fh, int64_t base, int j) {
  std::vector<unsigned char> buf(S);
  const int64_t off = accessAt(base, j);
  MPI_File_read_at(fh, off, buf.data(), S, MPI_BYTE, ST);
  const int version = j == kWritten ? 1 : 0;
  long wrong = 0;
  for (int b = 0; b < S; ++b)
    wrong += buf[size_t(b)] != byteAt(off + b, version);
  return wrong;
}

long runForm(const Form &f, int64_t base) {
  MPI_File fh;
  if (MPI_File_open(MPI_COMM_WORLD, kFile, MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
    std::fprintf(stderr, "cannot open %s\n", kFile);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  long wrong = 0;
  for (int j = 0; j <= 8; ++j)
    wrong += readAndCheck(fh, base, j); // the 9th is served from the block prefetched ahead
  const int64_t off = accessAt(base, kWritten);
  std::vector<unsigned char> buf(S);
  for (int b = 0; b < S; ++b)
    buf[size_t(b)] = byteAt(off + b, 1);
  // Shared file pointer forms land rank r's bytes at shared + r * S: at
  // `off` for every rank when the shared pointer starts at access 12 of rank 0.
  if (f.kind == Form::Shared || f.kind == Form::Ordered)
    MPI_File_seek_shared(fh, accessAt(base, kWritten) - rank * S, MPI_SEEK_SET);
  if (f.kind == Form::Individual)
    MPI_File_seek(fh, off, MPI_SEEK_SET);
  MPI_Request req = MPI_REQUEST_NULL;
  if (f.kind == Form::Shared) {
    for (int turn = 0; turn < nranks; ++turn) { // in rank order
      if (turn == rank)
        f.write(fh, off, buf.data(), &req); // moves the shared pointer at once
      MPI_Barrier(MPI_COMM_WORLD);
    }
  } else {
    f.write(fh, off, buf.data(), &req);
  }
  int j = 9;
  if (f.nonblocking) {
    // Between the start and the completion: reads that wake the prefetch
    // thread, which reloads the block holding the bytes being written.
    wrong += readAndCheck(fh, base, j++);
    usleep(2000);
    wrong += readAndCheck(fh, base, j++);
    usleep(2000);
    if (std::strstr(f.names, "_begin"))
      endSplit(f, fh, buf.data());
    else
      complete(req);
  }
  for (; j < kAccesses; ++j)
    wrong += readAndCheck(fh, base, j);
  MPI_File_close(&fh);
  return wrong;
}

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  if (nranks > 2) {
    if (rank == 0)
      std::fprintf(stderr, "write_forms: at most 2 ranks (a form's accesses fill one 64 KiB block)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int first = 1;
  if (argc > 2 && std::strcmp(argv[1], "--complete") == 0) {
    completeWith = argv[2];
    first = 3;
  }
  std::vector<const Form *> chosen;
  for (const Form &f : forms()) {
    bool take = argc <= first;
    for (int a = first; a < argc; ++a)
      take = take || std::string(f.names).find(argv[a]) == 0;
    if (take)
      chosen.push_back(&f);
  }
  const int64_t region = 4 * 65536; // per form, block aligned
  const int64_t size = int64_t(forms().size()) * region;
  if (rank == 0) {
    std::vector<unsigned char> buf(static_cast<size_t>(size));
    for (int64_t o = 0; o < size; ++o)
      buf[size_t(o)] = byteAt(o, 0);
    int fd = open(kFile, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, buf.data(), buf.size()) != ssize_t(buf.size())) {
      perror(kFile);
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  long total = 0;
  for (const Form *f : chosen) {
    const int64_t base = (f - forms().data()) * region;
    long wrong = runForm(*f, base), sum = 0;
    MPI_Reduce(&wrong, &sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("%s: %ld wrong bytes\n", f->names, sum);
    total += sum;
  }
  if (rank == 0)
    std::printf("forms: %zu run, %ld wrong bytes\n", chosen.size(), total);
  MPI_Bcast(&total, 1, MPI_LONG, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return total == 0 ? 0 : 1;
}
