// Pipeline::reload (SIGHUP) in-process: stream declarations added, removed and changed
// take effect, unchanged streams keep their matching state, a bad file changes nothing.
#include <gtest/gtest.h>
#include "warpwatch/plugins/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

// A configuration with the streams and patterns given as YAML list entries.
std::string config(const std::string& streams, const std::string& patterns) {
  return "instance: e2e\nbackend: cpu\ncpu_threads: 1\nscheduler: {tick_ms: 5}\n"
         "ingest:\n  - pull: \"tcp://127.0.0.1:*\"\n"
         "streams:\n  declared:\n" +
         streams +
         "libraries:\n  - name: shapes\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n"
         "    patterns:\n      - {id: blip, values: [5, -5]}\n" +
         patterns + "publish: {endpoint: \"tcp://127.0.0.1:*\"}\n";
}

const std::string kBefore = config(
    "    - {id: keep, dims: 1, period_ms: 10}\n"
    "    - {id: grow, dims: 1, period_ms: 10}\n"
    "    - {id: gone, dims: 1, period_ms: 10}\n",
    "");
// keep unchanged, grow 1 -> 2 dims, gone removed, new added; a 2-dim pattern for grow.
const std::string kAfter = config(
    "    - {id: keep, dims: 1, period_ms: 10}\n"
    "    - {id: grow, dims: 2, period_ms: 10}\n"
    "    - {id: new, dims: 1, period_ms: 10}\n",
    "      - {id: blip2, values: [[5, 5], [-5, -5]]}\n");

TEST(DaemonReload, StreamChangesTakeEffectAndUnchangedStreamsKeepState) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", kBefore);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  zmq::context_t ctx;
  Subscriber sub(ctx, pipeline.publish_endpoint());
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  // keep: the first half of a blip at index 2. grow, gone: a whole blip at 1-2, still a
  // pending candidate (a later sample could extend it), reported only by a flush.
  push.send("keep", stream::encode_frame(samples_at(0, {0, 0, 5}), false));
  push.send("grow", stream::encode_frame(samples_at(0, {0, 5, -5}), false));
  push.send("gone", stream::encode_frame(samples_at(0, {0, 5, -5}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().samples == 9; }, 5000ms, &sub))
      << log.joined();
  EXPECT_TRUE(sub.events.empty());

  dir.write("warpwatch.yaml", kAfter);
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  EXPECT_EQ(log.count("stream 'grow' restarted by the reload (dims 1 -> 2)"), 1u) << log.joined();
  EXPECT_EQ(log.count("stream 'gone' removed by the reload"), 1u) << log.joined();
  EXPECT_EQ(log.count("stream 'new' added by the reload (1 dims)"), 1u) << log.joined();
  EXPECT_EQ(log.count("configuration reloaded: streams 1 added, 1 restarted, 1 removed"), 1u)
      << log.joined();

  push.send("keep",
            stream::encode_frame(samples_at(3, {-5, 0, 0}), false));  // completes the blip at 2-3
  push.send("grow", stream::encode_frame(samples_at(100, {0, 0, 5, 5, -5, -5, 0, 0}, 2), false));
  push.send("grow",
            stream::encode_frame(samples_at(200, {1}), false));  // the old shape: wrong_dims
  push.send("gone", stream::encode_frame(samples_at(100, {1}), false));  // unknown_stream now
  push.send("new", stream::encode_frame(samples_at(0, {0, 5, -5, 0}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return sub.events.size() >= 5; }, 5000ms, &sub))
      << log.joined();
  pipeline.shutdown();
  sub.wait_for(6, 200ms);  // nothing more is due: the shutdown flush has no candidates left
  EXPECT_EQ(event_spans(sub.events),
            (std::vector<std::string>{"gone/blip [1,2]", "grow/blip [1,2]", "grow/blip2 [1,2]",
                                      "keep/blip [2,3]", "new/blip [1,2]"}));
  const auto ingest = pipeline.registry().snapshot();
  EXPECT_EQ(ingest.rejected[stream::RejectReason::wrong_dims], 1u);
  EXPECT_EQ(ingest.rejected[stream::RejectReason::unknown_stream], 1u);
  EXPECT_EQ(pipeline.stats().reloads, 1u);
  EXPECT_EQ(pipeline.stats().streams, 3u);  // keep, grow, new
}

// warpwatch_pattern_matches_total has a series per configured pattern: a reload keeps the
// counts of the patterns it keeps, starts new ones at 0 and drops the ones it removes.
TEST(DaemonReload, PatternMatchCountersFollowTheConfiguredPatterns) {
  TempDir dir;
  const std::string stream = "    - {id: keep, dims: 1, period_ms: 10}\n";
  const std::string path =
      dir.write("warpwatch.yaml", config(stream, "      - {id: bye, values: [3, -3, 3]}\n"));
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  push.send("keep", stream::encode_frame(samples_at(0, {0, 5, -5, 0, 0}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().matches == 1; }, 5000ms))
      << log.joined();
  const auto before = parse_prometheus_text(service::render_metrics(pipeline.metrics_snapshot()));
  EXPECT_EQ(before.at(R"(warpwatch_pattern_matches_total{library="shapes",pattern="blip"})"), 1);
  EXPECT_EQ(before.at(R"(warpwatch_pattern_matches_total{library="shapes",pattern="bye"})"), 0);

  dir.write("warpwatch.yaml", config(stream, "      - {id: hi, values: [2, -2, 2]}\n"));
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  const auto after = parse_prometheus_text(service::render_metrics(pipeline.metrics_snapshot()));
  EXPECT_EQ(after.at(R"(warpwatch_pattern_matches_total{library="shapes",pattern="blip"})"), 1);
  EXPECT_EQ(after.at(R"(warpwatch_pattern_matches_total{library="shapes",pattern="hi"})"), 0);
  EXPECT_EQ(after.count(R"(warpwatch_pattern_matches_total{library="shapes",pattern="bye"})"), 0u)
      << "a removed pattern's series goes";
  pipeline.shutdown();
}

// streams.auto_period_ms: the nominal period of auto-created streams; a reload's value
// applies to the streams created after it, those created before keep theirs.
TEST(DaemonReload, AutoCreatedStreamsTakeTheConfiguredPeriod) {
  TempDir dir;
  const auto auto_config = [](const std::string& period_ms) {
    std::string c = config("    - {id: keep, dims: 1, period_ms: 10}\n", "");
    c.replace(c.find("streams:\n"), 9,
              "streams:\n  auto_create: true\n  auto_period_ms: " + period_ms + "\n");
    return c;
  };
  const std::string path = dir.write("warpwatch.yaml", auto_config("2.5"));
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  push.send("first", stream::encode_frame(samples_at(0, {1, 2}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().samples == 2; }, 5000ms))
      << log.joined();
  ASSERT_NE(pipeline.registry().find("first"), nullptr);
  EXPECT_EQ(pipeline.registry().find("first")->nominal_period_ns, 2'500'000);
  EXPECT_EQ(pipeline.registry().find("keep")->nominal_period_ns, 10'000'000) << "declared";

  dir.write("warpwatch.yaml", auto_config("40"));
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  push.send("second", stream::encode_frame(samples_at(0, {1, 2}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().samples == 4; }, 5000ms))
      << log.joined();
  EXPECT_EQ(pipeline.registry().find("second")->nominal_period_ns, 40'000'000);
  EXPECT_EQ(pipeline.registry().find("first")->nominal_period_ns, 2'500'000);
  pipeline.shutdown();
}

TEST(DaemonReload, BadFileKeepsTheRunningConfiguration) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", kBefore);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  pipeline.start();
  dir.write("warpwatch.yaml", kAfter + "scheduler: {tick_msec: 5}\n");
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_EQ(log.count("reload refused, keeping the running configuration: " + path + ":"), 1u)
      << log.joined();
  EXPECT_EQ(pipeline.stats().reloads_refused, 1u);
  EXPECT_EQ(pipeline.stats().reloads, 0u);
  EXPECT_EQ(pipeline.stats().streams, 3u);
  EXPECT_EQ(pipeline.config().live.streams.size(), 3u);
}

// The reload applies the live part of the file as a whole (here: a stream, a pattern and
// the log level) and names each start-only option the file changed, which waits for a
// restart: the events keep the running instance name, the publisher its endpoint.
TEST(DaemonReload, StartupOptionsWaitForARestartAndSaySo) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", kBefore);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  const std::string endpoint = pipeline.publish_endpoint();
  pipeline.start();
  std::string after =
      kAfter + "log: {level: debug}\npublish: {endpoint: \"tcp://127.0.0.1:*\", send_hwm: 7}\n";
  after.replace(after.find("instance: e2e"), 13, "instance: other");
  const std::string first_publish = "publish: {endpoint: \"tcp://127.0.0.1:*\"}\n";
  after.erase(after.find(first_publish), first_publish.size());  // the one with send_hwm stays
  dir.write("warpwatch.yaml", after);
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  EXPECT_EQ(
      log.count("reload: 'instance' changed in the file; it takes effect when warpwatchd restarts"),
      1u)
      << log.joined();
  EXPECT_EQ(log.count("reload: 'publish.send_hwm' changed in the file"), 1u) << log.joined();
  EXPECT_EQ(log.count("changed in the file"), 2u)
      << "only the options that changed are named: " << log.joined();
  EXPECT_EQ(pipeline.config().instance, "e2e");
  EXPECT_EQ(pipeline.publish_endpoint(), endpoint);
  EXPECT_EQ(pipeline.config().live.log_level, config::LogLevel::debug);
  EXPECT_EQ(pipeline.config().live.streams.size(), 3u);
  EXPECT_EQ(pipeline.stats().patterns, 2u);
  pipeline.shutdown();
}

}  // namespace

namespace {

// issue 16: a reload applies as a whole or not at all.

// What the running configuration (kBefore) looks like from outside, unchanged by a refusal.
void expect_running_before(const service::Pipeline& pipeline) {
  EXPECT_EQ(pipeline.stats().reloads, 0u);
  EXPECT_EQ(pipeline.stats().streams, 3u);
  EXPECT_EQ(pipeline.stats().patterns, 1u);
  ASSERT_NE(pipeline.registry().find("grow"), nullptr);
  EXPECT_EQ(pipeline.registry().find("grow")->dims, 1u);
  EXPECT_NE(pipeline.registry().find("gone"), nullptr);
  EXPECT_EQ(pipeline.registry().find("new"), nullptr);
  EXPECT_EQ(pipeline.config().live.streams.size(), 3u);
}

// A period out of range (the one llround once turned into INT64_MIN ns) is refused by the
// file's reader, with its location; a 14 KB-class alias bomb too, quickly.
TEST(DaemonReload, FileWithValuesOutOfRangeOrAnAliasBombIsRefused) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", kBefore);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  pipeline.start();
  std::string bad = kAfter;
  bad.replace(bad.find("{id: new, dims: 1, period_ms: 10}"), 33,
              "{id: new, dims: 1, period_ms: 1e300}");
  dir.write("warpwatch.yaml", bad);
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_EQ(log.count("'streams.declared[].period_ms' must be 1e-06 to 1000000000, got 1e300"), 1u)
      << log.joined();
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "x" + std::string.
  std::string bomb = kAfter + "x: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n";
  for (int level = 1; level <= 8; ++level) {
    const std::string name = std::to_string(level), before = std::to_string(level - 1);
    bomb += "x";
    bomb += name;
    bomb += ": &a";
    bomb += name;
    bomb += " [";
    for (int i = 0; i < 10; ++i) {
      bomb += i ? ", *a" : "*a";
      bomb += before;
    }
    bomb += "]\n";
  }
  dir.write("warpwatch.yaml", bomb);
  const auto began = std::chrono::steady_clock::now();
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_LT(std::chrono::steady_clock::now() - began, 1s);
  EXPECT_EQ(log.count("aliases expand the document by more than 100000 nodes"), 1u) << log.joined();
  EXPECT_EQ(pipeline.stats().reloads_refused, 2u);
  expect_running_before(pipeline);
  pipeline.shutdown();
}

// A configuration that did not come through the file's checks (reload(DaemonConfig)), with
// what the registry or the Matcher would refuse halfway: refused before anything changes,
// counted; the pipeline keeps matching, and a good reload applies afterwards.
TEST(DaemonReload, ConfigurationThatCannotApplyIsRefusedBeforeAnythingChanges) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", kBefore);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  zmq::context_t ctx;
  Subscriber sub(ctx, pipeline.publish_endpoint());
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  const std::string after = dir.write("after.yaml", kAfter);

  // The streams come first when applying: a bad period on the last one ("new").
  config::DaemonConfig bad_period = warpwatch::plugins::load_daemon_config(after);
  bad_period.live.streams.back().def.nominal_period_ns = std::numeric_limits<std::int64_t>::min();
  EXPECT_FALSE(pipeline.reload(std::move(bad_period)));
  EXPECT_EQ(log.count("reload refused, keeping the running configuration: StreamRegistry: "
                      "nominal period <= 0 for new"),
            1u)
      << log.joined();
  // The patterns come after the streams: a constant pattern under znorm, which the Matcher
  // refuses, would have left the streams changed.
  config::DaemonConfig constant = warpwatch::plugins::load_daemon_config(after);
  kernels::PatternDef& p = constant.live.libraries.at(0).patterns.at(0);
  p.values.assign(p.values.size(), 1.0f);
  p.params.mode = kernels::Mode::window;
  p.params.distance.metric = kernels::Metric::ed;
  p.params.normalize = kernels::Normalize::znorm;
  EXPECT_FALSE(pipeline.reload(std::move(constant)));
  EXPECT_EQ(log.count("reload refused, keeping the running configuration: pattern 'blip' is "
                      "constant: znorm is undefined"),
            1u)
      << log.joined();
  EXPECT_EQ(pipeline.stats().reloads_refused, 2u);
  expect_running_before(pipeline);

  // Still matching with the running configuration: a blip on "gone" (kBefore only).
  push.send("gone", stream::encode_frame(samples_at(0, {0, 5, -5, 0}), false));
  ASSERT_TRUE(step_until(
      pipeline, [&] { return !sub.events.empty(); }, 5000ms, &sub))
      << log.joined();
  EXPECT_EQ(event_spans(sub.events), std::vector<std::string>{"gone/blip [1,2]"});
  ASSERT_TRUE(pipeline.reload(after)) << log.joined();
  EXPECT_EQ(pipeline.stats().reloads, 1u);
  EXPECT_EQ(pipeline.registry().find("grow")->dims, 2u);
  pipeline.shutdown();
}

// A reload says by name which libraries, patterns and rules it added, changed and removed,
// and logs the new file's warnings with their file:line:column (issue 36: a pattern added
// with no rule to publish it was matched and dropped in silence).
TEST(DaemonReload, LogsWhatItAddedChangedAndRemovedByName) {
  TempDir dir;
  const std::string head =
      "backend: cpu\ncpu_threads: 1\ningest:\n  - pull: \"tcp://127.0.0.1:*\"\n"
      "streams:\n  declared: [{id: s}]\npublish: {endpoint: \"tcp://127.0.0.1:*\"}\n";
  const std::string path =
      dir.write("warpwatch.yaml",
                head +
                    "libraries:\n  - name: shapes\n    defaults: {threshold: 1}\n    patterns:\n"
                    "      - {id: blip, values: [5, -5]}\n      - {id: gone, values: [1, 2]}\n"
                    "      - {id: same, values: [1, 3]}\n"
                    "rules:\n  - {name: blips, patterns: [blip]}\n  - {name: rest}\n"
                    "  - {name: old, patterns: [gone]}\n");
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  EXPECT_EQ(log.count("warning: "), 0u) << log.joined();
  pipeline.start();
  dir.write("warpwatch.yaml",
            head +
                "libraries:\n  - name: shapes\n    defaults: {threshold: 1}\n    patterns:\n"
                "      - {id: blip, values: [5, -4]}\n      - {id: same, values: [1, 3]}\n"
                "  - name: extra\n    defaults: {threshold: 2}\n    patterns:\n"
                "      - {id: orphan, values: [1, 2]}\n"
                "rules:\n  - {name: blips, patterns: [blip], severity: critical}\n"
                "  - {name: rest, libraries: [shapes]}\n  - {name: new, patterns: [same]}\n");
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  EXPECT_EQ(log.count("info: reload: libraries added: 'extra'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: libraries changed: 'shapes'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: patterns added: 'orphan'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: patterns changed: 'blip'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: patterns removed: 'gone'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: rules added: 'new'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: rules changed: 'blips', 'rest'"), 1u) << log.joined();
  EXPECT_EQ(log.count("info: reload: rules removed: 'old'"), 1u) << log.joined();
  EXPECT_EQ(log.count("'same'"), 0u) << "unchanged: not named\n" << log.joined();
  EXPECT_EQ(log.count("configuration reloaded: streams 0 added, 0 restarted, 0 removed; "
                      "patterns 1 added, 1 changed, 1 removed; 1 streams and 3 patterns active"),
            1u)
      << log.joined();
  EXPECT_EQ(log.count("warning: " + path +
                      ":17:14: pattern 'orphan' is selected by no rule: its matches will be "
                      "counted but not published"),
            1u)
      << log.joined();
  pipeline.shutdown();
  // At start, the same line (the Pipeline logs the warnings of the configuration it is given).
  CapturedLog start_log;
  const service::Pipeline started(warpwatch::plugins::load_daemon_config(path), start_log.logger());
  EXPECT_EQ(start_log.count("warning: " + path + ":17:14: pattern 'orphan' is selected by no rule"),
            1u)
      << start_log.joined();
}

// A reload whose file has a setting that cannot do anything is refused at its place, and the
// running configuration stays.
TEST(DaemonReload, ALoadCheckErrorKeepsTheRunningConfiguration) {
  TempDir dir;
  const std::string path = dir.write("warpwatch.yaml", kBefore);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  dir.write("warpwatch.yaml", config("    - {id: keep, dims: 1, period_ms: 10}\n",
                                     "      - {id: neg, values: [1, 2], threshold: -2.5}\n"));
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_EQ(log.count("reload refused, keeping the running configuration: " + path +
                      ":15:46: pattern 'neg': threshold -2.5 can never be reached: dtw "
                      "distances are >= 0"),
            1u)
      << log.joined();
  EXPECT_EQ(pipeline.stats().reloads_refused, 1u);
  EXPECT_EQ(pipeline.config().live.streams.size(), 3u);
  EXPECT_EQ(pipeline.config().live.libraries.at(0).patterns.size(), 1u);
}

}  // namespace
