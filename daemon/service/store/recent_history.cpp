#include "warpwatch/service/recent_history.hpp"

#include <algorithm>
#include <mutex>

namespace warpwatch::service {

void RecentHistory::Ring::append(std::span<const float> v, std::span<const std::int64_t> t) {
  const std::size_t n = t.size();
  next_index += n;
  if (capacity == 0 || n == 0) return;
  if (n >= capacity) {  // only the newest `capacity` of them stay
    times.assign(t.end() - static_cast<std::ptrdiff_t>(capacity), t.end());
    values.assign(v.end() - static_cast<std::ptrdiff_t>(capacity * dims), v.end());
    head = 0;
    return;
  }
  std::size_t from = 0;
  if (count() < capacity) {  // growing: appended, never past the capacity
    const std::size_t take = std::min(n, capacity - count());
    if (times.capacity() < count() + take) {
      const std::size_t want = std::min(capacity, std::max(2 * count(), count() + take));
      times.reserve(want);
      values.reserve(want * dims);
    }
    times.insert(times.end(), t.begin(), t.begin() + static_cast<std::ptrdiff_t>(take));
    values.insert(values.end(), v.begin(), v.begin() + static_cast<std::ptrdiff_t>(take * dims));
    from = take;
  }
  // Full: the rest overwrite the oldest, in at most two runs each.
  while (from < n) {
    const std::size_t run = std::min(n - from, capacity - head);
    std::copy_n(t.begin() + static_cast<std::ptrdiff_t>(from), run,
                times.begin() + static_cast<std::ptrdiff_t>(head));
    std::copy_n(v.begin() + static_cast<std::ptrdiff_t>(from * dims), run * dims,
                values.begin() + static_cast<std::ptrdiff_t>(head * dims));
    from += run;
    head = (head + run) % capacity;
  }
}

void RecentHistory::Ring::copy(std::size_t i, std::size_t n, HistorySamples& out) const {
  out.times_ns.reserve(out.times_ns.size() + n);
  out.values.reserve(out.values.size() + n * dims);
  while (n > 0) {  // at most two runs: up to the end of the storage, then from its start
    const std::size_t at = slot(i);
    const std::size_t run = std::min(n, count() - at);
    out.times_ns.insert(out.times_ns.end(), times.begin() + static_cast<std::ptrdiff_t>(at),
                        times.begin() + static_cast<std::ptrdiff_t>(at + run));
    out.values.insert(out.values.end(), values.begin() + static_cast<std::ptrdiff_t>(at * dims),
                      values.begin() + static_cast<std::ptrdiff_t>((at + run) * dims));
    i += run;
    n -= run;
  }
}

void RecentHistory::Ring::set_capacity(std::size_t samples) {
  capacity = samples;
  // Kept as they are while in order and not larger than the new capacity; otherwise the
  // newest `samples` in order (a wrapped ring cannot grow in place).
  if (head == 0 && count() <= samples && times.capacity() <= samples) return;
  HistorySamples kept;
  const std::size_t n = std::min(count(), samples);
  copy(count() - n, n, kept);
  times = std::move(kept.times_ns);
  values = std::move(kept.values);
  times.shrink_to_fit();
  values.shrink_to_fit();
  head = 0;
}

RecentHistory::RecentHistory(HistoryLimits limits) : limits_(limits) {}

std::size_t RecentHistory::capacity_for(std::size_t dims) const {
  const std::size_t per_stream = limits_.max_bytes / std::max<std::size_t>(planned_, 1);
  return std::min(limits_.samples_per_stream, per_stream / (4 * dims + 8));
}

void RecentHistory::plan(std::size_t streams) {
  // Planned for a quarter more than there are: a stream added resizes the others only once
  // the count passes the plan (amortized), and every ring's capacity fits the plan.
  if (streams <= planned_ && streams * 2 >= planned_) return;
  planned_ = streams + streams / 4 + 1;
  bytes_ = 0;
  for (auto& [id, ring] : rings_) {
    const std::size_t capacity = capacity_for(ring.dims);
    if (capacity != ring.capacity) ring.set_capacity(capacity);
    bytes_ += ring.bytes();
  }
}

RecentHistory::Ring& RecentHistory::ring_of(std::string_view stream, std::size_t dims) {
  auto it = rings_.find(stream);
  if (it != rings_.end() && it->second.dims == dims) return it->second;
  if (it != rings_.end()) {  // another shape: starts over
    bytes_ -= it->second.bytes();
    rings_.erase(it);
  }
  Ring& ring = rings_.emplace(std::string(stream), Ring{}).first->second;
  ring.dims = dims;
  plan(rings_.size());
  ring.capacity = capacity_for(dims);
  return ring;
}

void RecentHistory::append(std::span<const stream::QueuedSamples> round) {
  if (!enabled() || round.empty()) return;
  const std::unique_lock lock(mu_);
  for (const stream::QueuedSamples& q : round) {
    Ring& ring = ring_of(q.stream->id, q.stream->dims);
    bytes_ -= ring.bytes();
    ring.append(q.values, q.times_ns);
    bytes_ += ring.bytes();
  }
}

void RecentHistory::append(std::string_view stream, std::size_t dims, std::span<const float> values,
                           std::span<const std::int64_t> times_ns) {
  if (!enabled()) return;
  const std::unique_lock lock(mu_);
  Ring& ring = ring_of(stream, dims);
  bytes_ -= ring.bytes();
  ring.append(values, times_ns);
  bytes_ += ring.bytes();
}

void RecentHistory::reset(std::string_view stream, const HistorySamples& samples) {
  if (!enabled()) return;
  const std::unique_lock lock(mu_);
  if (const auto it = rings_.find(stream); it != rings_.end()) {
    bytes_ -= it->second.bytes();
    rings_.erase(it);
  }
  Ring& ring = ring_of(stream, samples.dims);
  ring.next_index = samples.first_index;
  ring.append(samples.values, samples.times_ns);
  bytes_ += ring.bytes();
}

void RecentHistory::drop(std::string_view stream) {
  const std::unique_lock lock(mu_);
  const auto it = rings_.find(stream);
  if (it == rings_.end()) return;
  bytes_ -= it->second.bytes();
  rings_.erase(it);
  plan(rings_.size());
}

std::optional<HistorySamples> RecentHistory::samples(std::string_view stream,
                                                     std::optional<std::int64_t> since_ns,
                                                     std::size_t limit) const {
  const std::shared_lock lock(mu_);
  const auto it = rings_.find(stream);
  if (it == rings_.end()) return std::nullopt;
  const Ring& ring = it->second;
  // The first kept sample after since_ns: times increase, oldest first (binary search).
  std::size_t lo = 0;
  if (since_ns) {
    std::size_t hi = ring.count();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      (ring.times[ring.slot(mid)] <= * since_ns ? lo = mid + 1 : hi = mid);
    }
  }
  HistorySamples out;
  out.dims = ring.dims;
  out.first_index = ring.first_index() + lo;
  ring.copy(lo, std::min(limit, ring.count() - lo), out);
  return out;
}

std::optional<HistorySamples> RecentHistory::range(std::string_view stream, std::uint64_t from,
                                                   std::uint64_t to) const {
  const std::shared_lock lock(mu_);
  const auto it = rings_.find(stream);
  if (it == rings_.end() || it->second.count() == 0) return std::nullopt;
  const Ring& ring = it->second;
  const std::uint64_t first = std::max(from, ring.first_index());
  const std::uint64_t last = std::min(to, ring.next_index - 1);
  if (first > last) return std::nullopt;
  HistorySamples out;
  out.dims = ring.dims;
  out.first_index = first;
  ring.copy(static_cast<std::size_t>(first - ring.first_index()),
            static_cast<std::size_t>(last - first + 1), out);
  return out;
}

std::optional<HistorySamples> RecentHistory::newest(std::string_view stream, std::size_t n) const {
  const std::shared_lock lock(mu_);
  const auto it = rings_.find(stream);
  if (it == rings_.end() || it->second.count() == 0 || n == 0) return std::nullopt;
  const Ring& ring = it->second;
  const std::size_t take = std::min(n, ring.count());
  HistorySamples out;
  out.dims = ring.dims;
  out.first_index = ring.next_index - take;
  ring.copy(ring.count() - take, take, out);
  return out;
}

std::size_t RecentHistory::bytes() const {
  const std::shared_lock lock(mu_);
  return bytes_;
}

std::size_t RecentHistory::streams() const {
  const std::shared_lock lock(mu_);
  return rings_.size();
}

nlohmann::json to_json(const HistorySamples& samples) {
  nlohmann::json values = nlohmann::json::array();
  for (std::size_t i = 0; i < samples.count(); ++i)
    values.push_back(std::vector<float>(
        samples.values.begin() + static_cast<std::ptrdiff_t>(i * samples.dims),
        samples.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * samples.dims)));
  return {{"dims", samples.dims},
          {"first_index", samples.first_index},
          {"times_ns", samples.times_ns},
          {"values", std::move(values)}};
}

}  // namespace warpwatch::service
