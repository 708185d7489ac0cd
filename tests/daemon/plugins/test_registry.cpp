// The plugin registry (daemon/plugins/registry.cpp): every ingest kind once, in the
// reference's order, its rows its own; the configuration reads through it (unknown keys
// still get their "did you mean", a key of another kind is named as such); the families of
// /metrics are the plugins' (MQTT's are there without an MQTT source, as before).
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "config_error_support.hpp"
#include "test_support.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace {

using namespace warpwatch;
using warpwatch::testing::config_error_of;

TEST(PluginRegistry, ListsEveryKindOnceInTheReferencesOrder) {
  std::vector<std::string> names;
  for (const plugins::SourcePlugin* plugin : plugins::source_plugins())
    names.emplace_back(plugin->config.name);
  EXPECT_EQ(names, (std::vector<std::string>{"pull", "sub", "replay", "mqtt", "influx", "kafka"}));
  for (const std::string& name : names) EXPECT_EQ(plugins::source_plugin(name).config.name, name);
}

TEST(PluginRegistry, EachPluginsRowsAreItsOwnAndBeginWithItsKindKey) {
  std::set<std::string> seen;
  for (const plugins::SourcePlugin* plugin : plugins::source_plugins()) {
    const std::vector<config::OptionInfo> rows = plugin->config.options();
    ASSERT_FALSE(rows.empty()) << plugin->config.name;
    EXPECT_EQ(rows.front().name, "ingest[]." + std::string(plugin->config.name));
    for (const config::OptionInfo& row : rows) {
      EXPECT_TRUE(row.name.starts_with("ingest[].")) << row.name;
      EXPECT_TRUE(seen.insert(std::string(row.name)).second) << "declared twice: " << row.name;
    }
    EXPECT_NE(plugin->make, nullptr);
    EXPECT_NE(plugin->describe, nullptr);
  }
}

TEST(PluginRegistry, TheReaderKeepsItsMessagesForPluginKeys) {
  EXPECT_NE(
      config_error_of("ingest: [{pul: 'tcp://127.0.0.1:7000'}]\n").find("did you mean 'pull'?"),
      std::string::npos);
  EXPECT_NE(config_error_of("ingest: [{pull: 'tcp://127.0.0.1:7000', topic: a}]\n")
                .find("'topic' applies to 'sub' entries only"),
            std::string::npos);
  EXPECT_NE(config_error_of("ingest: [{}]\n")
                .find("an ingest entry needs one of 'pull', 'sub', 'replay', 'mqtt', 'influx', "
                      "'kafka'"),
            std::string::npos);
}

TEST(PluginRegistry, DescribeIsTheCheckConfigLine) {
  warpwatch::testing::TempDir dir;
  const std::string path = dir.write("warpwatch.yaml",
                                     "ingest:\n"
                                     "  - pull: 'tcp://127.0.0.1:7000'\n"
                                     "  - {sub: 'tcp://127.0.0.1:7001', topic: pump-}\n"
                                     "  - influx: 'udp://127.0.0.1:8094'\n");
  const config::DaemonConfig c = plugins::load_daemon_config(path);
  std::vector<std::string> lines;
  for (const config::IngestSource& s : c.ingest)
    lines.push_back(plugins::source_plugin(s.kind).describe(s));
  EXPECT_EQ(lines, (std::vector<std::string>{
                       "pull   tcp://127.0.0.1:7000",
                       "sub    tcp://127.0.0.1:7001 topic \"pump-\"",
                       "influx udp://127.0.0.1:8094 -> {measurement}.{field}, timestamps in ns",
                   }));
}

TEST(PluginRegistry, FamiliesOfNoSourceAreMqttsOnly) {
  plugins::MetricFamilies f;
  for (const plugins::SourcePlugin* plugin : plugins::source_plugins())
    if (plugin->families) plugin->families(f, {});
  std::vector<std::string> names;
  for (const auto& family : f.take()) names.push_back(family.name);
  EXPECT_EQ(names, (std::vector<std::string>{
                       "warpwatch_mqtt_connected", "warpwatch_mqtt_messages_total",
                       "warpwatch_mqtt_retained_skipped_total", "warpwatch_mqtt_connections_total",
                       "warpwatch_mqtt_subscriptions_refused_total"}));
}

}  // namespace
