// Explanations of the cuda backend's events (docs/spec.md §7, daemon/explain/): every event of
// dtw and dk, stream and window mode (plain, znorm, znorm with a band on a longer window),
// one and several dimensions, explained from the stream's samples with Context::backend
// "cuda": the path's total is the event's float32 distance bit for bit, and its steps' costs
// accumulate to it in one of the cuda backend's arithmetics (stream mode: float32 as the
// reference; window mode: the window kernels' fma cell with one dimension, or the generic
// kernel's float64) — matching/explain_support.hpp. Skipped without a CUDA device.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "matching/explain_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch;
using namespace warpwatch::kernels;
using namespace warpwatch::testing;
using reference::Arithmetic;

namespace {

// The cuda backend's arithmetics: stream mode float32 as the reference; window mode the
// window kernels' fma cell (one dimension) or the generic kernel's float64.
std::vector<Arithmetic> cuda_arithmetics(const PatternDef& p) {
  if (p.params.mode == Mode::stream) return {Arithmetic::float32};
  if (p.dims == 1) return {Arithmetic::float32_fma, Arithmetic::float64};
  return {Arithmetic::float64};
}

ExplainedEvents check_cuda(const StreamData& s, const std::vector<float>& pattern, double share,
                           std::mt19937_64& rng, const std::string& what) {
  return explain_all_events(Backend::cuda, "cuda", cuda_arithmetics, s, pattern, share, rng, what);
}

TEST(CudaExplain, PathsGiveEachEventsDistanceBitForBitOnRandomAndDenseStreams) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(test_seed());
  ExplainedEvents random, dense;
  for (const std::size_t dims : {1u, 3u}) {
    const auto pattern = random_values(rng, 20 * dims);
    const StreamData s = random_stream(rng, {0.3f, 0, 0, 0, 1, 1}, "s", dims, 700, &pattern);
    random += check_cuda(s, pattern, 0.05, rng, "random d=" + std::to_string(dims));
    dense += check_cuda(dense_stream(rng, pattern, dims, 30), pattern, 1.0, rng,
                        "dense d=" + std::to_string(dims));
  }
  EXPECT_GE(random.events, 50u);
  EXPECT_EQ(random.exact, random.events);
  EXPECT_EQ(dense.exact, dense.events);
  EXPECT_GT(dense.replayed, 0u);
}

TEST(CudaExplain, PathsGiveEachEventsDistanceBitForBitOnEcg200) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const auto [s, pattern] = ecg200_series();
  ASSERT_FALSE(pattern.empty());
  std::mt19937_64 rng(1);
  const ExplainedEvents checked = check_cuda(s, pattern, 0.05, rng, "ECG200");
  EXPECT_GE(checked.events, 16u);
  EXPECT_EQ(checked.exact, checked.events);
}

}  // namespace
