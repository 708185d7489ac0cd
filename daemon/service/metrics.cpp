#include "warpwatch/service/metrics.hpp"

#include <unistd.h>

#include <fstream>

#include <prometheus/text_serializer.h>

#include "warpwatch/plugins/metric_families.hpp"
#include "warpwatch/plugins/sink_plugin.hpp"

namespace warpwatch::service {
namespace {

using Families = plugins::MetricFamilies;
const auto d = plugins::metric_value;

void ingest_families(Families& f, const stream::RegistrySnapshot& in) {
  f.counter("ingest_messages_total", "Messages admitted to a stream").add(d(in.messages));
  f.counter("ingest_accepted_samples_total", "Samples accepted, all streams")
      .add(d(in.accepted_samples));
  f.counter("ingest_rejected_total",
            "Rejected inputs per reason (README: What is rejected), ids without a stream included");
  for (const auto reason : stream::all_reject_reasons)
    f.add(d(in.rejected[reason]), {{"reason", std::string(stream::to_string(reason))}});
  f.counter("ingest_log_suppressed_total", "Rejections the log rate limit kept out of the log")
      .add(d(in.log_suppressed));

  std::uint64_t declared = 0;
  for (const auto& s : in.streams) declared += s.declared ? 1 : 0;
  f.gauge("streams", "Streams known to the registry")
      .add(d(declared), {{"origin", "declared"}})
      .add(d(in.streams.size() - declared), {{"origin", "auto"}});
  f.counter("stream_messages_total", "Messages admitted, per stream");
  for (const auto& s : in.streams) f.add(d(s.messages), {{"stream", s.stream->id}});
  f.counter("stream_accepted_samples_total", "Samples accepted, per stream");
  for (const auto& s : in.streams) f.add(d(s.accepted_samples), {{"stream", s.stream->id}});
  f.counter("stream_rejected_total",
            "Rejected inputs per stream and reason (reasons that occurred)");
  for (const auto& s : in.streams)
    for (const auto reason : stream::all_reject_reasons)
      if (s.rejected[reason] > 0)
        f.add(d(s.rejected[reason]),
              {{"stream", s.stream->id}, {"reason", std::string(stream::to_string(reason))}});
}

void backlog_families(Families& f, const stream::Backlog& b, const MemoryReading& memory) {
  f.gauge("ingest_backlog_samples", "Samples accepted and waiting to be matched").add(d(b.samples));
  f.gauge("ingest_backlog_bytes", "The same, as accounted against limits.queue_bytes")
      .add(d(b.bytes));
  f.gauge("ingest_backlog_oldest_age_seconds",
          "Time the oldest waiting sample has waited; 0 when none waits")
      .add(b.oldest_age_seconds);
  f.gauge("ingest_backlog_streams", "Streams with samples waiting").add(d(b.streams));
  f.gauge("ingest_queue_limit_bytes", "The ingest queue's limits")
      .add(d(b.limits.total_bytes), {{"scope", "total"}})
      .add(d(b.limits.stream_bytes), {{"scope", "stream"}});
  f.gauge("source_backlog_samples", "Samples waiting to be matched, per source");
  for (const auto& s : b.sources) f.add(d(s.samples), {{"source", s.name}});
  f.gauge("source_backlog_oldest_age_seconds", "Age of the oldest waiting sample, per source");
  for (const auto& s : b.sources) f.add(s.oldest_age_seconds, {{"source", s.name}});
  f.gauge("source_waiting", "1 while the source waits for room in the queue (backpressure)");
  for (const auto& s : b.sources) f.add(s.waiting ? 1.0 : 0.0, {{"source", s.name}});
  f.counter("source_waits_total", "Times the source had to wait for room in the queue");
  for (const auto& s : b.sources) f.add(d(s.waits), {{"source", s.name}});
  f.counter("source_dropped_samples_total",
            "Samples a source that cannot push back dropped at a full queue (queue_full)");
  for (const auto& s : b.sources) f.add(d(s.dropped_samples), {{"source", s.name}});
  f.gauge("resident_memory_bytes", "Resident memory of the daemon (/proc/self/statm)")
      .add(d(memory.resident_bytes));
  f.gauge("memory_budget_bytes", "limits.memory_budget_bytes").add(d(memory.budget_bytes));
}

void store_families(Families& f, const StoreReading& store) {
  f.gauge("event_store_events", "Events kept for the API (event_store.max_events)")
      .add(d(store.events));
  f.gauge("event_store_bytes", "Bytes of the events kept (event_store.max_bytes)")
      .add(d(store.event_bytes));
  f.counter("event_store_evicted_total", "Events the store let go for newer ones (its bounds)")
      .add(d(store.evicted));
  f.gauge("history_streams", "Streams with recent samples kept (history)")
      .add(d(store.history_streams));
  f.gauge("history_bytes", "Bytes of the streams' recent samples kept (history.max_bytes)")
      .add(d(store.history_bytes));
}

void pipeline_families(Families& f, const PipelineStats& p) {
  f.counter("batches_total", "Batches matched").add(d(p.batches));
  f.counter("rounds_total", "Scheduler rounds run, with samples or without").add(d(p.rounds));
  f.counter("batch_samples_total", "Samples matched").add(d(p.samples));
  f.counter("matches_total", "Raw matches, before the alert rules").add(d(p.matches));
  f.counter("events_total", "Events the alert rules produced").add(d(p.events));
  f.gauge("last_batch_duration_seconds",
          "Matching, rules and publishing of the last batch (submitted to published)")
      .add(p.last_batch_seconds);
  f.counter("batch_duration_seconds_total", "Matching, rules and publishing, all batches")
      .add(p.batch_seconds);
  f.counter("reloads_total", "Configuration reloads (SIGHUP)")
      .add(d(p.reloads), {{"result", "applied"}})
      .add(d(p.reloads_refused), {{"result", "refused"}});
  f.gauge("matcher_streams", "Streams in the matcher").add(d(p.streams));
  f.gauge("matcher_patterns", "Patterns in the matcher").add(d(p.patterns));
  f.counter("matcher_samples_total", "Samples the matcher processed").add(d(p.matcher.samples));
  f.counter("matcher_cells_total", "DP cell updates").add(d(p.matcher.cells));
  f.counter("matcher_flat_windows_skipped_total", "znorm windows skipped as flat (std < 1e-8)")
      .add(d(p.matcher.flat_windows_skipped));
  f.counter("matcher_windows_evaluated_total", "Window-mode windows compared (not flat)")
      .add(d(p.matcher.windows_evaluated));
  f.counter("matcher_windows_pruned_total",
            "Windows a lower bound showed cannot qualify, by the stage that showed it (cpu)")
      .add(d(p.matcher.windows_pruned[0]), {{"stage", "lb_kim"}})
      .add(d(p.matcher.windows_pruned[1]), {{"stage", "lb_keogh_pattern"}})
      .add(d(p.matcher.windows_pruned[2]), {{"stage", "lb_keogh_window"}})
      .add(d(p.matcher.windows_pruned[3]), {{"stage", "abandoned"}})
      .add(d(p.matcher.windows_pruned[4]), {{"stage", "fft_bound"}});
  const kernels::MatcherCounters& m = p.matcher;
  f.counter("matcher_host_seconds_total",
            "Host time of the matcher's batches by phase; wait: blocked on the device")
      .add(m.prepare_seconds, {{"phase", "prepare"}})
      .add(m.start_seconds, {{"phase", "start"}})
      .add(m.collect_seconds, {{"phase", "collect"}})
      .add(m.trim_seconds, {{"phase", "trim"}})
      .add(m.wait_seconds, {{"phase", "wait"}});
  f.counter("matcher_device_seconds_total", "Stream-mode kernel time (cuda, CUDA events)")
      .add(m.device_seconds);
  f.gauge("matcher_device_bytes", "Device memory the matcher holds (cuda)").add(d(m.device_bytes));
  f.counter("matcher_device_batches_total",
            "auto: batches it ran on the device (the rest ran on the cpu)")
      .add(d(m.second_backend_batches));
  f.counter("matcher_backend_switches_total",
            "auto: moves of every stream-mode pair between the cpu and the device")
      .add(d(m.backend_switches), {{"result", "moved"}})
      .add(d(m.backend_switch_failures), {{"result", "failed"}});

  f.counter("pattern_matches_total", "Raw matches per configured pattern, before the rules");
  for (const auto& [pattern, c] : p.pattern_matches)
    f.add(d(c.matches), {{"library", c.library}, {"pattern", pattern}});
  f.counter("pattern_samples_total",
            "Samples matched per configured pattern (by all its definitions since configured): "
            "the samples accepted of the streams of its dims since then");
  for (const auto& [pattern, c] : p.pattern_matches)
    f.add(d(c.samples), {{"library", c.library}, {"pattern", pattern}});
  f.counter("superseded_total",
            "Matches of exclusive libraries dropped for a closer overlapping match of another "
            "pattern of the library (nearest template)");
  for (const auto& [library, n] : p.superseded) f.add(d(n), {{"library", library}});
  f.gauge("held_matches",
          "Matches of exclusive libraries held until no rival can appear (nearest template)")
      .add(d(p.held_matches));
  f.counter("detection_latency_untimed_total",
            "Events whose match ended before the arrivals kept per stream (not in the "
            "latency histogram)")
      .add(d(p.untimed_events));

  f.counter("checkpoints_total", "Checkpoints of the matching state (state.dir), by result")
      .add(d(p.checkpoints_written), {{"result", "written"}})
      .add(d(p.checkpoints_failed), {{"result", "failed"}});
  f.gauge("last_checkpoint_duration_seconds",
          "The last checkpoint written: export, encoding and the atomic write")
      .add(p.last_checkpoint_seconds);
  f.gauge("last_checkpoint_bytes", "The last checkpoint written: its size")
      .add(d(p.last_checkpoint_bytes));

  f.counter("rule_events_total", "Events per alert rule");
  for (const auto& [rule, c] : p.rules) f.add(d(c.events), {{"rule", rule}});
  f.counter("rule_cooldown_dropped_total",
            "Matches a rule selected but dropped inside its cooldown");
  for (const auto& [rule, c] : p.rules) f.add(d(c.dropped_cooldown), {{"rule", rule}});
  f.counter("rule_threshold_filtered_total", "Matches a rule selected but its threshold refused");
  for (const auto& [rule, c] : p.rules) f.add(d(c.filtered_threshold), {{"rule", rule}});
}

void publisher_families(Families& f, const alerting::PublisherCounters& c) {
  f.counter("events_published_total", "Events sent on the PUB socket, per rule");
  for (const auto& [rule, n] : c.by_rule) f.add(d(n.published), {{"rule", rule}});
  f.counter("events_dropped_total", "Events dropped at a subscriber's high-water mark, per rule");
  for (const auto& [rule, n] : c.by_rule) f.add(d(n.dropped), {{"rule", rule}});
  f.counter("events_file_errors_total", "Batches the events file failed to take")
      .add(d(c.file_errors));
}

// CURVE (docs/operations.md §6): the ZAP handler's answers; no series without CURVE.
void auth_families(Families& f, const std::vector<stream::ZapCounters>& sockets) {
  f.counter("auth_accepted_total", "CURVE clients accepted (allowed key), per bound socket");
  for (const auto& s : sockets) f.add(d(s.accepted), {{"socket", s.socket}});
  f.counter("auth_refused_total",
            "Connections refused by the ZAP handler, per bound socket and reason: key (a CURVE "
            "key not allowed), mechanism (not CURVE)");
  for (const auto& s : sockets)
    f.add(d(s.refused_key), {{"socket", s.socket}, {"reason", "key"}})
        .add(d(s.refused_mechanism), {{"socket", s.socket}, {"reason", "mechanism"}});
}

}  // namespace

std::uint64_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::uint64_t size = 0, resident = 0;
  if (!(statm >> size >> resident)) return 0;
  return resident * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
}

const prometheus::Histogram::BucketBoundaries& seconds_buckets() {
  static const prometheus::Histogram::BucketBoundaries buckets = {
      0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  return buckets;
}

std::string render_metrics(const MetricsSnapshot& snapshot) {
  Families f;
  f.gauge("info", "Always 1; the labels name the daemon")
      .add(1.0, {{"instance", snapshot.instance},
                 {"backend", snapshot.backend},
                 {"version", snapshot.version}});
  ingest_families(f, snapshot.ingest);
  backlog_families(f, snapshot.backlog, snapshot.memory);
  f.append(snapshot.sources);
  pipeline_families(f, snapshot.pipeline);
  store_families(f, snapshot.store);
  f.histogram("round_duration_seconds",
              "Scheduler rounds that had work: taking the samples, matching, rules and "
              "publishing",
              snapshot.round_duration);
  f.histogram("detection_latency_seconds",
              "Events: from the arrival of the match's last sample to the event published",
              snapshot.detection_latency);
  publisher_families(f, snapshot.publisher);
  plugins::alert_sink_families(f, snapshot.sinks);
  auth_families(f, snapshot.auth);
  return prometheus::TextSerializer().Serialize(f.take());
}

}  // namespace warpwatch::service
