// Host-side records of the CUDA backend's matcher: one per stream. Shared by the
// stream-mode tiles (spring_pairs.hpp) and window mode (window_pairs.hpp).
#pragma once

#include <cstdint>
#include <span>

#include "common/low32_index.hpp"
#include "warpwatch/stream/stream_history.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels::cuda {

struct StreamHost {
  StreamDef def;
  stream::StreamHistory history;  // match-start timestamps, window tails
  std::uint32_t slot = 0;         // row of the device chunk table
  std::uint64_t chunk_first = 0;  // this batch: index of the chunk's first sample
  std::uint32_t chunk_count = 0;  // this batch: samples (0: none)
  std::uint64_t keep_from = 0;    // recomputed when histories are trimmed

  StreamHost(const StreamDef& d, std::uint32_t s) : def(d), history(d.dims), slot(s) {}
  std::uint64_t next_index() const { return history.next_index(); }
};

using common::low32;

}  // namespace warpwatch::kernels::cuda
