// Counts the collective MPI calls (on communicators of more than one rank:
// a collective there waits for the other ranks, ~40 ms each with 8 ranks on
// the 2-core development machine) that each phase of a file costs, as
// FLASH-IO's files do it: ncmpi_create, define, ncmpi_enddef, iput of every
// variable + ncmpi_wait_all(NC_REQ_ALL), ncmpi_close. The program interposes
// the MPI collectives (PMPI) and writes N unpartitioned files, then N
// partitioned ones with the same content, and prints per partitioned file
// and phase how many collectives it made beyond the unpartitioned file's
// (the partitioned file's own overhead). With SIO_PART_REPORT=FILE and
// several targets, the enddef count leaves out one per probe round (the
// rounds parsed from the report), said as "+ probe rounds".
//   collectives DIR N [KEY=VALUE ...]   (the partitioning hints)
#include <sio/part/NcProgram.h>
#include <stdlib.h>

enum { B = 16, Z = 4, Y = 4, X = 4, NVARS = 3 };
enum { kCreate, kEnddef, kWait, kClose, kPhases };
static const char *const kPhaseNames[kPhases] = {"create", "enddef", "wait_all", "close"};
static long counted = 0;

static void count(MPI_Comm comm) {
  int size = 1;
  PMPI_Comm_size(comm, &size);
  counted += size > 1;
}

int MPI_Barrier(MPI_Comm c) {
  count(c);
  return PMPI_Barrier(c);
}
int MPI_Bcast(void *b, int n, MPI_Datatype t, int root, MPI_Comm c) {
  count(c);
  return PMPI_Bcast(b, n, t, root, c);
}
int MPI_Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c) {
  count(c);
  return PMPI_Allreduce(s, r, n, t, op, c);
}
int MPI_Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  count(c);
  return PMPI_Alltoall(s, sn, st, r, rn, rt, c);
}
int MPI_Alltoallv_c(const void *s, const MPI_Count *sc, const MPI_Aint *sd, MPI_Datatype st, void *r,
                    const MPI_Count *rc, const MPI_Aint *rd, MPI_Datatype rt, MPI_Comm c) {
  count(c);
  return PMPI_Alltoallv_c(s, sc, sd, st, r, rc, rd, rt, c);
}
int MPI_Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt, MPI_Comm c) {
  count(c);
  return PMPI_Allgather(s, sn, st, r, rn, rt, c);
}
int MPI_Comm_dup(MPI_Comm c, MPI_Comm *n) {
  count(c);
  return PMPI_Comm_dup(c, n);
}
int MPI_Comm_create_group(MPI_Comm c, MPI_Group g, int tag, MPI_Comm *n) {
  count(c);
  return PMPI_Comm_create_group(c, g, tag, n);
}
int MPI_Comm_split(MPI_Comm c, int color, int key, MPI_Comm *n) {
  count(c);
  return PMPI_Comm_split(c, color, key, n);
}

/// The probe rounds of the last probe in the report file (0: none).
static int lastRounds(void) {
  const char *path = getenv("SIO_PART_REPORT");
  FILE *f = path ? fopen(path, "r") : NULL;
  int rounds = 0;
  char line[4096];
  while (f && fgets(line, sizeof line, f)) {
    char *at = strstr(line, " rounds, ");
    if (at && strstr(line, "bytes each")) {
      while (at > line && at[-1] >= '0' && at[-1] <= '9')
        --at;
      rounds = atoi(at);
    }
  }
  if (f)
    fclose(f);
  return rounds;
}

/// Writes one file the FLASH-IO way; counts[phase] the collectives of each phase.
static void writeFile(const char *path, MPI_Info info, long counts[kPhases]) {
  int rank, nprocs;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  int ncid, dims[4], vars[NVARS];
  long before = counted;
  SIO_NC_CHECK(ncmpi_create(MPI_COMM_WORLD, path, NC_CLOBBER | NC_64BIT_DATA, info, &ncid));
  counts[kCreate] = counted - before;
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "blocks", B * nprocs, &dims[0]));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "z", Z, &dims[1]));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "y", Y, &dims[2]));
  SIO_NC_CHECK(ncmpi_def_dim(ncid, "x", X, &dims[3]));
  for (int v = 0; v < NVARS; ++v) {
    char name[16];
    snprintf(name, sizeof name, "v%d", v);
    SIO_NC_CHECK(ncmpi_def_var(ncid, name, NC_DOUBLE, 4, dims, &vars[v]));
  }
  before = counted;
  SIO_NC_CHECK(ncmpi_enddef(ncid));
  counts[kEnddef] = counted - before;
  double buf[NVARS][B * Z * Y * X];
  MPI_Offset start[4] = {(MPI_Offset)B * rank, 0, 0, 0}, cnt[4] = {B, Z, Y, X};
  int reqs[NVARS];
  for (int v = 0; v < NVARS; ++v) {
    for (int i = 0; i < B * Z * Y * X; ++i)
      buf[v][i] = v * 1e6 + rank * B * Z * Y * X + i;
    SIO_NC_CHECK(ncmpi_iput_vara_double(ncid, vars[v], start, cnt, buf[v], &reqs[v]));
  }
  before = counted;
  SIO_NC_CHECK(ncmpi_wait_all(ncid, NC_REQ_ALL, NULL, NULL));
  counts[kWait] = counted - before;
  before = counted;
  SIO_NC_CHECK(ncmpi_close(ncid));
  counts[kClose] = counted - before;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const int n = atoi(argv[2]);
  long plain[kPhases], part[kPhases];
  char path[4096];
  for (int f = 0; f < n; ++f) {
    snprintf(path, sizeof path, "%s/plain.%d.nc", argv[1], f);
    writeFile(path, MPI_INFO_NULL, plain);
  }
  for (int f = 0; f < n; ++f) {
    snprintf(path, sizeof path, "%s/part.%d.nc", argv[1], f);
    MPI_Info info = sio_nc_hints(argc, argv, 3);
    writeFile(path, info, part);
    MPI_Info_free(&info);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      // The probe's rounds (only the first file probes) apart from the rest.
      const int rounds = f == 0 ? lastRounds() : 0;
      part[kEnddef] -= rounds;
      printf("file %d extra collectives:", f);
      for (int p = 0; p < kPhases; ++p)
        printf(" %s %ld%s", kPhaseNames[p], part[p] - plain[p], p == kEnddef && rounds ? " + probe rounds" : "");
      printf("\n");
    }
  }
  MPI_Finalize();
  return 0;
}
