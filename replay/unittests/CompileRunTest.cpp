// A generated program compiled with MPICH's mpicxx and run on 2 ranks in
// fast-forward mode: it must compile warning-free and write exactly the files
// the trace describes, untrusted names included; on 3 ranks, where one of its
// models does not hold, every rank must refuse.
#include "TestTraces.h"

#include "sio/replay/ReplayGenerator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sio::replay {
namespace {

namespace fs = std::filesystem;
using test::event;
using test::makeTrace;

int run(const std::string &command) {
  int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string slurp(const fs::path &path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::string kWeirdName = "q\"uo\\te*/?" "?/\xc3\xa9_";

sio::trace::Trace sampleTrace() {
  std::string files = R"([{"id": 0, "name": [{"text": "out dir/shared.dat"}]},
    {"id": 1, "name": [{"text": "q\"uo\\te*/??/\u00e9_"}, {"field": "rank", "width": 2}]},
    {"id": 2, "name": [{"text": "input/never_written.dat"}]}])";
  std::string body =
      "[" + event(2, "MPI_File_open", "mpiio", R"({"comm": 0, "file": 0, "amode": 5, "info": 0, "fh": 0})") +
      R"(, {"loop": 0, "ranks": )" + test::allRanks(2) + R"(, "iterations": 3, "body": [)" +
      event(2, "MPI_File_write_at", "mpiio", R"({"fh": 0, "offset": "100*rank + 200*i0", "count": 100, "datatype": 0})") +
      "]}, " + event(2, "MPI_File_close", "mpiio", R"({"fh": 0})") + ", " +
      event(2, "open", "posix", R"({"file": 1, "flags": 65, "mode": 420, "fd": 0})") + ", " +
      event(2, "write", "posix", R"({"fd": 0, "count": "10*rank + 5"})") + ", " +
      event(2, "write", "posix", R"({"fd": 0, "count": "4/nranks"})") + ", " +
      event(2, "close", "posix", R"({"fd": 0})") + ", " +
      event(2, "open", "posix", R"({"file": 2, "flags": 0, "fd": 1})") + ", " +
      event(2, "pread", "posix", R"({"fd": 1, "count": 64, "offset": "64*rank + 1000"})") + ", " +
      event(2, "close", "posix", R"({"fd": 1})") + "]";
  return makeTrace(2, files, body);
}

TEST(CompileRun, ReplaysFilesOnTwoRanksAndRefusesOnThree) {
  fs::path dir = fs::temp_directory_path() / ("sio-replay-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    std::ofstream out(dir / "replay.cpp");
    out << generateReplay(sampleTrace());
  }
  std::string cd = "cd '" + dir.string() + "' && ";
  ASSERT_EQ(run(cd + SIO_MPICXX " -Wall -Wextra -Werror -O1 replay.cpp -o replay 2> compile.log"), 0)
      << slurp(dir / "compile.log");
  ASSERT_EQ(run(cd + "MPIR_CVAR_CH4_NUM_VCIS=1 " SIO_MPIEXEC " -n 2 ./replay --fast-forward > run.log 2>&1"), 0)
      << slurp(dir / "run.log");
  // Relative names are replayed under the default root's rel/ directory.
  fs::path rel = dir / "sio-replay-root" / "rel";
  EXPECT_FALSE(fs::exists(dir / "out dir"));
  EXPECT_EQ(fs::file_size(rel / "out dir/shared.dat"), 600u); // 3 writes of 100 at 100*rank + 200*i
  EXPECT_EQ(fs::file_size(rel / (kWeirdName + "00")), 5u + 2u);
  EXPECT_EQ(fs::file_size(rel / (kWeirdName + "01")), 15u + 2u);
  // Never written, only read: created with the size the reads need.
  EXPECT_EQ(fs::file_size(rel / "input/never_written.dat"), 64u + 1000u + 64u);

  // 4/nranks is no integer on 3 ranks: a clear refusal, nonzero exit.
  EXPECT_NE(run(cd + "MPIR_CVAR_CH4_NUM_VCIS=1 " SIO_MPIEXEC " -n 3 ./replay --fast-forward > refuse.log 2>&1"), 0);
  std::string refusal = slurp(dir / "refuse.log");
  EXPECT_NE(refusal.find("refusing to run on 3 ranks"), std::string::npos) << refusal;
  EXPECT_NE(refusal.find("4/3 is not an integer"), std::string::npos) << refusal;

  EXPECT_EQ(run(cd + "MPIR_CVAR_CH4_NUM_VCIS=1 " SIO_MPIEXEC " -n 1 ./replay --help > help.log 2>&1"), 0);
  EXPECT_NE(slurp(dir / "help.log").find("--path-map OLD=NEW"), std::string::npos);
  fs::remove_all(dir);
}

} // namespace
} // namespace sio::replay
