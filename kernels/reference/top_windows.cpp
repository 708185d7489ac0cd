// The reference's top-K window search: every window aligned, then the greedy selection.
#include <cmath>
#include <vector>

#include "common/window/window_track.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/stream_history.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels::reference {

std::vector<TopWindow> top_windows(const TopWindowsRequest& r) {
  common::check_request(r);
  const std::size_t dims = r.stream.dims, n = r.times_ns.size();
  kernels::StreamHistory history(dims);
  history.append(r.values, r.times_ns);
  const common::WindowTrack track(r.pattern, r.stream.nominal_period_ns, 0);
  const std::size_t w = track.window(), m = r.pattern.length();
  const SeriesView pattern{track.values().data(), m, dims, track.times64().data()};
  std::vector<common::TopCandidate> candidates;
  std::vector<float> values;
  std::vector<double> times(w);
  for (std::uint64_t end = w - 1; end < n; end += r.pattern.params.hop) {
    if (!track.window(history, end, values, times.data())) continue;  // flat under znorm
    const double d =
        distance(pattern, {values.data(), w, dims, times.data()}, r.pattern.params.distance);
    if (!std::isfinite(d)) continue;  // no alignment within the band: not a match
    if (r.use_threshold && !(d <= r.pattern.params.threshold)) continue;
    candidates.push_back({d, end});
  }
  return common::top_windows_of(std::move(candidates), r.k, w, r.times_ns);
}

}  // namespace warpwatch::kernels::reference
