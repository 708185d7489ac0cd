// `sinks[].kafka`: events produced to a Kafka topic, key = stream id, value = the event as
// `publish` sends it (docs/sinks.md §5.4). The sink is alerting::KafkaSink; the client
// (stream/kafka_client/) is shared with the Kafka source.
#pragma once

#include <string_view>

#include "warpwatch/alerting/kafka_sink.hpp"
#include "warpwatch/plugins/sink_plugin.hpp"

namespace warpwatch::plugins::out_kafka {

struct KafkaOptions : config::PluginOptionsOf<KafkaOptions> {
  static constexpr std::string_view kind = "kafka";
  alerting::KafkaSinkOptions kafka;  // brokers, topic, properties
  friend bool operator==(const KafkaOptions&, const KafkaOptions&) = default;
};

extern const SinkPlugin plugin;

}  // namespace warpwatch::plugins::out_kafka
