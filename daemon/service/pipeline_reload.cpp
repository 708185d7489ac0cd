// Pipeline::reload (SIGHUP): the new configuration's streams, patterns, rules and log
// level, applied without losing the state of what did not change.
#include <map>

#include "pipeline_internal.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/stream/stream_id.hpp"

namespace warpwatch::service {
namespace {

std::string describe_change(const stream::StreamChanges::Changed& c) {
  std::string out;
  const stream::StreamDef &before = *c.before, &after = *c.after;
  if (before.dims != after.dims)
    out += "dims " + std::to_string(before.dims) + " -> " + std::to_string(after.dims);
  if (before.nominal_period_ns != after.nominal_period_ns) {
    if (!out.empty()) out += ", ";
    out += "period " + std::to_string(before.nominal_period_ns) + " ns -> " +
           std::to_string(after.nominal_period_ns) + " ns";
  }
  return out;
}

}  // namespace

bool Pipeline::reload(const std::string& path) {
  config::DaemonConfig next;
  try {
    next = config::load_daemon_config(path);
  } catch (const std::exception& e) {
    log_->error("reload refused, keeping the running configuration: {}", e.what());
    const std::lock_guard lock(stats_mu_);
    ++stats_.reloads_refused;
    return false;
  }
  std::vector<kernels::RawMatch> flushed;
  const stream::StreamChanges streams = reload_streams(next, flushed);
  const std::size_t replaced = reload_patterns(next, flushed);
  if (!flushed.empty()) publish(std::move(flushed), *rules_);  // through the old rules
  auto rules = std::make_unique<alerting::RuleEngine>(next.live.rules, instance_);
  rules->carry_cooldowns_from(*rules_);  // rules kept by name keep their cooldowns
  rules->carry_counters_from(*rules_);   // and their /metrics counters
  rules_ = std::move(rules);
  track_patterns(next.live.libraries);
  log_->info(
      "configuration reloaded: streams {} added, {} restarted, {} removed; {} pattern(s) replaced "
      "or removed; {} streams and {} patterns active",
      streams.added.size(), streams.changed.size(), streams.removed.size(), replaced,
      matcher_->stream_count(), matcher_->pattern_count());
  for (const std::string& option : config::startup_options_changed(config_, next))
    log_->warn("reload: '{}' changed in the file; it takes effect when warpwatchd restarts",
               option);
  security_->reload(next.curve);  // the allowed CURVE clients: the rest of `curve` waits
  config_.live = std::move(next.live);
  {
    const std::lock_guard lock(stats_mu_);
    ++stats_.reloads;
  }
  refresh_stats();
  return true;
}

stream::StreamChanges Pipeline::reload_streams(const config::DaemonConfig& next,
                                               std::vector<kernels::RawMatch>& flushed) {
  stream::IngestHub::Redeclared r = hub_->redeclare(declared_streams(next), registry_options(next));
  // Samples admitted under the old declarations belong to the old streams: match them
  // before those streams change (for a changed stream they have the old dims).
  process(std::move(r.queued));
  collect_all();  // streams and patterns change below: no batch may be outstanding
  const auto end_stream = [&](const std::string& id) {
    if (!matcher_->has_stream(id)) return;
    auto f = matcher_->remove_stream(id);  // its pending candidates are final (SPEC.md 3.1)
    flushed.insert(flushed.end(), f.begin(), f.end());
    arrivals_.forget(id);  // a stream added again starts at sample index 0
  };
  for (const std::string& id : r.changes.removed) {
    end_stream(id);
    // Ids are escaped (printable()): an auto-created one was chosen by a peer.
    log_->info("stream '{}' removed by the reload: its pending matches are reported",
               stream::printable(id));
  }
  for (const auto& c : r.changes.changed) {
    end_stream(c.after->id);
    matcher_->add_stream(c.after);
    log_->info(
        "stream '{}' restarted by the reload ({}): its pending matches are reported, its sample "
        "indices start again at 0",
        stream::printable(c.after->id), describe_change(c));
  }
  for (const auto& d : r.changes.added) {
    // An id that was auto-created and is now declared with the same shape is in the
    // Matcher already, and keeps its state.
    if (!matcher_->has_stream(d->id)) matcher_->add_stream(d);
    log_->info("stream '{}' added by the reload ({} dims)", stream::printable(d->id), d->dims);
  }
  return std::move(r.changes);
}

std::size_t Pipeline::reload_patterns(const config::DaemonConfig& next,
                                      std::vector<kernels::RawMatch>& flushed) {
  // Patterns whose definition changed are replaced; unchanged ones keep their state.
  std::map<std::string, const kernels::PatternDef*> wanted;
  for (const auto& lib : next.live.libraries)
    for (const auto& p : lib.patterns) wanted[p.id] = &p;
  std::vector<std::string> removed;
  for (const auto& lib : config_.live.libraries)
    for (const auto& p : lib.patterns) {
      const auto it = wanted.find(p.id);
      if (it == wanted.end() || !(*it->second == p)) removed.push_back(p.id);
    }
  for (const auto& id : removed) {
    auto f = matcher_->remove_pattern(id);
    flushed.insert(flushed.end(), f.begin(), f.end());
  }
  for (const auto& [id, p] : wanted)
    if (!matcher_->has_pattern(id)) matcher_->add_pattern(*p);
  return removed.size();
}

}  // namespace warpwatch::service
