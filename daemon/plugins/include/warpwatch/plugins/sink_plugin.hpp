// An alert sink as a plugin (docs/architecture.md §3.1), in the manner of fluent-bit's output
// plugins: one folder (daemon/plugins/out_<kind>/) holds the kind's options struct and option
// rows (config::SinkKind), the factory of its running sink, its line in `warpwatch
// check-config` and in the startup log. The registry (registry.hpp) lists them; nothing else
// names a kind. What every sink has is not a plugin's: its settings (config::SinkOptions, the
// configuration's rows), its queue's counters (alerting::AlertSink) and their /metrics families
// (alert_sink_families below).
#pragma once

#include <memory>
#include <span>
#include <string>

#include "warpwatch/alerting/event_sink.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/sink_kinds.hpp"
#include "warpwatch/plugins/metric_families.hpp"
#include "warpwatch/service/logging.hpp"

namespace warpwatch::plugins {

struct SinkPlugin {
  // Its option rows, options struct and checks: what the configuration reads.
  config::SinkKind config;
  // The sink of an entry of this kind, as load_daemon_config checked it, started. Throws
  // std::runtime_error when its client cannot be made.
  std::unique_ptr<alerting::AlertSink> (*make)(const config::SinkConfig& entry,
                                               service::Logger log) = nullptr;
  // `warpwatch check-config`'s line for the entry: hosts only, never a credential (a
  // webhook's path or a header's value may hold one).
  std::string (*describe)(const config::SinkConfig& entry) = nullptr;
  // Where its events go, as the startup log says it after the sink's name, rules and queue
  // ("to topic events at k1:9092", "100 per request").
  std::string (*destination)(const config::SinkConfig& entry) = nullptr;
};

// An entry of the kind `Options::kind` made of its options (tests, and configurations made
// in code).
template <class Options>
config::SinkConfig sink_entry(Options options, config::SinkOptions sink,
                              config::SourceLocation where = {}) {
  return {std::string(Options::kind), std::move(sink),
          std::make_shared<const Options>(std::move(options)), std::move(where)};
}

// The sink's rules as its check-config line says them: "hot*,cold".
std::string rules_text(const config::SinkOptions& sink);

// The families every alert sink has, whatever its kind (`sink_sent_total`, `sink_retried_total`,
// `sink_dropped_total`, `sink_failed_total`, `sink_queued_events`), over the sinks' counters
// (AlertSink::counters, in `sinks:` order), label `sink`: written here once for every kind.
void alert_sink_families(MetricFamilies& f, std::span<const alerting::SinkCounters> sinks);

}  // namespace warpwatch::plugins
