// The planted data is matched exactly: the reference Matcher (stream-mode dtw, sq cost, the
// built-in threshold) on generated streams reports exactly the planted spans, once each,
// and nothing else, for several shapes, lengths, noise levels and seeds. `warpwatch bench
// e2e` relies on it to reconcile the daemon's events with what it planted.
#include <gtest/gtest.h>

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

TEST_P(PlantedData, TheReferenceReportsExactlyThePlantedSpans) {
  const Shape shape = GetParam();
  const std::uint64_t seed = warpwatch::testing::test_seed() % 1000;
  bench::LoadOptions o;
  o.streams = 3;
  o.patterns = bench::builtin_patterns(shape.count, shape.length, seed);
  o.every = shape.every;
  o.jitter = (shape.every - shape.length - 1) / 2;
  o.noise = bench::builtin_max_noise(shape.length);  // the largest noise the bench allows
  o.seed = seed;
  const bench::LoadGenerator g(o);
  const std::uint64_t samples = 12 * shape.every + shape.length / 2;  // the last one cut
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

// The check has teeth: noise far above the bench's cap breaks the exact spans, and the check
// says so.
TEST(PlantedData, TheCheckFailsWhenNoiseDrownsThePatterns) {
  bench::LoadOptions o;
  o.streams = 2;
  o.patterns = bench::builtin_patterns(4, 32, 1);
  o.every = 100;
  o.noise = 3.0;
  const bench::LoadGenerator g(o);
  const auto check = bench::check_plan_with_reference(g, bench::builtin_threshold, 2, 3000);
  EXPECT_FALSE(check.ok());
  EXPECT_FALSE(check.problems.empty());
}

}  // namespace
