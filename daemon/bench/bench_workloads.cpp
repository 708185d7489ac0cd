// The workloads of `warpwatch bench`: random-walk data, one backend, wall-clock timing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "bench_internal.hpp"
#include "warpwatch/bench/dense_data.hpp"

namespace warpwatch::bench {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// "s12": built with snprintf because GCC 12 warns falsely (-Wrestrict) on string appends
// here.
std::string numbered(char prefix, std::size_t i) {
  char text[32];
  std::snprintf(text, sizeof text, "%c%zu", prefix, i);
  return text;
}

Measurement start_measurement(const Shape& shape) {
  Measurement r;
  r.shape = describe(shape);
  r.cells_per_run = cells_per_run(shape);
  if (shape.kind == Kind::stream_dtw)
    r.dims = {{"streams", shape.streams},
              {"d", shape.dims},
              {"dense", shape.dense ? 1u : 0u},
              {"patterns", shape.patterns},
              {"pairs", shape.streams * shape.patterns},
              {"m", shape.m},
              {"chunk", shape.chunk},
              {"batches", shape.batches}};
  else
    r.dims = {{"rows", shape.rows},
              {"cols", shape.cols},
              {"length", shape.length},
              {"repeat", shape.repeat}};
  return r;
}

// Matches are rare on random walks: a 256-sample subsequence within squared distance 1 of
// an independent random walk essentially never occurs, so the time is that of the columns.
constexpr double stream_threshold = 1.0;
constexpr std::size_t stream_warmup_batches = 2;
constexpr std::int64_t stream_period_ns = 1'000'000;

// Dense rows' thresholds, by (folder, m, dims, beat): each costs 20 whole-series dtw
// alignments of m x m, the same for every row that shares them.
double cached_dense_threshold(const Beats& beats, const std::string& dir, std::size_t beat,
                              std::size_t m, std::size_t dims) {
  static std::map<std::tuple<std::string, std::size_t, std::size_t, std::size_t>, double> cache;
  const auto key = std::make_tuple(dir, m, dims, beat);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache
             .emplace(key, dense_threshold(beats, beat_pattern(beats, beat, m, dims), m, dims,
                                           1000 + beat))
             .first;
  return it->second;
}

// Patterns of a dense row come from this many distinct beats (thresholds are calibrated
// per beat).
constexpr std::size_t dense_beats = 8;

Measurement measure_stream(const Shape& shape, kernels::Backend backend, unsigned threads,
                           std::uint64_t seed, std::ostream& log) {
  Measurement r = start_measurement(shape);
  auto matcher = kernels::make_matcher(
      backend, {.cpu_threads = threads, .devices = {shape.devices.begin(), shape.devices.end()}});
  Random random(seed);

  std::size_t warmup = stream_warmup_batches, total_batches = warmup + shape.batches;
  const std::size_t dims = shape.dims;
  std::vector<std::string> ids(shape.streams);
  for (std::size_t s = 0; s < shape.streams; ++s) {
    ids[s] = numbered('s', s);
    matcher->add_stream({ids[s], dims, stream_period_ns});
  }
  const std::string dir = *shape.data_dir ? shape.data_dir : default_data_dir();
  const Beats* beats = shape.dense ? &ecg_beats(dir) : nullptr;
  for (std::size_t p = 0; p < shape.patterns; ++p) {
    kernels::PatternDef def;
    def.id = numbered('p', p);
    def.dims = dims;
    def.params.distance.metric = kernels::Metric::dtw;
    def.params.mode = kernels::Mode::stream;
    if (beats) {  // most beats of the streams match
      def.values = beat_pattern(*beats, p % dense_beats, shape.m, dims);
      def.params.threshold = cached_dense_threshold(*beats, dir, p % dense_beats, shape.m, dims);
    } else {  // random walks: matches are rare
      def.values = random_walks(1, shape.m * dims, random);
      def.params.threshold = stream_threshold;
    }
    matcher->add_pattern(def);
  }
  // Each batch's samples are made before it is timed (submit() copies them): random walks
  // (every component its own) or beat streams.
  std::vector<float> data(shape.streams * shape.chunk * dims);
  std::vector<std::int64_t> times(shape.chunk);
  std::vector<float> walk(shape.streams * dims, 0.0f);
  std::vector<BeatStream> beat_streams;
  if (beats)
    for (std::size_t s = 0; s < shape.streams; ++s)
      beat_streams.emplace_back(*beats, shape.m, dims, seed * 7919 + s);
  const auto make_batch = [&](std::size_t b) {
    for (std::size_t i = 0; i < shape.chunk; ++i)
      times[i] = static_cast<std::int64_t>(b * shape.chunk + i) * stream_period_ns;
    for (std::size_t s = 0; s < shape.streams; ++s) {
      float* x = data.data() + s * shape.chunk * dims;
      if (beats) {
        beat_streams[s].fill(x, shape.chunk);
        continue;
      }
      for (std::size_t i = 0; i < shape.chunk * dims; ++i)
        x[i] = walk[s * dims + i % dims] += random.step();
    }
  };
  std::vector<kernels::StreamChunk> batch(shape.streams);
  const auto submit = [&] {
    const std::size_t n = shape.chunk * dims;
    for (std::size_t s = 0; s < shape.streams; ++s)
      batch[s] = {ids[s], std::span<const float>(data).subspan(s * n, n),
                  std::span<const std::int64_t>(times)};
    matcher->submit(batch);
  };
  // Batches are pipelined as the daemon runs them: batch b is submitted before batch b-1
  // is collected, so a device computes b-1 while the host prepares b. A steady iteration,
  // submit(b) then collect(b-1), is the wall time a batch costs; a device backend's kernels
  // are timed by its own CUDA events (as docs/architecture.md asks), the wall time beside them.
  const bool device = backend == kernels::Backend::cuda;
  std::uint64_t matches = 0;
  std::vector<std::uint64_t> cells_at{0};  // [b]: cells counted before batch b's submit()
  std::vector<double> wall;
  kernels::MatcherCounters steady_from, steady_to;  // around the steady iterations
  make_batch(0);
  submit();
  for (std::size_t b = 1; b <= total_batches; ++b) {
    if (b < total_batches) make_batch(b);
    cells_at.push_back(matcher->counters().cells);
    const kernels::MatcherCounters before = matcher->counters();
    if (b == warmup + 1) steady_from = before;
    if (b == total_batches) steady_to = before;
    const auto start = clock_type::now();
    if (b < total_batches) submit();
    const auto found = matcher->collect();  // batch b - 1
    const double seconds = seconds_since(start);
    if (b == 1 && shape.max_seconds > 0.0) {
      // The first batch's time sizes the row: as many batches as fit in max_seconds (at
      // least one), and a row whose batch alone takes longer times its second batch only.
      if (seconds > shape.max_seconds) {
        warmup = 1;
        total_batches = 2;
      } else {
        total_batches =
            warmup + std::clamp<std::size_t>(static_cast<std::size_t>(shape.max_seconds / seconds),
                                             1, shape.batches);
      }
    }
    if (b - 1 < warmup) continue;
    r.seconds.push_back(device ? matcher->counters().device_seconds - before.device_seconds
                               : seconds);
    if (b < total_batches || total_batches == warmup + 1) wall.push_back(seconds);
    matches += found.size();
  }
  if (total_batches - warmup != shape.batches) {  // the row as measured
    Shape measured = shape;
    measured.batches = total_batches - warmup;
    r.shape = describe(measured);
    for (auto& [name, value] : r.dims)
      if (name == "batches") value = measured.batches;
  }
  const kernels::MatcherCounters end = matcher->counters();
  const std::uint64_t counted_cells = end.cells - cells_at[warmup];
  const double median = r.median_s();
  // Each pair's column of m cells (a float32 distance and a 32-bit start offset: 8 bytes)
  // is read and written once per batch; with small chunks this traffic, not arithmetic,
  // is the limit.
  const double state_bytes =
      static_cast<double>(shape.streams * shape.patterns * shape.m) * 8.0 * 2.0;
  r.extra.emplace_back("state_bytes_per_s", state_bytes / median);
  r.extra.emplace_back("matches", static_cast<double>(matches));
  if (matches > 0)  // samples of one pair per match: about 150 on dense rows
    r.extra.emplace_back("samples_per_match",
                         static_cast<double>(shape.streams * shape.patterns * shape.chunk *
                                             (total_batches - warmup)) /
                             static_cast<double>(matches));
  // Where a batch's host time goes (microseconds a batch, steady iterations): the base's
  // checks and histories, the backend's packing and launches, collecting (with waiting),
  // of both the time blocked on the device, and trimming.
  const kernels::MatcherCounters& a = steady_from;
  const kernels::MatcherCounters& z = steady_to;
  const double n = static_cast<double>(z.batches - a.batches);
  if (n > 0) {
    const auto us = [&](double later, double earlier) { return (later - earlier) / n * 1e6; };
    r.extra.emplace_back("prepare_us", us(z.prepare_seconds, a.prepare_seconds));
    r.extra.emplace_back("start_us", us(z.start_seconds, a.start_seconds));
    r.extra.emplace_back("collect_us", us(z.collect_seconds, a.collect_seconds));
    r.extra.emplace_back("wait_us", us(z.wait_seconds, a.wait_seconds));
    r.extra.emplace_back("trim_us", us(z.trim_seconds, a.trim_seconds));
  }
  if (device) {
    std::sort(wall.begin(), wall.end());
    r.extra.emplace_back("wall_cells_per_s",
                         static_cast<double>(r.cells_per_run) / wall[wall.size() / 2]);
    const double bytes = static_cast<double>(end.device_bytes);
    r.extra.emplace_back("device_bytes", bytes);
    r.extra.emplace_back("device_bytes_per_pair",
                         bytes / static_cast<double>(shape.streams * shape.patterns));
  }
  if (counted_cells != r.cells()) {
    log << "bench: warning: the " << kernels::to_string(backend) << " backend counted "
        << counted_cells << " cells, the shape has " << r.cells() << "\n";
    r.extra.emplace_back("backend_counted_cells", static_cast<double>(counted_cells));
  }
  return r;
}

Measurement measure_matrix(const Shape& shape, kernels::Backend backend, unsigned threads,
                           std::uint64_t seed) {
  Measurement r = start_measurement(shape);
  Random random(seed);
  kernels::DistanceParams params;
  params.metric = shape.kind == Kind::whole_dtw ? kernels::Metric::dtw : kernels::Metric::twed;
  params.nu = 0.001;
  params.lambda = 1.0;

  // twed_allpairs compares a set with itself; the others have distinct sides.
  const bool same_sides = shape.kind == Kind::twed_allpairs;
  const std::vector<float> a = random_walks(shape.rows, shape.length, random);
  const std::vector<float> b =
      same_sides ? std::vector<float>{} : random_walks(shape.cols, shape.length, random);
  auto views = [&](const std::vector<float>& values, std::size_t count) {
    std::vector<kernels::SeriesView> v(count);
    for (std::size_t i = 0; i < count; ++i)
      v[i] = {values.data() + i * shape.length, shape.length, 1, nullptr};
    return v;
  };
  const auto va = views(a, shape.rows);
  const auto vb = same_sides ? va : views(b, shape.cols);
  std::vector<double> out(shape.rows * shape.cols);

  // A device backend is timed by CUDA events around its kernels; the wall time of the
  // call (with the copies of the series) is reported beside it.
  const bool device = backend == kernels::Backend::cuda;
  std::vector<double> wall;
  kernels::DeviceTimings timings;
  for (std::size_t run = 0; run < 1 + shape.repeat; ++run) {
    timings = {};
    const auto start = clock_type::now();
    kernels::distance_matrix(backend, va, vb, params, out,
                             {.cpu_threads = threads,
                              .timings = device ? &timings : nullptr,
                              .devices = {shape.devices.begin(), shape.devices.end()}});
    const double seconds = seconds_since(start);
    if (run == 0) continue;  // the warm-up
    r.seconds.push_back(device ? timings.kernel_seconds : seconds);
    wall.push_back(seconds);
  }
  if (device) {
    std::sort(wall.begin(), wall.end());
    r.extra.emplace_back("wall_cells_per_s",
                         static_cast<double>(r.cells_per_run) / wall[wall.size() / 2]);
    r.extra.emplace_back("device_bytes", static_cast<double>(timings.device_bytes));
  }
  // Neither metric can be infinite or NaN here: a backend that says so did not do the work.
  if (!std::all_of(out.begin(), out.end(), [](double d) { return std::isfinite(d) && d >= 0.0; }))
    throw std::runtime_error("the backend returned a distance that is not finite and >= 0");
  return r;
}

}  // namespace

std::uint64_t cells_per_run(const Shape& s) {
  using u64 = std::uint64_t;
  if (s.kind == Kind::stream_dtw) return u64(s.streams) * s.patterns * s.chunk * s.m;
  if (s.kind == Kind::window_search)
    return u64(s.length - s.m + 1) * window_search_cells(s.m, s.metric);
  return u64(s.rows) * s.cols * s.length * s.length;
}

std::string describe(const Shape& s) {
  const auto n = [](std::size_t v) { return std::to_string(v); };
  switch (s.kind) {
    case Kind::stream_dtw:
      return n(s.streams) + " streams x " + n(s.patterns) + " patterns, m " + n(s.m) + ", chunk " +
             n(s.chunk) + ", " + n(s.batches) + " batches" +
             (s.dims > 1 ? ", d " + n(s.dims) : "") + (s.dense ? ", dense ECG" : "");
    case Kind::whole_dtw:
      return "1 x " + n(s.cols) + " series, L " + n(s.length);
    case Kind::twed_allpairs:
      return n(s.rows) + " x " + n(s.cols) + " series, L " + n(s.length);
    case Kind::twed_long:
      return "1 pair, L " + n(s.length);
    case Kind::window_search:
      return std::string(s.top ? "top-1" : "threshold (10th best)") + ", L " + n(s.length) +
             ", m " + n(s.m) + (s.metric == kernels::Metric::ed ? ", ed" : "") + ", band " +
             (s.band_percent ? n(s.band_percent) + "%" : "none") + ", znorm, " +
             (s.dense ? "ECG"
                      : (s.independent_query ? "random walk, unrelated query" : "random walk"));
  }
  return "?";
}

double ops_per_cell(const Shape& shape) {
  switch (shape.kind) {
    case Kind::stream_dtw:
      return stream_ops_per_cell(shape.dims);
    case Kind::whole_dtw:
    case Kind::window_search:
      return dtw_ops_per_cell;
    case Kind::twed_allpairs:
    case Kind::twed_long:
      return twed_ops_per_cell;
  }
  return twed_ops_per_cell;
}

Measurement measure(const Shape& shape, kernels::Backend backend, unsigned threads,
                    std::uint64_t seed, std::ostream& log) {
  if (shape.kind == Kind::window_search)
    return measure_window_search(shape, backend, threads, seed);
  return shape.kind == Kind::stream_dtw ? measure_stream(shape, backend, threads, seed, log)
                                        : measure_matrix(shape, backend, threads, seed);
}

}  // namespace warpwatch::bench
