// The library's own cost of MPI_File_set_view and of a read through a
// derived memory type: flattening the datatype (View.cpp). BM_PnetcdfView is
// the filetype PnetCDF sets before each get of bench/prefetch-pnetcdf.c (a
// struct of the 512-byte header and an hvector of a {16, 16, 512}-double
// subarray; 257 pieces); BM_GhostMemory the benchmark's ghost-celled buffer
// type ({16, 16, 512} of {18, 18, 514} doubles); BM_Contiguous a dense
// type of N doubles, which is one piece however large N is.
#include "../lib/View.h"

#include <mpi.h>

#include <benchmark/benchmark.h>

using namespace sio::prefetch;

namespace {

MPI_Datatype pnetcdfFiletype() {
  int sizes[3] = {16, 32, 512}, subs[3] = {16, 16, 512}, starts[3] = {0, 16, 0};
  MPI_Datatype sub, rec, ft;
  MPI_Type_create_subarray(3, sizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &sub);
  MPI_Type_create_hvector(1, 1, 4194304, sub, &rec);
  int lens[2] = {512, 1};
  MPI_Aint displs[2] = {0, 512};
  MPI_Datatype types[2] = {MPI_BYTE, rec};
  MPI_Type_create_struct(2, lens, displs, types, &ft);
  MPI_Type_commit(&ft);
  MPI_Type_free(&sub);
  MPI_Type_free(&rec);
  return ft;
}

void BM_PnetcdfView(benchmark::State &state) {
  MPI_Datatype ft = pnetcdfFiletype();
  for (auto _ : state) {
    auto v = flattenView(0, MPI_BYTE, ft);
    benchmark::DoNotOptimize(v);
  }
  MPI_Type_free(&ft);
}
BENCHMARK(BM_PnetcdfView)->Unit(benchmark::kMicrosecond);

void BM_GhostMemory(benchmark::State &state) {
  int gsizes[3] = {18, 18, 514}, subs[3] = {16, 16, 512}, starts[3] = {1, 1, 1};
  MPI_Datatype ghost;
  MPI_Type_create_subarray(3, gsizes, subs, starts, MPI_ORDER_C, MPI_DOUBLE, &ghost);
  MPI_Type_commit(&ghost);
  for (auto _ : state) {
    auto m = flattenMemory(ghost);
    benchmark::DoNotOptimize(m);
  }
  MPI_Type_free(&ghost);
}
BENCHMARK(BM_GhostMemory)->Unit(benchmark::kMicrosecond);

void BM_Contiguous(benchmark::State &state) {
  MPI_Datatype t;
  MPI_Type_contiguous(int(state.range(0)), MPI_DOUBLE, &t);
  MPI_Type_commit(&t);
  for (auto _ : state) {
    auto m = flattenMemory(t);
    benchmark::DoNotOptimize(m);
  }
  MPI_Type_free(&t);
}
BENCHMARK(BM_Contiguous)->Range(1 << 10, 1 << 20)->Unit(benchmark::kMicrosecond);

} // namespace

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  MPI_Finalize();
  return 0;
}
