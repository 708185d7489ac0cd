#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/params.hpp"

using namespace warpwatch::kernels;

TEST(Params, NamesRoundTrip) {
  for (Metric m : all_metrics()) EXPECT_EQ(parse_metric(to_string(m)), m);
  for (Mode m : {Mode::stream, Mode::window}) EXPECT_EQ(parse_mode(to_string(m)), m);
  for (Cost c : {Cost::sq, Cost::abs}) EXPECT_EQ(parse_cost(to_string(c)), c);
  for (Normalize n : {Normalize::none, Normalize::znorm})
    EXPECT_EQ(parse_normalize(to_string(n)), n);
  EXPECT_EQ(parse_backend("auto"), Backend::automatic);
  EXPECT_EQ(to_string(Metric::twed), "twed");
  EXPECT_EQ(to_string(Metric::ed), "ed");
}

// The message of the std::invalid_argument that `check` throws; "(no error)" when it does not.
namespace {
template <class F>
std::string message(F&& check) {
  try {
    check();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

// ed (docs/spec.md §4.0): window mode only, no band, w = m; each refusal says why.
TEST(Params, EdRefusesStreamModeABandAndAnotherWindowLength) {
  MatchParams ok;
  ok.distance.metric = Metric::ed;
  ok.mode = Mode::window;
  ok.distance.cost = Cost::abs;
  ok.normalize = Normalize::znorm;
  EXPECT_NO_THROW(validate(ok));
  EXPECT_NO_THROW(validate(ok, 7));
  ok.window = 7;
  EXPECT_NO_THROW(validate(ok, 7));

  MatchParams stream = ok;
  stream.mode = Mode::stream;
  EXPECT_EQ(message([&] { validate(stream); }),
            "stream mode supports the metrics dtw and dk only (use mode window)");
  MatchParams banded = ok;
  banded.distance.band = 3.0;
  EXPECT_NE(message([&] { validate(banded); }).find("band does not apply to the metric ed"),
            std::string::npos);
  EXPECT_NE(message([&] { validate(banded.distance); }).find("band does not apply"),
            std::string::npos);
  MatchParams longer = ok;
  longer.window = 9;
  EXPECT_NO_THROW(validate(longer));  // m unknown here
  EXPECT_EQ(message([&] { validate(longer, 7); }),
            "window must be the pattern's length for the metric ed (it compares the window with "
            "the pattern sample by sample): the window is 9 samples, the pattern 7 (leave window "
            "at 0)");
  MatchParams dtw = longer;  // other metrics take any window
  dtw.distance.metric = Metric::dtw;
  EXPECT_NO_THROW(validate(dtw, 7));
}

// The one list (measures.hpp): every row a distinct name, in enum order, the names list and
// the parser from it; the old five keep their numbers (the CUDA backend flattens a Metric to
// an int) and the new three follow.
TEST(Params, TheListOfMeasuresGeneratesNamesAndOrder) {
  const std::vector<std::string> want{"dtw", "dk", "softdtw", "twed", "ed", "msm", "erp", "lcss"};
  EXPECT_EQ(metric_names(), want);
  ASSERT_EQ(all_metrics().size(), want.size());
  for (std::size_t k = 0; k < want.size(); ++k) {
    EXPECT_EQ(static_cast<std::size_t>(all_metrics()[k]), k);
    EXPECT_EQ(to_string(all_metrics()[k]), want[k]);
    EXPECT_EQ(measure_info(all_metrics()[k]).name, want[k]);
  }
  EXPECT_EQ(metric_names_where([](const MeasureInfo& m) { return m.stream; }), "dtw and dk");
  EXPECT_EQ(metric_names_where([](const MeasureInfo& m) { return m.band == BandUse::applies; }),
            "dtw, dk, softdtw and erp");
  EXPECT_EQ(metric_names_where([](const MeasureInfo& m) { return m.window_bounds; }),
            "dtw, dk and ed");
  EXPECT_EQ(metric_names_where([](const MeasureInfo& m) { return m.times; }), "twed");
}

// msm, erp, lcss (docs/spec.md §4.4-4.6): window mode only; band for erp only; each bad value
// refused with its name.
TEST(Params, MsmErpLcssCapabilitiesAndRanges) {
  for (Metric m : {Metric::msm, Metric::erp, Metric::lcss}) {
    MatchParams p;
    p.distance.metric = m;
    p.mode = Mode::window;
    EXPECT_NO_THROW(validate(p)) << to_string(m);
    EXPECT_NO_THROW(validate(p, 5)) << to_string(m);
    p.window = 9;  // any window: not lock-step
    EXPECT_NO_THROW(validate(p, 5)) << to_string(m);
    p.mode = Mode::stream;
    EXPECT_EQ(message([&] { validate(p); }),
              "stream mode supports the metrics dtw and dk only (use mode window)");
    p.mode = Mode::window;
    p.distance.band = 2.0;
    if (m == Metric::erp) {
      EXPECT_NO_THROW(validate(p));
    } else {
      EXPECT_NE(message([&] {
                  validate(p);
                }).find("band does not apply to the metric " + std::string(to_string(m))),
                std::string::npos);
    }
  }
  DistanceParams d;
  d.metric = Metric::msm;
  d.c = 0.0;
  EXPECT_NO_THROW(validate(d));
  d.c = -0.5;
  EXPECT_EQ(message([&] { validate(d); }), "c (msm) must be a finite number >= 0");
  d.c = 1.0;
  d.g = std::nan("");
  EXPECT_EQ(message([&] { validate(d); }), "g (erp) must be a finite number");
  d.g = -3.0;  // any finite gap value
  EXPECT_NO_THROW(validate(d));
  d.epsilon = 0.0;
  EXPECT_EQ(message([&] { validate(d); }), "epsilon (lcss) must be a finite number > 0");
  d.epsilon = 1e-9;
  d.delta = 0;  // no warping at all is allowed
  EXPECT_NO_THROW(validate(d));
}

TEST(Params, UnknownNamesAreRejected) {
  EXPECT_FALSE(parse_metric("DTW"));
  EXPECT_FALSE(parse_metric(""));
  EXPECT_FALSE(parse_mode("windows"));
  EXPECT_FALSE(parse_cost("l2"));
  EXPECT_FALSE(parse_backend("gpu"));
}

// The table behind the bench's nominal ceiling (CUDA programming guide, throughput of
// 32-bit float add/multiply/multiply-add per SM per clock).
TEST(Backends, Fp32LanesPerSmFollowTheProgrammingGuide) {
  EXPECT_EQ(fp32_lanes_per_sm(5, 2), 128);  // Maxwell
  EXPECT_EQ(fp32_lanes_per_sm(6, 0), 64);   // P100
  EXPECT_EQ(fp32_lanes_per_sm(6, 1), 128);
  EXPECT_EQ(fp32_lanes_per_sm(7, 0), 64);   // V100
  EXPECT_EQ(fp32_lanes_per_sm(7, 5), 64);   // Turing
  EXPECT_EQ(fp32_lanes_per_sm(8, 0), 64);   // A100
  EXPECT_EQ(fp32_lanes_per_sm(8, 6), 128);  // GA10x
  EXPECT_EQ(fp32_lanes_per_sm(8, 9), 128);  // Ada
  EXPECT_EQ(fp32_lanes_per_sm(9, 0), 128);  // H100
  EXPECT_EQ(fp32_lanes_per_sm(10, 0), 128);
}

// auto's rule alone (kernels/backends.hpp); which backend it resolves to also depends on a
// device being usable (tests/kernels/cuda/test_cuda_device.cpp, and below without one).
TEST(Params, AutoRuleCountsPairsAgainstCpuThreads) {
  using warpwatch::kernels::cuda_pays_off;
  // d = 1, patterns of up to 512 rows: a warp per pair, 2 pairs per cpu thread.
  EXPECT_FALSE(cuda_pays_off({.pairs = 0, .cpu_threads = 16, .longest_pattern = 256}));
  EXPECT_FALSE(cuda_pays_off({.pairs = 31, .cpu_threads = 16, .longest_pattern = 256}));
  EXPECT_TRUE(cuda_pays_off({.pairs = 32, .cpu_threads = 16, .longest_pattern = 512}));
  EXPECT_TRUE(cuda_pays_off({.pairs = 16384, .cpu_threads = 16, .longest_pattern = 64}));
  EXPECT_FALSE(cuda_pays_off({.pairs = 3, .cpu_threads = 2}));
  EXPECT_TRUE(cuda_pays_off({.pairs = 4, .cpu_threads = 2}));
  // Up to 64 dims and 512 rows: the wavefront too.
  EXPECT_FALSE(cuda_pays_off({.pairs = 31, .cpu_threads = 16, .widest_dims = 3}));
  EXPECT_TRUE(
      cuda_pays_off({.pairs = 32, .cpu_threads = 16, .longest_pattern = 512, .widest_dims = 64}));
  // ... and past 512 rows in row tiles while tiles x dims <= 64 (what the H100's shared
  // memory holds of their pattern rows, and then some).
  EXPECT_TRUE(cuda_pays_off(
      {.pairs = 32, .cpu_threads = 16, .longest_pattern = 513, .widest_dims = 3, .chunk = 512}));
  EXPECT_TRUE(
      cuda_pays_off({.pairs = 32, .cpu_threads = 16, .longest_pattern = 8192, .widest_dims = 4}));
  EXPECT_TRUE(
      cuda_pays_off({.pairs = 32, .cpu_threads = 16, .longest_pattern = 1024, .widest_dims = 32}));
  // More than 64 dims, several dims in more tiles than that, or more than 8192 rows: a
  // thread per pair, 256 pairs per cpu thread.
  EXPECT_FALSE(cuda_pays_off({.pairs = 64, .cpu_threads = 16, .widest_dims = 65}));
  EXPECT_FALSE(cuda_pays_off({.pairs = 4095, .cpu_threads = 16, .widest_dims = 65}));
  EXPECT_TRUE(cuda_pays_off({.pairs = 4096, .cpu_threads = 16, .widest_dims = 65}));
  EXPECT_FALSE(
      cuda_pays_off({.pairs = 64, .cpu_threads = 16, .longest_pattern = 8192, .widest_dims = 5}));
  EXPECT_FALSE(
      cuda_pays_off({.pairs = 64, .cpu_threads = 16, .longest_pattern = 1025, .widest_dims = 32}));
  EXPECT_TRUE(cuda_pays_off(
      {.pairs = 4096, .cpu_threads = 16, .longest_pattern = 1025, .widest_dims = 32}));
  EXPECT_FALSE(cuda_pays_off({.pairs = 64, .cpu_threads = 16, .longest_pattern = 8193}));
  EXPECT_TRUE(cuda_pays_off({.pairs = 4096, .cpu_threads = 16, .longest_pattern = 8193}));
  // d = 1 up to 8192 rows: row tiles, warps again.
  EXPECT_TRUE(cuda_pays_off({.pairs = 64, .cpu_threads = 16, .longest_pattern = 513}));
  EXPECT_TRUE(cuda_pays_off({.pairs = 32, .cpu_threads = 16, .longest_pattern = 8192}));
  EXPECT_FALSE(cuda_pays_off({.pairs = 31, .cpu_threads = 16, .longest_pattern = 1024}));
  EXPECT_FALSE(
      cuda_pays_off({.pairs = 1, .cpu_threads = 16, .longest_pattern = 1024, .chunk = 511}));
  // ... and over chunks of 512+ samples one pair in row tiles outruns a cpu core.
  EXPECT_TRUE(cuda_pays_off({.pairs = 1, .cpu_threads = 16, .longest_pattern = 513, .chunk = 512}));
  EXPECT_FALSE(cuda_pays_off(
      {.pairs = 1, .cpu_threads = 16, .longest_pattern = 1024, .widest_dims = 3, .chunk = 512}));
  // ... and chunks under 32 samples run on the sweep at any m (d = 1: warp-kernel counts).
  EXPECT_TRUE(
      cuda_pays_off({.pairs = 64, .cpu_threads = 16, .longest_pattern = 10000, .chunk = 8}));
  EXPECT_FALSE(
      cuda_pays_off({.pairs = 64, .cpu_threads = 16, .longest_pattern = 10000, .chunk = 32}));
  EXPECT_FALSE(cuda_pays_off({.pairs = 64, .cpu_threads = 16, .widest_dims = 3, .chunk = 8}));
  EXPECT_TRUE(cuda_pays_off({.pairs = std::nullopt, .cpu_threads = 2, .widest_dims = 3}));
  const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
  EXPECT_FALSE(cuda_pays_off({.pairs = 2 * hardware - 1}));  // 0 threads: one per hardware one
  EXPECT_TRUE(cuda_pays_off({.pairs = 2 * hardware}));
}

// The pairs a configuration or a search makes: a pattern pairs with streams of its dims.
TEST(Params, CountPairKeepsTheLongestAndWidest) {
  using namespace warpwatch::kernels;
  WorkShape shape{.pairs = 0};
  PatternDef flat, wide;
  flat.values.assign(300, 1.0f);  // 300 rows of d 1
  wide.dims = 3;
  wide.values.assign(30, 1.0f);  // 10 rows of d 3
  count_pair(shape, flat, 1);
  count_pair(shape, flat, 3);  // no pair: dims differ
  count_pair(shape, wide, 3);
  EXPECT_EQ(shape.pairs, std::optional<std::size_t>(2));
  EXPECT_EQ(shape.longest_pattern, 300u);
  EXPECT_EQ(shape.widest_dims, 3u);
}

TEST(Params, AutoWithoutADeviceIsTheCpuAndSaysWhy) {
  if (warpwatch::kernels::cuda_status().device_count > 0) GTEST_SKIP() << "a device is usable";
  using warpwatch::kernels::Backend;
  std::string why;
  EXPECT_EQ(warpwatch::kernels::resolve_backend(Backend::automatic, {.pairs = 16384}, &why),
            Backend::cpu);
  EXPECT_NE(why.find("using the cpu backend"), std::string::npos) << why;
}
