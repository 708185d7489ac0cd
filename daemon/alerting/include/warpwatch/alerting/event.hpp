// A published event (docs/spec.md §5): a raw match that passed an alert rule, enriched.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

namespace warpwatch::alerting {

struct Event {
  std::string rule, severity, stream, library, pattern, metric, mode;
  double distance = 0.0, threshold = 0.0;
  std::uint64_t start_index = 0, end_index = 0;  // 0-based, inclusive
  std::int64_t start_ns = 0, end_ns = 0;         // timestamps of those samples
  std::int64_t detected_ns = 0;                  // wall clock when the match was found
  std::uint64_t sequence = 0;                    // EventSequence's: from 1, no gaps
  std::string id;  // event_id(stream, pattern, start_index, end_index): the same on every host
  std::string instance;
  std::map<std::string, std::string> labels;
  // The rule's resolve_ms, for alert sinks (Alertmanager's endsAt); not in the JSON payload.
  std::chrono::milliseconds resolve{0};
};

// An event's deterministic id (docs/sinks.md §2): the first 16 bytes of the SHA-256 of
// the stream id, the pattern id (each as its length, u64 little-endian, then its bytes),
// start_index and end_index (u64 little-endian), as 32 lower-case hex digits. The same
// occurrence reported twice (after a failover replays its samples, or by two daemons)
// has one id, whatever the rule, the instance or the time: consumers drop duplicates by it.
std::string event_id(std::string_view stream, std::string_view pattern, std::uint64_t start_index,
                     std::uint64_t end_index);

// The events' sequence numbers: each event published gets the next one (from 1, no gaps),
// before any EventSink sees it, whether a sink then sends or drops it, so that a subscriber
// sees a gap where events were lost. A restart from a checkpoint goes on after the last.
class EventSequence {
 public:
  void assign(std::span<Event> events) {
    for (Event& event : events) event.sequence = ++last_;
  }
  std::uint64_t last() const { return last_; }  // 0 before the first event
  void continue_after(std::uint64_t last) { last_ = last; }

 private:
  std::uint64_t last_ = 0;
};

// The event's page in the console (daemon/service/console/; its JSON: /api/v1/events/{id}):
// "{external_url}/#/events/{id}" (http.external_url); "" when external_url is "" (no links).
std::string explain_url(std::string_view external_url, const Event& event);

// The JSON payload published for an event (one object, keys as above); with an external_url
// (the webhook's and Kafka's payloads) it ends with "explain_url" (explain_url()).
std::string to_json(const Event& event, std::string_view external_url = {});

}  // namespace warpwatch::alerting
