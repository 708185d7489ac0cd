#include "warpwatch/daemon/pipeline.hpp"

#include <chrono>
#include <map>

#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::daemon {
namespace {

std::int64_t wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::vector<stream::DeclaredStream> declared(const config::DaemonConfig& c) {
  std::vector<stream::DeclaredStream> out;
  for (const auto& s : c.streams) out.push_back({s.id, s.dims, s.nominal_period_ns});
  return out;
}

}  // namespace

Pipeline::Pipeline(config::DaemonConfig config, Log log) : config_(std::move(config)), log_(std::move(log)) {
  stream::RegistryOptions options;
  options.auto_create = config_.auto_create_streams;
  options.max_auto_streams = config_.max_streams;
  options.auto_dims = config_.auto_dims;
  registry_ = std::make_unique<stream::StreamRegistry>(
      declared(config_), options,
      [this](std::string_view stream, stream::RejectReason reason, std::string_view detail) {
        log_("rejected input on stream '" + std::string(stream) + "': " + std::string(stream::to_string(reason)) +
             (detail.empty() ? "" : ": " + std::string(detail)));
      });
  hub_ = std::make_unique<IngestHub>(*registry_, config_.max_message_bytes);

  const auto requested = kernels::parse_backend(config_.backend).value_or(kernels::Backend::automatic);
  std::string why;
  const kernels::Backend backend = kernels::resolve_backend(requested, &why);
  if (!why.empty()) log_(why);
  matcher_ = kernels::make_matcher(backend, {config_.cpu_threads});
  for (const auto& s : config_.streams) matcher_->add_stream({s.id, s.dims, s.nominal_period_ns});
  add_patterns(config_.libraries);
  rules_ = std::make_unique<RuleEngine>(config_.rules, pattern_table(config_.libraries), config_.instance);

  PublisherOptions publish;
  publish.endpoint = config_.publish_endpoint;
  publish.send_high_water_mark = config_.send_high_water_mark;
  publish.events_file = config_.events_file;
  publish.log = log_;
  publish.linger = config_.drain_grace;  // on shutdown, queued events get this long to leave
  publisher_ = std::make_unique<Publisher>(context_, publish);

  for (const auto& source : config_.ingest) {
    if (source.kind == config::IngestSource::Kind::replay)
      replays_.push_back(std::make_unique<ReplaySource>(source, *hub_));
    else
      sockets_.push_back(std::make_unique<ZmqSource>(context_, source, *hub_, *registry_));
  }
}

Pipeline::~Pipeline() {
  if (stopped_) return;
  try {
    shutdown();
  } catch (const std::exception& e) {  // a destructor must not throw; say what was lost
    log_(std::string("shutdown failed: ") + e.what());
  }
}

void Pipeline::add_patterns(const std::vector<config::Library>& libraries) {
  for (const auto& library : libraries)
    for (const auto& pattern : library.patterns) matcher_->add_pattern(pattern);
}

std::vector<std::string> Pipeline::ingest_endpoints() const {
  std::vector<std::string> out;
  for (const auto& s : sockets_) out.push_back(s->endpoint());
  return out;
}

void Pipeline::start() {
  for (auto& s : sockets_) threads_.emplace_back([src = s.get()](std::stop_token st) { src->run(st); });
  for (auto& r : replays_) threads_.emplace_back([src = r.get()](std::stop_token st) { src->run(st); });
}

void Pipeline::publish(std::vector<kernels::RawMatch> matches, RuleEngine& rules) {
  summary_.matches += matches.size();
  std::vector<Event> events = rules.apply(matches, wall_clock_ns());
  summary_.events += events.size();
  publisher_->publish(events);
}

void Pipeline::run_batch() {
  IngestBatch batch = hub_->take();
  std::vector<kernels::StreamChunk> chunks;
  for (const PendingStream& p : batch.streams) {
    if (!matcher_->has_stream(p.id)) matcher_->add_stream({p.id, p.dims, p.nominal_period_ns});
    chunks.push_back({p.id, p.values, p.times_ns});
  }
  std::vector<kernels::RawMatch> matches;
  if (!chunks.empty()) {
    matches = matcher_->process(chunks);
    ++summary_.batches;
    summary_.samples += batch.samples;
  }
  // A finite input that ended: its pending candidates are final (SPEC.md 3.1).
  for (const std::string& id : batch.ended)
    if (matcher_->has_stream(id)) {
      auto flushed = matcher_->remove_stream(id);
      matches.insert(matches.end(), flushed.begin(), flushed.end());
    }
  if (!matches.empty()) publish(std::move(matches), *rules_);
  if (!replays_.empty() && !batch.ended.empty()) {
    bool all = true;
    for (const auto& r : replays_) all = all && r->done();
    replay_batches_done_ = all;
  }
}

void Pipeline::step() {
  hub_->wait(config_.batch_samples, std::chrono::steady_clock::now() + config_.tick);
  run_batch();
}

bool Pipeline::replays_done() const { return !replays_.empty() && replay_batches_done_.load(); }

void Pipeline::reload(const std::string& path) {
  config::DaemonConfig next;
  try {
    next = config::load_daemon_config(path);
  } catch (const std::exception& e) {
    log_(std::string("reload refused, keeping the running configuration: ") + e.what());
    return;
  }
  // Patterns whose definition changed are replaced; unchanged ones keep their state.
  std::map<std::string, const kernels::PatternDef*> wanted;
  for (const auto& lib : next.libraries)
    for (const auto& p : lib.patterns) wanted[p.id] = &p;
  std::vector<kernels::RawMatch> flushed;
  std::vector<std::string> removed;
  for (const auto& [id, current] : matcher_->patterns()) {
    const auto it = wanted.find(id);
    const bool same = it != wanted.end() && it->second->values == current.values &&
                      it->second->times == current.times && it->second->dims == current.dims &&
                      it->second->params == current.params;
    if (!same) removed.push_back(id);
  }
  for (const auto& id : removed) {
    auto f = matcher_->remove_pattern(id);
    flushed.insert(flushed.end(), f.begin(), f.end());
  }
  if (!flushed.empty()) publish(std::move(flushed), *rules_);  // through the old rules
  for (const auto& [id, p] : wanted)
    if (!matcher_->has_pattern(id)) matcher_->add_pattern(*p);
  auto rules = std::make_unique<RuleEngine>(next.rules, pattern_table(next.libraries), next.instance);
  rules->carry_cooldowns_from(*rules_);  // rules kept by name keep their cooldowns
  rules_ = std::move(rules);
  log_("configuration reloaded: " + std::to_string(removed.size()) + " pattern(s) replaced or removed, " +
       std::to_string(matcher_->patterns().size()) + " active");
  config_.libraries = std::move(next.libraries);
  config_.rules = std::move(next.rules);
}

PipelineSummary Pipeline::shutdown() {
  if (stopped_) return summary_;
  stopped_ = true;
  // Stop ingestion first, then drain what was accepted (fluent-bit's order).
  for (auto& t : threads_) t.request_stop();
  hub_->notify();
  threads_.clear();  // joins
  run_batch();
  publish(matcher_->flush(), *rules_);
  const auto counters = publisher_->counters();
  summary_.published = counters.published;
  summary_.dropped = counters.dropped;
  summary_.rejected = registry_->snapshot().rejected.total();
  return summary_;
}

}  // namespace warpwatch::daemon
