// Pattern libraries as the configuration writes them (docs/configuration.md §2):
// the pieces the option table fills before the patterns' files are read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/config/series_file.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::config {

// A pattern's matching parameters while they are read: a library's `defaults`, then
// copied and overridden by each pattern's own keys.
struct PatternParams {
  kernels::MatchParams match;
  bool has_threshold = false;  // threshold has no default: a library or pattern must set it
};

// One `patterns:` entry before its file is read: either `file` or inline `values`.
struct PatternSource {
  std::string id;
  std::string file;                         // resolved path; "" = inline values
  std::optional<std::int64_t> row;          // file: pick this series (0-based) instead of all
  SeriesFileOptions file_options;           // file: layout, label column, time column and unit
  std::optional<std::int64_t> start, end;   // file: samples [start, end) of each series
  std::vector<std::vector<double>> values;  // inline: one row per sample
  std::vector<double> times;                // inline: relative seconds, one per sample
};

}  // namespace warpwatch::config
