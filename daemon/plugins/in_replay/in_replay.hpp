// `ingest[].replay`: a series file replayed as one stream (docs/ingest.md §8), read and
// checked with the configuration so that starting cannot fail on it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "warpwatch/plugins/source_plugin.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::plugins::in_replay {

struct ReplayOptions : config::PluginOptionsOf<ReplayOptions> {
  static constexpr std::string_view kind = "replay";
  std::string file;                        // series file (CSV/TSV/.npy, one series per file)
  std::string stream;                      // the stream id the file becomes
  double rate_hz = 0.0;                    // samples per second; 0 = as fast as possible
  std::int64_t period_ns = 1'000'000'000;  // spacing of the samples' timestamps
  // The file's samples, sample i at i * period_ns (read by the check).
  std::shared_ptr<const stream::Samples> samples;
  // The settings, not the samples read (a reload reads the file anew).
  friend bool operator==(const ReplayOptions& a, const ReplayOptions& b) {
    return a.file == b.file && a.stream == b.stream && a.rate_hz == b.rate_hz &&
           a.period_ns == b.period_ns;
  }
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_replay
