#include "Settings.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

using namespace sio::rt;

namespace {

Settings parse(const std::map<std::string, std::string> &env, std::vector<std::string> &warnings) {
  return parseSettings(
      [](const char *name, void *ctx) -> const char * {
        auto &m = *static_cast<const std::map<std::string, std::string> *>(ctx);
        auto it = m.find(name);
        return it == m.end() ? nullptr : it->second.c_str();
      },
      const_cast<void *>(static_cast<const void *>(&env)), warnings);
}

} // namespace

TEST(Settings, Defaults) {
  std::vector<std::string> w;
  Settings s = parse({}, w);
  EXPECT_TRUE(w.empty());
  EXPECT_FALSE(s.disable);
  EXPECT_EQ(s.memoryCap, 64ull << 20);
  EXPECT_EQ(s.layers, kLayerAll);
  EXPECT_EQ(s.traceFile, "");
  EXPECT_EQ(s.bufferRecords, 2048);
  ASSERT_FALSE(s.excludePaths.empty());
  EXPECT_EQ(s.excludePaths.front(), "/proc/");
}

TEST(Settings, GoodValues) {
  std::vector<std::string> w;
  Settings s = parse({{"SIO_DISABLE", "yes"},
                      {"SIO_MEMORY_CAP", "2g"},
                      {"SIO_LAYERS", "posix, stdio"},
                      {"SIO_TRACE_FILE", "out.json"},
                      {"SIO_BUFFER_RECORDS", "64"},
                      {"SIO_EXCLUDE_PATHS", "/a/,/b/"}},
                     w);
  EXPECT_TRUE(w.empty());
  EXPECT_TRUE(s.disable);
  EXPECT_EQ(s.memoryCap, 2ull << 30);
  EXPECT_EQ(s.layers, kLayerPosix | kLayerStdio);
  EXPECT_EQ(s.traceFile, "out.json");
  EXPECT_EQ(s.bufferRecords, 64);
  EXPECT_EQ(s.excludePaths, (std::vector<std::string>{"/a/", "/b/"}));
}

TEST(Settings, BadValuesWarnAndKeepDefaults) {
  std::vector<std::string> w;
  Settings s = parse({{"SIO_DISABLE", "maybe"},
                      {"SIO_MEMORY_CAP", "lots"},
                      {"SIO_LAYERS", "posix,hdf5"},
                      {"SIO_BUFFER_RECORDS", "3"},
                      {"SIO_VERBOSE", "-1"}},
                     w);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_NE(w[0].find("SIO_DISABLE='maybe'"), std::string::npos) << w[0];
  EXPECT_NE(w[1].find("SIO_MEMORY_CAP='lots' is not a size"), std::string::npos) << w[1];
  EXPECT_NE(w[1].find("using the default '64M'"), std::string::npos) << w[1];
  EXPECT_FALSE(s.disable);
  EXPECT_EQ(s.memoryCap, 64ull << 20);
  EXPECT_EQ(s.layers, kLayerAll);
  EXPECT_EQ(s.bufferRecords, 2048);
  EXPECT_EQ(s.verbose, 0);
}

TEST(Settings, Parsers) {
  uint64_t sz = 0;
  EXPECT_TRUE(parseSize("512K", sz));
  EXPECT_EQ(sz, 512u << 10);
  EXPECT_TRUE(parseSize(" 100 ", sz));
  EXPECT_EQ(sz, 100u);
  EXPECT_FALSE(parseSize("0", sz));
  EXPECT_FALSE(parseSize("-5M", sz));
  EXPECT_FALSE(parseSize("99999999999999999999G", sz));
  EXPECT_FALSE(parseSize("M", sz));
  int64_t i = 0;
  EXPECT_FALSE(parseInt("12x", i));
  EXPECT_FALSE(parseInt("", i));
  EXPECT_TRUE(parseInt("-12", i));
  EXPECT_EQ(i, -12);
  unsigned layers = 0;
  EXPECT_TRUE(parseLayers("all", layers));
  EXPECT_EQ(layers, kLayerAll);
  EXPECT_TRUE(parseLayers("MPIIO,sync", layers));
  EXPECT_EQ(layers, kLayerMpiio | kLayerSync);
  EXPECT_FALSE(parseLayers("posix,,x", layers));
}

TEST(Settings, MarkdownListsEverySetting) {
  std::string md = settingsMarkdown();
  for (const SettingDecl &d : kSettings)
    EXPECT_NE(md.find(std::string("`") + d.name + "`"), std::string::npos) << d.name;
}
