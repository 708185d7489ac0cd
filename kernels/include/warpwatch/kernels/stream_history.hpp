// The per-stream ring: the recent samples of one stream, kept contiguous so that a window
// is a plain view. The Matcher keeps one per stream: window mode needs the last w-1 samples
// of earlier batches, stream mode the timestamps of match starts that may lie in earlier
// batches. Forgotten samples are erased in bulk (amortized O(1) a sample).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace warpwatch::kernels {

class StreamHistory {
 public:
  explicit StreamHistory(std::size_t dims) : dims_(dims) {}

  void append(std::span<const float> values, std::span<const std::int64_t> times_ns);
  // Replaces everything with a saved history (a checkpoint's): the samples from
  // `first_index` on, and the timestamp of the last sample ever appended.
  void restore(std::uint64_t first_index, std::span<const float> values,
               std::span<const std::int64_t> times_ns, std::int64_t last_time_ns);
  // Forgets samples before `index` (no effect on samples already forgotten).
  void forget_before(std::uint64_t index);

  std::uint64_t next_index() const { return first_index_ + times_.size() - offset_; }
  std::uint64_t first_index() const { return first_index_; }
  // The timestamp of the last sample appended (kept when it is forgotten); 0 before any.
  std::int64_t last_time_ns() const { return last_time_ns_; }
  // The sample with this 0-based index; it must be kept (first_index() <= index < next_index()).
  const float* sample(std::uint64_t index) const;
  std::int64_t time_ns(std::uint64_t index) const;

 private:
  std::size_t dims_;
  std::uint64_t first_index_ = 0;  // index of the sample at offset_
  std::size_t offset_ = 0;         // samples before offset_ are forgotten, not yet erased
  std::vector<float> values_;
  std::vector<std::int64_t> times_;
  std::int64_t last_time_ns_ = 0;
};

}  // namespace warpwatch::kernels
