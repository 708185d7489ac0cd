// ArrivalLog (daemon/service/arrival_log.hpp): a sample's arrival looked up by its index,
// across runs split between rounds, a full ring, and a stream that starts again.
#include <gtest/gtest.h>

#include <chrono>
#include <vector>

#include "warpwatch/service/arrival_log.hpp"

namespace {

using warpwatch::service::ArrivalLog;
using warpwatch::stream::Arrival;
using namespace std::chrono_literals;

const ArrivalLog::Clock::time_point t0{1000s};

TEST(ArrivalLog, FindsTheRunOfEachSample) {
  ArrivalLog log;
  // Samples 0-2 at t0, 3-6 at t0 + 5 ms, then (next round) 7 at t0 + 20 ms.
  const std::vector<Arrival> first{{3, t0}, {4, t0 + 5ms}};
  log.record("a", first);
  const std::vector<Arrival> second{{1, t0 + 20ms}};
  log.record("a", second);
  EXPECT_EQ(log.arrival("a", 0), t0);
  EXPECT_EQ(log.arrival("a", 2), t0);
  EXPECT_EQ(log.arrival("a", 3), t0 + 5ms);
  EXPECT_EQ(log.arrival("a", 6), t0 + 5ms);
  EXPECT_EQ(log.arrival("a", 7), t0 + 20ms);
  EXPECT_EQ(log.arrival("a", 8), std::nullopt) << "not arrived yet";
  EXPECT_EQ(log.arrival("b", 0), std::nullopt) << "no such stream";
}

TEST(ArrivalLog, ARunSplitBetweenRoundsStaysOneRun) {
  ArrivalLog log;
  // The hub hands out 2 samples of a 5-sample run, then the other 3: one run, one slot.
  const std::vector<Arrival> head{{2, t0}}, rest{{3, t0}, {1, t0 + 1ms}};
  log.record("a", head);
  log.record("a", rest);
  for (std::uint64_t i = 0; i < 5; ++i) EXPECT_EQ(log.arrival("a", i), t0) << i;
  EXPECT_EQ(log.arrival("a", 5), t0 + 1ms);
  // The ring holds max_runs distinct runs: after max_runs - 2 more, sample 0 is still known.
  std::vector<Arrival> more;
  for (std::size_t k = 0; k < ArrivalLog::max_runs - 2; ++k)
    more.push_back({1, t0 + std::chrono::milliseconds(2 + k)});
  log.record("a", more);
  EXPECT_EQ(log.arrival("a", 0), t0);
}

TEST(ArrivalLog, KeepsTheLastRunsOnly) {
  ArrivalLog log;
  std::vector<Arrival> runs;
  const std::size_t n = ArrivalLog::max_runs + 10;
  for (std::size_t k = 0; k < n; ++k) runs.push_back({2, t0 + std::chrono::milliseconds(k)});
  log.record("a", runs);
  // Runs 0-9 (samples 0-19) were overwritten; runs 10.. remain, oldest first.
  EXPECT_EQ(log.arrival("a", 19), std::nullopt);
  for (std::size_t k = 10; k < n; ++k) {
    EXPECT_EQ(log.arrival("a", 2 * k), t0 + std::chrono::milliseconds(k)) << k;
    EXPECT_EQ(log.arrival("a", 2 * k + 1), t0 + std::chrono::milliseconds(k)) << k;
  }
  EXPECT_EQ(log.arrival("a", 2 * n), std::nullopt);
}

TEST(ArrivalLog, AForgottenStreamStartsAtIndexZero) {
  ArrivalLog log;
  const std::vector<Arrival> before{{10, t0}}, after{{4, t0 + 1s}};
  log.record("a", before);
  log.record("b", before);
  log.forget("a");
  EXPECT_EQ(log.arrival("a", 0), std::nullopt);
  EXPECT_EQ(log.streams(), 1u);
  log.record("a", after);
  EXPECT_EQ(log.arrival("a", 0), t0 + 1s);
  EXPECT_EQ(log.arrival("a", 4), std::nullopt);
  EXPECT_EQ(log.arrival("b", 9), t0) << "other streams are kept";
}

}  // namespace
