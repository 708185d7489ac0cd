// The CUDA backend's host side: what each kernel family says it can run (and the shape
// it picks), how runtime errors map to the public error types, and the one device context
// shared by distance_matrix and the matchers. The first two need no device and run
// wherever the CUDA backend is built (CI included); the context's test needs a device.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <vector>

#include "cuda/device_context.hpp"
#include "cuda/distance/distance_launch.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/stream/spring_launch.hpp"
#include "gpu_test_support.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/params.hpp"

namespace {

namespace kernels = warpwatch::kernels;
namespace cuda = warpwatch::kernels::cuda;
using cuda::SpringSweep;
using cuda::SpringWavefront;
using cuda::WavefrontShape;
using cuda::detail::FastKind;
using cuda::detail::GenericDistance;
using cuda::detail::LongPairDistance;
using cuda::detail::WarpDistance;

TEST(CudaFamilies, SpringWavefrontTakesUpTo8192RowsAndUpTo64DimsAsSharedMemoryHolds) {
  EXPECT_FALSE(SpringWavefront::can_implement(15, 1, 0));
  EXPECT_TRUE(SpringWavefront::can_implement(16, 1, 0));
  EXPECT_TRUE(SpringWavefront::can_implement(8192, 1, 0));
  EXPECT_FALSE(SpringWavefront::can_implement(8193, 1, 0));
  // Several dimensions: up to 512 rows and 64 dims, as far as shared memory goes. The
  // H100's opt-in limit (227 KiB) less the static share holds the largest.
  const std::size_t h100 = 227 * 1024 - SpringWavefront::multi_static_bytes;
  EXPECT_TRUE(SpringWavefront::can_implement(256, 3, h100));
  EXPECT_TRUE(SpringWavefront::can_implement(512, 64, h100));
  // 256 rows of 64: two pairs a warp do not fit, one does (32 lanes of 16 rows).
  EXPECT_TRUE(SpringWavefront::can_implement(256, 64, h100));
  EXPECT_TRUE(SpringWavefront::shape(256, 64, h100) == (WavefrontShape{32, 16, 1}));
  EXPECT_TRUE(SpringWavefront::shape(256, 3, h100) == (WavefrontShape{16, 16, 1}));
  EXPECT_TRUE(SpringWavefront::shape(100, 64, h100) == (WavefrontShape{16, 8, 1}));
  // Row tiles of several dimensions, as far as their pattern rows fit: on the H100 8192
  // rows at d 4, 4608 at d 8, 1024 at d 32, none at d 48.
  EXPECT_TRUE(SpringWavefront::can_implement(513, 3, h100));
  EXPECT_TRUE(SpringWavefront::can_implement(8192, 4, h100));
  EXPECT_TRUE(SpringWavefront::shape(1100, 3, h100) == (WavefrontShape{32, 16, 3}));
  EXPECT_TRUE(SpringWavefront::can_implement(4608, 8, h100));
  EXPECT_FALSE(SpringWavefront::can_implement(4609, 8, h100));
  EXPECT_TRUE(SpringWavefront::can_implement(1024, 32, h100));
  EXPECT_FALSE(SpringWavefront::can_implement(1025, 32, h100));
  EXPECT_FALSE(SpringWavefront::can_implement(513, 48, h100));
  EXPECT_FALSE(SpringWavefront::can_implement(8193, 2, h100));
  // 3 tiles of d 3: the resets, 2 links, 3 windows of 64 x 3 words, control, 3 x 16 x 3 x 32.
  EXPECT_EQ(SpringWavefront::tiled_shared_bytes(3, 3),
            1024u + 2 * 128 * 20 + 3 * 64 * 3 * 4 + 32 + 3 * 16 * 3 * 32 * 4);
  EXPECT_EQ(SpringWavefront::tiled_shared_bytes(16, 1), 43'552u);  // no opt-in needed
  EXPECT_FALSE(SpringWavefront::can_implement(256, 65, h100));
  // 256 rows of 8 dims: 16 rows x 8 x 32 lanes + 2 teams x 256 samples x 9 words; a word
  // less and it takes one pair a warp (one window), a word less than that and none.
  EXPECT_EQ(SpringWavefront::multi_warp_words(16, 2, 8), 16u * 8 * 32 + 2 * 256 * 9);
  const std::size_t two = (16 * 8 * 32 + 2 * 256 * 9) * 4, one = (16 * 8 * 32 + 256 * 9) * 4;
  EXPECT_TRUE(SpringWavefront::shape(256, 8, two) == (WavefrontShape{16, 16, 1}));
  EXPECT_TRUE(SpringWavefront::shape(256, 8, two - 4) == (WavefrontShape{32, 16, 1}));
  EXPECT_TRUE(SpringWavefront::can_implement(256, 8, one));
  EXPECT_FALSE(SpringWavefront::can_implement(256, 8, one - 4));
  EXPECT_TRUE(SpringSweep::can_implement(100000, 64));
  EXPECT_TRUE(SpringSweep::can_implement(2, 1));
  // 16 lanes and powers of two up to 256 rows, 32 lanes of 16 to 512, then 512-row tiles.
  const std::vector<std::pair<std::uint32_t, WavefrontShape>> shapes = {
      {16, {16, 1, 1}},   {17, {16, 2, 1}},    {100, {16, 8, 1}},
      {256, {16, 16, 1}}, {257, {32, 16, 1}},  {512, {32, 16, 1}},
      {513, {32, 16, 2}}, {3000, {32, 16, 6}}, {8192, {32, 16, 16}}};
  for (const auto& [m, want] : shapes) {
    const WavefrontShape got = SpringWavefront::shape(m);
    EXPECT_TRUE(got == want) << "m " << m << ": " << got.lanes << " lanes, " << got.rows
                             << " rows, " << got.tiles << " tiles";
  }
}

TEST(CudaFamilies, DistanceFamiliesSayWhatTheyRun) {
  kernels::DistanceParams dtw, twed, banded, soft;
  twed.metric = kernels::Metric::twed;
  banded.band = 3.0;
  soft.metric = kernels::Metric::softdtw;
  EXPECT_EQ(cuda::detail::fast_kind(dtw, 1), FastKind::dtw_sq);
  EXPECT_EQ(cuda::detail::fast_kind(twed, 1), FastKind::twed);
  EXPECT_FALSE(cuda::detail::fast_kind(banded, 1));
  EXPECT_FALSE(cuda::detail::fast_kind(soft, 1));
  EXPECT_FALSE(cuda::detail::fast_kind(dtw, 2));

  EXPECT_TRUE(WarpDistance::can_implement(dtw, 1, 1));
  EXPECT_TRUE(WarpDistance::can_implement(dtw, 1, 1536));
  EXPECT_FALSE(WarpDistance::can_implement(dtw, 1, 1537));
  EXPECT_TRUE(WarpDistance::can_implement(twed, 1, 512));
  EXPECT_FALSE(WarpDistance::can_implement(twed, 1, 513))
      << "twed's registers spill past 16 rows a lane";
  EXPECT_FALSE(WarpDistance::can_implement(banded, 1, 100));
  EXPECT_FALSE(WarpDistance::can_implement(dtw, 3, 100));
  EXPECT_EQ(WarpDistance::rows_per_lane(1), 1);
  EXPECT_EQ(WarpDistance::rows_per_lane(33), 2);
  EXPECT_EQ(WarpDistance::rows_per_lane(513), 32);
  EXPECT_EQ(WarpDistance::rows_per_lane(1536), 48);

  EXPECT_TRUE(LongPairDistance::can_implement(dtw, 1));
  EXPECT_TRUE(LongPairDistance::can_implement(twed, 1));
  EXPECT_FALSE(LongPairDistance::can_implement(soft, 1));
  EXPECT_GE(LongPairDistance::workspace_bytes(1'000'000, 1'000'000), 16u * 1'000'000u)
      << "a boundary row of m double2";

  static_assert(GenericDistance::can_implement());
  EXPECT_EQ(GenericDistance::workspace_bytes(2, 10), 2u * 3u * 11u * sizeof(double));
}

TEST(CudaErrors, RuntimeErrorsBecomeThePublicTypes) {
  using cuda::throw_cuda_error;
  EXPECT_TRUE(cuda::is_device_lost(cudaErrorIllegalAddress));
  EXPECT_TRUE(cuda::is_device_lost(cudaErrorLaunchFailure));
  EXPECT_TRUE(cuda::is_device_lost(cudaErrorECCUncorrectable));
  EXPECT_TRUE(cuda::is_device_lost(cudaErrorContained));
  EXPECT_TRUE(cuda::is_device_lost(cudaErrorMpsClientTerminated));
  EXPECT_FALSE(cuda::is_device_lost(cudaErrorMemoryAllocation));
  EXPECT_FALSE(cuda::is_device_lost(cudaErrorInvalidValue));
  EXPECT_THROW(throw_cuda_error(cudaErrorLaunchFailure, "k<<<>>>", "f.cu", 7), kernels::DeviceLost);
  EXPECT_THROW(throw_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc", "f.cu", 7),
               kernels::CudaOutOfMemory);
  try {
    throw_cuda_error(cudaErrorInvalidValue, "cudaMemcpy(x)", "f.cu", 7);
    FAIL() << "no throw";
  } catch (const kernels::DeviceLost&) {
    FAIL() << "an invalid value does not lose the device";
  } catch (const kernels::CudaError& e) {
    EXPECT_EQ(e.code(), static_cast<int>(cudaErrorInvalidValue));
    EXPECT_NE(std::string(e.what()).find("cudaErrorInvalidValue"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaMemcpy(x) at f.cu:7"), std::string::npos) << e.what();
  }
}

// distance_matrix and every matcher work on the one context of the process: its engine's
// buffers, grown by the first call, are there for the next one.
TEST(CudaDeviceContext, OneContextServesDistanceAndMatchers) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  cuda::DeviceContext& context = cuda::DeviceContext::get();
  EXPECT_EQ(&context, &cuda::DeviceContext::get());
  const std::vector<float> x(300, 1.0f), y(400, 2.0f);
  const kernels::SeriesView a{x.data(), x.size(), 1, nullptr}, b{y.data(), y.size(), 1, nullptr};
  std::vector<double> out(1);
  cuda::distance_matrix({&a, 1}, {&b, 1}, kernels::DistanceParams{}, out);
  EXPECT_DOUBLE_EQ(out[0], 400.0) << "each of the 400 cells of the cheapest path costs (2 - 1)^2";
  const std::size_t held = context.engine().device_bytes();
  EXPECT_GT(held, 0u);
  cuda::distance_matrix({&a, 1}, {&b, 1}, kernels::DistanceParams{}, out);
  EXPECT_EQ(context.engine().device_bytes(), held)
      << "the second call reuses the first call's buffers";
  auto matcher = cuda::make_matcher();
  EXPECT_GE(matcher->counters().device_bytes, held)
      << "a matcher's window mode runs on the same engine";
}

}  // namespace
