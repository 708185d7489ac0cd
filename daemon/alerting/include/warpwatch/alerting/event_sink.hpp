// What the pipeline sees of an alert sink (docs/sinks.md §5): the events of the rules
// it takes, delivered by a thread of its own from a bounded queue. Sink (sink.hpp) POSTs
// them over HTTP to an Alertmanager or a webhook; KafkaSink (kafka_sink.hpp) produces them
// to a Kafka topic.
//
// Thread model: offer() from one thread (the scheduler), counters() from any.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "warpwatch/alerting/sink_payload.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/logging.hpp"

namespace warpwatch::alerting {

struct SinkCounters {
  std::string name;                  // the sink's name (sinks[].name)
  std::uint64_t sent = 0;            // events the receiver took (2xx; Kafka: acknowledged)
  std::uint64_t retried = 0;         // requests sent again after a failure
  std::uint64_t dropped = 0;         // events dropped from a full queue
  std::uint64_t failed = 0;          // events given up: all attempts failed
  std::uint64_t rejected = 0;        // events given up: the receiver refused them (4xx)
  std::uint64_t unsent_at_stop = 0;  // events given up: not delivered when the sink stopped
  std::uint64_t queued = 0;          // events waiting now, the batch under way included
};

// At most one log line every 10 s: the events of the lines held back are summed into the
// next one.
struct SinkLogThrottle {
  std::chrono::steady_clock::time_point next{};
  std::uint64_t held = 0;
  // `events` more; the sum to log when a line is due now, else 0.
  std::uint64_t add(std::uint64_t events, std::chrono::steady_clock::time_point now);
};

class EventSink {
 public:
  virtual ~EventSink() = default;
  EventSink() = default;
  EventSink(const EventSink&) = delete;
  EventSink& operator=(const EventSink&) = delete;

  virtual const config::SinkConfig& config() const = 0;
  // Queues the events whose rule one of the sink's `rules` globs matches.
  virtual void offer(std::span<const SharedEvent> events) = 0;
  // Goes on delivering what is queued until `deadline`, then gives up what is left
  // (counted in unsent_at_stop and logged) and joins the thread. Later offers are counted
  // as unsent at once. Idempotent.
  virtual void stop(std::chrono::steady_clock::time_point deadline) = 0;
  virtual SinkCounters counters() const = 0;
};

// The sink `config` describes (its kind), started. `config` as load_daemon_config checked it.
std::unique_ptr<EventSink> make_sink(config::SinkConfig config, service::Logger log);

}  // namespace warpwatch::alerting
