// writeFileAtomically: the file appears whole or not at all, the old file
// survives a failed write, links are followed and nothing but a regular
// file is replaced; removeStaleTemporaries.
#include "sio/trace/AtomicFile.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
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

TEST_F(AtomicFile, AFailedWriteIsReportedAndLeavesNothing) {
  // A file size limit makes the write fail (EFBIG), as a full disk would.
  const fs::path out = dir / "out.txt";
  struct rlimit old;
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  struct rlimit small = old;
  small.rlim_cur = 4;
  auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  try {
    writeFileAtomically(out.string(), std::string_view("does not fit"));
    ADD_FAILURE() << "expected an error";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("File too large"), std::string::npos) << e.what();
  }
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, oldHandler);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(entries(), 0u);
}

TEST_F(AtomicFile, ASymbolicLinkIsFollowedAndKept) {
  fs::create_directories(dir / "sub");
  fs::create_symlink("sub/new.txt", dir / "link"); // to a name that does not exist yet
  writeFileAtomically((dir / "link").string(), std::string_view("one"));
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(contents(dir / "sub" / "new.txt"), "one");
  writeFileAtomically((dir / "link").string(), std::string_view("two")); // to an existing file
  EXPECT_TRUE(fs::is_symlink(dir / "link"));
  EXPECT_EQ(contents(dir / "sub" / "new.txt"), "two");
  EXPECT_EQ(entries(), 2u);
}

TEST_F(AtomicFile, ANonRegularTargetIsNeverTouched) {
  const fs::path fifo = dir / "fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  fs::create_directories(dir / "adir");
  fs::create_symlink("fifo", dir / "to-fifo");
  for (const char *name : {"fifo", "adir", "to-fifo"}) {
    const std::string path = (dir / name).string();
    struct stat before, after;
    ASSERT_EQ(lstat(path.c_str(), &before), 0);
    try {
      writeFileAtomically(path, std::string_view("x"));
      ADD_FAILURE() << name << ": written";
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
    ASSERT_EQ(lstat(path.c_str(), &after), 0);
    EXPECT_EQ(before.st_ino, after.st_ino) << name;
    EXPECT_EQ(before.st_mode, after.st_mode) << name;
  }
  EXPECT_TRUE(fs::is_fifo(fifo));
  EXPECT_EQ(entries(), 3u);
}

TEST_F(AtomicFile, OnlyStaleTemporariesOfThisHostGo) {
  // A pid that no longer runs: a child that has been waited for.
  pid_t dead = fork();
  if (dead == 0)
    _exit(0);
  ASSERT_GT(dead, 0);
  waitpid(dead, nullptr, 0);
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  const std::string out = (dir / "out.txt").string();
  const std::string h = host;
  for (const std::string &n :
       {out + ".tmp." + h + "." + std::to_string(dead), out + ".tmp." + std::to_string(dead),
        out + ".tmp." + h + "." + std::to_string(getpid()), out + ".tmp.otherhost." + std::to_string(dead),
        (dir / "other.txt").string() + ".tmp." + h + "." + std::to_string(dead)})
    std::ofstream(n) << "half";
  EXPECT_EQ(removeStaleTemporaries(out), 2u);
  EXPECT_FALSE(fs::exists(out + ".tmp." + h + "." + std::to_string(dead)));
  EXPECT_FALSE(fs::exists(out + ".tmp." + std::to_string(dead)));
  EXPECT_EQ(entries(), 3u); // this process's, the other host's, the other file's
}
