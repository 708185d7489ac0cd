// daemon/learn/fit: fit_pattern's phases in order with the fit so far, settings given whole
// (not chosen), a throw from the phase callback stopping it, NoThreshold for a target no row
// meets.
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/learn/fit.hpp"

namespace {

using namespace warpwatch;
using learn::Series;

const std::vector<Series> bumps{{{0, 1, 2, 1, 0}, 1},
                                {{0, 1, 2.2f, 1, 0}, 1},
                                {{0, 0.9f, 2, 1.1f, 0}, 1},
                                {{0, 1, 1.8f, 1, 0}, 1}};

// 100 samples of zeros, 1 s apart, with a bump copied at 20 (a false alarm at any threshold).
std::vector<learn::Negative> negatives() {
  Series s{std::vector<float>(100, 0.0f), 1};
  for (std::size_t i = 0; i < 5; ++i) s.values[20 + i] = bumps[0].values[i];
  learn::Negative n{"rec", s, {}, {}};
  for (std::size_t i = 0; i < 100; ++i)
    n.times_ns.push_back(static_cast<std::int64_t>(i) * 1000000000);
  return {n};
}

TEST(LearnFit, PhasesInOrderWithTheFitSoFarAndSettingsGivenWhole) {
  const auto negs = negatives();
  learn::FitOptions o;
  o.settings = learn::MatchSettings::window(false, 1.0);
  o.folds = 4;
  std::vector<learn::Phase> seen;
  o.after_phase = [&](learn::Phase phase, const learn::Fit& f) {
    seen.push_back(phase);
    switch (phase) {
      case learn::Phase::settings:
        EXPECT_EQ(f.choice.settings.mode, kernels::Mode::window);
        EXPECT_EQ(f.choice.settings.band, std::optional<double>(1.0));
        EXPECT_TRUE(f.built.series.values.empty());
        break;
      case learn::Phase::templates:
        EXPECT_EQ(f.prepared.size(), bumps.size());
        EXPECT_EQ(f.built.series.length(), 5u);
        EXPECT_TRUE(f.scores.empty());
        break;
      case learn::Phase::held_out:
        EXPECT_EQ(f.scores.size(), bumps.size());
        EXPECT_TRUE(f.table.empty());
        break;
      case learn::Phase::table:
        EXPECT_EQ(f.thresholds, learn::candidate_thresholds(f.scores));
        EXPECT_EQ(f.table.size(), f.thresholds.size());
        break;
    }
  };
  const learn::Fit fit = learn::fit_pattern(bumps, negs, o);
  EXPECT_EQ(seen, (std::vector<learn::Phase>{learn::Phase::settings, learn::Phase::templates,
                                             learn::Phase::held_out, learn::Phase::table}));
  EXPECT_TRUE(fit.choice.why.empty()) << "settings given whole are not chosen";
  ASSERT_LT(fit.chosen.row, fit.table.size());
  EXPECT_EQ(fit.threshold(), fit.table[fit.chosen.row].threshold);
  // Not given: chosen, each choice with its reason.
  learn::FitOptions chosen;
  chosen.folds = 4;
  EXPECT_FALSE(learn::fit_pattern(bumps, negs, chosen).choice.why.empty());
}

TEST(LearnFit, AThrowFromThePhaseCallbackStopsIt) {
  const auto negs = negatives();
  learn::FitOptions o;
  o.settings = learn::MatchSettings{};  // stream mode
  std::vector<learn::Phase> seen;
  o.after_phase = [&](learn::Phase phase, const learn::Fit&) {
    seen.push_back(phase);
    if (phase == learn::Phase::templates) throw std::runtime_error("time limit");
  };
  EXPECT_THROW(
      {
        try {
          learn::fit_pattern(bumps, negs, o);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "time limit");
          throw;
        }
      },
      std::runtime_error);
  EXPECT_EQ(seen, (std::vector<learn::Phase>{learn::Phase::settings, learn::Phase::templates}));
}

TEST(LearnFit, NoThresholdWhenNoRowMeetsTheTarget) {
  const auto negs = negatives();
  learn::FitOptions o;
  o.settings = learn::MatchSettings{};
  o.target.false_per_hour = 0.0;  // the copy at 20 is an event at every threshold
  try {
    learn::fit_pattern(bumps, negs, o);
    FAIL() << "a false-alarm rate no threshold meets was accepted";
  } catch (const learn::NoThreshold& e) {
    EXPECT_NE(std::string(e.what()).find("no threshold stays within --max-false-per-hour 0.000"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
