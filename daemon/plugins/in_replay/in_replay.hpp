// `ingest[].replay`: a series file replayed as one stream (docs/ingest.md §8), read and
// checked with the configuration so that starting cannot fail on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <tuple>

#include "warpwatch/config/series_file.hpp"
#include "warpwatch/plugins/source_plugin.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::plugins::in_replay {

struct ReplayOptions : config::PluginOptionsOf<ReplayOptions> {
  static constexpr std::string_view kind = "replay";
  std::string file;                        // series file (CSV/TSV/.npy, one series per file)
  std::string stream;                      // the stream id the file becomes
  double rate_hz = 0.0;                    // samples per second; 0 = as fast as possible
  std::int64_t period_ns = 1'000'000'000;  // spacing of the samples' timestamps
  // `start: now`: the samples' times shifted so that the first is the wall clock when the
  // configuration is read (alerts then carry real times); else as read (0, period, ... or
  // the time column's).
  bool start_now = false;
  // How the file is read, as `warpwatch search` reads it: layout, labels, time column
  // (whose times the samples then keep) and unit, value columns.
  config::SeriesFileOptions file_options;
  // The file's samples, sample i at i * period_ns (read by the check).
  std::shared_ptr<const stream::Samples> samples;
  // The settings, not the samples read (a reload reads the file anew).
  friend bool operator==(const ReplayOptions& a, const ReplayOptions& b) {
    const auto read_as = [](const ReplayOptions& o) {
      const config::SeriesFileOptions& f = o.file_options;
      return std::tie(f.layout, f.label_column, f.time_column, f.value_columns, f.time_scale);
    };
    return a.file == b.file && a.stream == b.stream && a.rate_hz == b.rate_hz &&
           a.period_ns == b.period_ns && a.start_now == b.start_now && read_as(a) == read_as(b);
  }
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_replay
