// rocksdb_plugin/native/rockpool/rockpool.mk lists exactly the sources the
// Bazel build links for the plugin (//rocksdb_plugin/native:plugin, as
// `bazel query` sees it), the core's as src/<path> (the links
// link_sources.sh makes at build time), on the single lines RocksDB's
// CMakeLists.txt reads with regular expressions. That make finds every
// listed file is //tests/rocksdb_plugin:plugin_make_test's check (it needs
// no upstream RocksDB).
//
// To update after adding or removing a source:
//   rocksdb_plugin/native/rockpool/update_sources.sh
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

namespace fs = std::filesystem;

fs::path Runfile(const std::string& path) {
  return fs::path(std::getenv("TEST_SRCDIR")) / std::getenv("TEST_WORKSPACE") / path;
}

std::string Read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

const char kPluginDir[] = "rocksdb_plugin/native/rockpool/";

// "//compression:zstd_contexts.cc" -> "compression/zstd_contexts.cc".
std::string LabelToPath(const std::string& label) {
  std::string p = label.substr(2);
  const size_t colon = p.find(':');
  return colon == 0 ? p.substr(1) : p.replace(colon, 1, "/");
}

// What rockpool.mk must list, from the Bazel query of the plugin's sources.
std::set<std::string> ExpectedSources() {
  std::set<std::string> expected;
  std::istringstream in(Read(Runfile("tests/rocksdb_plugin/native/plugin_source_labels")));
  for (std::string label; std::getline(in, label);) {
    if (label.rfind("//", 0) != 0 || label.size() < 3 ||
        label.compare(label.size() - 3, 3, ".cc") != 0) {
      continue;
    }
    const std::string path = LabelToPath(label);
    if (path.rfind(kPluginDir, 0) == 0) {
      expected.insert(path.substr(sizeof(kPluginDir) - 1));  // the plugin's own file
    } else {
      expected.insert("src/" + path);
    }
  }
  return expected;
}

std::string Join(const std::set<std::string>& s) {
  std::string out;
  for (const auto& x : s) out += " " + x;
  return out;
}

TEST(PluginSourcesTest, MkListsExactlyTheBazelSourcesOnOneLine) {
  const std::string mk = Read(Runfile(std::string(kPluginDir) + "rockpool.mk"));
  ASSERT_FALSE(mk.empty());
  // CMake: string(REGEX MATCH "SOURCES = ([^\n]*)" ...) takes the first
  // match, so the first "SOURCES = " must be rockpool_SOURCES; and CMake
  // splits the unquoted file text at semicolons.
  EXPECT_EQ(mk.find(';'), std::string::npos) << "a ';' breaks CMake's reading of rockpool.mk";
  std::smatch m;
  ASSERT_TRUE(std::regex_search(mk, m, std::regex("SOURCES = ([^\n]*)")));
  EXPECT_EQ(mk.find("SOURCES = "), mk.find("rockpool_SOURCES = ") + 9);
  std::set<std::string> listed;
  std::istringstream words(m[1].str());
  for (std::string w; words >> w;) listed.insert(w);
  const std::set<std::string> expected = ExpectedSources();
  ASSERT_GT(expected.size(), 10u);
  EXPECT_EQ(listed, expected) << "rockpool.mk lists:" << Join(listed)
                              << "\nBazel builds:" << Join(expected)
                              << "\nRun rocksdb_plugin/native/rockpool/update_sources.sh";

  ASSERT_TRUE(std::regex_search(mk, m, std::regex("_FUNC = ([^\n]*)")));
  EXPECT_EQ(m[1].str(), "RegisterRockpoolPlugin");
  ASSERT_TRUE(std::regex_search(mk, m, std::regex("_LIBS = ([^\n]*)")));
  // The codec libraries compression/direct_codec_library.cc calls directly.
  EXPECT_EQ(m[1].str(), "zstd z lz4");
}

}  // namespace
