// Whole-series distances on the CUDA backend (kernels/cuda/distance/)
// against the float64 reference: the conformance scenario 5 through cuda::distance_matrix,
// then each kernel family forced on its own (warp per pair across every rows-per-lane
// boundary, the long-pair band chain, thread per job), a 20000 x 20000 pair, and
// ElasticBatcher with mixed parameters. Every test prints its seed (WARPWATCH_SEED replays).

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"
#include "cuda/device_context.hpp"
#include "cuda/distance/cuda_distance.hpp"
#include "cuda/distance/elastic_batch.hpp"
#include "gpu_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;
namespace cuda = warpwatch::kernels::cuda;
using cuda::detail::DistancePath;

namespace {

Backend cuda_backend() {
  return Backend{
      "cuda", [] { return cuda::make_matcher(); },
      [](std::span<const SeriesView> a, std::span<const SeriesView> b, const DistanceParams& params,
         std::span<double> out) { cuda::distance_matrix(a, b, params, out); }};
}

Backend forced(DistancePath path, const std::string& name) {
  return Backend{name, [] { return cuda::make_matcher(); },
                 [path](std::span<const SeriesView> a, std::span<const SeriesView> b,
                        const DistanceParams& params, std::span<double> out) {
                   cuda::detail::distance_matrix_path(a, b, params, out, path);
                 }};
}

Series walk(std::mt19937_64& rng, std::size_t length, std::size_t dims, bool times) {
  Series s;
  s.dims = dims;
  s.values = random_walk(rng, length, dims, 0.5f);
  if (times) {
    std::uniform_real_distribution<double> step(0.2, 2.0);
    double t = 3.0;
    for (std::size_t i = 0; i < length; ++i, t += step(rng)) s.times.push_back(t);
  }
  return s;
}

std::vector<Series> walks(std::mt19937_64& rng, const std::vector<std::size_t>& lengths,
                          std::size_t dims, bool times) {
  std::vector<Series> out;
  for (std::size_t n : lengths) out.push_back(walk(rng, n, dims, times));
  return out;
}

// The fast kernels' parameter sets: dtw and dk with both costs, twed with and without times.
struct FastCase {
  DistanceParams params;
  bool times = false;
  std::string name;
};
std::vector<FastCase> fast_cases() {
  std::vector<FastCase> out;
  for (Metric metric : {Metric::dtw, Metric::dk})
    for (Cost cost : {Cost::sq, Cost::abs}) {
      FastCase c;
      c.params.metric = metric;
      c.params.cost = cost;
      c.name = cat(kernels::to_string(metric), "/", kernels::to_string(cost));
      out.push_back(c);
    }
  for (bool times : {false, true}) {
    FastCase c;
    c.params.metric = Metric::twed;
    c.params.nu = 0.05;
    c.params.lambda = 0.5;
    c.times = times;
    c.name = times ? "twed with times" : "twed";
    out.push_back(c);
  }
  return out;
}

const std::vector<std::size_t> kRowBoundaries = {1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1500};

}  // namespace

// ---------------------------------------------------------------------------------
// Conformance scenario 5 through cuda::distance_matrix (the automatic kernel choice).

TEST(CudaDistance, Dtw) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_scenario({cuda_backend()}, Metric::dtw);
}
TEST(CudaDistance, Dk) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_scenario({cuda_backend()}, Metric::dk);
}
TEST(CudaDistance, Softdtw) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_scenario({cuda_backend()}, Metric::softdtw);
}
TEST(CudaDistance, Twed) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_scenario({cuda_backend()}, Metric::twed);
}
// ed (docs/spec.md §4.0) runs the generic kernel's lock-step sum in double, in the reference's
// order: the same bits. Series of other lengths are refused before anything runs.
TEST(CudaDistance, Ed) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (const std::size_t dims : {1u, 3u})
    for (const kernels::Cost cost : {kernels::Cost::sq, kernels::Cost::abs}) {
      const std::size_t n = 300;
      std::vector<std::vector<float>> a, b;
      for (int i = 0; i < 7; ++i) a.push_back(random_walk(rng, n, dims));
      for (int i = 0; i < 5; ++i) b.push_back(random_walk(rng, n, dims));
      std::vector<kernels::SeriesView> va, vb;
      for (const auto& s : a) va.push_back({s.data(), n, dims, nullptr});
      for (const auto& s : b) vb.push_back({s.data(), n, dims, nullptr});
      kernels::DistanceParams params;
      params.metric = Metric::ed;
      params.cost = cost;
      std::vector<double> got(a.size() * b.size());
      cuda::distance_matrix(va, vb, params, got);
      for (std::size_t i = 0; i < a.size(); ++i)
        for (std::size_t j = 0; j < b.size(); ++j)
          EXPECT_EQ(got[i * b.size() + j], kernels::reference::ed(va[i], vb[j], cost))
              << "d " << dims << " i " << i << " j " << j;
    }
  const std::vector<float> x(10, 1.0f), y(12, 2.0f);
  const std::vector<kernels::SeriesView> vx{{x.data(), 10, 1, nullptr}},
      vy{{y.data(), 12, 1, nullptr}};
  kernels::DistanceParams params;
  params.metric = Metric::ed;
  std::vector<double> out(1);
  EXPECT_THROW(cuda::distance_matrix(vx, vy, params, out), std::invalid_argument);
}
TEST(CudaDistance, TwedLargeTimeOrigin) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_twed_large_time_origin({cuda_backend()});
}
TEST(CudaDistance, EmptyAndInvalidInput) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  run_distance_edge_cases(cuda_backend());
}

// ---------------------------------------------------------------------------------
// Each kernel family on its own.

// Warp per pair, a in registers: every length around a rows-per-lane boundary as the rows
// side (b longer than registers hold, so a stays the rows side), then against short b (the
// kernel puts the shorter side in registers).
TEST(CudaDistance, WarpPathRowsPerLaneBoundaries) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const Backends warp{forced(DistancePath::warp, "cuda warp")};
  for (const FastCase& c : fast_cases()) {
    std::vector<std::size_t> rows;
    for (std::size_t n : kRowBoundaries)
      if (c.params.metric != Metric::twed || n <= 512) rows.push_back(n);
    if (c.params.metric == Metric::twed) rows.push_back(511);
    const auto a = walks(rng, rows, 1, c.times);
    const auto long_b = walks(rng, {1537, 1601}, 1, c.times);
    check_distance_matrix(warp, a, long_b, c.params, c.name + ", a as rows");
    std::uniform_int_distribution<std::size_t> len(1, 80);
    const auto short_b = walks(rng, {1, 7, 32, 33, len(rng)}, 1, c.times);
    check_distance_matrix(warp, a, short_b, c.params, c.name + ", short b");
  }
}

// The long-pair kernel: one band (n <= 256), several bands with a partial last band, and
// b shorter and longer than a band's 32-column chunks.
TEST(CudaDistance, LongPairPathBandChain) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const Backends long_pair{forced(DistancePath::long_pair, "cuda long pair")};
  for (const FastCase& c : fast_cases()) {
    const auto a = walks(rng, {1, 255, 256, 257, 700, 2100}, 1, c.times);
    const auto b = walks(rng, {1, 31, 33, 640, 1300}, 1, c.times);
    check_distance_matrix(long_pair, a, b, c.params, c.name);
  }
}

// Thread per job: every metric, dims 1 and 3, bands (also 0, where no path may fit: +inf).
TEST(CudaDistance, GenericPathAllMetricsDimsBands) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const Backends generic{forced(DistancePath::generic, "cuda generic")};
  for (std::size_t dims : {1u, 3u}) {
    for (Metric metric : {Metric::dtw, Metric::dk, Metric::softdtw, Metric::twed}) {
      const bool times = metric == Metric::twed;
      const auto a = walks(rng, {1, 2, 33, 257, 90}, dims, times);
      const auto b = walks(rng, {1, 31, 256, 60}, dims, times);
      for (std::optional<double> band : {std::optional<double>{}, std::optional<double>{0.0},
                                         std::optional<double>{2.5}, std::optional<double>{40.0}}) {
        if (metric == Metric::twed && band) continue;
        for (Cost cost : {Cost::sq, Cost::abs}) {
          DistanceParams p;
          p.metric = metric;
          p.cost = cost;
          p.band = band;
          p.gamma = 0.3;
          p.nu = 0.1;
          p.lambda = 0.7;
          p.p = cost == Cost::sq ? 2.0 : 1.5;  // twed: p = 2 and a general p
          check_distance_matrix(
              generic, a, b, p,
              cat(kernels::to_string(metric), " d=", dims, " cost ", kernels::to_string(cost),
                  " band ", band ? format_double(*band) : "none"));
        }
      }
    }
  }
}

// The automatic choice on lengths that straddle the register limit (one side in registers,
// the other not; both beyond it), with the device timings filled.
TEST(CudaDistance, AutomaticChoiceAcrossLengthsAndTimings) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  for (const FastCase& c : fast_cases()) {
    const auto a = walks(rng, {100, 513, 1536, 1537, 2100}, 1, c.times);
    const auto b = walks(rng, {1, 1024, 1537, 1800}, 1, c.times);
    check_distance_matrix({cuda_backend()}, a, b, c.params, c.name);
  }
  const auto a = walks(rng, {1023}, 1, false),
             b = walks(rng, std::vector<std::size_t>(300, 1023), 1, false);
  const auto va = views(a), vb = views(b);
  std::vector<double> out(vb.size());
  kernels::DeviceTimings t;
  cuda::distance_matrix(va, vb, DistanceParams{}, out, &t);
  EXPECT_GT(t.kernel_seconds, 0.0);
  EXPECT_GT(t.copy_seconds, 0.0);
  EXPECT_GE(t.device_bytes, vb.size() * 1023 * sizeof(float));
  for (std::size_t j = 0; j < vb.size(); j += 37)
    EXPECT_TRUE(
        within_tolerance(out[j], kernels::reference::distance(va[0], vb[j], DistanceParams{})))
        << j;
}

// ---------------------------------------------------------------------------------
// A long pair: 20000 x 20000 twed and dtw, against a float64 row-buffer computation here
// (the reference's whole table would take 3.2 GB).

namespace {

double row_dtw(const std::vector<float>& a, const std::vector<float>& b) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> row(b.size() + 1, inf);
  row[0] = 0.0;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    double diag = row[0], left = inf;
    row[0] = inf;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const double d = static_cast<double>(a[i - 1]) - static_cast<double>(b[j - 1]);
      const double v = d * d + std::min({row[j], left, diag});
      diag = row[j];
      row[j] = left = v;
    }
  }
  return row[b.size()];
}

// docs/spec.md §4.3, dims 1 (||x|| = |x| for every p), index times.
double row_twed(const std::vector<float>& a, const std::vector<float>& b, double nu,
                double lambda) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto av = [&](std::size_t i) { return i == 0 ? 0.0 : static_cast<double>(a[i - 1]); };
  const auto bv = [&](std::size_t j) { return j == 0 ? 0.0 : static_cast<double>(b[j - 1]); };
  const auto t = [](std::size_t i) { return i == 0 ? 0.0 : static_cast<double>(i - 1); };
  std::vector<double> row(b.size() + 1, inf);
  row[0] = 0.0;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    double diag = row[0], left = inf;
    row[0] = inf;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      double match = diag + std::fabs(av(i) - bv(j)) + nu * std::fabs(t(i) - t(j));
      if (i > 1 && j > 1)
        match += std::fabs(av(i - 1) - bv(j - 1)) + nu * std::fabs(t(i - 1) - t(j - 1));
      const double del_a = row[j] + std::fabs(av(i) - av(i - 1)) + nu * (t(i) - t(i - 1)) + lambda;
      const double del_b = left + std::fabs(bv(j) - bv(j - 1)) + nu * (t(j) - t(j - 1)) + lambda;
      diag = row[j];
      row[j] = left = std::min({match, del_a, del_b});
    }
  }
  return row[b.size()];
}

}  // namespace

TEST(CudaDistance, LongPair20000) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  const Series a = walk(rng, 20000, 1, false), b = walk(rng, 19999, 1, false);
  const std::vector<SeriesView> va{a.view()}, vb{b.view()};
  double got = 0.0;
  DistanceParams dtw;
  cuda::distance_matrix(va, vb, dtw, std::span<double>(&got, 1));
  const double want_dtw = row_dtw(a.values, b.values);
  EXPECT_LE(std::abs(got - want_dtw), kRel * magnitude(want_dtw))
      << "dtw got " << got << " want " << want_dtw;
  DistanceParams twed;
  twed.metric = Metric::twed;
  twed.nu = 0.01;
  twed.lambda = 0.5;
  cuda::distance_matrix(va, vb, twed, std::span<double>(&got, 1));
  const double want_twed = row_twed(a.values, b.values, twed.nu, twed.lambda);
  EXPECT_LE(std::abs(got - want_twed), kRel * magnitude(want_twed))
      << "twed got " << got << " want " << want_twed;
}

// ---------------------------------------------------------------------------------
// ElasticBatcher: window-mode style jobs (many windows against shared patterns) with mixed
// metrics, params and dims in one run; float32 times on a common clock.

TEST(CudaElasticBatcher, MixedParamsAndDims) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::vector<DistanceParams> params(6);
  params[0].metric = Metric::dtw;
  params[1].metric = Metric::dk;
  params[1].cost = Cost::abs;
  params[2].metric = Metric::twed;
  params[2].nu = 0.2;
  params[3].metric = Metric::softdtw;
  params[3].gamma = 0.5;
  params[4].metric = Metric::dtw;
  params[4].band = 3.0;
  params[5].metric = Metric::twed;
  params[5].lambda = 0.1;
  params[5].p = 1.0;
  struct Owned {
    std::vector<float> values, times;
    std::size_t length, dims;
  };
  std::uniform_int_distribution<std::size_t> len(1, 700);
  const auto make = [&](std::size_t n, std::size_t dims) {
    Owned o{random_walk(rng, n, dims, 0.5f), {}, n, dims};
    for (std::size_t i = 0; i < n; ++i) o.times.push_back(0.5f * static_cast<float>(i) + 1.0f);
    return o;
  };
  std::vector<Owned> patterns, windows;
  for (std::size_t dims : {1u, 3u})
    for (int k = 0; k < 3; ++k) patterns.push_back(make(k == 0 ? 33 : len(rng), dims));
  for (int k = 0; k < 60; ++k) windows.push_back(make(len(rng), k % 4 == 3 ? 3 : 1));

  std::vector<cuda::ElasticJob> jobs;
  std::vector<double> got(windows.size() * params.size(), std::numeric_limits<double>::quiet_NaN()),
      want(got.size());
  for (std::size_t w = 0; w < windows.size(); ++w) {
    for (std::size_t q = 0; q < params.size(); ++q) {
      const Owned& win = windows[w];
      const Owned& pat = patterns[(win.dims == 3 ? 3 : 0) + (w + q) % 3];
      const bool timed = params[q].metric == Metric::twed && w % 2 == 0;
      cuda::ElasticJob j;
      j.a = win.values.data();
      j.n = win.length;
      j.b = pat.values.data();
      j.m = pat.length;
      j.dims = win.dims;
      j.a_times = timed ? win.times.data() : nullptr;
      j.b_times = timed ? pat.times.data() : nullptr;
      j.params = &params[q];
      j.out = &got[w * params.size() + q];
      jobs.push_back(j);
      std::vector<double> ta(win.times.begin(), win.times.end()),
          tb(pat.times.begin(), pat.times.end());
      const SeriesView va{win.values.data(), win.length, win.dims, timed ? ta.data() : nullptr};
      const SeriesView vb{pat.values.data(), pat.length, pat.dims, timed ? tb.data() : nullptr};
      want[w * params.size() + q] = kernels::reference::distance(va, vb, params[q]);
    }
  }
  cuda::ElasticBatcher batcher(cuda::DeviceContext::get().engine());
  kernels::DeviceTimings t;
  for (int round = 0; round < 2; ++round) {  // the second run reuses the grown buffers
    std::fill(got.begin(), got.end(), std::numeric_limits<double>::quiet_NaN());
    batcher.run(jobs, &t);
    std::size_t bad = 0;
    for (std::size_t k = 0; k < got.size(); ++k)
      if (!within_tolerance(got[k], want[k]) && ++bad <= 8)
        ADD_FAILURE() << "round " << round << " job " << k << " (window " << k / params.size()
                      << ", params " << k % params.size() << "): got " << format_double(got[k])
                      << " want " << format_double(want[k]);
    EXPECT_EQ(bad, 0u);
  }
  EXPECT_GT(batcher.device_bytes(), 0u);
  EXPECT_GT(t.kernel_seconds, 0.0);
  std::vector<cuda::ElasticJob> none;
  EXPECT_NO_THROW(batcher.run(none));
}

TEST(CudaDistance, DeviceProperties) {
  WARPWATCH_REQUIRE_CUDA_DEVICE();
  const cuda::DeviceProperties p = cuda::device_properties();
  EXPECT_FALSE(p.name.empty());
  EXPECT_GT(p.sm_count, 0);
  EXPECT_GT(p.clock_khz, 0);
  int device = 0, major = 0, minor = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), cudaSuccess);
  EXPECT_EQ(p.fp32_lanes_per_sm, kernels::fp32_lanes_per_sm(major, minor))
      << "sm_" << major << minor;
  EXPECT_GT(p.memory_bytes_per_s, 1e11);
  EXPECT_GT(p.memory_bytes, std::size_t{1} << 30);
  std::cout << "[ device   ] " << p.name << ": " << p.sm_count << " SMs at " << p.clock_khz / 1000
            << " MHz, " << p.memory_bytes_per_s / 1e12 << " TB/s\n";
}
