#include "warpwatch/stream/replay.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace warpwatch::stream {

std::vector<std::int64_t> regular_times_ns(std::size_t count, std::int64_t start_ns,
                                           std::int64_t period_ns) {
  std::int64_t span = 0, last = 0;
  if (count > 0 &&
      (__builtin_mul_overflow(period_ns, static_cast<std::int64_t>(count - 1), &span) ||
       __builtin_add_overflow(start_ns, span, &last)))
    throw std::range_error(std::to_string(count) + " samples every " + std::to_string(period_ns) +
                           " ns from " + std::to_string(start_ns) +
                           " ns: the timestamps overflow int64 nanoseconds");
  std::vector<std::int64_t> times(count);
  for (std::size_t i = 0; i < count; ++i)
    times[i] = start_ns + static_cast<std::int64_t>(i) * period_ns;
  return times;
}

std::size_t replay_paced(const Samples& samples, std::size_t chunk, double rate_hz,
                         const std::function<bool(const Samples&)>& send) {
  using clock = std::chrono::steady_clock;
  const std::size_t n = samples.size(), dims = samples.dims;
  const auto start = clock::now();
  // The offset as a double of seconds, capped before it becomes clock ticks: a tiny rate
  // would overflow the int64 nanoseconds (undefined behaviour).
  constexpr double longest_wait_s = 365.0 * 24 * 3600;
  Samples part;
  part.dims = dims;
  std::size_t sent = 0;
  for (std::size_t i = 0; i < n; i += chunk) {
    const std::size_t count = std::min(chunk, n - i);
    if (rate_hz > 0)
      std::this_thread::sleep_until(
          start + std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(
                      std::min(static_cast<double>(i) / rate_hz, longest_wait_s))));
    const auto at = [](std::size_t k) { return static_cast<std::ptrdiff_t>(k); };
    part.times_ns.assign(samples.times_ns.begin() + at(i),
                         samples.times_ns.begin() + at(i + count));
    part.values.assign(samples.values.begin() + at(i * dims),
                       samples.values.begin() + at((i + count) * dims));
    if (!send(part)) break;
    ++sent;
  }
  return sent;
}

}  // namespace warpwatch::stream
