// The anti-diagonal single-pair kernel (kernels/cpu/spring_diagonal.hpp) against the
// scalar reference's SpringPair, bit for bit, directly (below the Matcher): dense matches
// (a noisy copy of the pattern every 60-200 samples), every metric and cost, d in {1, 3, 8},
// patterns shorter and longer than a stripe, chunks from 1 sample to the whole stream.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cpu/spring_diagonal.hpp"
#include "reference/spring.hpp"
#include "spring_pair_support.hpp"
#include "test_support.hpp"

namespace kernels = warpwatch::kernels;
namespace cpu = warpwatch::kernels::cpu;
using kernels::Cost;
using kernels::Metric;

namespace {

using warpwatch::testing::dense_stream;
using warpwatch::testing::dense_threshold;
using warpwatch::testing::Found;
using warpwatch::testing::reference_run;
using warpwatch::testing::walk_pattern;

std::vector<Found> diagonal_run(const std::vector<float>& pattern, std::size_t dims, Metric metric,
                                Cost cost, double eps, const std::vector<float>& x,
                                std::mt19937_64& rng, std::size_t max_chunk,
                                std::uint64_t first_index) {
  const std::size_t m = pattern.size() / dims, n = x.size() / dims;
  std::vector<float> d(m, std::numeric_limits<float>::infinity());
  std::vector<std::int32_t> s(m, 0);
  float d_min = std::numeric_limits<float>::infinity();
  std::int32_t t_s = 0, t_e = 0;
  cpu::SpringGroupState st;  // one pair: a group of width 1
  st.width = 1;
  st.m = m;
  st.dims = dims;
  st.metric = metric;
  st.cost = cost;
  st.eps = kernels::reference::stream_eps(eps);
  st.pattern = pattern.data();
  st.d = d.data();
  st.s = s.data();
  st.d_min = &d_min;
  st.t_s = &t_s;
  st.t_e = &t_e;
  cpu::SpringDiagonalScratch scratch;
  std::vector<cpu::SpringLaneReport> reports;
  std::vector<Found> out;
  std::uniform_int_distribution<std::size_t> chunk(1, max_chunk);
  // Indices as the backends keep them: low 32 bits, unwrapped against the absolute index.
  const auto unwrap = [&](std::uint64_t current, std::int32_t low) {
    return current - static_cast<std::uint32_t>(static_cast<std::uint32_t>(current) -
                                                static_cast<std::uint32_t>(low));
  };
  for (std::size_t t = 0; t < n;) {
    const std::size_t c = std::min(chunk(rng), n - t);
    reports.clear();
    const std::uint64_t index = first_index + t;
    cpu::spring_pair_run(st, x.data() + t * dims, static_cast<std::uint32_t>(c),
                         static_cast<std::int32_t>(static_cast<std::uint32_t>(index)), 7, scratch,
                         reports);
    for (const auto& r : reports) {
      EXPECT_EQ(r.lane, 7u);
      const std::uint64_t now = index + r.step;
      out.push_back({r.distance, unwrap(now, r.t_s) - first_index, unwrap(now, r.t_e) - first_index,
                     now - first_index});
    }
    t += c;
  }
  if (d_min <= st.eps) {
    const std::uint64_t now = first_index + n - 1;
    out.push_back({d_min, unwrap(now, t_s) - first_index, unwrap(now, t_e) - first_index, n});
  }
  return out;
}

}  // namespace

TEST(SpringDiagonal, DenseMatchesBitIdentical) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::size_t V = cpu::spring_diagonal_width();
  std::size_t total_matches = 0;
  for (std::size_t dims : {1u, 3u, 8u}) {
    for (std::size_t m : {2u, 5u, 16u, 17u, 40u, 64u, 129u}) {
      const std::vector<float> pattern = walk_pattern(rng, m, dims);
      const std::size_t length = dims == 1 ? 6000 : 2500;
      const std::vector<float> x = dense_stream(rng, pattern, dims, length);
      for (Metric metric : {Metric::dtw, Metric::dk}) {
        for (Cost cost : {Cost::sq, Cost::abs}) {
          const double eps = dense_threshold(pattern, dims, metric, cost, x);
          const std::vector<Found> want = reference_run(pattern, dims, metric, cost, eps, x);
          total_matches += want.size();
          // Chunks of up to 1 sample, a stripe, and the whole stream; indices near 2^32.
          for (std::size_t max_chunk : {std::size_t{1}, V, std::size_t{333}, length}) {
            const std::uint64_t first = max_chunk == V ? (std::uint64_t{1} << 32) - 1000 : 0;
            const std::vector<Found> got =
                diagonal_run(pattern, dims, metric, cost, eps, x, rng, max_chunk, first);
            ASSERT_EQ(got, want) << "d " << dims << " m " << m << " " << kernels::to_string(metric)
                                 << " " << kernels::to_string(cost) << " eps " << eps
                                 << " chunks up to " << max_chunk;
          }
        }
      }
    }
  }
  // Dense: the copies come every 60-200 samples.
  EXPECT_GT(total_matches, 3000u);
}

// Quantized values (0..3): exact ties everywhere and candidates that change and become
// final within a few columns of each other, inside one stripe.
TEST(SpringDiagonal, QuantizedTiesBitIdentical) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::uniform_int_distribution<int> level(0, 3);
  const std::size_t V = cpu::spring_diagonal_width();
  std::size_t total_matches = 0;
  for (std::size_t dims : {1u, 3u}) {
    for (std::size_t m : {2u, 3u, 4u, 8u, 33u}) {
      std::vector<float> pattern(m * dims), x(3000 * dims);
      for (auto& v : pattern) v = static_cast<float>(level(rng));
      for (auto& v : x) v = static_cast<float>(level(rng));
      for (Metric metric : {Metric::dtw, Metric::dk}) {
        for (Cost cost : {Cost::sq, Cost::abs}) {
          const double eps =
              metric == Metric::dtw ? 0.5 * static_cast<double>(m * dims) : 1.0 + (m % 2);
          const std::vector<Found> want = reference_run(pattern, dims, metric, cost, eps, x);
          total_matches += want.size();
          for (std::size_t max_chunk : {std::size_t{1}, V + 1, std::size_t{3000}}) {
            const std::vector<Found> got =
                diagonal_run(pattern, dims, metric, cost, eps, x, rng, max_chunk, 0);
            ASSERT_EQ(got, want) << "d " << dims << " m " << m << " " << kernels::to_string(metric)
                                 << " " << kernels::to_string(cost) << " eps " << eps
                                 << " chunks up to " << max_chunk;
          }
        }
      }
    }
  }
  EXPECT_GT(total_matches, 2000u);
}
