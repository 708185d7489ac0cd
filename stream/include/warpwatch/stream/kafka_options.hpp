// What a Kafka source is configured with (docs/ingest.md §6), in warpwatch_stream_core so
// that the configuration fills it in directly, and what the Kafka source, the Kafka event
// sink and the tests' cluster share of librdkafka's client (kafka_client.cpp): its
// configuration and its log. kafka_source.hpp is the consumer.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "warpwatch/stream/payload_format.hpp"

struct rd_kafka_conf_s;  // librdkafka's rd_kafka_conf_t

namespace warpwatch::stream {

struct KafkaSourceOptions {
  std::string brokers;      // bootstrap.servers: host:port[,host:port...]
  std::string topic;        // the input topic: key = stream id, value = samples
  std::string group_id;     // group.id: the daemons that share the topic's partitions
  std::string instance_id;  // group.instance.id (static membership); "" = dynamic
  PayloadFormat payload = PayloadFormat::any;
  // session.timeout.ms: how long the group waits for a member that stopped answering
  // before its partitions move (a static member's restart within it keeps them).
  std::chrono::milliseconds session_timeout{10000};
  // How often a cut writes the changelog and commits the offsets (state.checkpoint_ms);
  // 0 = only when partitions are revoked (the daemon's stop included).
  std::chrono::milliseconds commit_interval{5000};
  // Further librdkafka properties (security.protocol, ssl.*, sasl.*, ...), as given.
  std::map<std::string, std::string> properties;

  friend bool operator==(const KafkaSourceOptions&, const KafkaSourceOptions&) = default;
};

// The librdkafka properties a Kafka source or sink sets itself: `properties` may not hold
// them (the configuration refuses it).
inline constexpr const char* kafka_reserved_properties[] = {"bootstrap.servers",
                                                            "metadata.broker.list",
                                                            "group.id",
                                                            "group.instance.id",
                                                            "enable.auto.commit",
                                                            "enable.auto.offset.store",
                                                            "auto.offset.reset",
                                                            "session.timeout.ms",
                                                            "statistics.interval.ms",
                                                            "enable.partition.eof",
                                                            "partition.assignment.strategy",
                                                            "message.timeout.ms",
                                                            "queue.buffering.max.messages",
                                                            "message.send.max.retries",
                                                            "retry.backoff.ms",
                                                            "client.id"};

enum class KafkaLogLevel { debug, info, warning, error };
// Receives a Kafka client's log lines (librdkafka's own included); called on the client's
// thread or on librdkafka's.
using KafkaLog = std::function<void(KafkaLogLevel level, std::string_view line)>;

// Why `properties` cannot be given to librdkafka: a name of kafka_reserved_properties, or a
// property librdkafka refuses (its message); nullopt when it can.
std::optional<std::string> kafka_properties_problem(
    const std::map<std::string, std::string>& properties);

// A librdkafka client's configuration: bootstrap.servers = `brokers`, then `properties`,
// then `own` (the client's own settings, kafka_reserved_properties among them). The
// client's opaque is `context`, which must outlive the client: its log lines, and the errors
// librdkafka logs (no error callback is set), go to context->log as "<name>: <facility>:
// <text>", and the client's own callbacks find it as context->owner. Throws
// std::invalid_argument naming a property librdkafka refuses.
struct KafkaClientContext {
  std::string name;
  KafkaLog log;
  void* owner = nullptr;
};
struct KafkaConfDeleter {
  void operator()(rd_kafka_conf_s* conf) const;
};
using KafkaConf = std::unique_ptr<rd_kafka_conf_s, KafkaConfDeleter>;
KafkaConf kafka_conf(const std::string& brokers,
                     const std::map<std::string, std::string>& properties,
                     const std::map<std::string, std::string>& own, KafkaClientContext* context);

}  // namespace warpwatch::stream
