#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

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
