// softdtw's gradient on the CUDA backend (cuda.hpp's softdtw_grad_matrix: a device thread a
// pair, kernels/cuda/distance/softdtw_grad.cu) against reference::softdtw_grad: conformance
// scenario 7, its edge cases, launches of one job each (a tiny scratch) bit for bit against
// one launch, many pairs over several blocks (with the kernel's cells/s printed), and the
// dispatch of backends.hpp. Every test prints its seed (WARPWATCH_SEED replays).

#include <gtest/gtest.h>

#include <iostream>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "conformance/conformance.hpp"
#include "cuda/distance/cuda_distance.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cuda.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;
namespace cuda = warpwatch::kernels::cuda;

namespace {

GradBackend cuda_grad() {
  return GradBackend{"cuda", [](std::span<const SeriesView> a, std::span<const SeriesView> b,
                                const DistanceParams& params, std::span<double> out) {
                       cuda::softdtw_grad_matrix(a, b, params, out);
                     }};
}

// Table scratch of `bytes` a launch (at least one job a launch).
GradBackend cuda_grad_scratch(std::size_t bytes) {
  return GradBackend{cat("cuda scratch ", bytes, " bytes"),
                     [bytes](std::span<const SeriesView> a, std::span<const SeriesView> b,
                             const DistanceParams& params, std::span<double> out) {
                       cuda::detail::softdtw_grad_matrix_scratch(a, b, params, out, bytes);
                     }};
}

std::vector<Series> walks(std::mt19937_64& rng, std::size_t count, std::size_t min_length,
                          std::size_t max_length, std::size_t dims) {
  std::uniform_int_distribution<std::size_t> length(min_length, max_length);
  std::vector<Series> out;
  for (std::size_t i = 0; i < count; ++i) {
    Series s;
    s.dims = dims;
    s.values = random_walk(rng, length(rng), dims, 0.5f);
    out.push_back(s);
  }
  return out;
}

}  // namespace

TEST(CudaSoftDtwGrad, MatchesTheReference) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_softdtw_grad_scenario({cuda_grad(), cuda_grad_scratch(1)});
}

TEST(CudaSoftDtwGrad, EdgeCases) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_softdtw_grad_edge_cases(cuda_grad());
}

// A scratch of 1 byte: one job a launch, each a different shape; a scratch of 4 MiB: a few
// jobs of mixed lengths a launch (their tables sized by the longest). Both bit for bit as
// one launch of everything.
TEST(CudaSoftDtwGrad, LaunchesOfAFewJobs) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (std::size_t d : {1u, 3u}) {
    const auto a = walks(rng, 5, 1, 300, d), b = walks(rng, 7, 1, 300, d);
    DistanceParams q;
    q.metric = Metric::softdtw;
    q.gamma = 0.3;
    for (std::optional<double> band : {std::optional<double>{}, std::optional<double>{10.0}}) {
      q.band = band;
      check_softdtw_grad({cuda_grad(), cuda_grad_scratch(1), cuda_grad_scratch(4 << 20)}, a, b, q,
                         cat("d=", d, band ? " band 10" : " no band"));
    }
  }
}

// 64 x 64 pairs of 50..150 samples (several blocks of 128 threads, one launch) through the
// dispatch: against the reference, and the kernel time printed.
TEST(CudaSoftDtwGrad, ManyPairs) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const auto a = walks(rng, 64, 50, 150, 1), b = walks(rng, 64, 50, 150, 1);
  DistanceParams q;
  q.metric = Metric::softdtw;
  q.gamma = 0.1;
  double cells = 0.0;
  for (const Series& x : a)
    for (const Series& y : b) cells += static_cast<double>(x.length() * y.length());
  kernels::DeviceTimings timings;
  kernels::BackendOptions options;
  options.timings = &timings;
  const double worst = check_softdtw_grad({dispatched_grad(kernels::Backend::cuda, options)}, a, b,
                                          q, "64 x 64 pairs");
  EXPECT_GT(timings.kernel_seconds, 0.0);
  EXPECT_GT(timings.device_bytes, 0u);
  std::cout << "[ grad     ] 64 x 64 pairs, " << cells << " cells: kernels "
            << timings.kernel_seconds << " s (" << cells / timings.kernel_seconds
            << " cells/s), copies " << timings.copy_seconds << " s, " << timings.device_bytes
            << " device bytes; largest error " << worst << " of the pair's largest component\n";
}

// backends.hpp's dispatch for cuda and auto (a device is present: cuda).
TEST(CudaSoftDtwGrad, ThroughTheDispatch) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const auto a = walks(rng, 3, 1, 80, 2), b = walks(rng, 4, 1, 80, 2);
  DistanceParams q;
  q.metric = Metric::softdtw;
  for (kernels::Backend backend : {kernels::Backend::cuda, kernels::Backend::automatic})
    check_softdtw_grad({dispatched_grad(backend)}, a, b, q, "dispatch");
}
