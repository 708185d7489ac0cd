// The planted data is matched exactly: the reference Matcher (stream-mode dtw, sq cost, the
// built-in threshold; or window mode at the threshold window_threshold derives, with and
// without band and znorm) on generated streams reports exactly the planted spans, once
// each, and nothing else, for several shapes, lengths, noise levels and seeds. `warpwatch
// bench e2e` relies on it to reconcile the daemon's events with what it planted.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <string>

#include "test_support.hpp"
#include "warpwatch/bench/load_generator.hpp"

namespace {

using namespace warpwatch;

std::string describe(const bench::PlanCheck& c) {
  std::string s = std::to_string(c.exact) + " of " + std::to_string(c.planted) + " exact, " +
                  std::to_string(c.reported) + " reports";
  for (const auto& p : c.problems) s += "\n  " + p;
  return s;
}

struct Shape {
  std::size_t count, length;
  std::uint64_t every;
};

class PlantedData : public ::testing::TestWithParam<Shape> {};

// 3 streams of `count` built-in shapes of `length` planted every `every` samples with a
// large jitter, at the largest noise the bench allows.
bench::LoadOptions planted(std::size_t count, std::size_t length, std::uint64_t every,
                           std::uint64_t seed) {
  bench::LoadOptions o;
  o.streams = 3;
  o.patterns = bench::builtin_patterns(count, length, seed);
  o.every = every;
  o.jitter = (every - length - 1) / 2;
  o.noise = bench::builtin_max_noise(length);
  o.seed = seed;
  return o;
}

// Enough samples for 12 occurrences a stream, the last one cut.
std::uint64_t samples_for(std::size_t length, std::uint64_t every) {
  return 12 * every + length / 2;
}

TEST_P(PlantedData, TheReferenceReportsExactlyThePlantedSpans) {
  const Shape shape = GetParam();
  const std::uint64_t seed = warpwatch::testing::test_seed() % 1000;
  const bench::LoadGenerator g(planted(shape.count, shape.length, shape.every, seed));
  const std::uint64_t samples = samples_for(shape.length, shape.every);
  const auto check = bench::check_plan_with_reference(g, bench::builtin_threshold, 3, samples);
  EXPECT_TRUE(check.ok()) << describe(check);
  EXPECT_GE(check.planted, 30u);
}

INSTANTIATE_TEST_SUITE_P(Shapes, PlantedData,
                         ::testing::Values(Shape{8, 64, 200}, Shape{3, 16, 40}, Shape{2, 256, 400},
                                           Shape{12, 40, 90}),
                         [](const auto& info) {
                           return std::to_string(info.param.count) + "x" +
                                  std::to_string(info.param.length);
                         });

// Occurrences one noise sample apart are still told apart.
TEST(PlantedData, AdjacentOccurrencesAreReportedSeparately) {
  bench::LoadOptions o;
  o.streams = 2;
  o.patterns = bench::builtin_patterns(3, 32, 3);
  o.every = 33;  // length 32, jitter 0: one noise sample between two occurrences
  o.jitter = 0;
  o.noise = 0.05;
  const bench::LoadGenerator g(o);
  const auto check = bench::check_plan_with_reference(g, bench::builtin_threshold, 2, 2000);
  EXPECT_TRUE(check.ok()) << describe(check);
  EXPECT_GE(check.planted, 110u);
}

// 2 streams of 4 built-in shapes of m 32 planted every 100 samples, with `noise`.
bench::LoadOptions four_shapes(double noise) {
  bench::LoadOptions o;
  o.streams = 2;
  o.patterns = bench::builtin_patterns(4, 32, 1);
  o.every = 100;
  o.noise = noise;
  return o;
}

// The check has teeth: noise far above the bench's cap breaks the exact spans, and the check
// says so.
TEST(PlantedData, TheCheckFailsWhenNoiseDrownsThePatterns) {
  const bench::LoadGenerator g(four_shapes(3.0));
  const auto check = bench::check_plan_with_reference(g, bench::builtin_threshold, 2, 3000);
  EXPECT_FALSE(check.ok());
  EXPECT_FALSE(check.problems.empty());
}

kernels::MatchParams window_params(std::optional<double> band, bool znorm) {
  kernels::MatchParams params = bench::stream_match_params(0.0);
  params.mode = kernels::Mode::window;
  params.distance.band = band;
  params.normalize = znorm ? kernels::Normalize::znorm : kernels::Normalize::none;
  return params;
}

struct WindowShape {
  std::size_t count, length;
  std::uint64_t every;
  double band_percent;  // < 0: none
  bool znorm;
};

class PlantedWindows : public ::testing::TestWithParam<WindowShape> {};

// Window mode at the derived threshold, at the largest noise the bench allows: every planted
// copy is an occurrence whose best window is the planted span, and no other window qualifies.
TEST_P(PlantedWindows, TheReferenceReportsExactlyThePlantedSpans) {
  const WindowShape shape = GetParam();
  const std::uint64_t seed = warpwatch::testing::test_seed() % 1000;
  const bench::LoadOptions o = planted(shape.count, shape.length, shape.every, seed);
  std::optional<double> band;
  if (shape.band_percent >= 0)
    band = static_cast<double>(shape.length) * shape.band_percent / 100.0;
  kernels::MatchParams params = window_params(band, shape.znorm);
  const bench::WindowThreshold t = bench::window_threshold(o.patterns, o.noise, params, seed);
  EXPECT_GT(t.copy, 0.0);
  EXPECT_GE(t.decoy, 4.0 * t.copy);
  EXPECT_DOUBLE_EQ(t.threshold, std::sqrt(t.copy * t.decoy));
  params.threshold = t.threshold;
  const bench::LoadGenerator g(o);
  const auto check =
      bench::check_plan_with_reference(g, params, 3, samples_for(shape.length, shape.every));
  EXPECT_TRUE(check.ok()) << describe(check) << "\nthreshold " << t.threshold << " (copy " << t.copy
                          << ", decoy " << t.decoy << ")";
  EXPECT_GE(check.planted, 30u);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, PlantedWindows,
    ::testing::Values(WindowShape{4, 40, 200, 10, true}, WindowShape{4, 40, 200, -1, true},
                      WindowShape{3, 16, 40, -1, false}, WindowShape{8, 64, 200, 5, true},
                      WindowShape{8, 64, 200, 5, false}),
    [](const auto& info) {
      const WindowShape& s = info.param;
      return std::to_string(s.count) + "x" + std::to_string(s.length) +
             (s.band_percent >= 0 ? "_band" + std::to_string(static_cast<int>(s.band_percent))
                                  : "") +
             (s.znorm ? "_znorm" : "");
    });

// z-normalization divides a window's distances by its variance: the threshold follows.
// Without noise the threshold stays at decoy / 100, not at 0.
TEST(WindowThreshold, FollowsTheNormalizationAndTheNoise) {
  const auto shapes = bench::builtin_patterns(4, 40, 1);
  const auto raw = bench::window_threshold(shapes, 0.1, window_params(std::nullopt, false));
  const auto z = bench::window_threshold(shapes, 0.1, window_params(std::nullopt, true));
  EXPECT_LT(z.decoy, raw.decoy);
  EXPECT_LT(z.threshold, raw.threshold);
  const auto quiet = bench::window_threshold(shapes, 0.0, window_params(4.0, true));
  EXPECT_EQ(quiet.copy, 0.0);
  EXPECT_DOUBLE_EQ(quiet.threshold, quiet.decoy / 100.0);
}

TEST(WindowThreshold, RefusesNoiseThatDrownsTheShapes) {
  const auto shapes = bench::builtin_patterns(4, 32, 1);
  try {
    bench::window_threshold(shapes, 3.0, window_params(std::nullopt, true));
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cannot tell the planted shapes apart"), std::string::npos)
        << e.what();
  }
}

// The window-mode check has teeth: a threshold above the nearest decoy lets other windows
// qualify, and the check says so.
TEST(PlantedWindows, TheCheckFailsAtAThresholdAboveTheDecoys) {
  const bench::LoadOptions o = four_shapes(0.05);
  kernels::MatchParams params = window_params(3.0, true);
  params.threshold = 2.0 * bench::window_threshold(o.patterns, o.noise, params).decoy;
  const bench::LoadGenerator g(o);
  const auto check = bench::check_plan_with_reference(g, params, 2, 1500);
  EXPECT_FALSE(check.ok());
  EXPECT_FALSE(check.problems.empty());
}

}  // namespace
