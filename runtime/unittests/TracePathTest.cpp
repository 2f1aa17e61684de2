// Where the trace goes (TracePath.h; docs/runtime.md, "Where the trace goes").
#include "TracePath.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

using namespace sio::rt;

TEST(TracePath, LaunchSlotOnlyForSeveralProcesses) {
  EXPECT_FALSE(parseLaunchSlot(nullptr, nullptr));
  EXPECT_FALSE(parseLaunchSlot("0", nullptr));
  EXPECT_FALSE(parseLaunchSlot("0", "1")); // alone: the default name stays
  EXPECT_FALSE(parseLaunchSlot("3", "3"));
  EXPECT_FALSE(parseLaunchSlot("-1", "3"));
  EXPECT_FALSE(parseLaunchSlot("1x", "3"));
  EXPECT_FALSE(parseLaunchSlot("", "3"));
  auto slot = parseLaunchSlot("2", "3");
  ASSERT_TRUE(slot);
  EXPECT_EQ(slot->rank, 2);
  EXPECT_EQ(slot->size, 3);
}

TEST(TracePath, DefaultNames) {
  EXPECT_EQ(defaultTraceName("app", 1, std::nullopt), "app.1.sio.json");
  EXPECT_EQ(defaultTraceName("app", 4, std::nullopt), "app.4.sio.json");
  EXPECT_EQ(defaultTraceName("app", 1, LaunchSlot{1, 3}), "app.pmi1-of-3.sio.json");
  EXPECT_EQ(chooseTracePath("", "/start/", "app.1.sio.json", std::nullopt), "/start/app.1.sio.json");
}

// Every process of a launch gets a path of its own, whatever SIO_TRACE_FILE
// says, and a process alone keeps the path it had.
TEST(TracePath, ProcessesOfALaunchNeverShareAPath) {
  for (const char *setting : {"", "t.json", "/abs/t.sio.json", "noext", "dir/", "a.b/c", "/x/.json"}) {
    for (long size = 2; size <= 9; ++size) {
      std::set<std::string> paths;
      for (long rank = 0; rank < size; ++rank) {
        LaunchSlot slot{rank, size};
        paths.insert(chooseTracePath(setting, "/start/", defaultTraceName("app", 1, slot), slot));
      }
      EXPECT_EQ(paths.size(), size_t(size)) << setting;
    }
    const std::string alone = chooseTracePath(setting, "/start/", "app.1.sio.json", std::nullopt);
    EXPECT_EQ(alone, *setting == 0                    ? "/start/app.1.sio.json"
                     : std::string(setting) == "dir/" ? "/start/dir/app.1.sio.json"
                     : setting[0] == '/'              ? std::string(setting)
                                                      : "/start/" + std::string(setting));
  }
  EXPECT_EQ(chooseTracePath("t.sio.json", "/s/", "x", LaunchSlot{1, 3}), "/s/t.pmi1-of-3.sio.json");
  EXPECT_EQ(chooseTracePath("/o/t.json", "/s/", "x", LaunchSlot{0, 2}), "/o/t.pmi0-of-2.json");
  EXPECT_EQ(chooseTracePath("/o/t", "/s/", "x", LaunchSlot{0, 2}), "/o/t.pmi0-of-2");
}

TEST(TracePath, DirectoryTakesTheDefaultName) {
  char tmpl[] = "/tmp/sio-tracepath-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  EXPECT_TRUE(namesDirectory(dir));
  EXPECT_TRUE(namesDirectory(dir + "/"));
  EXPECT_TRUE(namesDirectory("missing/"));
  EXPECT_FALSE(namesDirectory(dir + "/file.json"));
  EXPECT_FALSE(namesDirectory(""));
  EXPECT_EQ(chooseTracePath(dir, "/s/", "app.2.sio.json", std::nullopt), dir + "/app.2.sio.json");
  EXPECT_EQ(chooseTracePath(dir + "/", "/s/", "app.2.sio.json", std::nullopt), dir + "/app.2.sio.json");
  EXPECT_EQ(chooseTracePath(dir, "/s/", "app.pmi1-of-2.sio.json", LaunchSlot{1, 2}), dir + "/app.pmi1-of-2.sio.json");
  EXPECT_EQ(childTracePath(dir, "/s/", "cat", 42), dir + "/cat.42.sio.json");
  EXPECT_EQ(childTracePath(dir + "/t.json", "/s/", "cat", 42), dir + "/cat.42.sio.json");
  EXPECT_EQ(childTracePath("t.json", "/s/", "cat", 42), "/s/cat.42.sio.json");
  EXPECT_EQ(childTracePath("", "/s/", "cat", 42), "/s/cat.42.sio.json");
  // Relative to the directory the program started in, not the current one.
  const std::string parent = dir.substr(0, dir.rfind('/') + 1), base = dir.substr(dir.rfind('/') + 1);
  EXPECT_EQ(chooseTracePath(base, parent, "a.1.sio.json", std::nullopt), dir + "/a.1.sio.json");
  rmdir(tmpl);
}

TEST(TracePath, Launchers) {
  EXPECT_TRUE(isLauncher("mpiexec.hydra"));
  EXPECT_TRUE(isLauncher("hydra_pmi_proxy"));
  EXPECT_TRUE(isLauncher("mpirun"));
  EXPECT_FALSE(isLauncher("mpiexec-wrapper-app"));
  EXPECT_FALSE(isLauncher("app"));
}
