// `ingest[].kafka`: a member of a Kafka consumer group, its share of a topic's partitions
// (docs/ingest.md §6). The client is stream/kafka_client/, shared with the Kafka event sink.
#pragma once

#include "warpwatch/plugins/source_plugin.hpp"
#include "warpwatch/stream/kafka_options.hpp"

namespace warpwatch::plugins::in_kafka {

struct KafkaOptions : config::PluginOptionsOf<KafkaOptions> {
  static constexpr std::string_view kind = "kafka";
  stream::KafkaSourceOptions kafka;  // everything; commit_interval is state.checkpoint_ms's
  friend bool operator==(const KafkaOptions&, const KafkaOptions&) = default;
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_kafka
