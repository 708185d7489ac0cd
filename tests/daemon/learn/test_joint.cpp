// daemon/learn/joint and the measure choice of daemon/learn/settings: several classes'
// thresholds calibrated together on the nearest-template decision; lcss chosen where dtw
// cannot separate.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/learn/joint.hpp"
#include "warpwatch/learn/settings.hpp"

namespace {

using namespace warpwatch;

// Classes A (series 0, 1) and B (series 2, 3); B's series resemble A's template (B1 at 1.5).
// Alone, A's best threshold is 2 (recall 1, precision 2/3, F1 0.8) and B's 1.2 (F1 1); together
// B1 goes to A (1.5 / 2 < 1 / 1.2) and the mean F1 is (0.8 + 0.667) / 2 = 0.733. A at 1: A2 is
// missed, B1 and B2 go to B: (0.667 + 1) / 2 = 0.833, the best of the four pairs.
TEST(LearnJoint, ThresholdsChosenOnTheNearestTemplateDecision) {
  std::vector<learn::ClassColumn> classes(2);
  classes[0] = {{1.0, 2.0}, {0, 0}, {1.0, 2.0, 1.5, 3.0}};
  classes[1] = {{1.0, 1.2}, {0, 0}, {4.0, 4.0, 1.0, 1.2}};
  const std::vector<std::size_t> label_of{0, 0, 1, 1};
  const auto j = learn::choose_jointly(classes, label_of);
  ASSERT_EQ(j.classes.size(), 2u);
  EXPECT_EQ(j.classes[0].row, 0u);
  EXPECT_EQ(j.classes[1].row, 1u);
  EXPECT_EQ(j.classes[0].found, 1u);
  EXPECT_EQ(j.classes[0].wrong, 0u);
  EXPECT_EQ(j.classes[1].found, 2u);
  EXPECT_EQ(j.classes[1].wrong, 0u);
  EXPECT_NEAR(j.classes[0].f1, 2.0 / 3.0, 1e-12);
  EXPECT_DOUBLE_EQ(j.classes[1].f1, 1.0);
  EXPECT_NEAR(j.mean_f1, 5.0 / 6.0, 1e-12);
  EXPECT_EQ(j.rounds, 2u);  // one round that moves A, one that changes nothing
}

// Background events are false alarms of their class whatever the decision: A's threshold 2
// has 3 of them, so A keeps 1 even alone.
TEST(LearnJoint, BackgroundEventsCountAgainstTheirClass) {
  std::vector<learn::ClassColumn> classes(2);
  classes[0] = {{1.0, 2.0}, {0, 3}, {1.0, 2.0, 9.0, 9.0}};
  classes[1] = {{1.0}, {0}, {9.0, 9.0, 1.0, 1.0}};
  const auto j = learn::choose_jointly(classes, std::vector<std::size_t>{0, 0, 1, 1});
  EXPECT_EQ(j.classes[0].row, 0u);  // F1 0.667 against 2 / (2 + 3) precision at 2: 0.571
  EXPECT_EQ(j.classes[0].wrong, 0u);
}

TEST(LearnJoint, RefusesColumnsThatDoNotFit) {
  std::vector<learn::ClassColumn> classes(1);
  classes[0] = {{1.0}, {0}, {1.0, 2.0}};
  try {
    learn::choose_jointly(classes, std::vector<std::size_t>{0});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "class 0's column does not fit");
  }
}

// Positives: a bump; negatives: the bump raised by 0.5; each series has one spike of +20 or
// -20 (alternately) at its own place. dtw's cost is ruled by whether the spikes' signs meet
// (about 0 or 400 and more), in both classes alike; lcss counts a spike as one unmatched
// sample, and the negatives' samples are all 0.5 off (more than epsilon).
TEST(LearnSettings, LcssChosenWhereSpikesSpoilDtw) {
  constexpr std::size_t m = 40;
  const auto bump = [](std::size_t i) {
    return static_cast<float>(std::sin(3.14159265 * static_cast<double>(i) / (m - 1)));
  };
  const auto spiked = [&](std::size_t k, float raise, std::size_t at) {
    learn::Series s{std::vector<float>(m), 1};
    for (std::size_t i = 0; i < m; ++i)
      s.values[i] = bump(i) + raise + 0.01f * static_cast<float>((i * 7 + k * 3) % 5);
    s.values[at % m] = k % 2 ? -20.0f : 20.0f;
    return s;
  };
  std::vector<learn::Series> positives;
  for (std::size_t k = 0; k < 8; ++k) positives.push_back(spiked(k, 0.0f, 3 + 5 * k));
  std::vector<learn::Negative> negatives;
  for (std::size_t k = 0; k < 8; ++k) {
    learn::Negative n{std::to_string(k), spiked(k + 1, 0.5f, 7 + 3 * k), {}, {}};
    for (std::size_t i = 0; i < m; ++i)
      n.times_ns.push_back(static_cast<std::int64_t>(i) * 1'000'000'000);
    negatives.push_back(n);
  }
  learn::Given given;
  given.mode = kernels::Mode::window;
  given.znorm = false;
  learn::TemplateOptions options;
  options.backend = kernels::Backend::cpu;
  const auto choice = learn::choose_settings(positives, negatives, options, given, 4);
  EXPECT_EQ(choice.settings.metric, kernels::Metric::lcss);
  EXPECT_FALSE(choice.settings.band.has_value());
  std::string why;
  for (const auto& line : choice.why) {
    why += line;
    why += '\n';
  }
  EXPECT_NE(why.find("measure: lcss epsilon"), std::string::npos) << why;
  EXPECT_NE(why.find("F1 1;"), std::string::npos) << why;  // an lcss setting separates all
  EXPECT_EQ(why.find("dtw band none F1 1;"), std::string::npos) << why;
}

}  // namespace
