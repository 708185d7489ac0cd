// Shared by the alerting suites (publisher, sinks): an event with every field filled in, and a
// bounded wait on a sink's counters.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>

#include "test_support.hpp"
#include "warpwatch/alerting/event.hpp"
#include "warpwatch/alerting/http_sink.hpp"

namespace warpwatch::testing {

// Rule `rule`'s event on `stream`: pattern "spike" of library "shapes" (dtw, stream mode) at
// distance 0.25 under 1.5, samples end_index - 4 to end_index at 1.7e18 ns + their index,
// detected at 1.7e18 ns + 1 s, instance "node-1", label site=plant-7, sequence 0, its id.
inline alerting::Event sample_event(std::string rule, std::string stream,
                                    std::uint64_t end_index = 9) {
  alerting::Event e;
  e.rule = std::move(rule);
  e.severity = "warning";
  e.stream = std::move(stream);
  e.library = "shapes";
  e.pattern = "spike";
  e.metric = "dtw";
  e.mode = "stream";
  e.distance = 0.25;
  e.threshold = 1.5;
  e.start_index = end_index - 4;
  e.end_index = end_index;
  e.start_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(e.start_index);
  e.end_ns = 1'700'000'000'000'000'000 + static_cast<std::int64_t>(end_index);
  e.detected_ns = 1'700'000'001'000'000'000;
  e.instance = "node-1";
  e.labels = {{"site", "plant-7"}};
  e.id = alerting::event_id(e.stream, e.pattern, e.start_index, e.end_index);
  return e;
}

// Polls the sink's counters until `done(counters)` holds or `limit` (scaled) passes; whether
// it held.
template <class Done>
bool wait_counters(const alerting::AlertSink& sink, Done done,
                   std::chrono::milliseconds limit = std::chrono::milliseconds(15000)) {
  const auto deadline = std::chrono::steady_clock::now() + scaled(limit);
  while (!done(sink.counters())) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

}  // namespace warpwatch::testing
