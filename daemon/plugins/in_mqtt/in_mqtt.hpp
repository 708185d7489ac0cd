// `ingest[].mqtt`: an MQTT client that subscribes at a broker (docs/ingest.md §5).
#pragma once

#include <string>

#include "warpwatch/plugins/source_plugin.hpp"
#include "warpwatch/stream/sources/mqtt_options.hpp"

namespace warpwatch::plugins::in_mqtt {

struct MqttOptions : config::PluginOptionsOf<MqttOptions> {
  static constexpr std::string_view kind = "mqtt";
  stream::MqttSourceOptions mqtt;  // everything, the password read from password_file
  std::string password_file;       // where the password came from ("" = none)
  friend bool operator==(const MqttOptions&, const MqttOptions&) = default;
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_mqtt
