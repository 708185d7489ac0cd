// Alert rules: selection by globs, threshold, cooldown per (rule, stream), enrichment.
#include "warpwatch/alerting/rules.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "warpwatch/base/glob.hpp"

namespace warpwatch::alerting {
namespace {

// |a - b| < limit, without overflow for any two int64 timestamps.
bool closer_than(std::int64_t a, std::int64_t b, std::int64_t limit) {
  if (limit <= 0) return false;
  const std::uint64_t distance =
      a >= b ? static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b)
             : static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
  return distance < static_cast<std::uint64_t>(limit);
}

}  // namespace

RuleEngine::RuleEngine(std::vector<config::Rule> rules, std::string instance)
    : rules_(std::move(rules)), instance_(std::move(instance)), counters_(rules_.size()) {}

bool RuleEngine::selects(const config::Rule& rule, const kernels::RawMatch& match) {
  return stream::any_glob_matches(rule.streams, match.stream_id()) &&
         stream::any_glob_matches(rule.patterns, match.pattern_id()) &&
         stream::any_glob_matches(rule.libraries, match.pattern->library);
}

std::vector<Event> RuleEngine::apply(const std::vector<kernels::RawMatch>& matches,
                                     std::int64_t now_ns) {
  std::vector<const kernels::RawMatch*> ordered;
  ordered.reserve(matches.size());
  for (const auto& match : matches) ordered.push_back(&match);
  // Chronological, so the first event in stream time is the one that opens a cooldown.
  std::stable_sort(ordered.begin(), ordered.end(),
                   [](const auto* a, const auto* b) { return a->end_ns < b->end_ns; });

  std::vector<Event> events;
  for (const kernels::RawMatch* match : ordered) {
    const kernels::PatternDef& pattern = *match->pattern;
    for (std::size_t r = 0; r < rules_.size(); ++r) {
      const config::Rule& rule = rules_[r];
      if (!selects(rule, *match)) continue;
      // A rule can only tighten: the Matcher never reports above the pattern's own eps,
      // so the smaller of the two is the threshold that was in effect.
      const double own = pattern.params.threshold;
      const double threshold = rule.threshold ? std::min(*rule.threshold, own) : own;
      if (!(match->distance <= threshold)) {  // NaN never passes
        ++counters_[r].filtered_threshold;
        continue;
      }
      const auto key = std::make_pair(r, match->stream_id());
      const auto last = last_event_ns_.find(key);
      const std::int64_t cooldown_ns =
          std::chrono::duration_cast<std::chrono::nanoseconds>(rule.cooldown).count();
      // |difference|: a match of another pattern may end before the last event yet
      // arrive in a later batch (SPRING reports late); it is as close to that event.
      if (last != last_event_ns_.end() && closer_than(match->end_ns, last->second, cooldown_ns)) {
        ++counters_[r].dropped_cooldown;
        continue;
      }
      if (last == last_event_ns_.end()) {
        last_event_ns_.emplace(key, match->end_ns);
      } else {
        last->second = std::max(last->second, match->end_ns);
      }
      ++counters_[r].events;

      Event event;
      event.rule = rule.name;
      event.severity = std::string(config::to_string(rule.severity));
      event.stream = match->stream_id();
      event.library = pattern.library;
      event.pattern = match->pattern_id();
      event.metric = std::string(kernels::to_string(pattern.params.distance.metric));
      event.mode = std::string(kernels::to_string(pattern.params.mode));
      event.distance = match->distance;
      event.threshold = threshold;
      event.start_index = match->start_index;
      event.end_index = match->end_index;
      event.start_ns = match->start_ns;
      event.end_ns = match->end_ns;
      event.detected_ns = now_ns;
      event.instance = instance_;
      event.labels = rule.labels;
      event.resolve = rule.resolve;
      event.id = event_id(event.stream, event.pattern, event.start_index, event.end_index);
      events.push_back(std::move(event));
    }
  }
  return events;
}

void RuleEngine::carry_cooldowns_from(const RuleEngine& previous) {
  for (const auto& [key, last_ns] : previous.last_event_ns_) {
    const std::string& name = previous.rules_[key.first].name;
    for (std::size_t r = 0; r < rules_.size(); ++r) {
      if (rules_[r].name == name)
        last_event_ns_.insert_or_assign(std::make_pair(r, key.second), last_ns);
    }
  }
}

std::vector<std::pair<std::string, std::int64_t>> RuleEngine::cooldowns_of(
    std::string_view stream) const {
  std::vector<std::pair<std::string, std::int64_t>> out;
  for (std::size_t r = 0; r < rules_.size(); ++r) {
    const auto it = last_event_ns_.find(std::make_pair(r, std::string(stream)));
    if (it != last_event_ns_.end()) out.emplace_back(rules_[r].name, it->second);
  }
  return out;
}

void RuleEngine::restore_cooldowns(
    std::string_view stream, const std::vector<std::pair<std::string, std::int64_t>>& cooldowns) {
  for (const auto& [name, last_ns] : cooldowns)
    for (std::size_t r = 0; r < rules_.size(); ++r)
      if (rules_[r].name == name)
        last_event_ns_.insert_or_assign(std::make_pair(r, std::string(stream)), last_ns);
}

void RuleEngine::carry_counters_from(const RuleEngine& previous) {
  for (std::size_t r = 0; r < rules_.size(); ++r) counters_[r] = previous.counters(rules_[r].name);
}

RuleCounters RuleEngine::counters(std::string_view rule) const {
  RuleCounters sum;
  for (std::size_t r = 0; r < rules_.size(); ++r) {
    if (rules_[r].name != rule) continue;
    sum.events += counters_[r].events;
    sum.dropped_cooldown += counters_[r].dropped_cooldown;
    sum.filtered_threshold += counters_[r].filtered_threshold;
  }
  return sum;
}

RuleCounters RuleEngine::totals() const {
  RuleCounters sum;
  for (const auto& c : counters_) {
    sum.events += c.events;
    sum.dropped_cooldown += c.dropped_cooldown;
    sum.filtered_threshold += c.filtered_threshold;
  }
  return sum;
}

}  // namespace warpwatch::alerting
