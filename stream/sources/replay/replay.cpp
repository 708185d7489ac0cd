#include "warpwatch/stream/sources/replay.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>

namespace warpwatch::stream {
namespace {

constexpr std::size_t max_chunk = std::size_t{1} << 20;

}  // namespace

std::size_t replay_paced(const Samples& samples, std::size_t chunk, double rate_hz,
                         const std::function<bool(const Samples&)>& send) {
  using clock = std::chrono::steady_clock;
  const std::size_t n = samples.size(), dims = samples.dims;
  chunk = std::max<std::size_t>(chunk, 1);
  const auto start = clock::now();
  Samples part;
  part.dims = dims;
  std::size_t sent = 0;
  for (std::size_t i = 0; i < n; i += std::min(chunk, n - i)) {
    const std::size_t count = std::min(chunk, n - i);
    if (rate_hz > 0) {
      const double seconds = std::min(static_cast<double>(i) / rate_hz, max_replay_seconds);
      std::this_thread::sleep_until(start + std::chrono::duration_cast<clock::duration>(
                                                std::chrono::duration<double>(seconds)));
    }
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

std::size_t replay_chunk(double rate_hz) {
  if (!(rate_hz > 0)) return 1024;
  // Compared as doubles before the cast: a rate of 1e300 (or infinity) is no size_t.
  const double per_hundredth = rate_hz / 100;
  if (!(per_hundredth < static_cast<double>(max_chunk))) return max_chunk;
  return std::max<std::size_t>(1, static_cast<std::size_t>(per_hundredth));
}

}  // namespace warpwatch::stream
