// Running the `warpwatch` CLI in-process and writing small input files for it.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "warpwatch/cli/cli.hpp"

namespace warpwatch::testing {

struct CliResult {
  int status;
  std::string out, err;
};

inline CliResult run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "warpwatch");
  std::vector<const char*> argv;
  for (const auto& a : args) argv.push_back(a.c_str());
  std::ostringstream out, err;
  const int status = cli::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
  return {status, out.str(), err.str()};
}

// A fresh, empty directory for one test's files.
inline std::filesystem::path temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("warpwatch_" + name);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

}  // namespace warpwatch::testing
