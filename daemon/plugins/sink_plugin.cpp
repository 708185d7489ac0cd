// What every alert sink has, whatever its plugin (sink_plugin.hpp): its rules in the lines,
// its /metrics families (docs/sinks.md §5).
#include "warpwatch/plugins/sink_plugin.hpp"

namespace warpwatch::plugins {

std::string rules_text(const config::SinkOptions& sink) {
  std::string s;
  for (const std::string& rule : sink.rules) s += (s.empty() ? "" : ",") + rule;
  return s;
}

void alert_sink_families(MetricFamilies& f, std::span<const alerting::SinkCounters> sinks) {
  const auto d = metric_value;
  f.counter("sink_sent_total", "Events an alert sink's receiver took (2xx), per sink");
  for (const auto& s : sinks) f.add(d(s.sent), {{"sink", s.name}});
  f.counter("sink_retried_total", "Requests an alert sink sent again after a failure");
  for (const auto& s : sinks) f.add(d(s.retried), {{"sink", s.name}});
  f.counter("sink_dropped_total", "Events dropped from an alert sink's full queue (the oldest)");
  for (const auto& s : sinks) f.add(d(s.dropped), {{"sink", s.name}});
  f.counter("sink_failed_total",
            "Events an alert sink gave up: attempts (all failed), rejected (4xx), stopped "
            "(not delivered by the end of the shutdown grace)");
  for (const auto& s : sinks)
    f.add(d(s.failed), {{"sink", s.name}, {"reason", "attempts"}})
        .add(d(s.rejected), {{"sink", s.name}, {"reason", "rejected"}})
        .add(d(s.unsent_at_stop), {{"sink", s.name}, {"reason", "stopped"}});
  f.gauge("sink_queued_events", "Events waiting for an alert sink, the request under way included");
  for (const auto& s : sinks) f.add(d(s.queued), {{"sink", s.name}});
}

}  // namespace warpwatch::plugins
