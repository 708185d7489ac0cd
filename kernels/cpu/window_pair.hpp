// Window mode on the CPU for one (stream, pattern) pair: the windows that end in a batch
// are compared with the pattern one SIMD lane per window (elastic_kernel.hpp), then fed
// in order through the shared exclusion zone (common/window_grouping.hpp).
#pragma once

#include <vector>

#include "../common/window_grouping.hpp"
#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

class WindowPair {
 public:
  // Throws std::invalid_argument for a constant pattern under znorm.
  WindowPair(const PatternDef& pattern, StreamSlot& stream, std::uint64_t first_index);

  std::size_t window() const { return schedule_.w; }
  StreamSlot& stream() const { return *stream_; }
  // The samples [from, to) of the stream are new (and in its history with the w-1 before).
  void run(std::uint64_t from, std::uint64_t to, WorkerScratch& scratch);
  void flush(std::vector<RawMatch>& out);

 private:
  void add(const common::WindowOccurrence& o, std::vector<RawMatch>& out) const;

  const PatternDef* pattern_;
  StreamSlot* stream_;
  common::WindowSchedule schedule_;
  bool znorm_;
  std::vector<float> values_;  // the pattern, normalized once when znorm
  std::vector<float> times_;   // twed: the pattern's times in seconds
  common::ExclusionZone zone_;
};

}  // namespace warpwatch::kernels::cpu
