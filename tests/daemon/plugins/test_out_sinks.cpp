// The sink plugins (daemon/plugins/out_*/, http_sinks.cpp, sink_plugin.cpp): every kind once in
// the reference's order, its rows its own but for the HTTP rows the two HTTP kinds share (one
// row in the table, its setter filling whichever HTTP kind the entry is); a key of other kinds
// named as such; describe and the startup log's destination; the sink each makes (an
// Alertmanager's route prefix); the families every sink has, once, label `sink`.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "alerting_support.hpp"
#include "config_error_support.hpp"
#include "http/http_receiver.hpp"
#include "out_alertmanager/out_alertmanager.hpp"
#include "out_kafka/out_kafka.hpp"
#include "out_webhook/out_webhook.hpp"
#include "test_support.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(SinkPlugins, ListsEveryKindOnceInTheReferencesOrder) {
  std::vector<std::string> names;
  for (const plugins::SinkPlugin* plugin : plugins::sink_plugins())
    names.emplace_back(plugin->config.name);
  EXPECT_EQ(names, (std::vector<std::string>{"alertmanager", "webhook", "kafka"}));
  for (const std::string& name : names) EXPECT_EQ(plugins::sink_plugin(name).config.name, name);
}

TEST(SinkPlugins, RowsBeginWithTheKindKeyAndOnlyTheHttpRowsAreShared) {
  std::multiset<std::string> seen;
  for (const plugins::SinkPlugin* plugin : plugins::sink_plugins()) {
    const std::vector<config::OptionInfo> rows = plugin->config.options();
    ASSERT_FALSE(rows.empty()) << plugin->config.name;
    EXPECT_EQ(rows.front().name, "sinks[]." + std::string(plugin->config.name));
    for (const config::OptionInfo& row : rows) {
      EXPECT_TRUE(row.name.starts_with("sinks[].")) << row.name;
      seen.insert(std::string(row.name));
    }
    EXPECT_NE(plugin->make, nullptr);
    EXPECT_NE(plugin->describe, nullptr);
    EXPECT_NE(plugin->destination, nullptr);
    EXPECT_NE(plugin->config.check, nullptr);
    EXPECT_NE(plugin->config.default_name, nullptr);
  }
  for (const std::string& name : seen)
    EXPECT_EQ(seen.count(name), name == "sinks[].headers" || name == "sinks[].max_batch" ? 2u : 1u)
        << name;
  // Each is one row of the table.
  plugins::register_builtin_plugins();
  for (const char* name : {"sinks[].headers", "sinks[].max_batch"}) {
    const auto table = config::option_table();
    EXPECT_EQ(std::count_if(table.begin(), table.end(),
                            [&](const config::OptionInfo& o) { return o.name == name; }),
              1)
        << name;
  }
}

TEST(SinkPlugins, TheSharedRowsFillTheEntrysKindWhereverTheyAreWritten) {
  TempDir dir;
  const auto c = plugins::load_daemon_config(
      dir.write("warpwatch.yaml",
                "sinks:\n"
                "  - {max_batch: 7, headers: {X-A: b}, webhook: 'http://h:1/'}\n"
                "  - {max_batch: 3, alertmanager: 'http://h:2/'}\n"));
  ASSERT_EQ(c.sinks.size(), 2u);
  const auto& hook = c.sinks[0].options_as<plugins::out_webhook::WebhookOptions>();
  EXPECT_EQ(hook.max_batch, 7u);
  EXPECT_EQ(hook.headers.at("X-A"), "b");
  const auto& am = c.sinks[1].options_as<plugins::out_alertmanager::AlertmanagerOptions>();
  EXPECT_EQ(am.max_batch, 3u);
  EXPECT_TRUE(am.headers.empty());
}

TEST(SinkPlugins, TheReaderKeepsItsMessagesForPluginKeys) {
  EXPECT_NE(config_error_of("sinks: [{webhok: 'http://h:1/'}]\n").find("did you mean 'webhook'?"),
            std::string::npos);
  EXPECT_NE(config_error_of("sinks: [{kafka: {brokers: b, topic: t}, headers: {a: b}}]\n")
                .find("'headers' applies to 'alertmanager' and 'webhook' entries only"),
            std::string::npos);
  EXPECT_NE(config_error_of("sinks: [{alertmanager: 'http://h:1/', signature_header: X}]\n")
                .find("'signature_header' applies to 'webhook' entries only"),
            std::string::npos);
  EXPECT_NE(config_error_of("sinks: [{name: x}]\n")
                .find("a sink entry needs one of 'alertmanager', 'webhook', 'kafka'"),
            std::string::npos);
}

TEST(SinkPlugins, DescribeIsTheCheckConfigLineAndDestinationTheLogs) {
  TempDir dir;
  dir.write("hook.secret", "s3cret\n");
  const auto c = plugins::load_daemon_config(
      dir.write("warpwatch.yaml",
                "sinks:\n"
                "  - {alertmanager: 'http://127.0.0.1:9093/', rules: [a, b]}\n"
                "  - {webhook: 'http://h:81/p?t=x', headers: {Authorization: y}, max_batch: 5,\n"
                "     hmac_secret_file: hook.secret}\n"
                "  - {kafka: {brokers: 'k:9092', topic: ev}, queue: 5, max_attempts: 2}\n"));
  std::vector<std::string> lines, destinations;
  for (const config::SinkConfig& s : c.sinks) {
    lines.push_back(plugins::sink_plugin(s.kind).describe(s));
    destinations.push_back(plugins::sink_plugin(s.kind).destination(s));
  }
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "alertmanager 127.0.0.1:9093: alertmanager at 127.0.0.1:9093, rules a,b, "
                       "queue 10000, batch 100, timeout 5000 ms, 5 attempts, backoff 500-30000 ms",
                       "webhook h:81: webhook at h:81, rules *, queue 10000, batch 5, timeout "
                       "5000 ms, 5 attempts, backoff 500-30000 ms, headers Authorization, signed "
                       "(X-Warpwatch-Signature)",
                       "kafka ev: kafka topic ev at k:9092, rules *, queue 5, timeout 5000 ms, 2 "
                       "attempts",
                   }));
  EXPECT_EQ(destinations, (std::vector<std::string>{"100 per request", "5 per request",
                                                    "to topic ev at k:9092"}));
}

TEST(SinkPlugins, AnAlertmanagerPostsUnderItsRoutePrefix) {
  HttpReceiver receiver;
  plugins::out_alertmanager::AlertmanagerOptions am;
  am.url = config::parse_http_url(receiver.url("/prefix/"), nullptr).value();
  config::SinkOptions common;
  common.name = "am";
  const auto sink = plugins::out_alertmanager::plugin.make(plugins::sink_entry(am, common), {});
  alerting::Event e = sample_event("r", "s");
  sink->offer(
      std::vector<alerting::SharedEvent>{std::make_shared<const alerting::Event>(std::move(e))});
  ASSERT_TRUE(wait_counters(*sink, [](const auto& k) { return k.sent == 1; }));
  ASSERT_EQ(receiver.requests().size(), 1u);
  EXPECT_EQ(receiver.requests()[0].target, "/prefix/api/v2/alerts");
  sink->stop(std::chrono::steady_clock::now());
}

TEST(SinkPlugins, TheFamiliesEverySinkHasAreWrittenOnceWithTheLabelSink) {
  plugins::MetricFamilies f;
  alerting::SinkCounters a, b;
  a.name = "one";
  b.name = "two";
  const std::vector<alerting::SinkCounters> sinks = {a, b};
  plugins::alert_sink_families(f, sinks);
  std::vector<std::string> names;
  for (const auto& family : f.take()) {
    names.push_back(family.name);
    for (const auto& metric : family.metric) EXPECT_EQ(metric.label.at(0).name, "sink");
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"warpwatch_sink_sent_total", "warpwatch_sink_retried_total",
                                      "warpwatch_sink_dropped_total", "warpwatch_sink_failed_total",
                                      "warpwatch_sink_queued_events"}));
}

}  // namespace
