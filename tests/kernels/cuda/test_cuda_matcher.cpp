// The CUDA backend's Matcher (kernels/include/warpwatch/kernels/cuda.hpp) against the
// scalar reference: the conformance scenarios of tests/support/conformance/ (overview in
// conformance.hpp). Stream mode must be bit-identical to the reference; the chunkings
// there (one sample per batch, random uneven chunks, one big batch) drive both the
// thread-per-pair kernel and the warp wavefront (its reports and re-runs, up to 512 rows
// and in row tiles).
// Skipped, with the reason, on a machine without a usable CUDA device.

#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <span>
#include <string>

#include "conformance/conformance.hpp"
#include "gpu_test_support.hpp"
#include "warpwatch/kernels/cuda.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;

namespace {

Backend cuda_backend() {
  return Backend{"cuda", [] { return kernels::cuda::make_matcher(); },
                 [](std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                    const kernels::DistanceParams& params,
                    std::span<double> out) { kernels::cuda::distance_matrix(a, b, params, out); }};
}

const Backends& cuda_backends() {
  static const Backends backends{cuda_backend()};
  return backends;
}

}  // namespace

TEST(CudaMatcher, NameAndDeviceMemory) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  auto matcher = kernels::cuda::make_matcher();
  EXPECT_EQ(matcher->name(), "cuda");
  matcher->add_stream({"s", 1, 1'000'000});
  kernels::PatternDef p;
  p.id = "p";
  p.values.assign(256, 0.5f);
  p.params.threshold = 1.0;
  matcher->add_pattern(p);
  // One pair of m = 256: its state is 8 * 256 + 12 bytes in a tile of 32 lanes.
  EXPECT_GE(matcher->counters().device_bytes, 32u * (8u * 256u + 12u));
  std::cout << "[ device   ] " << matcher->counters().device_bytes << " bytes for one pair\n";
}

// ---------------------------------------------------------------------------------
// 1. Stream mode (dtw, dk; sq, abs; d = 1, 3): bit-identical to the reference.

TEST(CudaStream, SmallPatterns) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_scenario(cuda_backends(), StreamScenario::small_patterns());
}

// Every wavefront shape: 16 lanes a pair with 1 (m 16), 4, 8 and 16 rows a lane, aligned
// (the last row on a lane's last register) or not; 32 lanes of 16 rows (m 300, 512).
TEST(CudaStream, WavefrontShapes) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  StreamScenario sc;
  sc.ms = {16, 64, 100, 128, 200, 256, 300, 512};
  sc.streams_per_dims = 2;
  sc.min_length = 1500;
  run_stream_scenario(cuda_backends(), sc);
}

// Several dimensions on the wavefront (the pattern and a window of samples in shared memory):
// each shape, up to 64 dims (512 rows of 64: one warp a block, most of the shared memory).
TEST(CudaStream, WavefrontSeveralDims) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  StreamScenario sc;
  sc.ms = {16, 32, 64, 100, 256, 300, 512};  // 1, 2, 4, 8, 16 rows a lane; 32 lanes
  sc.dims = {2, 8, 64};
  sc.streams_per_dims = 2;  // two pairs a pattern: both teams of a warp at work
  sc.min_length = 1200;
  sc.four_variants = false;
  sc.chunkings = {Chunking::large_random, Chunking::one_big, Chunking::pipelined};
  run_stream_scenario(cuda_backends(), sc);
}

// Dense matches in 64 dimensions: a report every 60-200 samples re-runs the wavefront
// (20,000 samples: `length` counts values).
TEST(CudaStream, DenseMatchesSixtyFourDims) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {64};
  sc.m = 100;
  sc.length = 64 * 20'000;
  sc.chunkings = {Chunking::one_big, Chunking::large_random};
  sc.large_chunk = 4096;
  run_stream_dense(cuda_backends(), sc);
}

TEST(CudaStream, Pattern257) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_scenario(cuda_backends(), StreamScenario::pattern_257());
}

// Row tiles chained in a block: 2 tiles with one row in the last (513), 2 full tiles
// (1024, the last row on a lane's last register), 3 tiles (1500).
TEST(CudaStream, TiledWavefront) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  StreamScenario sc;
  sc.ms = {513, 1024, 1500};
  sc.streams_per_dims = 2;
  sc.min_length = 2000;
  sc.chunkings = {Chunking::large_random, Chunking::one_big};
  sc.large_chunk = 600;
  run_stream_scenario(cuda_backends(), sc);
}

// Dense matches on row tiles (SPRING's rules across the tiles of a block): a copy every
// m..m+140 samples, so every candidate and report re-runs the tiles from their
// checkpoints; 3 tiles with the last row mid-register (1100), and the most tiles (8192).
TEST(CudaStream, DenseMatchesRowTiles) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {1};
  sc.m = 1100;
  sc.length = 120'000;
  sc.chunkings = {Chunking::one_big, Chunking::large_random, Chunking::pipelined};
  sc.large_chunk = 3000;  // candidates pending across batches
  run_stream_dense(cuda_backends(), sc);
}

// Row tiles of several dimensions (pattern rows in shared memory): 2 tiles with one row in
// the last (513), 3 tiles (1100), at d 2, 3 and 8.
TEST(CudaStream, TiledWavefrontSeveralDims) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  StreamScenario sc;
  sc.ms = {513, 1100};
  sc.dims = {2, 3, 8};
  sc.streams_per_dims = 2;
  sc.min_length = 2000;
  sc.chunkings = {Chunking::large_random, Chunking::one_big, Chunking::pipelined};
  sc.large_chunk = 600;
  run_stream_scenario(cuda_backends(), sc);
}

TEST(CudaStream, DenseMatchesRowTilesSeveralDims) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {3, 8};
  sc.m = 1100;
  sc.length = 60'000;
  sc.chunkings = {Chunking::one_big, Chunking::large_random, Chunking::pipelined};
  sc.large_chunk = 3000;
  run_stream_dense(cuda_backends(), sc);
}

TEST(CudaStream, DenseMatchesSixteenRowTiles) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {1};
  sc.m = 8192;
  sc.length = 90'000;
  sc.chunkings = {Chunking::one_big, Chunking::large_random};
  sc.large_chunk = 20'000;
  run_stream_dense(cuda_backends(), sc);
}

// More reports in one batch than the buffer holds, on row tiles (m 513, 1,800,000 samples:
// about 3,100 reports a pattern; the two tiled pairs run first, one variant each, and the
// second overflows the buffer): a tiled pair gives up untouched and runs again.
TEST(CudaStream, ReportBufferFillsOnRowTiles) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {1};
  sc.m = 513;
  sc.length = 1'800'000;
  sc.chunkings = {Chunking::one_big};
  run_stream_dense(cuda_backends(), sc);
}

TEST(CudaStream, Pattern3000) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_scenario(cuda_backends(), StreamScenario::pattern_3000());
}

TEST(CudaStream, DenseMatchesLongStreamsAndEcg) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_dense(cuda_backends(), {});
}

// More reports in one batch than the report buffer holds (room for one a pair and 4,096
// more): two pairs of m 16 on one batch of 600,000 samples, a copy every 60-200 samples.
// The wavefront gives the pairs up when a report does not fit; their reports are dropped
// and they run their chunk on the wavefront again with a larger buffer.
TEST(CudaStream, ReportBufferFillsInOneBatch) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  DenseStreamScenario sc;
  sc.dims = {1};
  sc.m = 16;
  sc.length = 600'000;
  sc.chunkings = {Chunking::one_big};
  run_stream_dense(cuda_backends(), sc);
}

TEST(CudaStream, QuantizedValuesTieBreaking) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_quantized_ties(cuda_backends());
}

// Pipelined batches (submit/collect, two outstanding: the flights and the report ring) over
// enough samples (40 streams of ~5000) that histories are trimmed several times, each trim
// coming due while a batch is outstanding.
TEST(CudaStream, PipelinedBatchesAcrossTrims) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  StreamScenario sc;
  sc.ms = {16, 40};
  sc.dims = {1};
  sc.streams_per_dims = 40;
  sc.min_length = 5000;
  sc.copies = 3;
  sc.chunkings = {Chunking::pipelined};
  run_stream_scenario(cuda_backends(), sc);
}

TEST(CudaStream, ThresholdEdges) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_threshold_edges(cuda_backends());
}

// ---------------------------------------------------------------------------------
// 2. Many pairs (up to 10^4).

TEST(CudaManyPairs, OneByOne) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_many_pairs(cuda_backends(), 1, 1, 400, 400, 40, 3);
}

TEST(CudaManyPairs, SevenByFive) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_many_pairs(cuda_backends(), 7, 5, 150, 260, 24);
}

TEST(CudaManyPairs, HundredByHundred) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_many_pairs(cuda_backends(), 100, 100, 30, 60, 8);
}

TEST(CudaManyPairs, MixedDimsAndModes) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_mixed_dims_and_modes(cuda_backends(), {1, 2, 3, 4, 8, 17, 64, 1},
                           {1, 2, 3, 5, 8, 64, 64, 2, 3, 1, 8, 5}, 260);
}

// ---------------------------------------------------------------------------------
// 3. Hot changes: streams and patterns come and go between batches.

TEST(CudaHotChanges, AddRemoveBetweenBatches) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_hot_changes(cuda_backends());
}

// ---------------------------------------------------------------------------------
// 4. Window mode.

TEST(CudaWindow, Dtw) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(cuda_backends(), kernels::Metric::dtw);
}
TEST(CudaWindow, Dk) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(cuda_backends(), kernels::Metric::dk);
}
TEST(CudaWindow, Softdtw) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(cuda_backends(), kernels::Metric::softdtw);
}
TEST(CudaWindow, Twed) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(cuda_backends(), kernels::Metric::twed);
}
TEST(CudaWindow, Ed) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(cuda_backends(), kernels::Metric::ed);
}
TEST(CudaWindow, FlatWindowsUnderZnorm) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_flat_znorm(cuda_backends());
}

// ---------------------------------------------------------------------------------
// 5. Two matchers on one device give bit-identical results.

TEST(CudaMatcher, TwoInstancesAgree) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_backends_agree({cuda_backend(), cuda_backend()});
}

// A restart through Matcher::export_stream / import_stream equals an uninterrupted run on
// the device, bit for bit (conformance scenario 8).
TEST(CudaSnapshot, RestoreEqualsUninterrupted) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_snapshot_restore(cuda_backends());
}
