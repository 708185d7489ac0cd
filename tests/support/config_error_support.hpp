// The configuration's error cases: a YAML text and where its ConfigError must point.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "test_support.hpp"  // TempDir
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace warpwatch::testing {

struct ConfigErrorCase {
  const char* name;
  const char* yaml;
  int line, column;
  const char* message;  // a part of the message
};

// Loads the configuration at `path` (the case's YAML) and expects its ConfigError at
// path:line:column, its message holding the case's.
inline void expect_config_error(const std::string& path, const ConfigErrorCase& c) {
  try {
    warpwatch::plugins::load_daemon_config(path);
    FAIL() << "expected a ConfigError";
  } catch (const config::ConfigError& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().line, c.line) << e.what();
    EXPECT_EQ(e.where().column, c.column) << e.what();
    const std::string what = e.what();
    const std::string prefix =
        path + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
    EXPECT_EQ(what.rfind(prefix, 0), 0u) << what;
    EXPECT_NE(what.find(c.message), std::string::npos) << what;
  }
}

// The message of the ConfigError that loading `yaml` (written to a temporary file) throws; ""
// when it loads.
inline std::string config_error_of(const std::string& yaml) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", yaml);
  try {
    warpwatch::plugins::load_daemon_config(path);
  } catch (const config::ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace warpwatch::testing
