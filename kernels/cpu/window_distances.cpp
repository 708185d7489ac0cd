#include "cpu/window_distances.hpp"

#include <limits>
#include <optional>

#include "common/window_bounds.hpp"
#include "common/window_stats.hpp"
#include "cpu/window_ed.hpp"

namespace warpwatch::kernels::cpu {

void compute_windows(const WindowSource& source, std::span<const std::uint64_t> ends,
                     std::size_t first, std::size_t count, WindowLimit& limiter, double* distances,
                     std::uint8_t* flat, WorkerScratch& s,
                     std::array<std::uint64_t, kPruneStages>& pruned) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const common::WindowTrack& track = *source.track;
  if (track.pattern().params.distance.metric == Metric::ed)
    return compute_ed_windows(source, ends, first, count, limiter, distances, flat, s, pruned);
  const PatternDef& pattern = track.pattern();
  const std::size_t w = track.window(), dims = pattern.dims, m = pattern.length();
  const std::size_t width = elastic_group_width();
  const stream::StreamHistory& history = *source.history;
  const bool twed = track.twed();
  const common::WindowQuery* query = source.query;
  std::optional<common::WindowStats> stats;
  if (track.znorm()) stats.emplace(w, dims, track.first_end());

  s.x.assign(w * dims * width, 0.0f);
  if (twed) s.times.assign(w * width, 0.0f);
  s.window.resize(w * dims);
  s.lanes.clear();
  if (query) {
    s.limits.assign(width, -1.0);  // an empty lane is given up at once
    s.rest.assign((m + 2) * width, 0.0);
  }

  // The windows gathered so far, aligned together, one lane each.
  const auto align = [&] {
    if (s.lanes.empty()) return;
    OneVsMany job;
    job.a = track.values().data();
    job.a_times = twed ? track.times().data() : nullptr;
    job.n = m;
    job.b = s.x.data();
    job.b_times = twed ? s.times.data() : nullptr;
    job.m = w;
    job.dims = dims;
    job.width = width;
    if (query) {
      job.limit = s.limits.data();
      job.rest = s.rest.data();
      job.margin = query->margin;
    }
    double out[64];
    one_vs_many(job, pattern.params.distance, s.elastic, out);
    for (std::size_t lane = 0; lane < s.lanes.size(); ++lane) {
      distances[s.lanes[lane]] = out[lane];
      if (query && !s.elastic.alive[lane])
        ++pruned[3];
      else
        limiter.aligned(s.lanes[lane], out[lane]);
    }
    s.lanes.clear();
    if (query) std::fill(s.limits.begin(), s.limits.end(), -1.0);
  };

  for (std::size_t i = first; i < first + count; ++i) {
    const std::uint64_t end = ends[i];
    common::WindowView view{history.sample(end + 1 - w), nullptr, nullptr, dims};
    if (stats) {
      const common::WindowMoments& moments = stats->at(history, end);
      if (moments.flat) {
        flat[i] = 1;
        continue;
      }
      view.mean = moments.mean.data();
      view.scale = moments.scale.data();
    }
    const std::size_t lane = s.lanes.size();
    if (query) {  // the cascade, cheapest first
      const double bound_limit = limiter.limit();
      if (query->prunes(common::lb_kim(*query, view), bound_limit)) {
        distances[i] = inf;
        ++pruned[0];
        continue;
      }
      if (query->prunes(common::lb_keogh_pattern(*query, view, bound_limit), bound_limit)) {
        distances[i] = inf;
        ++pruned[1];
        continue;
      }
      view.write(w, s.window.data());
      const double bound =
          common::lb_keogh_window(*query, s.window.data(), s.rest_rows, s.env_lo, s.env_hi);
      if (query->prunes(bound, bound_limit)) {
        distances[i] = inf;
        ++pruned[2];
        continue;
      }
      for (std::size_t r = 1; r <= m + 1; ++r) s.rest[r * width + lane] = s.rest_rows[r];
      s.limits[lane] = bound_limit;
    } else {
      view.write(w, s.window.data());
    }
    for (std::size_t j = 0; j < w; ++j)
      for (std::size_t k = 0; k < dims; ++k)
        s.x[(j * dims + k) * width + lane] = s.window[j * dims + k];
    if (twed) {
      s.window_times.resize(w);
      track.window_times(history, end, s.window_times.data());
      for (std::size_t j = 0; j < w; ++j) s.times[j * width + lane] = s.window_times[j];
    }
    s.lanes.push_back(i);
    if (s.lanes.size() == width) align();
  }
  align();
}

namespace {
class Threshold final : public WindowLimit {
 public:
  explicit Threshold(double threshold) : threshold_(threshold) {}
  double limit() override { return threshold_; }

 private:
  double threshold_;
};
}  // namespace

void compute_window_distances(common::WindowBatch& windows, std::size_t first, std::size_t count,
                              const Options& options, WorkerScratch& scratch,
                              std::array<std::uint64_t, kPruneStages>& pruned) {
  const common::Pair& pair = *windows.pair;
  const WindowSource source{&pair.stream->history, &*pair.window,
                            options.window_pruning ? pair.pattern->window_query.get() : nullptr,
                            options.ed_fft};
  Threshold threshold(pair.window->pattern().params.threshold);
  compute_windows(source, windows.ends, first, count, threshold, windows.distances.data(),
                  windows.flat.data(), scratch, pruned);
}

}  // namespace warpwatch::kernels::cpu
