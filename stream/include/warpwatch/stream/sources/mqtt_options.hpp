// What an MQTT source is configured with (docs/ingest.md §5), in warpwatch_stream_core so
// that the configuration fills it in directly; mqtt_source.hpp is the client.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/stream/payload_format.hpp"

namespace warpwatch::stream {

struct MqttTls {
  std::string ca_file;    // trusted CAs (PEM); "" = the system's trusted CAs
  std::string cert_file;  // client certificate (PEM), with key_file; "" = none
  std::string key_file;   // its private key (PEM, not encrypted)

  friend bool operator==(const MqttTls&, const MqttTls&) = default;
};

struct MqttSourceOptions {
  std::string host;
  int port = 1883;
  std::vector<std::string> topics;          // topic filters subscribed to ('+', '#')
  int qos = 0;                              // 0 or 1: the most a subscription asks for
  std::string stream_template = "{topic}";  // topic_template.hpp
  PayloadFormat payload = PayloadFormat::any;
  std::string client_id;                           // "" = one made up by libmosquitto
  bool clean_session = true;                       // false keeps the session (needs client_id)
  std::string username;                            // "" = none
  std::string password;                            // the configuration reads it from a file
  std::optional<MqttTls> tls;                      // nullopt = plain TCP
  int keepalive_s = 30;                            // 5 or more (libmosquitto's minimum)
  std::chrono::milliseconds reconnect_min{1000};   // first delay before a reconnect
  std::chrono::milliseconds reconnect_max{30000};  // delays double up to this
  bool retained = false;  // take retained messages (sent at subscription) as samples

  friend bool operator==(const MqttSourceOptions&, const MqttSourceOptions&) = default;
};

}  // namespace warpwatch::stream
