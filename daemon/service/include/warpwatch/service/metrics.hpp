// What warpwatchd exposes on /metrics, and how it is written: one snapshot of the
// counters the daemon keeps anyway (stream registry, pipeline, rules, publisher, alert
// sinks, matcher), rendered in Prometheus' text format with prometheus-cpp's serializer at
// scrape time. Nothing is counted twice: the metrics are read, not kept, here.
#pragma once

#include <prometheus/client_metric.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "warpwatch/alerting/http_sink.hpp"
#include "warpwatch/alerting/publisher.hpp"
#include "warpwatch/alerting/rules.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/zap_handler.hpp"

namespace warpwatch::service {

// Raw matches of one configured pattern (warpwatch_pattern_matches_total), and the samples
// submitted to the Matcher for it (warpwatch_pattern_samples_total): each round's samples of
// the streams of its dims (every one is paired with it), by every definition the id had since
// it was configured (a changed definition's pairs start fresh; the count goes on), so that
// across a change it equals the samples accepted of those streams since then.
struct PatternMatches {
  std::string library;
  std::uint64_t matches = 0;
  std::uint64_t samples = 0;
  std::size_t dims = 1;
};

// The scheduler's side, copied out after every round (Pipeline::stats()).
struct PipelineStats {
  std::uint64_t batches = 0;                // batches matched (rounds with new samples)
  std::uint64_t rounds = 0;                 // scheduler rounds run, with work or without
  std::uint64_t samples = 0;                // samples matched
  std::uint64_t matches = 0;                // raw matches, before the rules
  std::uint64_t events = 0;                 // events the rules produced
  std::uint64_t reloads = 0;                // configuration reloads applied
  std::uint64_t reloads_refused = 0;        // reloads refused (bad file), running config kept
  double last_batch_seconds = 0.0;          // matching + rules + publishing of the last batch
  double batch_seconds = 0.0;               // the same, summed over all batches
  std::size_t streams = 0, patterns = 0;    // in the Matcher now
  std::uint64_t unmatched_at_shutdown = 0;  // accepted, not matched within the grace
  // By pattern id, every pattern configured now (a reload drops the ones it removes).
  std::map<std::string, PatternMatches> pattern_matches;
  // Patterns configured now by their dims: a stream's pairs are those of its dims.
  std::map<std::size_t, std::size_t> patterns_by_dims;
  // Matches of exclusive libraries the nearest-template filter superseded, by library
  // (docs/spec.md §5.1).
  std::map<std::string, std::uint64_t, std::less<>> superseded;
  // Matches the filter holds, waiting for their stream to settle (docs/spec.md §5.1).
  std::size_t held_matches = 0;
  // Events whose match ended before the arrivals kept (ArrivalLog): not in the latency
  // histogram.
  std::uint64_t untimed_events = 0;
  kernels::MatcherCounters matcher;
  std::vector<std::pair<std::string, alerting::RuleCounters>> rules;  // in configuration order
  // Checkpoints (state.dir): written and failed, and the last one written's duration (export,
  // encoding, the atomic write) and size.
  std::uint64_t checkpoints_written = 0, checkpoints_failed = 0;
  double last_checkpoint_seconds = 0.0;
  std::uint64_t last_checkpoint_bytes = 0;
};

// The process' resident memory against the configured budget.
struct MemoryReading {
  std::uint64_t resident_bytes = 0;
  std::uint64_t budget_bytes = 0;
};

// Resident set size of this process (/proc/self/statm); 0 where it cannot be read.
std::uint64_t resident_bytes();

// The buckets of the histograms of seconds (round duration, detection latency): 0.5 ms to
// 10 s in steps of 1, 2.5, 5 (docs/operations.md §7).
const prometheus::Histogram::BucketBoundaries& seconds_buckets();

// The event store and the recent history (daemon/service/store/).
struct StoreReading {
  std::uint64_t events = 0, event_bytes = 0, evicted = 0;
  std::uint64_t history_streams = 0, history_bytes = 0;
};

struct MetricsSnapshot {
  std::string instance, backend, version;
  stream::RegistrySnapshot ingest;
  stream::Backlog backlog;
  MemoryReading memory;
  alerting::PublisherCounters publisher;
  std::vector<alerting::SinkCounters> sinks;
  PipelineStats pipeline;
  // prometheus::Histogram::Collect() of the scheduler's rounds (those with work) and of the
  // events' detection latency.
  prometheus::ClientMetric round_duration, detection_latency;
  // The source plugins' families (plugins::SourcePlugin::families), in the registry's
  // order: after the backlog's.
  std::vector<prometheus::MetricFamily> sources;
  std::vector<stream::ZapCounters> auth;  // CURVE: the ZAP handler's answers per bound socket
  StoreReading store;
};

// The /metrics body. Counters end in _total; per-stream rejections are listed for the
// reasons that occurred (streams x reasons could be large), the totals for every reason.
std::string render_metrics(const MetricsSnapshot& snapshot);

}  // namespace warpwatch::service
