// planted_support.hpp's data as `warpwatch search` reads it (a series file with three
// planted copies of the bump, the bump's file) and the events it prints, parsed: the CLI
// suites of `search` (tests/daemon/cli/test_cli_search*.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli_test_support.hpp"
#include "matching/planted_support.hpp"
#include "test_support.hpp"

namespace warpwatch::testing {

inline std::string csv_row(const std::vector<double>& v) {
  std::ostringstream s;
  s.precision(9);
  for (std::size_t i = 0; i < v.size(); ++i) s << (i ? "," : "") << v[i];
  return s.str() + "\n";
}

struct Planted {
  std::string series_path, pattern_path;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> occurrences;  // [start, end]
};

// Noise with three copies of the bump at 200, 700 and 1200: time-warped, or (warped false:
// for ed, whose windows of the bump's length land on them exactly) as they are.
inline Planted make_planted_files(const std::string& name, bool warped = true) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<double> noise(0.0, 0.05);
  const auto pattern = bump_pattern<double>();
  std::vector<double> series(1500);
  for (double& x : series) x = noise(rng);
  Planted planted;
  const std::size_t positions[] = {200, 700, 1200};
  const std::pair<int, int> warps[] = {{6, 0}, {0, 10}, {3, 5}};  // lengths 34, 50, 42
  for (int k = 0; k < 3; ++k) {
    const auto copy = warped ? warp(pattern, warps[k].first, warps[k].second, rng) : pattern;
    for (std::size_t i = 0; i < copy.size(); ++i) series[positions[k] + i] = copy[i] + noise(rng);
    planted.occurrences.emplace_back(positions[k], positions[k] + copy.size() - 1);
  }
  const auto dir = temp_dir(name);
  planted.series_path = write_file(dir / "series.csv", csv_row(series));
  planted.pattern_path = write_file(dir / "bump.csv", csv_row(pattern));
  return planted;
}

// The JSON lines `search` prints.
inline std::vector<nlohmann::json> parse_events(const std::string& out) {
  std::vector<nlohmann::json> events;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  return events;
}

}  // namespace warpwatch::testing
