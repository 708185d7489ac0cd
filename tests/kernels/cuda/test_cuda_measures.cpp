// The measures computed by their cells, msm, erp and lcss (docs/spec.md §4.4-4.6), on the cuda
// backend against the float64
// reference: the generic kernel (thread per pair, float64) runs the shared cells of
// common/measure_cells.hpp. Conformance scenario 5 (distance matrices), 4 (window mode
// through the Matcher, threshold, every chunking) and 9 (lengths 1, 2, 31, 32, 33, 257,
// d = 1 and 3; GunPoint and ECG200; top-K windows, every window aligned on the device).
// Tolerance: kRel (1e-5 relative to max(1, |reference|)); in float64 the results are in
// practice within a few ulps, and lcss is exact. Each test prints its seed and skips
// without a device.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <vector>

#include "conformance/conformance.hpp"
#include "conformance/inputs.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::testing::conformance;
using warpwatch::testing::test_seed;
namespace kernels = warpwatch::kernels;

namespace {

const Backends& backends() {
  static const Backends b{Backend{
      "cuda", [] { return kernels::cuda::make_matcher(); },
      [](std::span<const SeriesView> a, std::span<const SeriesView> b, const DistanceParams& params,
         std::span<double> out) { kernels::cuda::distance_matrix(a, b, params, out); }}};
  return b;
}

std::vector<TopWindowsBackend> top_backends() {
  return {
      {"cuda", [](const kernels::TopWindowsRequest& r) { return kernels::cuda::top_windows(r); }}};
}

}  // namespace

// Every measure computed by its cells (kernels/measures.hpp), each in its own instance.
class CudaMeasures : public ::testing::TestWithParam<kernels::Metric> {};

TEST_P(CudaMeasures, Distance) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_scenario(backends(), GetParam());
}
TEST_P(CudaMeasures, Lengths) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_measure_lengths(backends(), GetParam());
}
TEST_P(CudaMeasures, Ucr) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_measure_ucr(backends(), GetParam());
}
TEST_P(CudaMeasures, Window) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(backends(), GetParam());
}
TEST_P(CudaMeasures, TopWindows) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_measure_top_windows(top_backends(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cells, CudaMeasures, ::testing::ValuesIn(cell_metrics()),
                         metric_param_name);

// twed's top K now takes the same path (no window bounds): against the reference too.
TEST(CudaTopWindows, TwedAlignsEveryWindow) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(test_seed());
  const std::vector<float> values = random_walk(rng, 2000, 1), base = random_walk(rng, 30, 1);
  std::vector<std::int64_t> times(values.size());
  for (std::size_t i = 0; i < times.size(); ++i)
    times[i] = static_cast<std::int64_t>(i + 1) * kSecond;
  PatternDef p = window_pattern("p", 1, base, kernels::Metric::twed, 0, 1, Normalize::znorm);
  // Field by field: GCC 12 warns falsely (-Wmaybe-uninitialized) on the aggregate's string.
  kernels::TopWindowsRequest r;
  r.stream.id = "s";
  r.stream.nominal_period_ns = kSecond;
  r.values = values;
  r.times_ns = times;
  r.pattern = p;
  r.k = 3;
  const auto want = kernels::reference::top_windows(r);
  const auto got = kernels::cuda::top_windows(r);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(got[k].end_index, want[k].end_index) << k;
    EXPECT_TRUE(within_tolerance(got[k].distance, want[k].distance))
        << k << ": " << format_double(got[k].distance) << " vs " << format_double(want[k].distance);
  }
}
