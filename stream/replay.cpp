#include "warpwatch/stream/replay.hpp"

#include <algorithm>
#include <chrono>
#include <thread>

namespace warpwatch::stream {

std::size_t replay_paced(const Samples& samples, std::size_t chunk, double rate_hz,
                         const std::function<bool(const Samples&)>& send) {
  using clock = std::chrono::steady_clock;
  const std::size_t n = samples.size(), dims = samples.dims;
  const auto start = clock::now();
  Samples part;
  part.dims = dims;
  std::size_t sent = 0;
  for (std::size_t i = 0; i < n; i += chunk) {
    const std::size_t count = std::min(chunk, n - i);
    if (rate_hz > 0)
      std::this_thread::sleep_until(
          start + std::chrono::duration_cast<clock::duration>(
                      std::chrono::duration<double>(static_cast<double>(i) / rate_hz)));
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
