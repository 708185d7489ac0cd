// SchedulerRequests: work handed from another thread runs on the serving thread and the
// caller waits for it; a request the scheduler never serves ends with the limit or with
// close() (the pipeline stopping), not in a deadlock, and then never runs.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <stdexcept>
#include <thread>

#include "warpwatch/service/scheduler_requests.hpp"

namespace {

using warpwatch::service::SchedulerRequests;
using namespace std::chrono_literals;

TEST(SchedulerRequests, WorkRunsOnTheServingThreadAndTheCallerWaitsForIt) {
  SchedulerRequests requests(nullptr);
  std::thread::id ran_on;
  auto caller = std::async(std::launch::async, [&] {
    return requests.run([&] { ran_on = std::this_thread::get_id(); }, 10s);
  });
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  while (caller.wait_for(0ms) != std::future_status::ready &&
         std::chrono::steady_clock::now() < deadline)
    requests.serve_for(10ms);
  ASSERT_EQ(caller.wait_for(0ms), std::future_status::ready);
  EXPECT_TRUE(caller.get());
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST(SchedulerRequests, WhatTheWorkThrowsIsThrownToTheCaller) {
  SchedulerRequests requests(nullptr);
  auto caller = std::async(std::launch::async, [&] {
    return requests.run([] { throw std::runtime_error("export failed"); }, 10s);
  });
  while (caller.wait_for(0ms) != std::future_status::ready) requests.serve_for(10ms);
  EXPECT_THROW(caller.get(), std::runtime_error);
}

TEST(SchedulerRequests, CloseRefusesWaitingAndLaterRequestsWhichNeverRun) {
  SchedulerRequests requests(nullptr);
  std::atomic<int> runs{0};
  auto caller = std::async(std::launch::async, [&] { return requests.run([&] { ++runs; }, 60s); });
  std::this_thread::sleep_for(50ms);  // it waits: nobody serves
  const auto closed_at = std::chrono::steady_clock::now();
  requests.close();
  ASSERT_EQ(caller.wait_for(5s), std::future_status::ready) << "the caller still waits";
  EXPECT_FALSE(caller.get());
  EXPECT_LT(std::chrono::steady_clock::now() - closed_at, 5s);
  EXPECT_FALSE(requests.run([&] { ++runs; }, 60s));  // after the close: refused at once
  requests.serve();
  EXPECT_EQ(runs.load(), 0);
}

TEST(SchedulerRequests, ARequestPastItsLimitIsWithdrawnAndNeverRuns) {
  SchedulerRequests requests(nullptr);
  int runs = 0;
  EXPECT_FALSE(requests.run([&] { ++runs; }, 20ms));
  requests.serve();
  EXPECT_EQ(runs, 0);
}

}  // namespace
