#include "warpwatch/service/arrival_log.hpp"

namespace warpwatch::service {

void ArrivalLog::record(std::string_view stream, std::span<const stream::Arrival> runs) {
  auto it = logs_.find(stream);
  if (it == logs_.end()) it = logs_.emplace(std::string(stream), Log{}).first;
  Log& log = it->second;
  for (const stream::Arrival& a : runs) {
    if (a.samples == 0) continue;
    // A run the hub split between two rounds goes on as one.
    const bool continues = !log.runs.empty() && log.nth(log.runs.size() - 1).at == a.at;
    if (!continues) {
      if (log.runs.size() < max_runs) {
        log.runs.push_back({log.next, a.at});
      } else {  // full: the newest takes the oldest's place
        log.runs[log.head] = {log.next, a.at};
        log.head = (log.head + 1) % max_runs;
      }
    }
    log.next += a.samples;
  }
}

void ArrivalLog::forget(std::string_view stream) {
  if (const auto it = logs_.find(stream); it != logs_.end()) logs_.erase(it);
}

std::optional<ArrivalLog::Clock::time_point> ArrivalLog::arrival(std::string_view stream,
                                                                 std::uint64_t index) const {
  const auto it = logs_.find(stream);
  if (it == logs_.end()) return std::nullopt;
  const Log& log = it->second;
  if (log.runs.empty() || index >= log.next || index < log.nth(0).first) return std::nullopt;
  // The last run that begins at or before `index` (binary search: nth(lo) always does).
  std::size_t lo = 0, hi = log.runs.size();
  while (hi - lo > 1) {
    const std::size_t mid = lo + (hi - lo) / 2;
    (log.nth(mid).first <= index ? lo : hi) = mid;
  }
  return log.nth(lo).at;
}

}  // namespace warpwatch::service
