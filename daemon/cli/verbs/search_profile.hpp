// `warpwatch search --profile OUT.csv`: the distance profiles of docs/spec.md §3.3 of every
// (series, pattern) pair in one CSV file (its columns: docs/cli.md §4.1).
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::cli {

// One series of the input as the search reads it.
struct ProfileSeries {
  const kernels::StreamDef* def;
  std::span<const float> values;           // samples x dims
  std::span<const std::int64_t> times_ns;  // strictly increasing
  bool has_times;                          // the input gave them (else: --period apart)
};

// Writes the profile of each series with each pattern of its dims, series by series, on the
// scalar reference. The column `time_ns` is there when some series has times of its own
// (empty in the rows of those that have none). Throws std::runtime_error naming the file
// when it cannot be written.
void write_profiles(const std::string& path, std::span<const ProfileSeries> series,
                    std::span<const kernels::PatternDef> patterns);

}  // namespace warpwatch::cli
