// What the pipeline sees of where events go: it numbers each round's events
// (EventSequence, event.hpp) and offers them to every EventSink, in order. The Publisher
// (publisher.hpp: ZeroMQ PUB and the events file) is one; the alert sinks (docs/sinks.md
// §5) are the others: each takes the events of its rules and delivers them by a thread of
// its own from a bounded queue. HttpSink (http_sink.hpp) POSTs them to an Alertmanager or a
// webhook; KafkaSink (kafka_sink.hpp) produces them to a Kafka topic. Neither knows the
// configuration's kinds: their plugins (daemon/plugins/out_<kind>/) make them.
//
// Thread model: offer() from one thread (the scheduler), counters() from any.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>

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

  // Takes the events (numbered already) that are the sink's: an alert sink queues those
  // whose rule one of its `rules` globs matches, the publisher sends them all. Never waits
  // on the network.
  virtual void offer(std::span<const SharedEvent> events) = 0;
  // The shutdown: what was offered gets until `deadline` to leave, no more. Idempotent.
  virtual void stop(std::chrono::steady_clock::time_point deadline) = 0;
};

// An alert sink (`sinks:`): an EventSink with a queue, a thread and delivery counters.
// stop() goes on delivering what is queued until `deadline`, then gives up what is left
// (counted in unsent_at_stop and logged) and joins the thread; later offers are counted as
// unsent at once. What every alert sink has, whatever its kind, is the base's: its settings
// (config::SinkOptions: name, rules, queue, retries) and its counters, which /metrics shows
// as the `sink_*` families, label `sink` (plugins::alert_sink_families). The sinks are made
// by their kinds' plugins (daemon/plugins/out_<kind>/).
class AlertSink : public EventSink {
 public:
  explicit AlertSink(config::SinkOptions options) : options_(std::move(options)) {}
  const config::SinkOptions& options() const { return options_; }
  virtual SinkCounters counters() const = 0;

 protected:
  const config::SinkOptions options_;
};

}  // namespace warpwatch::alerting
