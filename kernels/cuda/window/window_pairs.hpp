// The cuda Matcher's window mode on the device (window_search_launch.hpp's passes), for the
// pairs it covers: streams of one dimension with dtw or dk (patterns of at most
// kWindowMaxRows samples with a path through their band) or ed. Per batch:
//   - each stream's samples that its windows read (back to the moments' anchors) are copied
//     up once, with the batch's patterns (values, envelopes, band): no window is built or
//     normalized on the host;
//   - the moments (sliding, anchored at absolute sample indices, so a window's values do
//     not depend on how the stream was batched), the bounds and the alignments run over all
//     pairs at once, each window against its pattern's threshold: a window whose bound is
//     over it is skipped, an alignment that can no longer come under it is abandoned; ed's
//     windows are summed a thread each (launch_window_ed), abandoned the same way;
//   - the distances (+inf where pruned), the flat marks and the pruning counts come back.
// With pruning off the same passes run against +inf (every window aligned in full), so the
// pruned and unpruned computations compare the same float32 values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "common/matcher_state.hpp"
#include "cuda/runtime/device_memory.hpp"
#include "cuda/window/window_inputs.hpp"

namespace warpwatch::kernels::cuda {

class WindowPairs {
 public:
  // Whether the device passes compute this pair's windows (else ElasticBatcher does).
  static bool covers(const common::Pair& pair);

  // Fills distances, flat and pruned of each batch (every one covered); returns when done.
  // `prune` false: every window aligned in full.
  void run(std::span<common::WindowBatch* const> batches, bool prune);

  std::size_t device_bytes() const;
  // The passes' device time so far (CUDA events from the first pass to the last; not the
  // copies).
  double device_seconds() const { return device_seconds_; }

 private:
  // Where a stream's samples and a pattern's data go in this batch's upload.
  struct StreamRange {
    std::uint64_t first = 0, last = 0;  // sample indices, inclusive
    std::size_t offset = 0;             // in `floats_`
  };
  struct PatternPlace {
    std::size_t values = 0;  // q (n), env_lo (w), env_hi (w) in `floats_`
    std::size_t band = 0;    // lo (n + 1), hi (n + 1) in `ints_`; npos: no band
  };

  Stream stream_;
  Event passes_begun_, passes_done_;
  double device_seconds_ = 0.0;
  std::unordered_map<const common::StreamState*, StreamRange> ranges_;
  std::unordered_map<const common::PatternState*, PatternPlace> places_;
  std::vector<std::size_t> order_;  // batches by launch group
  std::vector<detail::WindowSearchInput> inputs_;
  detail::WindowInputTables tables_;
  PinnedBuffer<float> floats_;  // samples, then patterns
  PinnedBuffer<std::int32_t> ints_;
  PinnedBuffer<float> distances_host_;
  PinnedBuffer<std::uint8_t> flat_host_;
  PinnedBuffer<unsigned long long> pruned_host_;
  DeviceBuffer<float> floats_dev_;
  DeviceBuffer<std::int32_t> ints_dev_;
  DeviceBuffer<detail::WindowSearchInput> inputs_dev_;
  DeviceBuffer<std::uint32_t> tables_dev_;
  DeviceBuffer<double> moments_dev_;  // mean, scale
  DeviceBuffer<std::uint8_t> flat_dev_;
  DeviceBuffer<float> keys_dev_;  // keys, kim, distances
  DeviceBuffer<unsigned long long> pruned_dev_;
  DeviceBuffer<unsigned> next_dev_;  // the alignment launches' work counters
};

}  // namespace warpwatch::kernels::cuda
