// A recorded input as samples, for a source that makes none from a socket: the `replay`
// plugin's file, and the recordings of `warpwatch backtest` (daemon/cli/backtest/), which
// read a series file as a replay entry does.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "warpwatch/config/series_file.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/sources/influx_mapping.hpp"

namespace warpwatch::plugins {

// An entry's recorded input (SourcePlugin::recorded): a stream and its samples.
struct RecordedInput {
  std::string stream;
  std::shared_ptr<const stream::Samples> samples;
  std::string origin;  // the file
};

// How an entry's line protocol becomes streams (SourcePlugin::line_input): the mapping and the
// longest line taken.
struct LineInput {
  stream::InfluxMappingOptions mapping;
  std::size_t max_line_bytes = 64 << 10;
};

// One series of a file as samples: its own times (seconds, rounded to whole ns), or sample i
// at i * period_ns (`first_index`: the index of its first sample, for a part of a file read
// in parts). Throws std::invalid_argument naming `file` when a time, or the last of
// i * period_ns, is beyond the int64 nanosecond range.
std::shared_ptr<stream::Samples> series_samples(const config::LoadedSeries& series,
                                                std::int64_t period_ns, const std::string& file,
                                                std::uint64_t first_index = 0);

}  // namespace warpwatch::plugins
