// The Kafka event sink (docs/sinks.md §5.4): the events of the rules it takes, produced to a
// topic by librdkafka's producer, key = stream id (so that a stream's events keep their
// order in one partition), value = the event's JSON as `publish` sends it, its `id` the
// key to drop duplicates by.
//
// offer() never waits on the network: it hands each event to librdkafka's queue, bounded
// at `queue` messages; when that is full the event is refused (the newest: librdkafka's
// queue cannot drop its oldest), counted as dropped and logged at most once every 10 s.
// librdkafka sends, batches and retries (up to max_attempts sends, backoff_ms apart) within
// timeout_ms per event; the sink's thread serves its delivery reports: acknowledged
// events count as sent, the others as failed (logged at most once every 10 s). stop()
// waits for the queue to leave until the deadline, then gives up what is left
// (unsent_at_stop).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <thread>

#include "warpwatch/alerting/event_sink.hpp"
#include "warpwatch/stream/kafka_options.hpp"

struct rd_kafka_s;          // librdkafka's rd_kafka_t
struct rd_kafka_message_s;  // rd_kafka_message_t

namespace warpwatch::alerting {

// A Kafka client's log (kafka_options.hpp) into `log`, at the same level.
stream::KafkaLog kafka_log(service::Logger log);

// Where the events go: the plugin's (daemon/plugins/out_kafka/).
struct KafkaSinkOptions {
  std::string brokers;  // bootstrap.servers
  std::string topic;
  std::map<std::string, std::string> properties;  // further librdkafka properties
  friend bool operator==(const KafkaSinkOptions&, const KafkaSinkOptions&) = default;
};

class KafkaSink final : public AlertSink {
 public:
  // Creates the producer (std::runtime_error when librdkafka cannot) and starts the thread.
  KafkaSink(config::SinkOptions options, KafkaSinkOptions kafka, service::Logger log);
  ~KafkaSink() override;  // stop(now)

  void offer(std::span<const SharedEvent> events) override;
  void stop(std::chrono::steady_clock::time_point deadline) override;
  SinkCounters counters() const override;

 private:
  void run();
  void delivered(const rd_kafka_message_s& message);  // a delivery report

  const KafkaSinkOptions kafka_;
  service::Logger log_;
  stream::KafkaClientContext context_;  // the producer's opaque: its log, and this
  std::unique_ptr<rd_kafka_s, void (*)(rd_kafka_s*)> producer_;
  std::atomic<bool> stopping_{false};
  SinkLogThrottle drop_log_, fail_log_;  // the scheduler's, the thread's
  std::atomic<std::uint64_t> produced_{0}, reports_{0}, sent_{0}, dropped_{0}, failed_{0},
      unsent_at_stop_{0};
  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace warpwatch::alerting
