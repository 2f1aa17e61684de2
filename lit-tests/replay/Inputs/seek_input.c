/* A stdio input read after fseek (a header skipped, a record looked up):
 * the replay must provide the file up to where the reads end, not just the
 * bytes read (issue "A peer's test suite", item 4). Character and
 * formatted input too: fgetc, fscanf. (Not fgets: the file the replay
 * provides holds zero bytes, and a line of them has length 0.) */
#include <mpi.h>
#include <stdio.h>
int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  FILE *f = fopen("seek_in.txt", "r");
  if (!f)
    MPI_Abort(MPI_COMM_WORLD, 1);
  char buf[256];
  fseek(f, 5000, SEEK_SET);
  size_t got = fread(buf, 1, 100, f);
  fseek(f, 20000, SEEK_SET);
  int c = fgetc(f);
  fseek(f, 100, SEEK_CUR);
  size_t more = fread(buf, 1, 200, f);
  int value = 0;
  fseek(f, 30000, SEEK_SET);
  int n = fscanf(f, "%d", &value);
  printf("%zu %d %zu %d\n", got, c != EOF, more, n);
  fclose(f);
  MPI_Finalize();
  return 0;
}
