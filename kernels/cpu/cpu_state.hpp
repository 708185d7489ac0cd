// Shared types of the CPU backend's matcher: the per-stream slot and per-worker scratch.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "warpwatch/stream/stream_history.hpp"
#include "cpu/elastic_kernel.hpp"
#include "cpu/spring_kernel.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels::cpu {

// One stream: its definition, the samples still needed (window tails, match-start
// timestamps), and the chunk of the batch being processed.
struct StreamSlot {
  StreamDef def;
  stream::StreamHistory history;
  std::uint64_t chunk_first = 0;     // index of the chunk's first sample
  std::uint32_t chunk_count = 0;     // samples in this batch's chunk (0: none)
  std::span<const float> chunk_values;
  std::uint64_t keep_from = 0;       // recomputed after each batch

  explicit StreamSlot(const StreamDef& d) : def(d), history(d.dims) {}
  std::uint64_t next_index() const { return history.next_index(); }
};

// Scratch owned by one worker thread, grown on first use and then reused, so that the
// steady state allocates nothing.
struct WorkerScratch {
  std::vector<float> x;                       // transposed samples / windows
  std::vector<float> times;                   // transposed window times (twed)
  std::vector<float> window;                  // one window, for normalization
  std::vector<float> window_times;            // twed: one window's rebased clock
  std::vector<double> distances;              // one lane group's results
  std::vector<std::uint64_t> ends;            // window ends in this batch
  std::vector<std::uint8_t> flat;             // per lane: skipped (znorm, flat window)
  std::vector<SpringLaneReport> reports;
  ElasticScratch elastic;
  std::vector<RawMatch> matches;              // this worker's matches of the batch
  std::uint64_t cells = 0, flat_skipped = 0;  // counted per worker, summed after the batch
};

}  // namespace warpwatch::kernels::cpu
