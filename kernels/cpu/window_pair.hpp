// Window mode on the CPU for one (stream, pattern) pair: the windows that end in a batch
// (common/window_track.hpp) are compared with the pattern one SIMD lane per window
// (elastic_kernel.hpp), then grouped by the shared exclusion zone.
#pragma once

#include <vector>

#include "common/window_track.hpp"
#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

class WindowPair {
 public:
  // Throws std::invalid_argument for a constant pattern under znorm.
  WindowPair(const PatternDef& pattern, StreamSlot& stream, std::uint64_t first_index);

  const common::WindowTrack& track() const { return track_; }
  StreamSlot& stream() const { return *stream_; }
  // The samples [from, to) of the stream are new (and in its history with the w-1 before).
  void run(std::uint64_t from, std::uint64_t to, WorkerScratch& scratch);
  void flush(std::vector<RawMatch>& out) { track_.flush(stream_->def.id, out); }

 private:
  StreamSlot* stream_;
  common::WindowTrack track_;
};

}  // namespace warpwatch::kernels::cpu
