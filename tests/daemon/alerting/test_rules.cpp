// Alert rules (daemon/alerting/rules.cpp): selection by globs, threshold override, cooldown
// per (rule, stream) in stream time, one event per selecting rule, exact counters; what an
// event says of a pattern comes from the PatternDef the match carries.
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/alerting/rules.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using warpwatch::alerting::Event;
using warpwatch::alerting::RuleEngine;
using warpwatch::config::Rule;
using warpwatch::kernels::Metric;
using warpwatch::kernels::Mode;
using warpwatch::kernels::PatternDef;
using warpwatch::kernels::PatternRef;
using warpwatch::kernels::RawMatch;
using namespace std::chrono_literals;

constexpr std::int64_t kSecond = 1'000'000'000;

PatternRef make(std::string id, std::string library, Metric metric, Mode mode, double threshold) {
  PatternDef p;
  p.id = std::move(id);
  p.library = std::move(library);
  p.params.distance.metric = metric;
  p.params.mode = mode;
  p.params.threshold = threshold;
  return warpwatch::kernels::make_pattern(std::move(p));
}

// The patterns the matches below come from, by id.
PatternRef pattern(const std::string& id) {
  static const std::map<std::string, PatternRef> all = {
      {"spike", make("spike", "shapes", Metric::dtw, Mode::stream, 5.0)},
      {"spike2", make("spike2", "shapes", Metric::dk, Mode::stream, 5.0)},
      {"ramp", make("ramp", "trends", Metric::twed, Mode::window, 2.0)}};
  return all.at(id);
}

RawMatch match(std::string stream, PatternRef p, double distance, std::int64_t end_s,
               std::uint64_t end_index = 10) {
  return {warpwatch::stream::make_stream({std::move(stream), 1, kSecond}),
          std::move(p),
          distance,
          end_index - 4,
          end_index,
          (end_s - 4) * kSecond,
          end_s * kSecond};
}

RawMatch match(std::string stream, const std::string& pattern_id, double distance,
               std::int64_t end_s, std::uint64_t end_index = 10) {
  return match(std::move(stream), pattern(pattern_id), distance, end_s, end_index);
}

Rule rule(std::string name, std::vector<std::string> streams = {"*"},
          std::vector<std::string> pattern_globs = {"*"},
          std::vector<std::string> libraries = {"*"}) {
  Rule r;
  r.name = std::move(name);
  r.streams = std::move(streams);
  r.patterns = std::move(pattern_globs);
  r.libraries = std::move(libraries);
  return r;
}

std::vector<std::string> rules_of(const std::vector<Event>& events) {
  std::vector<std::string> names;
  for (const auto& e : events) names.push_back(e.rule + ":" + e.stream + ":" + e.pattern);
  return names;
}

TEST(Rules, NoRulesMeansOneDefaultRuleForEverything) {
  // The configuration supplies the implicit rule when the file has none.
  const warpwatch::testing::TempDir dir;
  const auto config =
      warpwatch::plugins::load_daemon_config(dir.write("c.yaml", "instance: node-1\n"));
  RuleEngine engine(config.live.rules, "node-1");
  ASSERT_EQ(engine.rules().size(), 1u);
  EXPECT_EQ(engine.rules()[0].name, "default");
  const auto events =
      engine.apply({match("a", "spike", 1.5, 100), match("b/c", "ramp", 0.5, 101)}, 42);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].severity, "info");
  EXPECT_EQ(events[1].rule, "default");
  EXPECT_EQ(engine.counters("default").events, 2u);
}

TEST(Rules, EventIsFilledFromMatchPatternAndRule) {
  Rule r = rule("hot");
  r.severity = warpwatch::config::Severity::critical;
  r.labels = {{"site", "plant-7"}, {"team", "ops"}};
  r.resolve = std::chrono::milliseconds(90000);
  RuleEngine engine({r}, "node-1");
  const auto events = engine.apply({match("pump.3", "ramp", 1.25, 100, 57)}, 123456789);
  ASSERT_EQ(events.size(), 1u);
  const Event& e = events[0];
  EXPECT_EQ(e.rule, "hot");
  EXPECT_EQ(e.severity, "critical");
  EXPECT_EQ(e.stream, "pump.3");
  EXPECT_EQ(e.library, "trends");
  EXPECT_EQ(e.pattern, "ramp");
  EXPECT_EQ(e.metric, "twed");
  EXPECT_EQ(e.mode, "window");
  EXPECT_EQ(e.distance, 1.25);
  EXPECT_EQ(e.threshold, 2.0);  // the pattern's own: the rule sets none
  EXPECT_EQ(e.start_index, 53u);
  EXPECT_EQ(e.end_index, 57u);
  EXPECT_EQ(e.start_ns, 96 * kSecond);
  EXPECT_EQ(e.end_ns, 100 * kSecond);
  EXPECT_EQ(e.detected_ns, 123456789);
  EXPECT_EQ(e.sequence, 0u);  // the publisher numbers events
  EXPECT_EQ(e.instance, "node-1");
  EXPECT_EQ(e.labels, r.labels);
  EXPECT_EQ(e.resolve.count(), 90000);                  // for the alert sinks
  EXPECT_EQ(e.id, "9b62b90061bef11267bdb5d5457443a7");  // event_id (Python's hashlib)
}

TEST(Rules, StreamPatternAndLibraryGlobsSelectWholeStrings) {
  RuleEngine engine(
      {rule("pumps", {"pump.*", "fan?"}), rule("spikes", {"*"}, {"spike*"}),
       rule("trends", {"*"}, {"*"}, {"tr[e]nds"}), rule("exact", {"pump"}, {"spike"})},
      "i");
  const auto events = engine.apply(
      {match("pump.1", "spike", 1, 1), match("fan7", "ramp", 1, 2), match("fan77", "spike2", 1, 3),
       match("pump", "spike", 1, 4), match("xpump.1", "ramp", 1, 5)},
      0);
  EXPECT_EQ(rules_of(events), (std::vector<std::string>{
                                  "pumps:pump.1:spike", "spikes:pump.1:spike", "pumps:fan7:ramp",
                                  "trends:fan7:ramp", "spikes:fan77:spike2", "spikes:pump:spike",
                                  "exact:pump:spike", "trends:xpump.1:ramp"}));
  EXPECT_EQ(engine.counters("pumps").events, 2u);
  EXPECT_EQ(engine.counters("spikes").events, 3u);
  EXPECT_EQ(engine.counters("trends").events, 2u);
  EXPECT_EQ(engine.counters("exact").events, 1u);
  EXPECT_EQ(engine.totals().events, 8u);
}

TEST(Rules, SlashAndDotAreOrdinaryCharactersInGlobs) {
  RuleEngine engine({rule("r", {"*.temp"})}, "i");
  EXPECT_EQ(engine.apply({match("site/a/.temp", "spike", 1, 1)}, 0).size(), 1u);
  EXPECT_EQ(engine.apply({match("site/a/temp", "spike", 1, 2)}, 0).size(), 0u);
}

TEST(Rules, ThresholdOverrideKeepsOnlyCloseMatchesAndReportsEffectiveThreshold) {
  Rule strict = rule("strict");
  strict.threshold = 1.0;
  Rule loose = rule("loose");
  loose.threshold = 100.0;  // cannot loosen the pattern's own 5.0
  RuleEngine engine({strict, loose}, "i");
  const auto events = engine.apply({match("s", "spike", 0.5, 1), match("s", "spike", 1.0, 2),
                                    match("s", "spike", 1.5, 3), match("s", "spike", 7.0, 4)},
                                   0);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(rules_of(events),
            (std::vector<std::string>{"strict:s:spike", "loose:s:spike", "strict:s:spike",
                                      "loose:s:spike", "loose:s:spike"}));
  EXPECT_EQ(events[0].threshold, 1.0);
  EXPECT_EQ(events[2].distance, 1.0);  // distance == threshold qualifies
  EXPECT_EQ(events[1].threshold, 5.0);
  EXPECT_EQ(engine.counters("strict").events, 2u);
  EXPECT_EQ(engine.counters("strict").filtered_threshold, 2u);
  EXPECT_EQ(engine.counters("loose").events, 3u);
  EXPECT_EQ(engine.counters("loose").filtered_threshold, 1u);
  EXPECT_EQ(engine.totals().filtered_threshold, 3u);
}

TEST(Rules, CooldownIsPerRuleAndStreamInStreamTime) {
  Rule slow = rule("slow");
  slow.cooldown = 10s;
  Rule fast = rule("fast");  // no cooldown
  RuleEngine engine({slow, fast}, "i");
  // Stream a: ends at 100 (kept), 105 (dropped), 109.999 (dropped), 110 (kept: exactly 10 s
  // after the last event), 115 (dropped). Stream b is independent: 101 (kept), 111 (kept).
  const std::int64_t late = 110 * kSecond - 1;
  auto ev = engine.apply(
      {match("a", "spike", 1, 100), match("b", "spike", 1, 101), match("a", "spike", 1, 105)}, 0);
  EXPECT_EQ(rules_of(ev), (std::vector<std::string>{"slow:a:spike", "fast:a:spike", "slow:b:spike",
                                                    "fast:b:spike", "fast:a:spike"}));
  RawMatch almost = match("a", "spike", 1, 0);
  almost.end_ns = late;
  ev = engine.apply({almost, match("a", "spike", 1, 110), match("b", "ramp", 1, 111),
                     match("a", "spike", 1, 115)},
                    0);
  EXPECT_EQ(rules_of(ev), (std::vector<std::string>{"fast:a:spike", "slow:a:spike", "fast:a:spike",
                                                    "slow:b:ramp", "fast:b:ramp", "fast:a:spike"}));
  EXPECT_EQ(engine.counters("slow").events, 4u);
  EXPECT_EQ(engine.counters("slow").dropped_cooldown, 3u);
  EXPECT_EQ(engine.counters("fast").events, 7u);
  EXPECT_EQ(engine.counters("fast").dropped_cooldown, 0u);
}

TEST(Rules, CooldownTakesABatchInStreamTimeOrder) {
  Rule r = rule("r");
  r.cooldown = 10s;
  RuleEngine engine({r}, "i");
  // The Matcher orders by pattern before end time: "ramp" at 103 comes before "spike" at
  // 100, yet the earlier one in stream time opens the cooldown.
  const auto ev = engine.apply({match("s", "ramp", 1, 103), match("s", "spike", 1, 100)}, 0);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].pattern, "spike");
  // A late report that ends just before the last event is inside the cooldown too.
  EXPECT_TRUE(engine.apply({match("s", "spike2", 1, 95)}, 0).empty());
  EXPECT_EQ(engine.counters("r").dropped_cooldown, 2u);
}

TEST(Rules, ThresholdFilteredMatchDoesNotStartACooldown) {
  Rule r = rule("r");
  r.cooldown = 10s;
  r.threshold = 1.0;
  RuleEngine engine({r}, "i");
  const auto ev = engine.apply({match("s", "spike", 3.0, 100), match("s", "spike", 0.5, 101)}, 0);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].end_ns, 101 * kSecond);
  EXPECT_EQ(engine.counters("r").filtered_threshold, 1u);
  EXPECT_EQ(engine.counters("r").dropped_cooldown, 0u);
}

TEST(Rules, SeveralRulesOnOneMatchGiveOneEventEach) {
  Rule a = rule("a");
  a.severity = warpwatch::config::Severity::warning;
  Rule b = rule("b", {"s*"});
  b.severity = warpwatch::config::Severity::critical;
  b.labels = {{"k", "v"}};
  Rule c = rule("c", {"other"});
  RuleEngine engine({a, b, c}, "i");
  const auto ev = engine.apply({match("s1", "spike", 1, 1)}, 7);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].rule, "a");
  EXPECT_EQ(ev[0].severity, "warning");
  EXPECT_TRUE(ev[0].labels.empty());
  EXPECT_EQ(ev[1].rule, "b");
  EXPECT_EQ(ev[1].severity, "critical");
  EXPECT_EQ(ev[1].labels.at("k"), "v");
  EXPECT_EQ(engine.counters()[2].events, 0u);
}

TEST(Rules, EventsDescribeThePatternTheMatchWasFoundWith) {
  // After a reload replaced "spike", the flushed match of the old definition and a match of
  // the new one share the id but not the library or threshold: each event says its own.
  RuleEngine engine({rule("r")}, "i");
  const PatternRef before = make("spike", "old-lib", Metric::dtw, Mode::stream, 5.0);
  const PatternRef after = make("spike", "new-lib", Metric::dk, Mode::stream, 2.0);
  const auto ev = engine.apply({match("s", before, 1.0, 100), match("s", after, 1.5, 101)}, 0);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].library, "old-lib");
  EXPECT_EQ(ev[0].threshold, 5.0);
  EXPECT_EQ(ev[0].metric, "dtw");
  EXPECT_EQ(ev[1].library, "new-lib");
  EXPECT_EQ(ev[1].threshold, 2.0);
  EXPECT_EQ(ev[1].metric, "dk");
}

TEST(Rules, ReloadCarriesCooldownsOfRulesWithTheSameName) {
  Rule kept = rule("kept");
  kept.cooldown = 10s;
  Rule gone = rule("gone");
  gone.cooldown = 10s;
  RuleEngine old_engine({kept, gone}, "i");
  ASSERT_EQ(old_engine.apply({match("s", "spike", 1, 100)}, 0).size(), 2u);

  Rule fresh = rule("fresh");
  fresh.cooldown = 10s;
  RuleEngine engine({fresh, kept}, "i");
  engine.carry_cooldowns_from(old_engine);
  const auto ev = engine.apply({match("s", "spike", 1, 105)}, 0);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].rule, "fresh");
  EXPECT_EQ(engine.counters("kept").dropped_cooldown, 1u);
}

TEST(Rules, EmptyBatchGivesNoEvents) {
  RuleEngine engine({}, "i");
  EXPECT_TRUE(engine.apply({}, 0).empty());
  EXPECT_EQ(engine.counters("unknown").events, 0u);
}

TEST(Rules, EachPatternNamesItsLibrary) {
  const warpwatch::testing::TempDir dir;
  const auto config = warpwatch::plugins::load_daemon_config(
      dir.write("c.yaml",
                "streams: {declared: [{id: s}]}\nlibraries:\n  - name: shapes\n    defaults: "
                "{threshold: 3.5, metric: softdtw, mode: window}\n"
                "    patterns:\n      - {id: w, values: [0, 1, 0]}\n"));
  ASSERT_EQ(config.live.libraries.size(), 1u);
  RuleEngine engine(config.live.rules, "i");
  const auto ev = engine.apply(
      {match("s", warpwatch::kernels::make_pattern(config.live.libraries[0].patterns[0]), 1.0,
             100)},
      0);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].library, "shapes");
  EXPECT_EQ(ev[0].metric, "softdtw");
  EXPECT_EQ(ev[0].mode, "window");
  EXPECT_EQ(ev[0].threshold, 3.5);
}

}  // namespace
