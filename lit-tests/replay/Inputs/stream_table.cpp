// Two result files written by one loop that picks the stream from data (a
// fixed pseudo-random sequence): the stream parameter is a long table over
// the loop index, which the replay generator once emitted as
// `stream[[](i64 index) {...}(i0)]`, C++ attribute syntax that does not
// compile (issue "A peer's test suite as the acceptance test").
#include <mpi.h>

#include <cstdio>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char names[2][64];
  std::FILE *out[2];
  for (int f = 0; f < 2; ++f) {
    std::snprintf(names[f], sizeof names[f], "result_%d_%d.txt", f, rank);
    out[f] = std::fopen(names[f], "w");
  }
  unsigned state = 12345;
  const char line[] = "0123456789abcdef";
  for (int i = 0; i < 200; ++i) {
    state = state * 1103515245u + 12345u;
    std::fwrite(line, 1, 16, out[(state >> 16) & 1]);
  }
  for (auto *f : out)
    std::fclose(f);
  MPI_Finalize();
  return 0;
}
