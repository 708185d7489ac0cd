// A published event (SPEC.md 5): a raw match that passed an alert rule, enriched.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>

namespace warpwatch::alerting {

struct Event {
  std::string rule, severity, stream, library, pattern, metric, mode;
  double distance = 0.0, threshold = 0.0;
  std::uint64_t start_index = 0, end_index = 0;  // 0-based, inclusive
  std::int64_t start_ns = 0, end_ns = 0;         // timestamps of those samples
  std::int64_t detected_ns = 0;                  // wall clock when the match was found
  std::uint64_t sequence = 0;                    // per publisher, from 1, no gaps
  std::string instance;
  std::map<std::string, std::string> labels;
  // The rule's resolve_ms, for alert sinks (Alertmanager's endsAt); not in the JSON payload.
  std::chrono::milliseconds resolve{0};
};

// The JSON payload published for an event (one object, keys as above).
std::string to_json(const Event& event);

}  // namespace warpwatch::alerting
