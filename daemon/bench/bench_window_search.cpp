// bench --case window_search: the UCR task, one query's z-normalized dtw (or ed) against
// every window of a long series (issue 14), on the search the CLI runs: top-1 (`search --top
// 1`) or every window under a threshold (window mode through a Matcher, one batch, as
// `search --mode window` runs it). Effective cells: every window's m x m (ed: m), pruned or
// not.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_internal.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::bench {
namespace {

using clock_type = std::chrono::steady_clock;

struct Search {
  std::vector<float> series;
  std::vector<std::int64_t> times;
  kernels::PatternDef query;
};

// A random walk with the query taken from its middle (as the UCR Suite's experiments) or
// an unrelated walk of its own, or ECG beats with a TRAIN beat resampled to m as the query.
Search make_search(const Shape& s, std::uint64_t seed) {
  Search out;
  if (s.dense) {
    const Beats& beats = ecg_beats(*s.data_dir ? s.data_dir : default_data_dir());
    BeatStream stream(beats, s.m, 1, seed);
    out.series.resize(s.length);
    stream.fill(out.series.data(), s.length);
    out.query.values = beat_pattern(beats, 3, s.m, 1);
  } else {
    Random random(seed);
    out.series = random_walks(1, s.length, random);
    if (s.independent_query) {
      out.query.values = random_walks(1, s.m, random);
    } else {
      const std::size_t at = (s.length - s.m) / 2;
      out.query.values.assign(out.series.begin() + static_cast<std::ptrdiff_t>(at),
                              out.series.begin() + static_cast<std::ptrdiff_t>(at + s.m));
    }
  }
  out.times.resize(s.length);
  for (std::size_t i = 0; i < s.length; ++i) out.times[i] = static_cast<std::int64_t>(i + 1) * 1000;
  out.query.id = "query";
  out.query.dims = 1;
  out.query.params.mode = kernels::Mode::window;
  out.query.params.normalize = kernels::Normalize::znorm;
  out.query.params.distance.metric = s.metric;
  if (s.band_percent)
    out.query.params.distance.band = static_cast<double>(s.m * s.band_percent) / 100.0;
  return out;
}

kernels::TopWindowsRequest request_for(const Search& search, std::size_t k,
                                       kernels::TopWindowsStats* stats) {
  return {{"series", 1, 1000}, search.series, search.times, search.query, false, k, stats};
}

void add_pruning(Measurement& r, std::uint64_t evaluated,
                 const std::array<std::uint64_t, kernels::kPruneStages>& p) {
  const double n = std::max<double>(1.0, static_cast<double>(evaluated));
  r.extra.emplace_back("windows", static_cast<double>(evaluated));
  r.extra.emplace_back("pruned_lb_kim", static_cast<double>(p[0]) / n);
  r.extra.emplace_back("pruned_lb_keogh_pattern", static_cast<double>(p[1]) / n);
  r.extra.emplace_back("pruned_lb_keogh_window", static_cast<double>(p[2]) / n);
  r.extra.emplace_back("abandoned", static_cast<double>(p[3]) / n);
  r.extra.emplace_back("pruned_fft", static_cast<double>(p[4]) / n);
}

}  // namespace

Measurement measure_window_search(const Shape& s, kernels::Backend backend, unsigned threads,
                                  std::uint64_t seed) {
  if (s.length < s.m) throw std::invalid_argument("window_search: the series is shorter than m");
  Measurement r;
  r.shape = describe(s);
  r.cells_per_run = cells_per_run(s);
  r.dims = {{"length", s.length},
            {"m", s.m},
            {"band_percent", s.band_percent},
            {"top", s.top ? 1 : 0},
            {"dense", s.dense ? 1 : 0},
            {"independent_query", s.independent_query ? 1 : 0},
            {"ed", s.metric == kernels::Metric::ed ? 1 : 0}};
  Search search = make_search(s, seed);
  if (!s.top) {  // the threshold: the 10th best window's distance (found by the cpu search),
                 // raised by 1e-5 so that the reference's last bits find it too
    const auto ten = kernels::top_windows(kernels::Backend::cpu, request_for(search, 10, nullptr),
                                          {.cpu_threads = threads});
    if (ten.empty()) throw std::runtime_error("window_search: no window to set a threshold by");
    search.query.params.threshold = ten.back().distance * (1.0 + 1e-5) + 1e-9;
  }
  kernels::TopWindowsStats stats;
  kernels::DeviceTimings timings;
  std::vector<double> device_seconds;
  std::uint64_t found = 0;
  for (std::size_t run = 0; run < 1 + s.repeat; ++run) {
    const auto start = clock_type::now();
    if (s.top) {
      const auto best = kernels::top_windows(backend, request_for(search, 1, &stats),
                                             {.cpu_threads = threads, .timings = &timings});
      found = best.size();
      if (run > 0 && backend == kernels::Backend::cuda)
        device_seconds.push_back(timings.kernel_seconds);
    } else {
      auto matcher = kernels::make_matcher(backend, {.cpu_threads = threads});
      matcher->add_stream({"series", 1, 1000});
      matcher->add_pattern(search.query);
      const kernels::StreamChunk all{"series", search.series, search.times};
      found = matcher->process(std::span(&all, 1)).size();
      found += matcher->flush().size();
      const kernels::MatcherCounters c = matcher->counters();
      stats.windows_evaluated = c.windows_evaluated;
      stats.windows_pruned = c.windows_pruned;
      if (run > 0 && backend == kernels::Backend::cuda) device_seconds.push_back(c.device_seconds);
    }
    const double seconds = std::chrono::duration<double>(clock_type::now() - start).count();
    if (run > 0) r.seconds.push_back(seconds);  // the first is the warm-up
  }
  if (found == 0) throw std::runtime_error("window_search: the search found no window");
  r.extra.emplace_back("found", static_cast<double>(found));
  // cuda: the search's device time (CUDA events; top-1: from the upload's end, the host's
  // rounds included; threshold: window mode's passes), median.
  if (!device_seconds.empty())
    r.extra.emplace_back("device_seconds", median_of(std::move(device_seconds)));
  add_pruning(r, stats.windows_evaluated, stats.windows_pruned);
  return r;
}

}  // namespace warpwatch::bench
