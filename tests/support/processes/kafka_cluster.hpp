// librdkafka's mock cluster (rdkafka_mock.h) in the test process: Kafka brokers that speak
// the protocol on real listeners on 127.0.0.1 (producing, fetching, consumer groups with
// their joins, syncs, heartbeats, session timeouts and offset commits), which warpwatch's
// clients, in this process or in a warpwatchd child, reach at bootstraps(). It holds the
// topics in memory and never compacts them. Also a producer and a group-less reader for
// the tests; every wait is bounded.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

struct rd_kafka_s;
struct rd_kafka_mock_cluster_s;

namespace warpwatch::testing {

struct KafkaRecord {
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  std::string key, value;
  bool has_key = true;
};

class KafkaCluster {
 public:
  // `brokers` mock brokers, each listening on a free port of 127.0.0.1.
  explicit KafkaCluster(int brokers = 1);
  ~KafkaCluster();
  KafkaCluster(const KafkaCluster&) = delete;
  KafkaCluster& operator=(const KafkaCluster&) = delete;

  // "127.0.0.1:PORT[,...]": bootstrap.servers for a client.
  std::string bootstraps() const;
  void create_topic(const std::string& topic, int partitions);
  // Produces one message to `partition` (-1: librdkafka's partitioner, by the key's hash;
  // `has_key` false: no key) and waits (10 s at most, scaled) until the cluster has it;
  // throws when it does not.
  void produce(const std::string& topic, std::int32_t partition, std::string_view key,
               std::string_view value, bool has_key = true);
  // Produces every record (its partition, key and value; `has_key` as above) and waits (30
  // s at most, scaled) until the cluster has them all; throws when it does not.
  void produce_all(const std::string& topic, const std::vector<KafkaRecord>& records);
  // Every message of `topic` from the beginning of each partition to its end now, by a
  // consumer outside any group (at most `limit`, scaled, in all).
  std::vector<KafkaRecord> read_all(const std::string& topic,
                                    std::chrono::milliseconds limit = std::chrono::seconds(10));
  // The group's committed offset of a partition (-1001, RD_KAFKA_OFFSET_INVALID, for none).
  std::int64_t committed(const std::string& group, const std::string& topic,
                         std::int32_t partition);

 private:
  std::unique_ptr<rd_kafka_s, void (*)(rd_kafka_s*)> producer_;  // hosts the cluster too
  rd_kafka_mock_cluster_s* cluster_ = nullptr;
};

}  // namespace warpwatch::testing
