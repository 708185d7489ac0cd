#include "processes/kafka_cluster.hpp"

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <array>
#include <stdexcept>
#include <thread>

#include "test_support.hpp"

namespace warpwatch::testing {
namespace {

using Clock = std::chrono::steady_clock;

void set(rd_kafka_conf_t* conf, const char* name, const std::string& value) {
  std::array<char, 512> error{};
  if (rd_kafka_conf_set(conf, name, value.c_str(), error.data(), error.size()) != RD_KAFKA_CONF_OK)
    throw std::runtime_error(std::string("kafka test client: ") + name + ": " + error.data());
}

rd_kafka_t* new_client(rd_kafka_type_t type, rd_kafka_conf_t* conf) {
  std::array<char, 512> error{};
  rd_kafka_t* rk = rd_kafka_new(type, conf, error.data(), error.size());
  if (!rk) {
    rd_kafka_conf_destroy(conf);
    throw std::runtime_error(std::string("kafka test client: ") + error.data());
  }
  return rk;
}

void check(rd_kafka_resp_err_t err, const std::string& what) {
  if (err) throw std::runtime_error("kafka test cluster: " + what + ": " + rd_kafka_err2str(err));
}

using PartitionList =
    std::unique_ptr<rd_kafka_topic_partition_list_t, void (*)(rd_kafka_topic_partition_list_t*)>;

}  // namespace

KafkaCluster::KafkaCluster(int brokers) : producer_(nullptr, rd_kafka_destroy) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "client.id", "warpwatch-test");
  // The producer's own bootstrap is the cluster it hosts (set once it exists): until then
  // it has no brokers, which librdkafka allows.
  rd_kafka_conf_set_dr_msg_cb(conf, [](rd_kafka_t*, const rd_kafka_message_t* m, void*) {
    if (m->_private) *static_cast<rd_kafka_resp_err_t*>(m->_private) = m->err;
  });
  // Errors only; at the end the cluster goes before its host, whose producer then logs
  // that its brokers are down: not worth a line.
  set(conf, "log_level", "2");
  producer_.reset(new_client(RD_KAFKA_PRODUCER, conf));
  cluster_ = rd_kafka_mock_cluster_new(producer_.get(), brokers);
  if (!cluster_) throw std::runtime_error("kafka test cluster: rd_kafka_mock_cluster_new failed");
  if (rd_kafka_brokers_add(producer_.get(), bootstraps().c_str()) == 0)
    throw std::runtime_error("kafka test cluster: the producer cannot add " + bootstraps());
}

KafkaCluster::~KafkaCluster() {
  rd_kafka_flush(producer_.get(), 2000);
  if (cluster_) rd_kafka_mock_cluster_destroy(cluster_);
}

std::string KafkaCluster::bootstraps() const {
  return rd_kafka_mock_cluster_bootstraps(cluster_);
}

void KafkaCluster::create_topic(const std::string& topic, int partitions) {
  check(rd_kafka_mock_topic_create(cluster_, topic.c_str(), partitions, 1), "create " + topic);
}

void KafkaCluster::produce(const std::string& topic, std::int32_t partition, std::string_view key,
                           std::string_view value, bool has_key) {
  rd_kafka_resp_err_t result = RD_KAFKA_RESP_ERR__IN_PROGRESS;
  check(rd_kafka_producev(producer_.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
                          RD_KAFKA_V_PARTITION(partition < 0 ? RD_KAFKA_PARTITION_UA : partition),
                          RD_KAFKA_V_KEY(has_key ? key.data() : nullptr, has_key ? key.size() : 0),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&result),
                          RD_KAFKA_V_END),
        "produce to " + topic);
  const auto deadline = Clock::now() + scaled(std::chrono::seconds(10));
  while (result == RD_KAFKA_RESP_ERR__IN_PROGRESS && Clock::now() < deadline)
    rd_kafka_poll(producer_.get(), 10);
  if (result == RD_KAFKA_RESP_ERR__IN_PROGRESS) {
    // Its report would write to `result`, gone by then: wait for the purge to report it.
    rd_kafka_purge(producer_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    while (result == RD_KAFKA_RESP_ERR__IN_PROGRESS) rd_kafka_poll(producer_.get(), 10);
    throw std::runtime_error("kafka test cluster: a message to " + topic + " was not delivered");
  }
  check(result, "deliver to " + topic);
}

void KafkaCluster::produce_all(const std::string& topic, const std::vector<KafkaRecord>& records) {
  std::vector<rd_kafka_resp_err_t> results(records.size(), RD_KAFKA_RESP_ERR__IN_PROGRESS);
  for (std::size_t i = 0; i < records.size(); ++i) {
    const KafkaRecord& r = records[i];
    for (;;) {
      const rd_kafka_resp_err_t err = rd_kafka_producev(
          producer_.get(), RD_KAFKA_V_TOPIC(topic.c_str()),
          RD_KAFKA_V_PARTITION(r.partition < 0 ? RD_KAFKA_PARTITION_UA : r.partition),
          RD_KAFKA_V_KEY(r.has_key ? r.key.data() : nullptr, r.has_key ? r.key.size() : 0),
          RD_KAFKA_V_VALUE(const_cast<char*>(r.value.data()), r.value.size()),
          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE(&results[i]), RD_KAFKA_V_END);
      if (err != RD_KAFKA_RESP_ERR__QUEUE_FULL) {
        check(err, "produce to " + topic);
        break;
      }
      rd_kafka_poll(producer_.get(), 10);
    }
  }
  const bool flushed =
      rd_kafka_flush(producer_.get(), static_cast<int>(scaled(std::chrono::seconds(30)).count())) ==
      0;
  if (!flushed) {  // the reports write to `results`: have them all before it goes
    rd_kafka_purge(producer_.get(), RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
    rd_kafka_flush(producer_.get(), 60000);
    throw std::runtime_error("kafka test cluster: messages to " + topic + " were not delivered");
  }
  for (const rd_kafka_resp_err_t err : results) check(err, "deliver to " + topic);
}

std::vector<KafkaRecord> KafkaCluster::read_all(const std::string& topic,
                                                std::chrono::milliseconds limit) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstraps());
  set(conf, "enable.partition.eof", "true");
  // librdkafka's consumer wants a group even for rd_kafka_assign(); this one never joins
  // (no subscribe) nor commits.
  set(conf, "group.id", "warpwatch-test-reader");
  set(conf, "enable.auto.commit", "false");
  set(conf, "log_level", "3");
  const std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> consumer(
      new_client(RD_KAFKA_CONSUMER, conf), rd_kafka_destroy);
  rd_kafka_t* rk = consumer.get();
  const auto deadline = Clock::now() + scaled(limit);
  const rd_kafka_metadata_t* metadata = nullptr;
  const std::unique_ptr<rd_kafka_topic_t, void (*)(rd_kafka_topic_t*)> handle(
      rd_kafka_topic_new(rk, topic.c_str(), nullptr), rd_kafka_topic_destroy);
  check(rd_kafka_metadata(rk, 0, handle.get(), &metadata, 5000), "metadata of " + topic);
  const int partitions = metadata->topic_cnt == 1 ? metadata->topics[0].partition_cnt : 0;
  rd_kafka_metadata_destroy(metadata);
  PartitionList assignment(rd_kafka_topic_partition_list_new(partitions),
                           rd_kafka_topic_partition_list_destroy);
  int open = 0;  // partitions not at their end yet
  for (int p = 0; p < partitions; ++p) {
    std::int64_t low = 0, high = 0;
    check(rd_kafka_query_watermark_offsets(rk, topic.c_str(), p, &low, &high, 5000),
          "watermarks of " + topic);
    if (high > low) {
      rd_kafka_topic_partition_list_add(assignment.get(), topic.c_str(), p)->offset =
          RD_KAFKA_OFFSET_BEGINNING;
      ++open;
    }
  }
  std::vector<KafkaRecord> out;
  if (open == 0) return out;
  check(rd_kafka_assign(rk, assignment.get()), "assign " + topic);
  while (open > 0) {
    if (Clock::now() >= deadline)
      throw std::runtime_error("kafka test cluster: reading " + topic + " did not end in time");
    rd_kafka_message_t* m = rd_kafka_consumer_poll(rk, 50);
    if (!m) continue;
    if (m->err == RD_KAFKA_RESP_ERR__PARTITION_EOF) {
      --open;
    } else if (m->err) {
      const std::string why = rd_kafka_message_errstr(m);
      rd_kafka_message_destroy(m);
      throw std::runtime_error("kafka test cluster: reading " + topic + ": " + why);
    } else {
      out.push_back({m->partition, m->offset,
                     m->key ? std::string(static_cast<const char*>(m->key), m->key_len) : "",
                     std::string(static_cast<const char*>(m->payload), m->len), m->key != nullptr});
    }
    rd_kafka_message_destroy(m);
  }
  return out;
}

std::int64_t KafkaCluster::committed(const std::string& group, const std::string& topic,
                                     std::int32_t partition) {
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  set(conf, "bootstrap.servers", bootstraps());
  set(conf, "group.id", group);
  set(conf, "log_level", "3");
  const std::unique_ptr<rd_kafka_t, void (*)(rd_kafka_t*)> consumer(
      new_client(RD_KAFKA_CONSUMER, conf), rd_kafka_destroy);
  PartitionList list(rd_kafka_topic_partition_list_new(1), rd_kafka_topic_partition_list_destroy);
  rd_kafka_topic_partition_list_add(list.get(), topic.c_str(), partition);
  check(rd_kafka_committed(consumer.get(), list.get(), 5000), "committed offsets of " + group);
  return list->elems[0].offset;
}

}  // namespace warpwatch::testing
