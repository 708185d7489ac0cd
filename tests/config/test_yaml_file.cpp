#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "warpwatch/config/yaml_file.hpp"

using namespace warpwatch::config;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  return path.string();
}
}  // namespace

TEST(YamlFile, SyntaxErrorNamesFileLineColumn) {
  const std::string path = write_temp("warpwatch_test_bad.yaml", "a: 1\nb: [1, 2\nc: 3\n");
  try {
    load_yaml_file(path);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_GE(e.where().line, 2);
    EXPECT_GE(e.where().column, 1);
    EXPECT_EQ(std::string(e.what()).rfind(path + ":" + std::to_string(e.where().line) + ":", 0), 0u)
        << e.what();
  }
}

TEST(YamlFile, MissingFileIsAConfigError) {
  EXPECT_THROW(load_yaml_file("/nonexistent/warpwatch.yaml"), ConfigError);
}

TEST(YamlFile, NodesKnowTheirLocation) {
  const std::string path = write_temp("warpwatch_test_ok.yaml", "streams:\n  - id: x\n");
  const YAML::Node root = load_yaml_file(path);
  const SourceLocation where = location_of(path, root["streams"][0]["id"]);
  EXPECT_EQ(where.line, 2);
  EXPECT_EQ(where.column, 9);
}

// issue 16: the limits of a configuration file (yaml_file.hpp).

namespace {

// A "billion laughs" of 14 KB: nine levels of anchors, each a list of aliases of the one
// before, the whole expanding to 10^9 nodes. Refused at the alias that crosses
// max_alias_nodes, from the parser's events, before any tree is built or read.
std::string billion_laughs() {
  std::string text = "a0: &a0 [";
  for (int i = 0; i < 10; ++i) text += i ? ", \"lol\"" : "\"lol\"";
  text += "]\n";
  for (int level = 1; level <= 9; ++level) {
    text += "a" + std::to_string(level) + ": &a" + std::to_string(level) + " [";
    for (int i = 0; i < 10; ++i) text += (i ? ", *a" : "*a") + std::to_string(level - 1);
    text += "]\n";
  }
  // Padding comments up to the 14 KB of the report.
  while (text.size() < 14 * 1024) text += "# padding padding padding padding padding\n";
  return text + "streams: {declared: *a9}\n";
}

}  // namespace

TEST(YamlFile, AliasBombIsRefusedFastAtTheAliasThatCrossesTheLimit) {
  const std::string text = billion_laughs();
  ASSERT_GE(text.size(), 14u * 1024);
  const auto began = std::chrono::steady_clock::now();
  try {
    parse_yaml(text, "bomb.yaml");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    // Levels 1 to 3 add 12330 nodes; on line 5 (level 4) each alias adds the 11111 nodes of
    // a level-3 list: the 8th, at column 45, crosses 100000.
    EXPECT_EQ(e.where().line, 5) << e.what();
    EXPECT_EQ(e.where().column, 45) << e.what();
    EXPECT_NE(std::string(e.what()).find("aliases expand the document by more than 100000 nodes"),
              std::string::npos)
        << e.what();
    EXPECT_LT(ms, 250.0) << "refusing the bomb took " << ms << " ms";
    std::cout << "[          ] 14 KB alias bomb refused in " << ms << " ms: " << e.what() << "\n";
  }
}

TEST(YamlFile, AliasesWithinTheLimitAreRead) {
  // Each alias adds the nodes of what it names: 3 nodes here, 2 aliases = 6 nodes added.
  const YAML::Node root = parse_yaml("a: &x [1, 2]\nb: *x\nc: *x\n", "ok.yaml");
  EXPECT_EQ(root["c"][1].as<int>(), 2);
  // At the limit, exactly: one list of max_alias_nodes - 1 nodes, and one alias of it.
  std::string text = "a: &x [";
  for (std::uint64_t i = 0; i + 1 < max_alias_nodes; ++i) text += i ? ",1" : "1";
  text += "]\nb: *x\n";
  EXPECT_NO_THROW(parse_yaml(text, "limit.yaml"));
  EXPECT_THROW(parse_yaml(text + "c: *x\n", "limit.yaml"), ConfigError);
}

TEST(YamlFile, RecursiveAliasIsRefused) {
  try {
    parse_yaml("rules: &r [{name: x, labels: *r}]\n", "loop.yaml");
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().line, 1);
    EXPECT_EQ(e.where().column, 30);
    EXPECT_NE(std::string(e.what()).find("a recursive structure"), std::string::npos) << e.what();
  }
}

TEST(YamlFile, FileLargerThanTheLimitIsRefusedUnparsed) {
  // max_config_bytes of comment lines, then one byte more: refused where the limit is crossed.
  const std::string line = "# " + std::string(61, 'x') + "\n";  // 64 bytes
  std::string text;
  text.reserve(max_config_bytes + 1);
  while (text.size() < max_config_bytes) text += line;
  ASSERT_EQ(text.size(), max_config_bytes);
  const std::string at_limit = write_temp("warpwatch_test_at_limit.yaml", text);
  EXPECT_TRUE(load_yaml_file(at_limit).IsNull());  // comments only
  const std::string over = write_temp("warpwatch_test_over_limit.yaml", text + "a: 1\n");
  try {
    load_yaml_file(over);
    FAIL() << "expected a ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().line, static_cast<int>(max_config_bytes / 64) + 1);
    EXPECT_EQ(e.where().column, 1);
    EXPECT_NE(std::string(e.what()).find("the file is larger than 16777216 bytes"),
              std::string::npos)
        << e.what();
  }
  std::filesystem::remove(at_limit);
  std::filesystem::remove(over);
}

TEST(YamlFile, EndlessFileIsNotReadForever) {
  // A device named as the configuration: read up to the limit, then refused.
  EXPECT_THROW(load_yaml_file("/dev/zero"), ConfigError);
}
