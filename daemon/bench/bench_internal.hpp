// Pieces of `warpwatch bench` shared by its source files: the workload shapes, running
// one workload on one backend, and the calibration loop behind the ceiling column.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "warpwatch/bench/bench.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::bench {

enum class Kind { stream_dtw, whole_dtw, twed_allpairs, twed_long, window_search };

// splitmix64: fast and good enough for benchmark data; N = 10^9 samples (the cuda
// whole_dtw case) must not take longer to generate than to match.
class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  float step() {  // uniform in [-0.5, 0.5)
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return static_cast<float>(z >> 40) * 0x1p-24f - 0.5f;
  }

 private:
  std::uint64_t state_;
};

// `count` random walks of `length` samples each, back to back; each starts at 0 so values
// stay in a range where every metric's arithmetic is ordinary.
inline std::vector<float> random_walks(std::size_t count, std::size_t length, Random& random) {
  std::vector<float> values(count * length);
  for (std::size_t s = 0; s < count; ++s) {
    float x = 0.0f;
    for (std::size_t i = 0; i < length; ++i) values[s * length + i] = x += random.step();
  }
  return values;
}

// The size of one workload. Stream: `streams` x `patterns` pairs, patterns of length m,
// `batches` timed batches of `chunk` samples per stream. Matrix kinds: `rows` x `cols`
// series pairs of length `length` each (whole_dtw 1 x N, twed_allpairs N x N, twed_long
// 1 x 1), `repeat` timed calls.
struct Shape {
  Kind kind = Kind::stream_dtw;
  std::size_t streams = 0, patterns = 0, m = 0, chunk = 0, batches = 0;
  std::size_t dims = 1;       // stream kinds: sample dimensions
  bool dense = false;         // stream kinds: ECG beats with dense matches, not random walks
  const char* data_dir = "";  // dense: ECG200's folder ("": the default)
  double max_seconds = 0.0;   // stream kinds: fewer batches when they would take longer (0: no)
  std::size_t rows = 0, cols = 0, length = 0, repeat = 0;
  // window_search: a series of `length` samples (random walk, or ECG beats when dense), one
  // z-normalized query of m samples (dtw or ed), a Sakoe-Chiba band of band_percent of m (0:
  // none; dtw only), top-1 or (top = false) every window under the distance of the 10th best.
  std::size_t band_percent = 0;
  bool top = true;
  // window_search, random walk: the query is a random walk of its own (no copy of it in the
  // series) instead of the series' middle m samples (the UCR Suite's experiments).
  bool independent_query = false;
  kernels::Metric metric = kernels::Metric::dtw;
  // cuda: the devices to run on (Report::devices; empty: every usable one)
  std::span<const int> devices{};
};

std::uint64_t cells_per_run(const Shape& shape);
// window_search: the effective cells of one window, m x m (ed: m).
inline std::uint64_t window_search_cells(std::size_t m, kernels::Metric metric) {
  return metric == kernels::Metric::ed ? m : std::uint64_t{m} * m;
}
std::string describe(const Shape& shape);
double ops_per_cell(const Shape& shape);  // stream kinds: with the shape's dims

// Runs the workload on the backend (warm-up first, then the timed runs) and returns its
// measurement. Throws whatever the backend throws (e.g. std::runtime_error when the
// backend cannot be had) and std::runtime_error when a result is implausible.
Measurement measure(const Shape& shape, kernels::Backend backend, unsigned threads,
                    std::uint64_t seed, std::ostream& log);

// window_search (bench_window_search.cpp): the search timed whole, `repeat` runs after a
// warm-up.
Measurement measure_window_search(const Shape& shape, kernels::Backend backend, unsigned threads,
                                  std::uint64_t seed);

// The machine's peak rate of simple independent float32 operations (an add and a min)
// on `threads` threads, in operations per second: the best of a few runs of a loop the
// compiler vectorizes for the widest vector unit the CPU has. `seconds` is the length of
// one run.
double calibrate_float_ops(unsigned threads, double seconds);

// Bytes read and written per second by `threads` threads each updating its own 64 MiB
// buffer in place (beyond the caches): the host's memory bandwidth, the best of three.
double calibrate_copy_bandwidth(unsigned threads);

// The CPU model name ("unknown" when the system does not say).
std::string cpu_model();

}  // namespace warpwatch::bench
