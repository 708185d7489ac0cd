// Explanations of the cuda backend's events (docs/spec.md §7, daemon/explain/): every event of
// dtw and dk, stream and window mode (plain, znorm, znorm with a band on a longer window),
// one and several dimensions, explained from the stream's samples with Context::backend
// "cuda": the path's total is the event's float32 distance bit for bit, and its steps' costs
// accumulate to it in one of the cuda backend's arithmetics (stream mode: float32 as the
// reference; window mode: the window kernels' fma cell with one dimension, or the generic
// kernel's float64) — matching/explain_support.hpp. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "matching/explain_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/dense_data.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch;
using namespace warpwatch::kernels;
using namespace warpwatch::testing;
using reference::Arithmetic;

namespace {

struct ModeCase {
  const char* name;
  Mode mode;
  Normalize normalize;
  std::optional<double> band;
  std::size_t extra_window;
};
const ModeCase kModes[] = {{"stream", Mode::stream, Normalize::none, std::nullopt, 0},
                           {"window", Mode::window, Normalize::none, std::nullopt, 0},
                           {"window znorm", Mode::window, Normalize::znorm, std::nullopt, 0},
                           {"window znorm band", Mode::window, Normalize::znorm, 3.0, 4}};

std::size_t check_cuda(const StreamData& s, const std::vector<float>& pattern, double share,
                       std::mt19937_64& rng, const std::string& what) {
  std::size_t checked = 0;
  for (const Metric metric : {Metric::dtw, Metric::dk})
    for (const ModeCase& mode : kModes) {
      PatternDef p = base_pattern("p", s.dims, pattern, mode.mode, metric, 0.0);
      if (mode.mode == Mode::window) {
        p.params.normalize = mode.normalize;
        p.params.distance.band = mode.band;
        if (mode.extra_window) p.params.window = p.length() + mode.extra_window;
      }
      p.params.threshold = share >= 1.0 ? 1e30 : profile_quantile(s, p, share);
      const std::vector<Arithmetic> arithmetics =
          mode.mode == Mode::stream ? std::vector{Arithmetic::float32}
          : s.dims == 1             ? std::vector{Arithmetic::float32_fma, Arithmetic::float64}
                                    : std::vector{Arithmetic::float64};
      const auto events = backend_events(Backend::cuda, s, p, rng);
      const std::string name =
          what + " " + std::string(to_string(metric)) + " " + mode.name + " cuda";
      EXPECT_FALSE(events.empty()) << name;
      checked += expect_paths_explain(events, s, p, "cuda", arithmetics, name);
    }
  return checked;
}

StreamData dense_stream(std::mt19937_64& rng, const std::vector<float>& pattern, std::size_t dims,
                        std::size_t copies) {
  const std::size_t m = pattern.size() / dims;
  std::normal_distribution<float> value(0.0f, 1.0f), noise(0.0f, 0.2f);
  StreamData s;
  s.id = "s";
  s.dims = dims;
  for (std::size_t c = 0; c < copies; ++c) {
    for (std::size_t i = 0; i < (m / 2) * dims; ++i) s.values.push_back(value(rng));
    for (const float x : pattern) s.values.push_back(x + noise(rng));
  }
  for (std::size_t i = 0; i < s.values.size() / dims; ++i)
    s.ts.push_back(static_cast<std::int64_t>(i) * s.period_ns);
  return s;
}

TEST(CudaExplain, PathsGiveEachEventsDistanceBitForBitOnRandomAndDenseStreams) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(test_seed());
  std::size_t checked = 0;
  for (const std::size_t dims : {1u, 3u}) {
    const auto pattern = random_values(rng, 20 * dims);
    const StreamData s = random_stream(rng, {0.3f, 0, 0, 0, 1, 1}, "s", dims, 700, &pattern);
    checked += check_cuda(s, pattern, 0.05, rng, "random d=" + std::to_string(dims));
    checked += check_cuda(dense_stream(rng, pattern, dims, 30), pattern, 1.0, rng,
                          "dense d=" + std::to_string(dims));
  }
  EXPECT_GE(checked, 200u);
}

TEST(CudaExplain, PathsGiveEachEventsDistanceBitForBitOnEcg200) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const auto rows = bench::read_ucr_rows(bench::default_data_dir() + "/ECG200_TRAIN.tsv");
  ASSERT_GE(rows.size(), 13u);
  StreamData s;
  s.id = "s";
  for (std::size_t r = 0; r < 12; ++r)
    s.values.insert(s.values.end(), rows[r].begin(), rows[r].end());
  for (std::size_t i = 0; i < s.values.size(); ++i)
    s.ts.push_back(static_cast<std::int64_t>(i) * s.period_ns);
  std::mt19937_64 rng(1);
  EXPECT_GE(check_cuda(s, rows[12], 0.05, rng, "ECG200"), 16u);
}

}  // namespace
