// Helpers shared by the suites: reproducible random seeds, temporary directories, the
// time scale of bounded waits.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <stdexcept>
#include <string>
#include <system_error>

namespace warpwatch::testing {

// The seed of a randomized test: $WARPWATCH_SEED when set (to replay a failure),
// otherwise fresh. It is printed and recorded in the test's XML properties so a failing
// run can be reproduced.
inline std::uint64_t test_seed() {
  std::uint64_t seed = 0;
  if (const char* env = std::getenv("WARPWATCH_SEED"); env && *env) {
    seed = std::stoull(env);
  } else {
    seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  }
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::cout << "[ seed     ] " << (info ? info->name() : "?") << ": WARPWATCH_SEED=" << seed
            << "\n";
  ::testing::Test::RecordProperty("seed", std::to_string(seed));
  return seed;
}

// `limit` stretched by $WARPWATCH_TEST_TIME_SCALE (a number >= 1; 1 when unset), for the
// bounded waits of tests that run real threads, sockets and processes: the sanitized
// builds (`make test-asan`, `make test-tsan`) run several times slower and set it. A
// limit is how long a wait may take before the test fails, so a larger one costs time
// only when the awaited thing never happens.
inline std::chrono::milliseconds scaled(std::chrono::milliseconds limit) {
  static const double scale = [] {
    const char* env = std::getenv("WARPWATCH_TEST_TIME_SCALE");
    if (!env || !*env) return 1.0;
    char* end = nullptr;
    const double value = std::strtod(env, &end);
    if (*end != '\0' || !(value >= 1.0 && value <= 100.0))
      throw std::invalid_argument(std::string("WARPWATCH_TEST_TIME_SCALE=") + env +
                                  ": want a number from 1 to 100");
    return value;
  }();
  return std::chrono::milliseconds(static_cast<std::int64_t>(limit.count() * scale));
}

// A fresh directory under the system temp directory, removed with its files at the end of
// the scope. Its name holds the current test's name, so that one left behind by a crash
// says where it came from, and a random number and a counter, so that runs and tests in
// parallel never share one.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    const std::string test =
        info ? std::string(info->test_suite_name()) + "_" + info->name() : std::string("test");
    path_ = std::filesystem::temp_directory_path() /
            ("warpwatch_" + test + "_" + std::to_string(std::random_device{}()) + "_" +
             std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;  // a destructor must not throw; a leftover directory is harmless
    std::filesystem::remove_all(path_, ec);
  }
  // One owner removes the directory.
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Writes `bytes` unchanged (binary mode: no newline translation) to the file `name` in
  // this directory and returns the file's path.
  std::string write(const std::string& name, const std::string& bytes) const {
    const std::filesystem::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  // The path of the file `name` in this directory, for code under test to create.
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  std::string path() const { return path_.string(); }

 private:
  std::filesystem::path path_;
};

}  // namespace warpwatch::testing
