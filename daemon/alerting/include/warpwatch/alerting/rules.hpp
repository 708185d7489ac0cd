// Alert rules (docs/spec.md §5): turn the Matcher's raw matches into events.
//
// A rule selects matches by globs on stream id, pattern id and library name (fnmatch(3)
// with no flags: '*', '?' and '[...]', whole string), may tighten the threshold, keeps a
// cooldown per (rule, stream), and names severity and labels. A match selected by several
// rules becomes one event per rule. Sequence numbers are left at 0: the publisher assigns
// them.
//
// Not thread-safe: apply() and the counters belong to one thread (the scheduler).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpwatch/alerting/event.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::alerting {

struct RuleCounters {
  std::uint64_t events = 0;              // events produced
  std::uint64_t dropped_cooldown = 0;    // selected, under threshold, inside the cooldown
  std::uint64_t filtered_threshold = 0;  // selected, distance above the rule's threshold
};

class RuleEngine {
 public:
  // `rules` as the configuration has them (it supplies the implicit rule "default" when the
  // file names none). What an event says of a match's pattern (library, metric, mode, its
  // own threshold) is read from the match's PatternDef, the one the Matcher matched with.
  RuleEngine(std::vector<config::Rule> rules, std::string instance);

  // One event per (match, selecting rule) that passes the threshold and the cooldown.
  //
  // Matches are taken in order of end_ns (stable, so the Matcher's order breaks ties),
  // and the cooldown is measured in stream time: an event is dropped when its end_ns is
  // less than `cooldown` away from the end_ns of the latest event this rule produced for
  // the stream (a cooldown of 0 drops nothing). Stream time, not wall clock, because
  // docs/spec.md §5 wants the same events for every chunking and replay rate. now_ns (wall
  // clock, ns since the epoch) only fills detected_ns.
  //
  std::vector<Event> apply(const std::vector<kernels::RawMatch>& matches, std::int64_t now_ns);

  // Hot reload: takes over the cooldowns of `previous`'s rules that have the same name
  // here, so a reload neither repeats an alert nor forgets a quiet period.
  void carry_cooldowns_from(const RuleEngine& previous);
  // A checkpoint's share of one stream (docs/operations.md §4): per rule name, the
  // end_ns of the latest event it produced for the stream; and the same given back after a
  // restart (names of rules that no longer exist are ignored), so that a restart neither
  // repeats an alert nor forgets a quiet period.
  std::vector<std::pair<std::string, std::int64_t>> cooldowns_of(std::string_view stream) const;
  void restore_cooldowns(std::string_view stream,
                         const std::vector<std::pair<std::string, std::int64_t>>& cooldowns);
  // Hot reload: rules kept by name keep counting from `previous`'s counters, so that the
  // /metrics counters of a rule do not restart at every reload.
  void carry_counters_from(const RuleEngine& previous);

  // The rules in effect (the implicit default included), in configuration order.
  const std::vector<config::Rule>& rules() const { return rules_; }
  // Counters per rule, aligned with rules().
  const std::vector<RuleCounters>& counters() const { return counters_; }
  // Counters of the rule named `rule`; zeros for an unknown name.
  RuleCounters counters(std::string_view rule) const;
  // Sums over all rules.
  RuleCounters totals() const;

 private:
  static bool selects(const config::Rule& rule, const kernels::RawMatch& match);

  std::vector<config::Rule> rules_;
  std::string instance_;
  std::vector<RuleCounters> counters_;
  // (rule index, stream id) -> end_ns of the last event produced.
  std::map<std::pair<std::size_t, std::string>, std::int64_t, std::less<>> last_event_ns_;
};

}  // namespace warpwatch::alerting
