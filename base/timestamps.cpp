#include "warpwatch/base/timestamps.hpp"

#include <chrono>
#include <stdexcept>
#include <string>

namespace warpwatch::stream {

std::vector<std::int64_t> evenly_spaced_times(std::size_t n, std::int64_t start_ns,
                                              std::int64_t period_ns) {
  if (period_ns < 1)
    throw std::invalid_argument("the period of a replay is " + std::to_string(period_ns) +
                                " ns: it must be at least 1 ns");
  std::int64_t span = 0, last = 0;
  if (n > 0 && (__builtin_mul_overflow(n - 1, period_ns, &span) ||
                __builtin_add_overflow(start_ns, span, &last)))
    throw std::invalid_argument(std::to_string(n) + " samples " + std::to_string(period_ns) +
                                " ns apart from " + std::to_string(start_ns) +
                                " ns end beyond the int64 nanoseconds of a timestamp");
  std::vector<std::int64_t> times(n);
  for (std::size_t i = 0; i < n; ++i)
    times[i] = start_ns + static_cast<std::int64_t>(i) * period_ns;
  return times;
}

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace warpwatch::stream
