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

#include "cpu/stream/spring_diagonal.hpp"
#include "matching/spring_pair_support.hpp"
#include "reference/spring.hpp"
#include "test_support.hpp"

namespace kernels = warpwatch::kernels;
namespace cpu = warpwatch::kernels::cpu;
using kernels::Cost;
using kernels::Metric;

namespace {

using warpwatch::testing::each_dense_case;
using warpwatch::testing::each_quantized_case;
using warpwatch::testing::Found;
using warpwatch::testing::low32_found;
using warpwatch::testing::PairCase;

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
      out.push_back(low32_found(r.distance, r.t_s, r.t_e, now, first_index, now - first_index));
    }
    t += c;
  }
  if (d_min <= st.eps) {
    const std::uint64_t now = first_index + n - 1;
    out.push_back(low32_found(d_min, t_s, t_e, now, first_index, n));
  }
  return out;
}

}  // namespace

TEST(SpringDiagonal, DenseMatchesBitIdentical) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::size_t V = cpu::spring_diagonal_width();
  const std::size_t total_matches =
      each_dense_case(rng, {1, 3, 8}, {2, 5, 16, 17, 40, 64, 129}, [&](const PairCase& c) {
        // Chunks of up to 1 sample, a stripe, and the whole stream; indices near 2^32.
        for (std::size_t max_chunk : {std::size_t{1}, V, std::size_t{333}, c.length()}) {
          const std::uint64_t first = max_chunk == V ? (std::uint64_t{1} << 32) - 1000 : 0;
          const std::vector<Found> got =
              diagonal_run(c.pattern, c.dims, c.metric, c.cost, c.eps, c.x, rng, max_chunk, first);
          ASSERT_EQ(got, c.want) << c.describe() << " chunks up to " << max_chunk;
        }
      });
  // Dense: the copies come every 60-200 samples.
  EXPECT_GT(total_matches, 3000u);
}

// Quantized values (0..3): exact ties everywhere and candidates that change and become
// final within a few columns of each other, inside one stripe.
TEST(SpringDiagonal, QuantizedTiesBitIdentical) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::size_t V = cpu::spring_diagonal_width();
  const std::size_t total_matches =
      each_quantized_case(rng, {1, 3}, {2, 3, 4, 8, 33}, [&](const PairCase& c) {
        for (std::size_t max_chunk : {std::size_t{1}, V + 1, std::size_t{3000}}) {
          const std::vector<Found> got =
              diagonal_run(c.pattern, c.dims, c.metric, c.cost, c.eps, c.x, rng, max_chunk, 0);
          ASSERT_EQ(got, c.want) << c.describe() << " chunks up to " << max_chunk;
        }
      });
  EXPECT_GT(total_matches, 2000u);
}
