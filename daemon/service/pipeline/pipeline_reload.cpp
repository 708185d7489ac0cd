// Pipeline::reload (SIGHUP): the new configuration's streams, patterns, rules and log
// level, applied without losing the state of what did not change.
//
// A reload applies as a whole or not at all (docs/spec.md §6: a bad configuration keeps the
// running one). It runs in two phases:
// 1. Checks, before anything changes: the file is loaded and validated (ConfigError), then
//    everything that applying it would refuse is checked again here (the registry's
//    declarations, every pattern as the Matcher checks it) and the new rule engine is
//    built. A failure refuses the reload: logged, counted in reloads_refused, nothing
//    changed.
// 2. Applying: the registry, the Matcher's streams and patterns, then the rules (a pointer
//    swap). What can still throw here is not the file's doing (a backend that cannot take
//    a pair, out of memory). Both steps set the running state to a target configuration by
//    comparing with what the registry and the Matcher hold, not with the configuration
//    they were given last, so that running them again with the running configuration
//    restores it from any half-applied state: a failure rolls back that way, and is counted
//    as a refused reload. A lost device is not rolled back (there is nothing to restore
//    it on: warpwatchd exits for a restart), nor is a rollback that fails in turn (the
//    state is then unknown, and the daemon stops rather than match with it).
#include <map>
#include <set>

#include "pipeline_internal.hpp"
#include "warpwatch/base/stream_id.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/library_overlay.hpp"
#include "warpwatch/service/pipeline.hpp"

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

// What applying `next` would refuse: std::invalid_argument (or another exception) naming it.
// load_daemon_config checks all of it with file:line:column already; this holds for a
// configuration from anywhere, so that phase 2 does not meet a refusal halfway.
void check_live(const config::DaemonConfig& next) {
  // The registry's constructor checks the declarations and the admission options as
  // redeclare() does.
  const stream::StreamRegistry check(declared_streams(next), registry_options(next));
  std::set<std::string_view> ids;
  for (const auto& library : next.live.libraries)
    for (const auto& pattern : library.patterns) {
      kernels::check_pattern(pattern);
      if (!ids.insert(pattern.id).second)
        throw std::invalid_argument("pattern id '" + pattern.id + "' is declared twice");
    }
}

// "reload: patterns added: 'a', 'b'", a line per kind of change that happened.
void log_changes(const Logger& log, const config::LiveChanges& changes) {
  const std::pair<const char*, const config::NamedChanges*> kinds[] = {
      {"libraries", &changes.libraries},
      {"patterns", &changes.patterns},
      {"rules", &changes.rules},
  };
  for (const auto& [kind, c] : kinds)
    for (const auto& [what, names] :
         {std::pair{"added", &c->added}, std::pair{"changed", &c->changed},
          std::pair{"removed", &c->removed}}) {
      if (names->empty()) continue;
      std::string list;
      for (const std::string& name : *names)
        list += (list.empty() ? "'" : ", '") + stream::printable(name) + "'";
      log->info("reload: {} {}: {}", kind, what, list);
    }
}

}  // namespace

bool Pipeline::refuse_reload(std::string_view why) {
  log_->error("reload refused, keeping the running configuration: {}", why);
  last_refusal_ = why;
  const std::lock_guard lock(stats_mu_);
  ++stats_.reloads_refused;
  return false;
}

bool Pipeline::reload(const std::string& path) {
  config::DaemonConfig next;
  try {
    // The runtime changes of libraries (the overlay of state.dir) stay on top of the file.
    next = offline_ || config_.state_dir.empty() ? plugins::load_daemon_config(path)
                                                 : load_with_overlay(path, config_.state_dir);
  } catch (const std::exception& e) {
    return refuse_reload(e.what());
  }
  return reload(std::move(next));
}

bool Pipeline::reload(config::DaemonConfig next) {
  // Phase 1: checks; nothing changes.
  std::unique_ptr<alerting::RuleEngine> rules;
  try {
    check_live(next);
    rules = std::make_unique<alerting::RuleEngine>(next.live.rules, instance_);
  } catch (const std::exception& e) {
    return refuse_reload(e.what());
  }
  // Phase 2: applying.
  log_config_warnings(log_, next);
  std::vector<kernels::RawMatch> flushed;
  stream::StreamChanges streams;
  try {
    streams = reload_streams(next, flushed);
    reload_patterns(next.live.libraries, config_.live.libraries, flushed);
  } catch (const kernels::DeviceLost&) {
    throw;
  } catch (const std::exception& e) {
    log_->error("reload failed while applying it ({}): restoring the running configuration",
                e.what());
    reload_streams(config_, flushed);
    reload_patterns(config_.live.libraries, next.live.libraries, flushed);
    if (!flushed.empty()) publish(std::move(flushed), *rules_);
    refresh_stats();
    return refuse_reload(e.what());
  }
  if (!flushed.empty()) publish(std::move(flushed), *rules_);  // through the old rules
  // The samples of streams removed or restarted go after their last events were cut from
  // them; the events stay stored (published), each with its pattern as matched.
  for (const std::string& id : streams.removed) history_.drop(id);
  for (const auto& c : streams.changed) history_.drop(c.after->id);
  rules->carry_cooldowns_from(*rules_);  // rules kept by name keep their cooldowns
  rules->carry_counters_from(*rules_);   // and their /metrics counters
  rules_ = std::move(rules);
  set_exclusive(next.live.libraries);  // what a library no longer exclusive held passes
  track_patterns(next.live.libraries);
  const config::LiveChanges changes = config::live_changes(config_.live, next.live);
  log_changes(log_, changes);
  log_->info(
      "configuration reloaded: streams {} added, {} restarted, {} removed; patterns {} added, {} "
      "changed, {} removed; {} streams and {} patterns active",
      streams.added.size(), streams.changed.size(), streams.removed.size(),
      changes.patterns.added.size(), changes.patterns.changed.size(),
      changes.patterns.removed.size(), matcher_->stream_count(), matcher_->pattern_count());
  for (const std::string& option : config::startup_options_changed(config_, next))
    log_->warn("reload: '{}' changed in the file; it takes effect when warpwatchd restarts",
               option);
  if (security_) security_->reload(next.curve);  // the allowed CURVE clients: the rest waits
  if (http_) {  // a changed tokens file applies; listen, TLS and the limits wait
    http_->set_tokens(next.http.tokens);
    config_.http.tokens_file = next.http.tokens_file;
    config_.http.tokens = std::move(next.http.tokens);
  }
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
  // The registry compares with the declarations it holds.
  stream::IngestHub::Redeclared r = hub_->redeclare(declared_streams(next), registry_options(next));
  // Samples admitted under the old declarations belong to the old streams: match them
  // before those streams change (for a changed stream they have the old dims).
  process(std::move(r.queued));
  collect_all();  // streams and patterns change below: no batch may be outstanding
  const auto end_stream = [&](const std::string& id) {
    if (!matcher_->has_stream(id)) return;
    // Its pending candidates are final (docs/spec.md §3.1), and so are its held matches.
    auto f = end_of_stream(id, matcher_->remove_stream(id));
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

void Pipeline::reload_patterns(const std::vector<config::Library>& wanted_libraries,
                               const std::vector<config::Library>& other_libraries,
                               std::vector<kernels::RawMatch>& flushed) {
  // Patterns whose definition changed are replaced; unchanged ones keep their state. The
  // Matcher's patterns are what is compared (of the ids either configuration names), so
  // that this also restores a half-applied reload.
  std::map<std::string, const kernels::PatternDef*> wanted;
  for (const auto& lib : wanted_libraries)
    for (const auto& p : lib.patterns) wanted[p.id] = &p;
  std::set<std::string> removed;
  for (const auto* libraries : {&wanted_libraries, &other_libraries})
    for (const auto& lib : *libraries)
      for (const auto& p : lib.patterns) {
        const kernels::PatternRef have = matcher_->find_pattern(p.id);
        const auto it = wanted.find(p.id);
        if (have && (it == wanted.end() || !(*it->second == *have))) removed.insert(p.id);
      }
  for (const auto& id : removed) {
    auto f = take(matcher_->remove_pattern(id));
    flushed.insert(flushed.end(), f.begin(), f.end());
  }
  for (const auto& [id, p] : wanted)
    if (!matcher_->has_pattern(id)) matcher_->add_pattern(*p);
}

}  // namespace warpwatch::service
