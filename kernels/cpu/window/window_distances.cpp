#include "cpu/window/window_distances.hpp"

#include <algorithm>
#include <limits>
#include <optional>

#include "common/window/window_bounds.hpp"
#include "common/window/window_stats.hpp"
#include "cpu/window/window_bounds_simd.hpp"
#include "cpu/window/window_ed.hpp"

namespace warpwatch::kernels::cpu {
namespace {

// LB_Keogh on the pattern's envelope: d = 1 in SIMD, in column order (UCR's order, largest
// envelope first, abandons after fewer terms but must gather them: slower here).
double keogh_pattern(const common::WindowQuery& q, const common::WindowView& view, double limit) {
  if (q.dims != 1 || !q.reachable) return common::lb_keogh_pattern(q, view, limit);
  return keogh_terms_simd(common::pattern_terms(q, view, false), q.metric, q.cost,
                          common::cut_of(q, limit));
}

// LB_Keogh on the window's envelope from the stretch's: d = 1, the rows between the edges in
// SIMD, then the edges'.
double keogh_stretch(const common::WindowQuery& q, const common::StretchEnvelope& stretch,
                     std::uint64_t start, const common::WindowView& view, double limit,
                     WorkerScratch& s) {
  if (q.dims != 1)
    return common::lb_keogh_stretch(q, stretch, start, view, limit, s.env_lo, s.env_hi);
  const double cut = common::cut_of(q, limit);
  const double middle =
      keogh_terms_simd(common::middle_terms(q, stretch, start, view), q.metric, q.cost, cut);
  if (middle > cut || q.radius == 0) return middle;
  s.env_lo.resize(q.n);
  s.env_hi.resize(q.n);
  common::edge_envelope(q, view.raw, s.env_lo.data(), s.env_hi.data());
  return q.combine(middle, common::edge_terms(q, s.env_lo.data(), s.env_hi.data(), view));
}

}  // namespace

void compute_windows(const WindowSource& source, std::span<const std::uint64_t> ends,
                     std::size_t first, std::size_t count, WindowLimit& limiter, double* distances,
                     std::uint8_t* flat, WorkerScratch& s,
                     std::array<std::uint64_t, kPruneStages>& pruned) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  const common::WindowTrack& track = *source.track;
  if (measure_info(track.pattern().params.distance.metric).lock_step)  // ed
    return compute_ed_windows(source, ends, first, count, limiter, distances, flat, s, pruned);
  const PatternDef& pattern = track.pattern();
  const std::size_t w = track.window(), dims = pattern.dims, m = pattern.length();
  const std::size_t width = elastic_group_width();
  const kernels::StreamHistory& history = *source.history;
  const bool twed = track.twed();
  const common::WindowQuery* query = source.query;
  std::optional<common::WindowStats> stats;
  if (track.znorm()) stats.emplace(w, dims, track.first_end());

  // A band of a fixed radius: the windows' envelopes from one pass over the samples they
  // span (built when a first window needs it), unless they are spread so thinly that the
  // pass would cost more than one per window.
  common::StretchEnvelope stretch;
  bool stretch_built = false;
  std::uint64_t span_first = 0, span_last = 0;
  bool use_stretch = query && query->radius >= 0 && count > 0;
  if (use_stretch) {
    const auto [lo, hi] =
        std::minmax_element(ends.begin() + static_cast<std::ptrdiff_t>(first),
                            ends.begin() + static_cast<std::ptrdiff_t>(first + count));
    span_first = *lo + 1 - w;
    span_last = *hi;
    use_stretch = span_last - span_first + 1 <= count * w;
  }

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
      if (query->prunes(keogh_pattern(*query, view, bound_limit), bound_limit)) {
        distances[i] = inf;
        ++pruned[1];
        continue;
      }
      // LB_Keogh on the window's envelope, and its rows' bounds for abandoning the alignment.
      double bound = 0.0;
      if (use_stretch) {
        if (!stretch_built) {
          stretch.build(history.sample(span_first), span_last - span_first + 1, dims,
                        static_cast<std::size_t>(query->radius), span_first);
          stretch_built = true;
        }
        const std::uint64_t start = end + 1 - w;
        if (query->prunes(keogh_stretch(*query, stretch, start, view, bound_limit, s),
                          bound_limit)) {
          distances[i] = inf;
          ++pruned[2];
          continue;
        }
        s.env_lo.resize(m * dims);
        s.env_hi.resize(m * dims);
        common::window_envelope(*query, stretch, start, view, s.env_lo.data(), s.env_hi.data());
        bound = common::keogh_rows(*query, s.env_lo.data(), s.env_hi.data(), view, s.rest_rows);
        view.write(w, s.window.data());
      } else {
        view.write(w, s.window.data());
        bound = common::lb_keogh_window(*query, s.window.data(), s.rest_rows, s.env_lo, s.env_hi);
      }
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
