// The cpu backend's top-K window search (kernels/top_windows.hpp): the windows in slices on
// the worker threads, each through the pruning cascade of window_distances.hpp against a
// bound shared by the slices. The bound starts at the threshold (or +inf) and tightens to
// common::top_bound of the windows a slice has aligned, so a window is pruned only when it
// cannot be among the final K; the final K are then selected from what the slices kept,
// which does not depend on the threads or the order in which they ran.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <vector>

#include "common/window/window_bounds.hpp"
#include "common/window/window_track.hpp"
#include "common/worker_pool.hpp"
#include "cpu/cpu_state.hpp"
#include "cpu/window/window_distances.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels::cpu {
namespace {

// Lowers `bound` to `value` if that is lower.
void lower(std::atomic<double>& bound, double value) {
  double now = bound.load(std::memory_order_relaxed);
  while (value < now && !bound.compare_exchange_weak(now, value, std::memory_order_relaxed)) {
  }
}

// One slice's limit: the shared bound; keeps the windows aligned at or under it.
class SliceLimit final : public WindowLimit {
 public:
  SliceLimit(std::atomic<double>& bound, std::span<const std::uint64_t> ends, std::size_t k,
             std::size_t w, std::vector<common::TopCandidate>& kept)
      : bound_(bound), ends_(ends), k_(k), w_(w), kept_(kept) {}

  double limit() override { return bound_.load(std::memory_order_relaxed); }

  void aligned(std::size_t index, double distance) override {
    // Over the bound, or no alignment within the band (+inf: not a match).
    if (!(distance <= limit()) || !std::isfinite(distance)) return;
    kept_.push_back({distance, ends_[index]});
    if (k_ == 1) return lower(bound_, distance);  // one window: its distance bounds the best
    if (++since_ < kRefresh) return;
    since_ = 0;
    lower(bound_, common::top_bound(kept_, k_, w_));
    const double b = limit();  // what is over the bound can never be taken: dropped
    std::erase_if(kept_, [b](const common::TopCandidate& c) { return c.distance > b; });
  }

 private:
  static constexpr std::size_t kRefresh = 64;  // windows kept between two bound updates
  std::atomic<double>& bound_;
  std::span<const std::uint64_t> ends_;
  std::size_t k_, w_;
  std::vector<common::TopCandidate>& kept_;
  std::size_t since_ = 0;
};

constexpr std::size_t kWindowsPerSlice = 4096;

}  // namespace

std::vector<TopWindow> top_windows(const TopWindowsRequest& r, const Options& options) {
  common::check_request(r);
  if (r.k == 0) return {};
  const std::size_t dims = r.stream.dims, n = r.times_ns.size();
  kernels::StreamHistory history(dims);
  history.append(r.values, r.times_ns);
  const common::WindowTrack track(r.pattern, r.stream.nominal_period_ns, 0);
  std::unique_ptr<const common::WindowQuery> query;
  if (options.window_pruning && common::WindowQuery::applies(r.pattern.params))
    query = std::make_unique<const common::WindowQuery>(r.pattern);
  const std::size_t w = track.window();
  std::vector<std::uint64_t> ends;
  for (std::uint64_t end = w - 1; end < n; end += r.pattern.params.hop) ends.push_back(end);

  common::WorkerPool pool(options.threads);
  std::vector<WorkerScratch> scratch(pool.size());
  const std::size_t slices = (ends.size() + kWindowsPerSlice - 1) / kWindowsPerSlice;
  std::vector<std::vector<common::TopCandidate>> kept(slices);
  std::vector<double> distances(ends.size());
  std::vector<std::uint8_t> flat(ends.size(), 0);
  std::atomic<double> bound(r.use_threshold ? r.pattern.params.threshold
                                            : std::numeric_limits<double>::infinity());
  const WindowSource source{&history, &track, query.get(), options.ed_fft};
  std::vector<std::array<std::uint64_t, kPruneStages>> pruned(slices);
  pool.for_each(slices, [&](std::size_t slice, unsigned worker) {
    const std::size_t first = slice * kWindowsPerSlice;
    const std::size_t count = std::min(kWindowsPerSlice, ends.size() - first);
    SliceLimit limit(bound, ends, r.k, w, kept[slice]);
    compute_windows(source, ends, first, count, limit, distances.data(), flat.data(),
                    scratch[worker], pruned[slice]);
  });
  if (r.stats) {
    *r.stats = {};
    r.stats->windows_evaluated = ends.size() - static_cast<std::size_t>(std::count(
                                                   flat.begin(), flat.end(), std::uint8_t{1}));
    for (const auto& p : pruned)
      for (std::size_t k = 0; k < p.size(); ++k) r.stats->windows_pruned[k] += p[k];
  }
  std::vector<common::TopCandidate> all;
  for (const auto& k : kept) all.insert(all.end(), k.begin(), k.end());
  return common::top_windows_of(std::move(all), r.k, w, r.times_ns);
}

}  // namespace warpwatch::kernels::cpu
