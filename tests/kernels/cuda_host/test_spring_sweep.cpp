// The CUDA stream-mode sweep's lane logic (kernels/cuda/stream/spring_sweep.hpp: blocks of
// columns, two sides, folds and re-sweeps for SPRING's rules), compiled for the host from
// the lines the device runs, against the scalar reference's SpringPair bit for bit: dense
// matches (a noisy copy of the pattern every 60-200 samples), quantized ties, every metric
// and cost, d in {1, 3, 8}, chunks of 1 sample to the whole stream, indices across 2^32,
// and a report buffer that refuses blocks (the pair stops and goes on in the next round).
// The device kernel itself runs in the GPU suite (tests/kernels/cuda/).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "cuda/stream/spring_sweep.hpp"
#include "matching/spring_pair_support.hpp"
#include "test_support.hpp"

namespace kernels = warpwatch::kernels;
namespace sweep = warpwatch::kernels::cuda::sweep;
using kernels::Cost;
using kernels::Metric;
using warpwatch::testing::each_dense_case;
using warpwatch::testing::each_quantized_case;
using warpwatch::testing::Found;
using warpwatch::testing::low32_found;
using warpwatch::testing::PairCase;

namespace {

constexpr int C = sweep::kColumns;

// The variant a warp of this one lane would take (every width and reset variant runs).
template <bool kDk, bool kAbs, bool kDims1>
bool step(sweep::Lane<C>& l, const sweep::PairView& v, auto&& commit) {
  const int n = sweep::lane_width(l);
  const sweep::Width width = n == C   ? sweep::Width::full
                             : n == 1 ? sweep::Width::one
                                      : sweep::Width::any;
  return sweep::lane_step_as<C, kDk, kAbs, kDims1>(l, v, sweep::lane_needs_resets(l), width,
                                                   commit);
}

struct SweepRun {
  std::size_t refused = 0, rounds = 0;
  std::vector<Found> found;
};

// The pair's chunks of 1..max_chunk samples; commit refuses a block now and then when
// `refuse` (as a full report buffer does), and the pair goes on in another round.
SweepRun sweep_run(const std::vector<float>& pattern, std::size_t dims, Metric metric, Cost cost,
                   double threshold, const std::vector<float>& x, std::mt19937_64& rng,
                   std::size_t max_chunk, std::uint64_t first_index, bool refuse) {
  const std::size_t m = pattern.size() / dims, n = x.size() / dims;
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> d0(m, inf), d1(m, 0.0f);
  std::vector<std::int32_t> s0(m, 0), s1(m, 0);
  sweep::PairView v{};
  v.d[0] = d0.data();
  v.d[1] = d1.data();
  v.s[0] = s0.data();
  v.s[1] = s1.data();
  v.stride = 1;
  v.pattern = pattern.data();
  v.m = static_cast<int>(m);
  v.dims = static_cast<int>(dims);
  v.eps = kernels::reference::stream_eps(threshold);
  // The pair's stored state between rounds, as the tile keeps it.
  int side = 0;
  sweep::Candidate cand{inf, 0, 0};
  SweepRun run;
  std::uniform_int_distribution<std::size_t> chunk(1, max_chunk);
  std::bernoulli_distribution no_room(0.3);
  for (std::size_t t = 0; t < n;) {
    const std::size_t count = std::min(chunk(rng), n - t);
    const std::uint64_t index = first_index + t;
    v.x = x.data() + t * dims;
    v.first = static_cast<std::int32_t>(static_cast<std::uint32_t>(index));
    const auto commit = [&](const sweep::Block<C>& bl, std::uint32_t step0) {
      if (refuse && no_room(rng)) {
        ++run.refused;
        return false;
      }
      sweep::each_report<C>(bl, step0, [&](const sweep::Report& r) {
        const std::uint64_t now = index + r.step;
        run.found.push_back(
            low32_found(r.c.d_min, r.c.t_s, r.c.t_e, now, first_index, now - first_index));
      });
      return true;
    };
    sweep::Lane<C> l;
    int done = 0;
    while (done < static_cast<int>(count)) {  // rounds, as the host runs them on the device
      ++run.rounds;
      sweep::lane_begin<C>(l, done, static_cast<int>(count), side, cand);
      const bool dk = metric == Metric::dk, abs = cost == Cost::abs;
      bool more = true;
      while (more) {
        if (dims == 1) {
          more = dk ? (abs ? step<true, true, true>(l, v, commit)
                           : step<true, false, true>(l, v, commit))
                    : (abs ? step<false, true, true>(l, v, commit)
                           : step<false, false, true>(l, v, commit));
        } else {
          more = dk ? (abs ? step<true, true, false>(l, v, commit)
                           : step<true, false, false>(l, v, commit))
                    : (abs ? step<false, true, false>(l, v, commit)
                           : step<false, false, false>(l, v, commit));
        }
      }
      EXPECT_FALSE(l.in_block);
      done = l.t;
      side = l.side;
      cand = l.c;
    }
    t += count;
  }
  if (cand.d_min <= v.eps) {
    const std::uint64_t now = first_index + n - 1;
    run.found.push_back(low32_found(cand.d_min, cand.t_s, cand.t_e, now, first_index, n));
  }
  return run;
}

}  // namespace

TEST(CudaSweepLane, DenseMatchesBitIdentical) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::size_t refused = 0;
  const std::size_t total_matches =
      each_dense_case(rng, {1, 3, 8}, {1, 2, 5, 16, 17, 40, 64, 129}, [&](const PairCase& c) {
        // Chunks of 1 sample, a block and a bit, a few blocks, the whole stream; indices
        // across 2^32; a refusing report buffer.
        for (std::size_t max_chunk :
             {std::size_t{1}, std::size_t{C + 1}, std::size_t{40}, c.length()}) {
          const std::uint64_t first = max_chunk == C + 1 ? (std::uint64_t{1} << 32) - 1000 : 0;
          const SweepRun got = sweep_run(c.pattern, c.dims, c.metric, c.cost, c.eps, c.x, rng,
                                         max_chunk, first, max_chunk == 40);
          refused += got.refused;
          ASSERT_EQ(got.found, c.want) << c.describe() << " chunks up to " << max_chunk;
        }
      });
  // Dense: the copies come every 60-200 samples; and the refusals did happen.
  EXPECT_GT(total_matches, 3000u);
  EXPECT_GT(refused, 100u);
}

// Quantized values (0..3): exact ties everywhere and candidates that change and become
// final within a few columns of each other, inside one block.
TEST(CudaSweepLane, QuantizedTiesBitIdentical) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const std::size_t total_matches =
      each_quantized_case(rng, {1, 3}, {1, 2, 3, 4, 8, 33}, [&](const PairCase& c) {
        for (std::size_t max_chunk : {std::size_t{1}, std::size_t{C}, std::size_t{3000}}) {
          const SweepRun got = sweep_run(c.pattern, c.dims, c.metric, c.cost, c.eps, c.x, rng,
                                         max_chunk, 0, max_chunk == C);
          ASSERT_EQ(got.found, c.want) << c.describe() << " chunks up to " << max_chunk;
        }
      });
  EXPECT_GT(total_matches, 2000u);
}
