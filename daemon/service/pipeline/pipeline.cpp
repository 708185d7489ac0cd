#include "warpwatch/service/pipeline.hpp"

#include <fmt/ranges.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "pipeline_internal.hpp"
#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/api_routes.hpp"

namespace warpwatch::service {
namespace {

double thread_cpu_ms() {  // this thread's cpu time
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::vector<stream::StreamDef> declared_streams(const config::DaemonConfig& c) {
  std::vector<stream::StreamDef> out;
  for (const auto& s : c.live.streams) out.push_back(s.def);
  return out;
}

void log_config_warnings(const Logger& log, const config::DaemonConfig& c) {
  for (const config::ConfigWarning& w : c.warnings)
    log->warn("{}: {}", config::format_location(w.where), w.message);
}

stream::RegistryOptions registry_options(const config::DaemonConfig& c) {
  stream::RegistryOptions options;
  options.auto_create = c.live.auto_create_streams;
  options.max_auto_streams = c.live.max_streams;
  options.auto_dims = c.live.auto_dims;
  options.auto_period_ns = c.live.auto_period_ns;
  options.max_rate_hz = c.live.max_stream_rate_hz;
  options.max_burst = c.live.max_stream_burst;
  return options;
}

kernels::WorkShape work_shape(const config::DaemonConfig& c) {
  kernels::WorkShape shape{.pairs = std::nullopt, .cpu_threads = c.cpu_threads};
  if (c.live.auto_create_streams) return shape;  // how many streams will come is not known
  shape.pairs = 0;
  for (const auto& s : c.live.streams)
    for (const auto& library : c.live.libraries)
      for (const auto& p : library.patterns) kernels::count_pair(shape, p, s.def.dims);
  return shape;
}

Pipeline::Pipeline(config::DaemonConfig config, Logger log, PipelineOptions options)
    : config_(std::move(config)),
      log_(log ? std::move(log) : stderr_logger()),
      caller_sinks_(std::move(options.sinks)),
      offline_(options.offline),
      on_samples_(options.offline ? std::move(options.on_samples) : nullptr),
      instance_(config_.instance) {
  if (options.offline) {  // nothing of the daemon's outside world: no state, no listener
    config_.state_dir.clear();
    config_.http.listen.clear();
  }
  log_config_warnings(log_, config_);
  registry_ = std::make_unique<stream::StreamRegistry>(
      declared_streams(config_), registry_options(config_),
      [this](std::string_view stream, stream::RejectReason reason, std::string_view detail) {
        // Rate-limited by the registry (docs/ingest.md §9): at most one line per
        // (stream or peer, reason) every 10 s, so a flood of bad input cannot flood the log.
        // Input without an id (a non-ZeroMQ peer, a line without a measurement) has its
        // peer in the detail.
        if (stream.empty())
          log_->warn("rejected input without a stream id: {}{}{}", stream::to_string(reason),
                     detail.empty() ? "" : ": ", detail);
        else
          log_->warn("rejected input on stream '{}': {}{}{}", stream, stream::to_string(reason),
                     detail.empty() ? "" : ": ", detail);
      });
  hub_ = std::make_unique<stream::IngestHub>(
      *registry_, stream::QueueLimits{config_.max_message_bytes, config_.queue_bytes,
                                      config_.stream_queue_bytes});
  log_->info(
      "ingest limits: queue {} bytes ({} per stream), messages of at most {} bytes, {} queued "
      "per producer in libzmq; memory budget {} bytes",
      config_.queue_bytes, config_.stream_queue_bytes, config_.max_message_bytes,
      config_.receive_high_water_mark, config_.memory_budget_bytes);

  std::string why;
  const kernels::WorkShape shape = work_shape(config_);
  const kernels::Backend backend = kernels::resolve_backend(config_.backend, shape, &why);
  if (!why.empty()) log_->info("{}", why);
  matcher_ = kernels::make_matcher(
      config_.backend,
      {.cpu_threads = config_.cpu_threads, .shape = shape, .devices = config_.cuda_devices});
  batch_samples_ = config::batch_samples_for(config_.batch_samples, backend);
  log_->info("scheduler: rounds of at most {} samples every {} ms{}", batch_samples_,
             config_.tick.count(),
             config_.batch_samples ? "" : " (scheduler.batch_samples 0: the backend's)");
  // The registry's definitions of the declared streams (the same objects its batches carry).
  for (const auto& s : config_.live.streams) matcher_->add_stream(registry_->find(s.def.id));
  add_patterns(config_.live.libraries);
  track_patterns(config_.live.libraries);
  rules_ = std::make_unique<alerting::RuleEngine>(config_.live.rules, config_.instance);
  set_exclusive(config_.live.libraries);
  if (options.offline) {
    refresh_stats();
    return;  // no socket, no sink, no source: the caller feeds hub()
  }

  security_ = std::make_unique<SocketSecurity>(context_, config_.curve, log_);
  alerting::PublisherOptions publish;
  publish.endpoint = config_.publish_endpoint;
  publish.send_high_water_mark = config_.send_high_water_mark;
  publish.events_file = config_.events_file;
  publish.log = log_;
  publish.linger = config_.drain_grace;  // on shutdown, queued events get this long to leave
  publish.curve = security_->server("publish");
  auto publisher = std::make_unique<alerting::Publisher>(context_, publish);
  publisher_ = publisher.get();
  sinks_.push_back(std::move(publisher));
  security_->bound("publish", "publish " + publisher_->endpoint(), publisher_->endpoint());
  if (!config_.state_dir.empty()) restore_checkpoint();  // before any source starts
  // Each entry's sink, made by its kind's plugin (daemon/plugins/, registry.hpp).
  for (const config::SinkConfig& entry : config_.sinks) {
    const plugins::SinkPlugin& plugin = plugins::sink_plugin(entry.kind);
    auto alert_sink = plugin.make(entry, log_);
    alert_sinks_.push_back(alert_sink.get());
    sinks_.push_back(std::move(alert_sink));
    log_->info("alert sink '{}': rules {}, queue {} events, {}", entry.sink.name,
               fmt::join(entry.sink.rules, ","), entry.sink.queue, plugin.destination(entry));
  }

  // Each entry's source, made by its kind's plugin (daemon/plugins/, registry.hpp).
  for (std::size_t i = 0; i < config_.ingest.size(); ++i) {
    const config::IngestSource& entry = config_.ingest[i];
    const plugins::SourcePlugin& plugin = plugins::source_plugin(entry.kind);
    const plugins::SourceContext context{
        .config = config_,
        .index = i,
        .hub = *hub_,
        .zmq = context_,
        .log = log_,
        .curve_server = [this](const std::string& domain) { return security_->server(domain); },
        .curve_client = [this](const std::string& key) { return security_->client(key); },
        .bound = [this](const std::string& domain, const std::string& name,
                        const std::string& endpoint) { security_->bound(domain, name, endpoint); },
        .state_store = [this]() -> stream::KafkaStateStore* {
          changelogs_.push_back(std::make_unique<KafkaChangelog>(*this, requests_, log_));
          return changelogs_.back().get();
        }};
    plugins::MadeSource made = plugin.make(entry, context);
    if (made.endpoint) ingest_endpoints_.push_back(std::move(*made.endpoint));
    if (plugin.finite) replays_.push_back(made.source.get());
    sources_.push_back({&plugin, std::move(made.source)});
  }
  refresh_stats();
  if (!config_.http.listen.empty()) {
    http_ = std::make_unique<http::Server>(config_.http, http::daemon_routes(*this), log_);
    log_->info(
        "serving HTTP{} on {} (port {}): /metrics, /healthz, /readyz, /api/v1/{}",
        config_.http.tls() ? "S" : "", config_.http.listen, http_->port(),
        config_.http.tokens.empty() ? " (no tokens file: every caller may do everything)" : "");
  }
}

Pipeline::~Pipeline() {
  if (stopped_) return;
  try {
    shutdown();
  } catch (const std::exception& e) {  // a destructor must not throw; say what was lost
    log_->error("shutdown failed: {}", e.what());
  }
}

void Pipeline::set_library_editor(std::shared_ptr<LibraryEditor> editor) {
  const std::lock_guard lock(editor_mu_);
  editor_ = std::move(editor);
}

std::shared_ptr<LibraryEditor> Pipeline::library_editor() const {
  const std::lock_guard lock(editor_mu_);
  return editor_;
}

void Pipeline::add_patterns(const std::vector<config::Library>& libraries) {
  for (const auto& library : libraries)
    for (const auto& pattern : library.patterns) matcher_->add_pattern(pattern);
}

const std::string& Pipeline::publish_endpoint() const {
  static const std::string none;
  return publisher_ ? publisher_->endpoint() : none;
}

const alerting::Publisher& Pipeline::publisher() const {
  WW_ASSERT(publisher_, "an offline Pipeline has no publisher");
  return *publisher_;
}

std::vector<std::string> Pipeline::ingest_endpoints() const {
  return ingest_endpoints_;
}

void Pipeline::start() {
  last_round_ns_ = steady_ns();
  running_ = true;
  for (auto& [plugin, source] : sources_) {
    log_->info("ingest: {}", source->describe());
    source->start();
  }
}

void Pipeline::track_patterns(const std::vector<config::Library>& libraries) {
  std::map<std::string, PatternMatches> tracked;
  const std::lock_guard lock(stats_mu_);
  stats_.patterns_by_dims.clear();
  for (const auto& library : libraries)
    for (const auto& p : library.patterns) ++stats_.patterns_by_dims[p.dims];
  for (const auto& library : libraries)
    for (const auto& p : library.patterns) {
      const auto kept = stats_.pattern_matches.find(p.id);
      PatternMatches entry;
      if (kept != stats_.pattern_matches.end()) entry = kept->second;
      entry.library = library.name;
      entry.dims = p.dims;
      tracked[p.id] = std::move(entry);
    }
  stats_.pattern_matches = std::move(tracked);
}

std::vector<kernels::RawMatch> Pipeline::take(std::vector<kernels::RawMatch> raw) {
  {
    const std::lock_guard lock(stats_mu_);
    stats_.matches += raw.size();
    for (const kernels::RawMatch& m : raw) {
      // A pattern a reload removed still owes its flushed matches; the next
      // track_patterns() drops it.
      const auto [it, added] = stats_.pattern_matches.try_emplace(m.pattern_id());
      if (added) {
        it->second.library = m.pattern->library;
        it->second.dims = m.pattern->dims;
      }
      ++it->second.matches;
    }
  }
  if (!nearest_.active()) return raw;
  std::vector<kernels::RawMatch> passed;
  nearest_.offer(std::move(raw), passed);
  return passed;
}

std::vector<kernels::RawMatch> Pipeline::end_of_stream(const std::string& id,
                                                       std::vector<kernels::RawMatch> flushed) {
  std::vector<kernels::RawMatch> out = take(std::move(flushed));
  nearest_.flush(id, out);
  return out;
}

void Pipeline::set_exclusive(const std::vector<config::Library>& libraries) {
  std::set<std::string, std::less<>> exclusive;
  for (const config::Library& library : libraries)
    if (library.exclusive) exclusive.insert(library.name);
  std::vector<kernels::RawMatch> released;
  nearest_.set_exclusive(std::move(exclusive), released);
  if (!released.empty()) publish(std::move(released), *rules_);
}

void Pipeline::publish(std::vector<kernels::RawMatch> matches, alerting::RuleEngine& rules,
                       MatchOrigin origin) {
  const auto began = std::chrono::steady_clock::now();
  const double cpu_before = thread_cpu_ms();
  if (nearest_.held_count() > 0 && matcher_->outstanding() == 0) {
    // What the filter can decide now: one question to the Matcher for all its streams.
    std::vector<std::string> settle, gone;
    for (std::string& id : nearest_.holding())
      (matcher_->has_stream(id) ? settle : gone).push_back(std::move(id));
    for (const std::string& id : gone) nearest_.flush(id, matches);
    const std::vector<std::uint64_t> settled = matcher_->settled_before(settle);
    for (std::size_t k = 0; k < settle.size(); ++k) nearest_.settle(settle[k], settled[k], matches);
  }
  std::vector<alerting::Event> events = rules.apply(matches, stream::wall_clock_ns());
  sequence_.assign(events);
  if (origin == MatchOrigin::collected) time_events(events);
  const std::size_t produced = events.size();
  if (!events.empty()) {
    // Shared by every sink (the publisher, the alert sinks' queues): numbered already.
    std::vector<alerting::SharedEvent> shared;
    shared.reserve(events.size());
    for (alerting::Event& event : events)
      shared.push_back(std::make_shared<const alerting::Event>(std::move(event)));
    for (auto& sink : sinks_) sink->offer(shared);
    for (alerting::EventSink* sink : caller_sinks_) sink->offer(shared);
    if (events_.enabled()) recorder_.record(shared, patterns_of(shared, matches));
  }
  publish_cpu_ms_ += thread_cpu_ms() - cpu_before;
  publish_ms_ +=
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  const std::lock_guard lock(stats_mu_);
  stats_.events += produced;
  stats_.superseded = nearest_.superseded();
  stats_.held_matches = nearest_.held_count();
}

std::vector<kernels::PatternRef> Pipeline::patterns_of(
    const std::vector<alerting::SharedEvent>& events,
    const std::vector<kernels::RawMatch>& matches) {
  // Each event's match by (pattern, stream, start, end): the pattern it was matched with
  // (one publish may hold matches of a pattern's old and new definitions, across a reload).
  const auto key = [](const kernels::RawMatch* m) {
    return std::tie(m->pattern_id(), m->stream_id(), m->start_index, m->end_index);
  };
  std::vector<const kernels::RawMatch*> sorted;
  sorted.reserve(matches.size());
  for (const kernels::RawMatch& m : matches) sorted.push_back(&m);
  std::sort(
      sorted.begin(), sorted.end(),
      [&](const kernels::RawMatch* a, const kernels::RawMatch* b) { return key(a) < key(b); });
  std::vector<kernels::PatternRef> out;
  out.reserve(events.size());
  for (const alerting::SharedEvent& e : events) {
    const auto wanted = std::tie(e->pattern, e->stream, e->start_index, e->end_index);
    const auto it =
        std::lower_bound(sorted.begin(), sorted.end(), wanted,
                         [&](const kernels::RawMatch* m, const auto& w) { return key(m) < w; });
    out.push_back(it != sorted.end() && key(*it) == wanted ? (*it)->pattern : nullptr);
  }
  return out;
}

void Pipeline::time_events(const std::vector<alerting::Event>& events) {
  const auto published = ArrivalLog::Clock::now();
  std::uint64_t untimed = 0;
  for (const alerting::Event& e : events) {
    if (const auto arrived = arrivals_.arrival(e.stream, e.end_index))
      latency_seconds_.Observe(std::chrono::duration<double>(published - *arrived).count());
    else
      ++untimed;
  }
  if (untimed == 0) return;
  const std::lock_guard lock(stats_mu_);
  stats_.untimed_events += untimed;
}

void Pipeline::refresh_stats() {
  const kernels::MatcherCounters matcher = matcher_->counters();
  std::vector<std::pair<std::string, alerting::RuleCounters>> rules;
  for (std::size_t r = 0; r < rules_->rules().size(); ++r)
    rules.emplace_back(rules_->rules()[r].name, rules_->counters()[r]);
  const std::lock_guard lock(stats_mu_);
  stats_.matcher = matcher;
  stats_.rounds = rounds_;
  stats_.rules = std::move(rules);
  stats_.streams = matcher_->stream_count();
  stats_.patterns = matcher_->pattern_count();
}

PipelineStats Pipeline::stats() const {
  const std::lock_guard lock(stats_mu_);
  return stats_;
}

std::vector<alerting::SinkCounters> Pipeline::sink_counters() const {
  std::vector<alerting::SinkCounters> out;
  for (const alerting::AlertSink* sink : alert_sinks_) out.push_back(sink->counters());
  return out;
}

std::vector<const stream::Source*> Pipeline::sources_of(std::string_view kind) const {
  std::vector<const stream::Source*> out;
  for (const auto& [plugin, source] : sources_)
    if (plugin->config.name == kind) out.push_back(source.get());
  return out;
}

MetricsSnapshot Pipeline::metrics_snapshot() const {
  // Each kind's families over its sources, in the registry's order.
  plugins::MetricFamilies source_families;
  for (const plugins::SourcePlugin* plugin : plugins::source_plugins())
    if (plugin->families) plugin->families(source_families, sources_of(plugin->config.name));
  return {instance_,
          backend_name(),
          WARPWATCH_VERSION,
          registry_->snapshot(),
          hub_->backlog(),
          MemoryReading{resident_bytes(), config_.memory_budget_bytes},
          publisher_ ? publisher_->counters() : alerting::PublisherCounters{},
          sink_counters(),
          stats(),
          round_seconds_.Collect(),
          latency_seconds_.Collect(),
          source_families.take(),
          security_ ? security_->counters() : std::vector<stream::ZapCounters>{},
          StoreReading{events_.size(), events_.bytes(), events_.evicted(), history_.streams(),
                       history_.bytes()}};
}

StreamPage Pipeline::streams_page(std::size_t offset, std::size_t limit, std::string_view q) const {
  const stream::RegistrySnapshot snapshot = registry_->snapshot();  // by id
  std::map<std::size_t, std::size_t> patterns_by_dims;
  {
    const std::lock_guard lock(stats_mu_);
    patterns_by_dims = stats_.patterns_by_dims;
  }
  StreamPage page;
  for (const stream::StreamCounters& c : snapshot.streams) {
    if (!q.empty() && c.stream->id.find(q) == std::string::npos) continue;
    const std::size_t index = page.total++;
    if (index < offset || page.streams.size() >= limit) continue;
    StreamStatus s;
    s.id = c.stream->id;
    s.dims = c.stream->dims;
    s.period_ns = c.stream->nominal_period_ns;
    s.last_ns = hub_->last_timestamp_ns(s.id);
    s.samples = c.accepted_samples;
    s.backlog = hub_->queued_samples(s.id);
    const auto it = patterns_by_dims.find(s.dims);
    s.patterns = it == patterns_by_dims.end() ? 0 : it->second;
    s.declared = c.declared;
    page.streams.push_back(std::move(s));
  }
  return page;
}

std::optional<std::string> Pipeline::unhealthy() const {
  if (!running_) return stopped_ ? "stopped" : "not started";
  const auto age = std::chrono::nanoseconds(steady_ns() - last_round_ns_.load());
  if (age > config_.metrics_stale_after)
    return "scheduler stalled: last round " +
           std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(age).count()) +
           " ms ago";
  return std::nullopt;
}

std::optional<std::string> Pipeline::unready() const {
  if (!running_) return stopped_ ? "stopped" : "not started";
  std::string why;
  for (const auto& [plugin, source] : sources_)
    if (!source->connected())
      why += (why.empty() ? "" : "; ") + ("source '" + source->describe() + "' not connected");
  if (why.empty()) return std::nullopt;
  return why;
}

void Pipeline::run_batch() {
  ++rounds_;
  const auto began = std::chrono::steady_clock::now();
  const bool collects = !in_flight_.empty();  // a batch left running in the round before
  stream::IngestBatch batch = hub_->take(batch_samples_);
  const bool work = collects || batch.samples > 0 || !batch.ended.empty();
  process(std::move(batch));
  if (work)
    round_seconds_.Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
}

void Pipeline::process(stream::IngestBatch batch) {
  // Where a round's time goes, for the debug log (a round of the first second of 10,000
  // new streams on the device matched almost nothing: which phase?).
  using Clock = std::chrono::steady_clock;
  const auto round_began = Clock::now();
  const auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  double drain_ms = 0, add_ms = 0, submit_ms = 0;
  publish_ms_ = publish_cpu_ms_ = 0;  // all of this round's publishing
  // A stream new to the Matcher, or one that ended, changes its streams: not while batches
  // are outstanding.
  // One lookup per stream (a round of 10,000 streams spent milliseconds on lookups).
  std::vector<const stream::QueuedSamples*> added;
  for (const stream::QueuedSamples& q : batch.streams)
    if (!matcher_->has_stream(q.stream->id)) added.push_back(&q);
  if (!added.empty() || !batch.ended.empty()) {
    const auto t = Clock::now();
    collect_all();
    drain_ms = ms_since(t);
  }
  {
    const auto t = Clock::now();
    for (const stream::QueuedSamples* q : added) matcher_->add_stream(q->stream);
    add_ms = ms_since(t);
  }
  std::vector<kernels::StreamChunk> chunks;
  chunks.reserve(batch.streams.size());
  std::map<std::size_t, std::uint64_t> samples_by_dims;  // each pattern's: those of its dims
  for (const stream::QueuedSamples& q : batch.streams) {
    chunks.push_back({q.stream->id, q.values, q.times_ns});
    samples_by_dims[q.stream->dims] += q.times_ns.size();
    if (offline_ && !q.times_ns.empty()) {
      MatchedSpan& span = spans_[q.stream->id];
      if (span.samples == 0) span.first_ns = q.times_ns.front();
      span.samples += q.times_ns.size();
      span.last_ns = q.times_ns.back();
      if (on_samples_) on_samples_(q);
    }
    arrivals_.record(q.stream->id, batch.arrivals_of(q));
  }
  history_.append(batch.streams);  // before this round's events are cut from it
  if (!chunks.empty()) {
    const auto began = Clock::now();
    matcher_->submit(chunks);  // the samples are copied out of `batch` here
    in_flight_.push_back({batch.samples, began});
    {
      const std::lock_guard lock(stats_mu_);
      for (auto& [id, p] : stats_.pattern_matches) {
        const auto it = samples_by_dims.find(p.dims);
        if (it != samples_by_dims.end()) p.samples += it->second;
      }
    }
    submit_ms = ms_since(began);
    follow_running_backend();
  }
  if (!batch.ended.empty()) {
    collect_all();
    // A finite input that ended: its pending candidates are final (docs/spec.md §3.1).
    std::vector<kernels::RawMatch> flushed;
    for (const std::string& id : batch.ended)
      if (matcher_->has_stream(id)) {
        auto f = end_of_stream(id, matcher_->remove_stream(id));
        flushed.insert(flushed.end(), f.begin(), f.end());
        arrivals_.forget(id);
      }
    if (!flushed.empty()) publish(std::move(flushed), *rules_);
    for (const std::string& id : batch.ended) history_.drop(id);  // after its last events
  }
  // The newest batch stays on the device while the next round is taken only when a whole
  // next round is already queued (under load: the next wait returns at once); otherwise it
  // is collected now, so a light input never waits a tick for its events.
  // Matches the nearest-template filter holds are decided only with no batch outstanding
  // (Matcher::settled_before): then every round collects all.
  const std::size_t keep =
      hub_->queued_samples() >= batch_samples_ && nearest_.held_count() == 0 ? 1 : 0;
  const auto collect_began = Clock::now();
  while (in_flight_.size() > keep) collect_one();
  const double collect_ms = ms_since(collect_began);
  refresh_stats();
  log_->debug(
      "round: {} samples of {} streams ({} new) in {:.2f} ms: drain before adding {:.2f}, "
      "adding {:.2f}, submit {:.2f}, collect {:.2f} ms; publishing in "
      "all {:.2f}, {:.2f} of it on the cpu; {} batch(es) left in flight",
      batch.samples, batch.streams.size(), added.size(), ms_since(round_began), drain_ms, add_ms,
      submit_ms, collect_ms, publish_ms_, publish_cpu_ms_, in_flight_.size());
  if (!replays_.empty() && !batch.ended.empty()) {
    bool all = true;
    for (const stream::Source* replay : replays_) all = all && replay->finished();
    replay_batches_done_ = all;
  }
  hub_->recycle(std::move(batch));  // its vectors hold the next rounds' samples
}

void Pipeline::follow_running_backend() {
  if (config_.batch_samples) return;  // configured: kept whatever runs the batches
  const std::string_view running = matcher_->running_backend();
  const std::size_t samples =
      config::batch_samples_for(0, kernels::parse_backend(running).value_or(kernels::Backend::cpu));
  if (samples == batch_samples_) return;
  log_->info("scheduler: batches now run on the {} backend: rounds of at most {} samples", running,
             samples);
  batch_samples_ = samples;
}

void Pipeline::collect_one() {
  const InFlight batch = in_flight_.front();
  in_flight_.pop_front();
  std::vector<kernels::RawMatch> matches = take(matcher_->collect());
  if (!matches.empty() || nearest_.held_count() > 0)
    publish(std::move(matches), *rules_, MatchOrigin::collected);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - batch.began).count();
  const std::lock_guard lock(stats_mu_);
  ++stats_.batches;
  stats_.samples += batch.samples;
  stats_.last_batch_seconds = seconds;
  stats_.batch_seconds += seconds;
}

void Pipeline::collect_all() {
  while (!in_flight_.empty()) collect_one();
}

void Pipeline::step() {
  requests_.serve();
  hub_->wait(batch_samples_, std::chrono::steady_clock::now() + config_.tick);
  requests_.serve();  // a request that came meanwhile waits at most a tick
  run_batch();
  if (!config_.state_dir.empty() && config_.checkpoint_interval.count() > 0) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_checkpoint_) {
      if (next_checkpoint_ != std::chrono::steady_clock::time_point{}) checkpoint();
      next_checkpoint_ = now + config_.checkpoint_interval;
    }
  }
  last_round_ns_ = steady_ns();
}

void Pipeline::run_queued() {
  do run_batch();  // at least one round: it takes the streams that ended
  while (hub_->queued_samples() > 0);
  collect_all();
}

bool Pipeline::replays_done() const {
  return !replays_.empty() && replay_batches_done_.load();
}

PipelineSummary Pipeline::shutdown() {
  if (stopped_) return summary();
  const auto began = std::chrono::steady_clock::now();
  const auto deadline = began + config_.drain_grace;
  running_ = false;  // /healthz says so from here on
  stopped_ = true;
  // Stop ingestion first, then drain what was accepted for the grace period (fluent-bit's
  // order). A source takes what its socket holds while the queue has room, no more.
  hub_->notify();
  // A Kafka source cuts the state of its partitions as it leaves its group: its requests
  // are served while it leaves (for the grace and 10 s more at most), then refused.
  for (auto& [plugin, source] : sources_)
    if (plugin->begin_leaving) plugin->begin_leaving(*source);
  const auto leave_by = deadline + std::chrono::seconds(10);
  const auto leaving = [&] {
    return std::any_of(sources_.begin(), sources_.end(), [](const RunningSource& s) {
      return s.plugin->leaving && s.plugin->leaving(*s.source);
    });
  };
  while (leaving() && std::chrono::steady_clock::now() < leave_by)
    requests_.serve_for(std::chrono::milliseconds(10));
  requests_.close();
  for (auto& [plugin, source] : sources_) source->stop();
  // Match in bounded rounds while the grace lasts; a round begun before the deadline
  // runs to its end.
  while (hub_->queued_samples() > 0 && std::chrono::steady_clock::now() < deadline) run_batch();
  collect_all();
  const stream::IngestBatch left = hub_->take_all();
  if (left.samples > 0) {
    const std::lock_guard lock(stats_mu_);
    stats_.unmatched_at_shutdown += left.samples;
    log_->warn(
        "shutdown: {} accepted samples of {} streams were not matched within "
        "shutdown.drain_grace_ms ({} ms); their matches are lost",
        left.samples, left.streams.size(), config_.drain_grace.count());
  }
  if (config_.state_dir.empty()) {
    // Pending candidates of what was matched are final (docs/spec.md §3.1).
    std::vector<kernels::RawMatch> matches = take(matcher_->flush());
    nearest_.flush(matches);  // the end of every stream's input
    publish(std::move(matches), *rules_);
  } else {
    // They go on after the restart instead: a flush would report occurrences that have not
    // ended (the restart reports each once, when it ends).
    checkpoint();
  }
  refresh_stats();
  // Queued events get what is left of the grace to reach subscribers, no more; the alert
  // sinks deliver in parallel (a thread each) until the same deadline.
  for (auto& sink : sinks_) sink->stop(deadline);
  for (alerting::EventSink* sink : caller_sinks_) sink->stop(deadline);
  return summary();
}

void Pipeline::abandon() {
  running_ = false;
  stopped_ = true;
  requests_.close();  // a Kafka source's last cut is refused: nothing is matched any more
  hub_->notify();
  for (auto& [plugin, source] : sources_) source->stop();
  // The alert sinks give up at once; the publisher keeps its linger (drain_grace_ms) for
  // what it sent already.
  for (alerting::AlertSink* sink : alert_sinks_) sink->stop(std::chrono::steady_clock::now());
}

PipelineSummary Pipeline::summary() const {
  const PipelineStats s = stats();
  const auto counters = publisher_ ? publisher_->counters() : alerting::PublisherCounters{};
  return {s.batches,
          s.samples,
          s.matches,
          s.events,
          counters.published,
          counters.dropped,
          registry_->snapshot().rejected.total(),
          s.unmatched_at_shutdown};
}

}  // namespace warpwatch::service
