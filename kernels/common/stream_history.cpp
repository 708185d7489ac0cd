#include "warpwatch/kernels/stream_history.hpp"

#include <algorithm>
#include <cassert>

namespace warpwatch::kernels {

void StreamHistory::append(std::span<const float> values, std::span<const std::int64_t> times_ns) {
  values_.insert(values_.end(), values.begin(), values.end());
  times_.insert(times_.end(), times_ns.begin(), times_ns.end());
  if (!times_ns.empty()) last_time_ns_ = times_ns.back();
}

void StreamHistory::restore(std::uint64_t first_index, std::span<const float> values,
                            std::span<const std::int64_t> times_ns, std::int64_t last_time_ns) {
  first_index_ = first_index;
  offset_ = 0;
  values_.assign(values.begin(), values.end());
  times_.assign(times_ns.begin(), times_ns.end());
  last_time_ns_ = last_time_ns;
}

void StreamHistory::forget_before(std::uint64_t index) {
  if (index <= first_index_) return;
  const std::size_t drop = static_cast<std::size_t>(
      std::min<std::uint64_t>(index - first_index_, times_.size() - offset_));
  offset_ += drop;
  first_index_ += drop;
  // Erase in bulk once the forgotten prefix outweighs what is kept: amortized O(1).
  if (offset_ > times_.size() / 2) {
    times_.erase(times_.begin(), times_.begin() + static_cast<std::ptrdiff_t>(offset_));
    values_.erase(values_.begin(), values_.begin() + static_cast<std::ptrdiff_t>(offset_ * dims_));
    offset_ = 0;
  }
}

const float* StreamHistory::sample(std::uint64_t index) const {
  assert(index >= first_index_ && index < next_index());
  return values_.data() + (offset_ + (index - first_index_)) * dims_;
}

std::int64_t StreamHistory::time_ns(std::uint64_t index) const {
  assert(index >= first_index_ && index < next_index());
  return times_[offset_ + (index - first_index_)];
}

}  // namespace warpwatch::kernels
