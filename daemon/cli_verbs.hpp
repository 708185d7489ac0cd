// The implemented `warpwatch` verbs: each registers its options on a CLI11 subcommand
// and runs from the parsed values. run_* throw std::exception on bad input; cli.cpp turns
// that into a message naming the verb and a non-zero exit status.
#pragma once

#include <CLI/CLI.hpp>

#include <iosfwd>
#include <optional>
#include <string>

#include "cli_common.hpp"

namespace warpwatch::daemon {

struct DistanceCommand {
  MetricOptions metric;
  SeriesInputOptions input;
  std::string a_path, b_path;
  std::string output = "-";
  std::string backend = "auto";
  bool grad = false;
};
CLI::App* add_distance_command(CLI::App& app, DistanceCommand& cmd);
int run_distance(const DistanceCommand& cmd, std::ostream& out, std::ostream& err);

struct SearchCommand {
  MetricOptions metric;
  SeriesInputOptions input;
  std::string patterns_path, input_path;
  std::string mode = "stream";
  double threshold = 0.0;
  std::size_t window = 0, hop = 1;
  bool znorm = false;
  double period_s = 1.0;    // spacing of samples (and patterns) given without timestamps
  std::size_t chunk = 0;    // feed the input in chunks of this many samples; 0 = whole
  std::string backend = "auto";
};
CLI::App* add_search_command(CLI::App& app, SearchCommand& cmd);
int run_search(const SearchCommand& cmd, std::ostream& out, std::ostream& err);

}  // namespace warpwatch::daemon
