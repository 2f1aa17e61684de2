// writeFileAtomically: the file appears whole or not at all, and the old
// file survives a failed write.
#include "sio/trace/AtomicFile.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

using namespace sio::trace;
namespace fs = std::filesystem;

namespace {

std::string contents(const fs::path &p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct AtomicFile : ::testing::Test {
  fs::path dir;
  void SetUp() override {
    dir = fs::temp_directory_path() / ("sio-atomic-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  size_t entries() const { return size_t(std::distance(fs::directory_iterator(dir), fs::directory_iterator())); }
};

} // namespace

TEST_F(AtomicFile, WritesThePiecesInOrder) {
  const fs::path out = dir / "out.txt";
  writeFileAtomically(out.string(), [](const TextSink &sink) {
    sink("one ");
    sink("");
    sink("two");
  });
  EXPECT_EQ(contents(out), "one two");
  writeFileAtomically(out.string(), std::string_view("replaced"));
  EXPECT_EQ(contents(out), "replaced");
  EXPECT_EQ(entries(), 1u); // no temporary left behind
}

TEST_F(AtomicFile, AFailingProducerLeavesTheOldFileAndNoTemporary) {
  const fs::path out = dir / "out.txt";
  writeFileAtomically(out.string(), std::string_view("old"));
  EXPECT_THROW(writeFileAtomically(out.string(),
                                   [](const TextSink &sink) {
                                     sink("half of the new text");
                                     throw std::runtime_error("generator failed");
                                   }),
               std::runtime_error);
  EXPECT_EQ(contents(out), "old");
  EXPECT_EQ(entries(), 1u);
}

TEST_F(AtomicFile, AMissingDirectoryIsNamedInTheError) {
  const std::string out = (dir / "missing" / "out.txt").string();
  try {
    writeFileAtomically(out, std::string_view("x"));
    FAIL() << "expected an error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find(out), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
}

TEST_F(AtomicFile, AFullDiskIsReported) {
  if (!fs::exists("/dev/full"))
    GTEST_SKIP() << "no /dev/full";
  // The temporary is created next to the target; a symlink to /dev/full as
  // the temporary's name makes every write fail with ENOSPC.
  const fs::path out = dir / "out.txt";
  fs::create_symlink("/dev/full", out.string() + ".tmp." + std::to_string(::getpid()));
  try {
    writeFileAtomically(out.string(), std::string_view("does not fit"));
    FAIL() << "expected an error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(out));
}
