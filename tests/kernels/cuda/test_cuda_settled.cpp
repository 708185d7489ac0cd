// Matcher::settled_before on the cuda backend (docs/spec.md §5.1, the nearest-template
// filter's question): after every chunk of a stream with planted copies of two patterns,
// equal to the reference's (stream mode is bit-identical to it, and so are the live cells
// the hook reads), and no match reported later starts before it.
// Skipped, with the reason, on a machine without a usable CUDA device.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "gpu_test_support.hpp"
#include "matching/planted_support.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace kernels = warpwatch::kernels;

namespace {

kernels::PatternDef pattern(const std::string& id, std::vector<float> values, kernels::Mode mode) {
  kernels::PatternDef p;
  p.id = id;
  p.values = std::move(values);
  p.params.distance.metric = kernels::Metric::dtw;
  p.params.mode = mode;
  p.params.threshold = 40.0;
  p.library =
      std::string("shapes");  // (not a one-letter literal: GCC 12 warns falsely, -Wrestrict)
  return p;
}

// Per chunk of `step` samples: settled_before after it; checks each chunk's matches
// against the value before it.
std::vector<std::uint64_t> settled_per_chunk(kernels::Matcher& m, kernels::Mode mode,
                                             const std::vector<float>& values,
                                             const std::vector<std::int64_t>& times,
                                             std::size_t step) {
  std::vector<float> a = warpwatch::testing::bump_pattern<float>(), b = a;
  for (float& x : b) x *= 0.7f;
  m.add_pattern(pattern("a", a, mode));
  m.add_pattern(pattern("b", b, mode));
  m.add_stream(kernels::StreamDef{"s", 1, 1'000'000});
  const std::vector<std::string> ids{"s"};
  std::vector<std::uint64_t> out;
  std::uint64_t promised = 0;
  for (std::size_t at = 0; at < values.size(); at += step) {
    const std::size_t n = std::min(step, values.size() - at);
    const kernels::StreamChunk c{"s", std::span(values).subspan(at, n),
                                 std::span(times).subspan(at, n)};
    for (const kernels::RawMatch& r : m.process(std::span(&c, 1)))
      EXPECT_GE(r.start_index, promised) << r.pattern_id() << " at " << r.end_index;
    promised = m.settled_before(ids).at(0);
    out.push_back(promised);
  }
  return out;
}

void expect_cuda_settles_as_the_reference(kernels::Mode mode) {
  std::mt19937_64 rng(7);
  std::normal_distribution<float> noise(0.0f, 0.05f);
  std::vector<float> values(1500);
  for (float& x : values) x = noise(rng);
  const std::vector<float> bump = warpwatch::testing::bump_pattern<float>();
  for (const std::size_t start : {200u, 550u, 900u, 1250u})
    for (std::size_t i = 0; i < bump.size(); ++i)
      values[start + i] = bump[i] * (start % 700 == 200 ? 1.0f : 0.7f) + noise(rng);
  std::vector<std::int64_t> times(values.size());
  for (std::size_t i = 0; i < times.size(); ++i)
    times[i] = static_cast<std::int64_t>(i) * 1'000'000;
  for (const std::size_t step : {1u, 7u, 64u, 1500u}) {
    auto reference = kernels::reference::make_matcher();
    auto cuda = kernels::cuda::make_matcher();
    EXPECT_EQ(settled_per_chunk(*cuda, mode, values, times, step),
              settled_per_chunk(*reference, mode, values, times, step))
        << "chunk " << step;
  }
}

}  // namespace

TEST(CudaSettled, StreamModeSettlesAsTheReference) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  expect_cuda_settles_as_the_reference(kernels::Mode::stream);
}

TEST(CudaSettled, WindowModeSettlesAsTheReference) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  expect_cuda_settles_as_the_reference(kernels::Mode::window);
}
