// The reference's searches of a finite series (kernels/top_windows.hpp): the distance
// profiles of docs/spec.md §3.3 and the top K of either mode, computed from them.
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include "common/window/window_track.hpp"
#include "reference/spring.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/stream_history.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels::reference {
namespace {

// D(t, m) and S(t, m) of the table docs/spec.md §3.1 defines, without reports (the
// matcher's SpringPair with a threshold nothing reaches), run over samples [begin, end)
// alone: visit(point) for each of them in order.
template <typename Visit>
void spring_run(const TopWindowsRequest& r, std::uint64_t begin, std::uint64_t end, Visit visit) {
  const PatternDef& p = r.pattern;
  SpringPair spring(p.values.data(), p.length(), p.dims, p.params.distance.metric,
                    p.params.distance.cost, -std::numeric_limits<double>::infinity());
  for (std::uint64_t t = begin; t < end; ++t) {
    spring.step(r.values.data() + t * p.dims, t);
    visit(ProfilePoint{spring.last_distance(), spring.last_start(), t});
  }
}

std::vector<ProfilePoint> stream_profile(const TopWindowsRequest& r) {
  std::vector<ProfilePoint> out;
  out.reserve(r.times_ns.size());
  spring_run(r, 0, r.times_ns.size(), [&](const ProfilePoint& q) { out.push_back(q); });
  return out;
}

// docs/spec.md §3.3 stream top K: the best subsequence of the stretches of samples not yet
// taken, taken one at a time; the stretch it lay in is split in two around it, and only
// those two are run again.
std::vector<TopWindow> stream_top(const TopWindowsRequest& r) {
  const float eps = stream_eps(r.pattern.params.threshold);  // as stream mode compares it
  struct Stretch {
    std::uint64_t begin, end;          // samples [begin, end)
    std::optional<ProfilePoint> best;  // least (distance, end) of its subsequences
  };
  const auto stretch = [&](std::uint64_t begin, std::uint64_t end) {
    Stretch out{begin, end, std::nullopt};
    spring_run(r, begin, end, [&](const ProfilePoint& q) {
      if (r.use_threshold && !(static_cast<float>(q.distance) <= eps)) return;
      if (!out.best || q.distance < out.best->distance) out.best = q;  // ties: the earlier end
    });
    return out;
  };
  std::vector<Stretch> stretches{stretch(0, r.times_ns.size())};
  std::vector<TopWindow> taken;
  while (taken.size() < r.k) {
    auto next = stretches.end();
    for (auto it = stretches.begin(); it != stretches.end(); ++it)
      if (it->best && (next == stretches.end() || it->best->distance < next->best->distance ||
                       (it->best->distance == next->best->distance &&
                        it->best->end_index < next->best->end_index)))
        next = it;
    if (next == stretches.end()) break;
    const ProfilePoint q = *next->best;
    const Stretch before = stretch(next->begin, q.start_index);
    const Stretch after = stretch(q.end_index + 1, next->end);
    *next = before;
    stretches.push_back(after);
    taken.push_back({q.distance, q.start_index, q.end_index, r.times_ns[q.start_index],
                     r.times_ns[q.end_index]});
  }
  return taken;
}

std::vector<ProfilePoint> window_profile(const TopWindowsRequest& r) {
  const std::size_t dims = r.stream.dims, n = r.times_ns.size();
  kernels::StreamHistory history(dims);
  history.append(r.values, r.times_ns);
  const common::WindowTrack track(r.pattern, r.stream.nominal_period_ns, 0);
  const std::size_t w = track.window(), m = r.pattern.length();
  const SeriesView pattern{track.values().data(), m, dims, track.times64().data()};
  std::vector<ProfilePoint> out;
  std::vector<float> values;
  std::vector<double> times(w);
  for (std::uint64_t end = w - 1; end < n; end += r.pattern.params.hop) {
    const double d = track.window(history, end, values, times.data())
                         ? distance(pattern, {values.data(), w, dims, times.data()},
                                    r.pattern.params.distance)
                         : std::numeric_limits<double>::quiet_NaN();  // flat under znorm
    out.push_back({d, end + 1 - w, end});
  }
  return out;
}

}  // namespace

std::vector<ProfilePoint> profile(const TopWindowsRequest& r) {
  common::check_request(r);
  return r.pattern.params.mode == Mode::stream ? stream_profile(r) : window_profile(r);
}

std::vector<TopWindow> top_windows(const TopWindowsRequest& r) {
  common::check_request(r);
  if (r.pattern.params.mode == Mode::stream) return stream_top(r);
  const std::vector<ProfilePoint> points = window_profile(r);
  std::vector<common::TopCandidate> candidates;
  for (const ProfilePoint& q : points) {
    // NaN (flat) or +inf (no alignment within the band): not a match.
    if (!std::isfinite(q.distance)) continue;
    if (r.use_threshold && !(q.distance <= r.pattern.params.threshold)) continue;
    candidates.push_back({q.distance, q.end_index});
  }
  return common::top_windows_of(std::move(candidates), r.k, common::window_length(r.pattern),
                                r.times_ns);
}

}  // namespace warpwatch::kernels::reference
