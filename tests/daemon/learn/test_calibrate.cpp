// daemon/learn/calibrate: held-out scores, the threshold table checked by hand, the choice.
#include <gtest/gtest.h>

#include <vector>

#include "test_support.hpp"
#include "warpwatch/learn/calibrate.hpp"

namespace {

using namespace warpwatch;
using learn::Series;

const Series bump{{0, 1, 2, 1, 0}, 1};

// 100 samples of zeros, 1 s apart, with the bump copied at 20 (distance 0) and at 60 with its
// peak 0.5 too high (distance 0.25: no other alignment of the 2 costs less than 1).
learn::Negative recording() {
  Series s{std::vector<float>(100, 0.0f), 1};
  for (std::size_t i = 0; i < 5; ++i) s.values[20 + i] = s.values[60 + i] = bump.values[i];
  s.values[62] = 2.5f;
  learn::Negative n{"rec", s, {}, {}};
  for (std::size_t i = 0; i < 100; ++i)
    n.times_ns.push_back(static_cast<std::int64_t>(i) * 1000000000);
  return n;
}

TEST(LearnCalibrate, TableByHand) {
  const std::vector<double> scores{0.05, 0.2, 0.5};
  const std::vector<double> thresholds{0.1, 0.3, 1.0};
  const std::vector<learn::Negative> negatives{recording()};
  EXPECT_DOUBLE_EQ(negatives[0].hours(), 100.0 / 3600.0);
  const auto table = learn::threshold_table(bump, scores, negatives, {}, thresholds);
  ASSERT_EQ(table.size(), 3u);
  // found 1, 2, 3 of 3; events: the copy at 20 from 0 on, the one at 60 from 0.25 on.
  const std::size_t found[] = {1, 2, 3}, alarms[] = {1, 2, 2};
  const double precision[] = {0.5, 0.5, 0.6};
  for (std::size_t r = 0; r < 3; ++r) {
    SCOPED_TRACE("row " + std::to_string(r));
    EXPECT_EQ(table[r].threshold, thresholds[r]);
    EXPECT_EQ(table[r].found, found[r]);
    EXPECT_EQ(table[r].false_alarms, alarms[r]);
    EXPECT_DOUBLE_EQ(table[r].recall, found[r] / 3.0);
    EXPECT_DOUBLE_EQ(table[r].precision, precision[r]);
    EXPECT_DOUBLE_EQ(table[r].false_per_hour, alarms[r] * 36.0);
  }
  // F1: 0.4, 0.571, 0.75: the default takes the last.
  EXPECT_EQ(learn::choose_threshold(table, {}, true).row, 2u);
  EXPECT_EQ(learn::choose_threshold(table, {0.6, std::nullopt}, true).row, 1u);
  EXPECT_EQ(learn::choose_threshold(table, {std::nullopt, 40.0}, true).row, 0u);
  try {
    learn::choose_threshold(table, {std::nullopt, 10.0}, true);
    FAIL() << "a false-alarm rate no threshold meets was accepted";
  } catch (const learn::NoThreshold& e) {
    EXPECT_NE(std::string(e.what()).find("the fewest false alarms per hour reachable is 36.000"),
              std::string::npos)
        << e.what();
  }
}

// A negative of series laid end to end (joins at 40 and 70): each series' best match is over
// the windows that start in it, so the copy at 20 counts for the first, the one at 60 (0.25
// away) for the second, and a bump straddling the join at 70 (starting at 68) for the second
// too; the third holds only zeros (dtw of the bump against zeros: 1 + 4 + 1 = 6).
TEST(LearnCalibrate, BestMatchPerSeriesOfANegativeLaidEndToEnd) {
  learn::Negative n = recording();
  n.joins = {40, 70};
  learn::MatchSettings window = learn::MatchSettings::window(false, std::nullopt);
  EXPECT_EQ(learn::best_match_per_series(bump, n, window), (std::vector<double>{0.0, 0.25, 6.0}));
  for (std::size_t i = 0; i < 5; ++i) n.series.values[68 + i] = bump.values[i];
  // The third now starts with the bump's tail: its best is that of its own samples alone.
  learn::Negative third{
      "third", {{n.series.values.begin() + 70, n.series.values.end()}, 1}, {}, {}};
  third.times_ns.assign(n.times_ns.begin() + 70, n.times_ns.end());
  const double tail = learn::best_match(bump, third, window);
  EXPECT_GT(tail, 0.0);
  EXPECT_LT(tail, 6.0);
  EXPECT_EQ(learn::best_match_per_series(bump, n, window), (std::vector<double>{0.0, 0.0, tail}));
  n.joins.clear();
  EXPECT_EQ(learn::best_match_per_series(bump, n, window), (std::vector<double>{0.0}));
}

TEST(LearnCalibrate, WindowModeCountsTheDaemonsEvents) {
  learn::MatchSettings window = learn::MatchSettings::window(false, std::nullopt);
  const std::vector<learn::Negative> negatives{recording()};
  const std::vector<double> thresholds{0.1, 0.3};
  const auto table =
      learn::threshold_table(bump, std::vector<double>{0.0}, negatives, window, thresholds);
  ASSERT_EQ(table.size(), 2u);
  EXPECT_EQ(table[0].false_alarms, 1u);  // the exact copy's window
  EXPECT_EQ(table[1].false_alarms, 2u);  // and the one 0.25 away
}

TEST(LearnCalibrate, HeldOutScoresAreLeaveOneOutWithAFoldPerPositive) {
  const std::vector<Series> positives{
      {{0, 1, 2, 1, 0}, 1}, {{0, 1, 3, 1, 0}, 1}, {{0, 2, 2, 1, 0}, 1}};
  learn::TemplateOptions options;
  options.kind = learn::TemplateKind::medoid;
  options.backend = kernels::Backend::reference;
  const learn::MatchSettings stream{};
  const auto scores = learn::held_out_scores(positives, options, stream, 3);
  ASSERT_EQ(scores.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    std::vector<Series> others;
    for (std::size_t j = 0; j < 3; ++j)
      if (j != i) others.push_back(positives[j]);
    const auto tmpl = learn::build_template(others, options).series;
    EXPECT_EQ(scores[i], learn::score(tmpl, positives[i], stream)) << "positive " << i;
  }
  // Positive 0 against the medoid of 1 and 2 (the first of a tie: 1): only the peak differs.
  EXPECT_EQ(scores[0], 1.0);
}

TEST(LearnCalibrate, CandidatesAreThePositiveScoresThinnedByRank) {
  EXPECT_EQ(learn::candidate_thresholds({3, 1, 2, 2, INFINITY}), (std::vector<double>{1, 2, 3}));
  std::vector<double> many;
  for (int i = 0; i < 100; ++i) many.push_back(i);
  const auto thinned = learn::candidate_thresholds(many, 10);
  ASSERT_EQ(thinned.size(), 10u);
  EXPECT_EQ(thinned.front(), 0.0);
  EXPECT_EQ(thinned.back(), 99.0);
}

}  // namespace
