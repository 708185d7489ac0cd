#include "warpwatch/plugins/recorded_input.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/config/config_reader.hpp"

namespace warpwatch::plugins {

std::shared_ptr<stream::Samples> series_samples(const config::LoadedSeries& series,
                                                std::int64_t period_ns, const std::string& file,
                                                std::uint64_t first_index) {
  const std::size_t length = series.length();
  auto samples = std::make_shared<stream::Samples>();
  samples->dims = series.dims;
  samples->values = series.values;
  if (series.times.empty()) {
    const auto last_index = first_index + static_cast<std::uint64_t>(length == 0 ? 0 : length - 1);
    if (last_index >
        static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / period_ns))
      throw std::invalid_argument("file " + config::in_quotes(file) + " has " +
                                  std::to_string(last_index + 1) + " samples: at 'period_ms' " +
                                  std::to_string(static_cast<double>(period_ns) / 1e6) +
                                  " the last timestamp is beyond the int64 nanosecond range");
    samples->times_ns = stream::evenly_spaced_times(
        length, static_cast<std::int64_t>(first_index) * period_ns, period_ns);
    return samples;
  }
  // The file's own times, in whole nanoseconds (the ingest validator checks their order).
  samples->times_ns.reserve(length);
  for (const double t : series.times) {
    if (!(std::fabs(t) * 1e9 < 9.2e18))
      throw std::invalid_argument("file " + config::in_quotes(file) + ": time " +
                                  std::to_string(t) + " s is beyond the int64 nanosecond range");
    samples->times_ns.push_back(std::llround(t * 1e9));
  }
  return samples;
}

}  // namespace warpwatch::plugins
