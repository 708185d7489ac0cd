// The registry: one line per plugin. Adding an ingest kind is its folder (in_<kind>/) and
// its line here, a sink kind its folder (out_<kind>/) and its line here (docs/architecture.md
// §3.1).
#include "warpwatch/plugins/registry.hpp"

#include <mutex>

#include "in_influx/in_influx.hpp"
#include "in_kafka/in_kafka.hpp"
#include "in_mqtt/in_mqtt.hpp"
#include "in_pull/in_pull.hpp"
#include "in_replay/in_replay.hpp"
#include "in_sub/in_sub.hpp"
#include "out_alertmanager/out_alertmanager.hpp"
#include "out_kafka/out_kafka.hpp"
#include "out_webhook/out_webhook.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::plugins {

std::span<const SourcePlugin* const> source_plugins() {
  // The order of the reference (docs/configuration.md §3) and of "needs one of".
  static const SourcePlugin* const plugins[] = {
      &in_pull::plugin, &in_sub::plugin,    &in_replay::plugin,
      &in_mqtt::plugin, &in_influx::plugin, &in_kafka::plugin,
  };
  return plugins;
}

const SourcePlugin& source_plugin(std::string_view kind) {
  for (const SourcePlugin* plugin : source_plugins())
    if (plugin->config.name == kind) return *plugin;
  WW_ASSERT(false, "ingest entry of unregistered kind '" + std::string(kind) + "'");
  return *source_plugins().front();  // not reached
}

std::span<const SinkPlugin* const> sink_plugins() {
  // The order of the reference and of "needs one of".
  static const SinkPlugin* const plugins[] = {
      &out_alertmanager::plugin,
      &out_webhook::plugin,
      &out_kafka::plugin,
  };
  return plugins;
}

const SinkPlugin& sink_plugin(std::string_view kind) {
  for (const SinkPlugin* plugin : sink_plugins())
    if (plugin->config.name == kind) return *plugin;
  WW_ASSERT(false, "sink entry of unregistered kind '" + std::string(kind) + "'");
  return *sink_plugins().front();  // not reached
}

void register_builtin_plugins() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const SourcePlugin* plugin : source_plugins())
      config::register_source_kind(plugin->config);
    for (const SinkPlugin* plugin : sink_plugins()) config::register_sink_kind(plugin->config);
  });
}

config::DaemonConfig load_daemon_config(const std::string& path, config::ReadAs as) {
  register_builtin_plugins();
  return config::load_daemon_config(path, as);
}

config::DaemonConfig parse_daemon_config(const std::string& text, const std::string& path,
                                         config::ReadAs as) {
  register_builtin_plugins();
  return config::parse_daemon_config(text, path, as);
}

}  // namespace warpwatch::plugins
