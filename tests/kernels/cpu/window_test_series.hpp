// Series for the window-mode pruning suites (test_window_pruning.cpp,
// test_window_bounds_fast.cpp): a stream's history holding given samples, and ECG beats as
// a stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/stream_history.hpp"

namespace warpwatch::testing {

// `values` (samples x dims) as a stream's history, sample i at time i + 1.
inline kernels::StreamHistory history_of(const std::vector<float>& values, std::size_t dims) {
  kernels::StreamHistory h(dims);
  std::vector<std::int64_t> times(values.size() / dims);
  std::iota(times.begin(), times.end(), std::int64_t{1});
  h.append(values, times);
  return h;
}

// n samples of ECG200 beats resampled around m samples (bench::BeatStream), samples x dims.
inline std::vector<float> ecg_values(std::size_t n, std::size_t dims, std::size_t m,
                                     std::uint64_t seed) {
  const bench::Beats& beats = bench::ecg_beats(bench::default_data_dir());
  std::vector<float> values(n * dims);
  bench::BeatStream stream(beats, m, dims, seed);
  stream.fill(values.data(), n);
  return values;
}

}  // namespace warpwatch::testing
