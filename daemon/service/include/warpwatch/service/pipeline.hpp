// warpwatchd's pipeline (docs/architecture.md "Data flow"): sources -> IngestHub -> scheduler tick
// -> Matcher -> alert rules -> Publisher and alert sinks. Everything the daemon does, in-process,
// so that tests drive it without spawning a process; the signal handling lives in daemon.cpp.
#pragma once

#include <prometheus/histogram.h>
#include <zmq.hpp>

#include <atomic>
#include <chrono>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/alerting/event_sink.hpp"
#include "warpwatch/alerting/nearest_template.hpp"
#include "warpwatch/alerting/publisher.hpp"
#include "warpwatch/alerting/rules.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/plugins/source_plugin.hpp"
#include "warpwatch/service/arrival_log.hpp"
#include "warpwatch/service/checkpoint.hpp"
#include "warpwatch/service/event_store.hpp"
#include "warpwatch/service/http_server.hpp"
#include "warpwatch/service/kafka_state.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/service/metrics.hpp"
#include "warpwatch/service/recent_history.hpp"
#include "warpwatch/service/scheduler_requests.hpp"
#include "warpwatch/service/socket_security.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/source.hpp"

namespace warpwatch::service {

class LibraryEditor;  // library_editor.hpp: it holds the Pipeline

// What `backend: auto` is told of the work (kernels/backends.hpp): the declared streams'
// pairs with every library's patterns of their dims, and cpu_threads; the pairs are unknown
// when streams are auto-created. The backend is chosen once, at start: a reload keeps it
// (the pairs' matching state lives there).
kernels::WorkShape work_shape(const config::DaemonConfig& c);

struct PipelineSummary {
  std::uint64_t batches = 0, samples = 0, matches = 0, events = 0;
  std::uint64_t published = 0, dropped = 0, rejected = 0;
  std::uint64_t unmatched = 0;  // accepted samples the shutdown's grace did not match
};

// How a Pipeline runs. The daemon's is the default: every socket of the configuration.
struct PipelineOptions {
  // Offline (`warpwatch backtest`): the same matcher, rules, event ids and sequence numbers,
  // but nothing is bound, connected or written: the ingest sources, the publisher (its
  // endpoint and events file), the alert sinks, the metrics listener, CURVE and state.dir are
  // not made. The caller feeds hub() and calls run_queued(); events go to `sinks` only.
  bool offline = false;
  // In-process event sinks (the caller's, outliving the Pipeline): offered each round's
  // events, numbered, after the publisher and the alert sinks; stopped at shutdown.
  std::vector<alerting::EventSink*> sinks;
  // Offline: each stream's samples of a round, as they go to the Matcher (a backtest's report
  // draws them). Null: none.
  std::function<void(const stream::QueuedSamples&)> on_samples;
};

// One stream as GET /api/v1/streams lists it (Pipeline::streams_page).
struct StreamStatus {
  std::string id;
  std::size_t dims = 1;
  std::int64_t period_ns = 0;           // the nominal period (declared, or auto-created's)
  std::optional<std::int64_t> last_ns;  // the last accepted sample's time; none yet
  std::uint64_t samples = 0;            // accepted samples
  std::uint64_t backlog = 0;            // samples queued in the hub, not matched yet
  std::size_t patterns = 0;             // the stream's pairs: the patterns of its dims
  bool declared = false;                // or auto-created
};
struct StreamPage {
  std::vector<StreamStatus> streams;  // by id, from `offset`
  std::size_t total = 0;              // the streams that pass the filter
};

class Pipeline {
 public:
  // Builds everything and binds/connects every socket, the metrics listener included
  // (std::runtime_error naming the endpoint when that fails); sources start with start().
  // With options.offline, none of them (PipelineOptions).
  Pipeline(config::DaemonConfig config, Logger log, PipelineOptions options = {});
  ~Pipeline();

  void start();
  // One scheduler round: waits until a tick passes or a batch is full, then matches and
  // publishes at most scheduler.batch_samples of what arrived (the rest waits for the
  // next round, so that a round stays short under overload).
  void step();
  // Re-reads the configuration and applies its LiveConfig as a whole: stream declarations,
  // patterns and rules change in place (unchanged (stream, pattern) pairs keep their state;
  // a stream whose dims or period change is removed, its pending matches reported, and
  // added anew); the log level changes too. The rest (sockets, backend, scheduler,
  // publishing, instance) stays as started, and each such option the file changed is named
  // in a warning. On a bad file the running configuration stays, the error is logged and
  // false is returned.
  // The reload applies as a whole or not at all: everything that applying could refuse is
  // checked before anything changes, and a failure while applying (a backend out of
  // memory) restores the running configuration; either is logged, counted in
  // reloads_refused, and returns false (pipeline_reload.cpp says how). Only a lost device
  // (kernels::DeviceLost), or a restore that fails in turn, throws.
  bool reload(const std::string& path);
  // The same with a configuration already loaded (reload(path) loads the file, a refusal
  // of the file counted as above).
  bool reload(config::DaemonConfig next);
  // A reload refused before it reached the pipeline (its caller could not make the
  // configuration: LibraryEditor::reload): logged and counted as reload() refuses; false.
  bool refuse_reload(std::string_view why);
  // Why the last refused reload was refused ("" before any): for a caller on the
  // scheduler's thread that needs to say it (the library editor's answer).
  const std::string& last_reload_refusal() const { return last_refusal_; }
  // Work other threads hand the scheduler's thread (served in step() and while stopping;
  // scheduler_requests.hpp): the Kafka sources' cuts, the library editor's changes.
  SchedulerRequests& scheduler_requests() { return requests_; }
  // Every replay source has sent its whole file and its samples were matched.
  bool replays_done() const;
  // The ingest queues, for a caller that feeds samples itself (offline: a backtest's
  // recordings, through IngestHub::offer_samples or a line-protocol decoder).
  stream::IngestHub& hub() { return *hub_; }
  // Rounds of at most batch_samples, without waiting for a tick, until the hub holds nothing
  // (the streams that ended included); every batch is collected and its events offered.
  void run_queued();
  // Offline: per stream, the samples matched and the times of the first and the last (a
  // backtest's hours of recording); empty for the daemon's Pipeline.
  struct MatchedSpan {
    std::uint64_t samples = 0;
    std::int64_t first_ns = 0, last_ns = 0;
  };
  const std::map<std::string, MatchedSpan, std::less<>>& matched_spans() const { return spans_; }
  // The most samples a round takes now (scheduler.batch_samples, or the running backend's).
  std::size_t batch_samples() const { return batch_samples_; }
  // Stops ingest, matches what is queued for at most shutdown.drain_grace_ms (in rounds
  // of batch_samples; what is left then is counted and logged), reports the pending
  // candidates of what was matched (docs/spec.md §3.1), publishes with what is left of the
  // grace as the linger (the alert sinks deliver until the grace ends), and returns the
  // totals.
  PipelineSummary shutdown();
  // Stops ingest and matches nothing more: for when the Matcher cannot run any more (the
  // CUDA device is lost). What was queued is dropped; the destructor then does nothing.
  void abandon();

  // Matching state out of the daemon and into it (docs/operations.md §4; the
  // scheduler's thread only). export_streams matches everything queued in the hub first and
  // collects every batch outstanding, then exports each named stream the pipeline has
  // (unknown ids are skipped): its Matcher snapshot, its rules' cooldowns and its
  // validator's last timestamp. With `release` the streams then leave the registry (auto-
  // created ones), the hub and the Matcher WITHOUT reporting their pending candidates (they
  // travel with the state).
  std::vector<StreamRecord> export_streams(std::span<const std::string> ids, bool release);
  // Restores each record's stream where its definition is the one the registry has or
  // would auto-create: Matcher state (pairs of unchanged patterns; the others start fresh),
  // cooldowns, the validator going on after its last timestamp. Logs each pair that starts
  // fresh and each record refused, with the reason; returns the ids restored.
  std::vector<std::string> import_streams(std::vector<StreamRecord> records);
  // Writes <state.dir>/checkpoint.bin now (every stream, the publisher's sequence); a
  // failure is logged and counted, never thrown. False when it failed or state.dir is off.
  bool checkpoint();

  // The configuration in effect (after the last successful reload).
  const config::DaemonConfig& config() const { return config_; }
  // "" offline (no publisher).
  const std::string& publish_endpoint() const;
  // The addresses the ZeroMQ `pull`/`sub` and `influx` sources bound or connected (wildcard
  // ports resolved), in the configuration's order.
  std::vector<std::string> ingest_endpoints() const;
  const stream::StreamRegistry& registry() const { return *registry_; }
  const alerting::Publisher& publisher() const;  // not offline
  // The last event's sequence number (0 before the first; after a restart from a checkpoint,
  // the checkpoint's to begin with).
  std::uint64_t last_sequence() const { return sequence_.last(); }
  std::string backend_name() const { return std::string(matcher_->name()); }
  // Scheduler rounds run so far (step(), run_queued()'s rounds, the shutdown's), with work or
  // without; thread-safe. A library change records the round it was asked in and the one it
  // was applied in (LibraryEditor::history).
  std::uint64_t rounds() const { return rounds_.load(); }

  // Monitoring; thread-safe (the metrics server calls them from its own threads).
  PipelineStats stats() const;
  MetricsSnapshot metrics_snapshot() const;
  std::vector<alerting::SinkCounters> sink_counters() const;  // in `sinks:` order
  // The running sources of the ingest entries of `kind` ("mqtt"), in configuration order.
  std::vector<const stream::Source*> sources_of(std::string_view kind) const;
  // nullopt while healthy: started, not shut down, and a scheduler round finished within
  // metrics.stale_after_ms; otherwise why not.
  std::optional<std::string> unhealthy() const;
  // nullopt while ready to take input: the configuration is loaded (a Pipeline exists only
  // then), it is started and not shut down, and every ingest source is connected
  // (Source::connected); otherwise why not, naming the sources that are not.
  std::optional<std::string> unready() const;
  // The port the HTTP server listens on; 0 when http.listen is "".
  int http_port() const { return http_ ? http_->port() : 0; }
  // At most `limit` streams by id from `offset` among those whose id contains `q` ("" = all),
  // and how many pass; thread-safe (the HTTP server's threads call it).
  StreamPage streams_page(std::size_t offset, std::size_t limit, std::string_view q) const;
  // The last events published, with their segments and patterns (`event_store:`), and each
  // stream's last samples (`history:`); thread-safe, for the API's threads
  // (daemon/service/store/).
  const EventStore& event_store() const { return events_; }
  const RecentHistory& history() const { return history_; }
  // The runtime changes of libraries the API's /api/v1/libraries routes make (warpwatchd's
  // editor, set once it is built; none: those routes answer 503); thread-safe.
  void set_library_editor(std::shared_ptr<LibraryEditor> editor);
  std::shared_ptr<LibraryEditor> library_editor() const;

 private:
  // One round: takes what the hub queued and processes it; a round with work is timed
  // (warpwatch_round_duration_seconds).
  void run_batch();
  // Submits the batch to the Matcher, flushes ended streams, and publishes the matches of
  // every batch collected. A batch is left on the device (collected next round) only when
  // the next round's samples are already waiting, so that its kernels overlap their packing.
  void process(stream::IngestBatch batch);
  void collect_one();  // the oldest submitted batch: collected, its matches published
  // With scheduler.batch_samples 0, rounds take the size of the backend that ran the last
  // batch (auto moves batches between the cpu and the device).
  void follow_running_backend();
  void collect_all();  // before the Matcher's streams or patterns change, and at shutdown
  // reload()'s parts: each matches or flushes what the old definitions still owe and
  // appends those matches to `flushed` (published through the old rules).
  // Sets the registry's and the Matcher's streams to `next`'s declarations.
  stream::StreamChanges reload_streams(const config::DaemonConfig& next,
                                       std::vector<kernels::RawMatch>& flushed);
  // Sets the Matcher's patterns to `wanted` (comparing the Matcher's patterns of the ids
  // that `wanted` or `other` names): changed and removed ones are flushed and removed,
  // new ones added.
  void reload_patterns(const std::vector<config::Library>& wanted,
                       const std::vector<config::Library>& other,
                       std::vector<kernels::RawMatch>& flushed);
  void add_patterns(const std::vector<config::Library>& libraries);
  // Where a batch of matches comes from: a batch collected from the Matcher (its events
  // are timed from their last sample's arrival), or a flush at the end of some input (they
  // waited for that end, not for matching: not timed).
  enum class MatchOrigin { collected, flushed };
  // Every match the Matcher reports goes through here first: counted (raw matches, per
  // pattern), then offered to the nearest-template filter (docs/spec.md §5.1), which holds
  // those of exclusive libraries; returns the others.
  std::vector<kernels::RawMatch> take(std::vector<kernels::RawMatch> raw);
  // The end of a stream's input for the filter: the stream left the Matcher (its pending
  // candidates taken); its held matches decided. Returns what passes.
  std::vector<kernels::RawMatch> end_of_stream(const std::string& id,
                                               std::vector<kernels::RawMatch> flushed);
  // Publishes matches that went through take(), with what the filter can decide now
  // (when no batch is outstanding: how far each stream holding matches is settled,
  // Matcher::settled_before; streams the Matcher no longer has are ended).
  void publish(std::vector<kernels::RawMatch> matches, alerting::RuleEngine& rules,
               MatchOrigin origin = MatchOrigin::flushed);
  // The filter's libraries from the configuration (start, reload); what a library no
  // longer exclusive held is published.
  void set_exclusive(const std::vector<config::Library>& libraries);
  // A restored stream's held matches given back to the filter (import_streams), each with
  // the pattern of its id configured now; one whose pattern is gone is logged and dropped.
  void restore_held(const kernels::StreamRef& stream, const std::vector<HeldMatch>& held);
  // Each event's pattern as matched: that of its match in `matches` (null where none is).
  static std::vector<kernels::PatternRef> patterns_of(
      const std::vector<alerting::SharedEvent>& events,
      const std::vector<kernels::RawMatch>& matches);
  // The detection latency of events just published.
  void time_events(const std::vector<alerting::Event>& events);
  // warpwatch_pattern_matches_total's series: one per pattern of `libraries`, those of
  // patterns still configured keeping their counts.
  void track_patterns(const std::vector<config::Library>& libraries);
  void refresh_stats();  // copies the scheduler's counters into stats_
  // export_streams without matching what is queued first (the periodic checkpoint: a round
  // boundary is consistent; what is queued is not in it).
  // `drained`: every accepted sample of the streams is matched (the hub's last timestamps are
  // then the states'); otherwise the records name no validator timestamp of their own, so that
  // samples still queued, never matched, are taken again after a restore.
  std::vector<StreamRecord> export_records(std::span<const std::string> ids, bool release,
                                           bool drained);
  // At start, with state.dir set: the checkpoint file restored, or refused (moved aside to
  // checkpoint.bin.bad) and the daemon started fresh.
  void restore_checkpoint();
  std::filesystem::path checkpoint_path() const;
  PipelineSummary summary() const;

  config::DaemonConfig config_;
  Logger log_;
  zmq::context_t context_;
  // CURVE and the ZAP handler of context_: made before the sockets, closed after them.
  std::unique_ptr<SocketSecurity> security_;
  std::unique_ptr<stream::StreamRegistry> registry_;
  std::unique_ptr<stream::IngestHub> hub_;
  std::unique_ptr<kernels::Matcher> matcher_;
  struct InFlight {  // a batch submitted to the Matcher and not collected yet
    std::uint64_t samples = 0;
    std::chrono::steady_clock::time_point began;
  };
  std::deque<InFlight> in_flight_;
  // Time publish() spent this round, and the thread's cpu time of it (the debug log's
  // round line: whether publishing computes or waits).
  double publish_ms_ = 0, publish_cpu_ms_ = 0;
  std::unique_ptr<alerting::RuleEngine> rules_;
  alerting::NearestTemplate nearest_;  // between the Matcher and the rules (publish())
  // Where events go, each round's offered to every one in order: the publisher (`publish:`)
  // first, then the alert sinks (`sinks:`, each with a thread). publisher_ and alert_sinks_
  // point into it, for what is theirs only (the endpoint, the counters).
  std::vector<std::unique_ptr<alerting::EventSink>> sinks_;
  alerting::Publisher* publisher_ = nullptr;  // null offline
  std::vector<alerting::AlertSink*> alert_sinks_;
  std::vector<alerting::EventSink*> caller_sinks_;  // PipelineOptions::sinks, after sinks_
  bool offline_ = false;
  std::function<void(const stream::QueuedSamples&)> on_samples_;  // offline only
  std::map<std::string, MatchedSpan, std::less<>> spans_;         // offline only
  alerting::EventSequence sequence_;  // the events' numbers; the checkpoint keeps the last
  // Work the Kafka sources' threads need done on the scheduler's (their cuts and restores),
  // served in step() and while the pipeline stops; the changelogs that ask for it. Both
  // outlive the sources (declared before them).
  SchedulerRequests requests_{nullptr};
  std::vector<std::unique_ptr<KafkaChangelog>> changelogs_;
  std::string last_refusal_;  // the scheduler's thread only
  // Each `ingest:` entry's source with the plugin that made it (its metrics, its shutdown).
  struct RunningSource {
    const plugins::SourcePlugin* plugin;
    std::unique_ptr<stream::Source> source;
  };
  std::vector<RunningSource> sources_;
  std::vector<std::string> ingest_endpoints_;  // of the socket sources, as bound
  std::vector<stream::Source*> replays_;       // the finite ones among sources_
  std::atomic<bool> replay_batches_done_{false};
  const std::string instance_;     // as started: /metrics reads it from other threads
  std::size_t batch_samples_ = 0;  // scheduler.batch_samples, or the running backend's
  mutable std::mutex stats_mu_;
  PipelineStats stats_;
  ArrivalLog arrivals_;  // the scheduler's thread only
  // What the API reads (thread-safe): each stream's last samples, fed every round as the
  // Matcher is; the events published, their segments cut from history_ (events_recorder_).
  RecentHistory history_{
      HistoryLimits{config_.history.samples_per_stream, config_.history.max_bytes}};
  EventStore events_{
      EventStoreLimits{config_.event_store.max_events, config_.event_store.max_bytes}};
  EventRecorder recorder_{events_, history_, config_.event_store.context_samples};
  // Observed by the scheduler's thread, collected by the metrics server's (each has a lock).
  prometheus::Histogram round_seconds_{seconds_buckets()};
  prometheus::Histogram latency_seconds_{seconds_buckets()};
  std::atomic<bool> running_{false};
  std::atomic<std::int64_t> last_round_ns_{0};  // steady clock
  std::atomic<std::uint64_t> rounds_{0};        // run_batch() calls
  std::atomic<bool> stopped_{false};
  std::chrono::steady_clock::time_point next_checkpoint_;  // state.checkpoint_ms's next
  mutable std::mutex editor_mu_;
  std::shared_ptr<LibraryEditor> editor_;  // set_library_editor's
  std::unique_ptr<http::Server> http_;     // last: stops serving before the rest goes
};

}  // namespace warpwatch::service
