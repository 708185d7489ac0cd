// The cuda backend over several devices (cuda.devices; kernels/sharded_matcher.hpp): two
// cuda shards return the events of one cuda backend, bit for bit (stream mode; window mode
// the same bits as one device too), under the conformance scenarios, pipelined, with hot
// changes, and behind auto's switching matcher; distance_matrix split across devices equals
// one device's. On a machine with one device the two shards share device 0: every code path
// of the sharding still runs (two contexts' worth of matchers, two host threads), only not
// two GPUs; each test says which it ran ("[ devices  ]" line).
// Skipped, with the reason, on a machine without a usable CUDA device.

#include <gtest/gtest.h>

#include <iostream>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"
#include "gpu_test_support.hpp"
#include "matching/switching_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/sharded_matcher.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;

namespace {

// "s<i>" (appended: GCC 12 warns falsely, -Wrestrict, on "s" + std::string).
std::string stream_id(int i) {
  std::string id = "s";
  id += std::to_string(i);
  return id;
}

// Devices 0 and 1, or device 0 twice on a machine with one (said on stdout).
std::vector<int> two_devices() {
  const int count = kernels::cuda_status().device_count;
  const std::vector<int> devices = count >= 2 ? std::vector<int>{0, 1} : std::vector<int>{0, 0};
  std::cout << "[ devices  ] two shards on devices " << devices[0] << " and " << devices[1]
            << (count >= 2 ? " (two GPUs)"
                           : " (this machine has one GPU: both shards share device 0)")
            << "\n";
  return devices;
}

void cuda_distances(std::span<const kernels::SeriesView> a, std::span<const kernels::SeriesView> b,
                    const kernels::DistanceParams& params, std::span<double> out) {
  kernels::cuda::distance_matrix(a, b, params, out);
}

MatcherFactory cuda_on(int device) {
  return
      [device] { return kernels::cuda::make_matcher({.window_pruning = true, .device = device}); };
}

MatcherFactory two_cuda_shards(const std::vector<int>& devices) {
  return [devices] {
    std::vector<kernels::BackendFactory> shards;
    for (const int d : devices) shards.emplace_back(cuda_on(d));
    return kernels::make_sharded_matcher(std::move(shards));
  };
}

// One device first: the shards are compared with it bit for bit, both with the reference.
Backends one_and_two() {
  const std::vector<int> devices = two_devices();
  return {{"cuda, device 0", cuda_on(0), cuda_distances},
          {std::string("cuda, 2 shards on devices ")
               .append(std::to_string(devices[0]))
               .append(",")
               .append(std::to_string(devices[1])),
           two_cuda_shards(devices), cuda_distances}};
}

}  // namespace

TEST(CudaTwoShards, StreamSmallPatternsIdenticalToOneDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_scenario(one_and_two(), StreamScenario::small_patterns());
}

TEST(CudaTwoShards, StreamDenseMatchesIdenticalToOneDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_stream_dense(one_and_two(), DenseStreamScenario{});
}

TEST(CudaTwoShards, ManyPairsMixedModesAndHotChangesIdenticalToOneDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_many_pairs(one_and_two(), 40, 9, 300, 600, 300);
  run_mixed_dims_and_modes(one_and_two(), {1, 2, 3, 4, 8, 17, 64, 1},
                           {1, 2, 3, 5, 8, 64, 64, 2, 3, 1, 8, 5}, 260);
  run_hot_changes(one_and_two());
}

TEST(CudaTwoShards, WindowDtwIdenticalToOneDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_window_scenario(one_and_two(), Metric::dtw);
}

TEST(CudaTwoShards, AgreeOnLargerWork) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_backends_agree(one_and_two());
}

// auto over two devices: the cpu and the two shards, the pairs moving between them.
TEST(CudaTwoShards, BehindAutosSwitchingMatcher) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const std::uint64_t seed = warpwatch::testing::test_seed();
  const MatcherFactory cpu = [] { return kernels::cpu::make_matcher({2}); };
  const Backends b{{"cuda, device 0", cuda_on(0), cuda_distances},
                   warpwatch::testing::switching_backend(
                       "cpu<->2 cuda shards, random batches", cpu, two_cuda_shards(two_devices()),
                       warpwatch::testing::SwitchEvery::random_batches, seed, cuda_distances)};
  run_stream_scenario(b, StreamScenario::small_patterns());
}

TEST(CudaTwoShards, DeviceBytesPerDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  auto m = two_cuda_shards(two_devices())();
  EXPECT_EQ(m->name(), "cuda");
  for (int i = 0; i < 8; ++i) m->add_stream({stream_id(i), 1, 1'000'000});
  kernels::PatternDef p;
  p.id = "p";
  p.values.assign(256, 0.5f);
  p.params.threshold = 1.0;
  m->add_pattern(p);
  const kernels::MatcherCounters c = m->counters();
  ASSERT_EQ(c.device_bytes_per_device.size(), 2u);
  EXPECT_GT(c.device_bytes_per_device[0], 0u);
  EXPECT_GT(c.device_bytes_per_device[1], 0u);
  EXPECT_EQ(c.device_bytes, c.device_bytes_per_device[0] + c.device_bytes_per_device[1]);
  for (int i = 0; i < 8; ++i)  // four streams a shard
    EXPECT_EQ(kernels::shard_of_stream(*m, stream_id(i)), static_cast<std::size_t>(i % 2));
  std::cout << "[ device   ] " << c.device_bytes_per_device[0] << " + "
            << c.device_bytes_per_device[1] << " bytes\n";
}

// The rows of A in two blocks, one a device: the matrix of one device, bit for bit.
TEST(CudaTwoShards, DistanceMatrixSplitAcrossDevicesIdenticalToOneDevice) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (const Metric metric : {Metric::dtw, Metric::twed}) {
    std::vector<Series> a(37), b(11);
    for (auto* set : {&a, &b})
      for (Series& s : *set) {
        const std::size_t n = std::uniform_int_distribution<std::size_t>(20, 400)(rng);
        s.values = random_walk(rng, n, 1);
        if (metric == Metric::twed)
          for (std::size_t i = 0; i < n; ++i) s.times.push_back(1.7e9 + 0.5 * i + 0.1 * (i % 3));
      }
    kernels::DistanceParams params;
    params.metric = metric;
    const auto va = views(a), vb = views(b);
    std::vector<double> one(a.size() * b.size()), two(one.size());
    kernels::cuda::distance_matrix(va, vb, params, one);
    const std::vector<int> devices = two_devices();
    kernels::cuda::distance_matrix(va, vb, params, two, nullptr, devices);
    EXPECT_EQ(two, one) << kernels::to_string(metric);
  }
}
