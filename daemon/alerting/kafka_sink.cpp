// The Kafka event sink: librdkafka's producer, its queue and delivery reports; see
// kafka_sink.hpp for the guarantees.
#include "warpwatch/alerting/kafka_sink.hpp"

#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <array>
#include <stdexcept>

#include "warpwatch/base/glob.hpp"

namespace warpwatch::alerting {
namespace {

constexpr int poll_ms = 100;  // the thread's wait for delivery reports: its stop latency
constexpr long max_retry_backoff_ms = 300000;  // librdkafka's largest retry.backoff.ms

KafkaSink* self(rd_kafka_t* rk) {
  return static_cast<KafkaSink*>(
      static_cast<stream::KafkaClientContext*>(rd_kafka_opaque(rk))->owner);
}

}  // namespace

stream::KafkaLog kafka_log(service::Logger log) {
  return [log = std::move(log)](stream::KafkaLogLevel level, std::string_view line) {
    switch (level) {
      case stream::KafkaLogLevel::debug:
        log->debug("{}", line);
        break;
      case stream::KafkaLogLevel::info:
        log->info("{}", line);
        break;
      case stream::KafkaLogLevel::warning:
        log->warn("{}", line);
        break;
      case stream::KafkaLogLevel::error:
        log->error("{}", line);
        break;
    }
  };
}

KafkaSink::KafkaSink(config::SinkOptions options, KafkaSinkOptions kafka, service::Logger log)
    : AlertSink(std::move(options)),
      kafka_(std::move(kafka)),
      log_(log ? std::move(log) : service::stderr_logger()),
      producer_(nullptr, rd_kafka_destroy) {
  context_ = {"sink '" + options_.name + "'", kafka_log(log_), this};
  const std::map<std::string, std::string> own = {
      {"client.id", "warpwatch"},
      {"message.timeout.ms", std::to_string(options_.timeout.count())},
      {"queue.buffering.max.messages", std::to_string(options_.queue)},
      {"message.send.max.retries", std::to_string(options_.max_attempts - 1)},
      {"retry.backoff.ms",
       std::to_string(std::min<long>(options_.backoff.count(), max_retry_backoff_ms))},
  };
  stream::KafkaConf conf = stream::kafka_conf(kafka_.brokers, kafka_.properties, own, &context_);
  rd_kafka_conf_set_dr_msg_cb(conf.get(), [](rd_kafka_t* rk, const rd_kafka_message_t* m, void*) {
    self(rk)->delivered(*m);
  });
  std::array<char, 512> error{};
  rd_kafka_t* rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf.get(), error.data(), error.size());
  if (!rk)
    throw std::runtime_error("sink '" + options_.name +
                             "': cannot create the Kafka producer: " + error.data());
  conf.release();  // rd_kafka_new owns it now
  producer_.reset(rk);
  thread_ = std::thread([this] { run(); });
}

KafkaSink::~KafkaSink() {
  stop(std::chrono::steady_clock::now());
}

void KafkaSink::offer(std::span<const SharedEvent> events) {
  std::uint64_t dropped = 0;
  for (const SharedEvent& event : events) {
    if (!stream::any_glob_matches(options_.rules, event->rule)) continue;
    if (stopping_) {
      unsent_at_stop_.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    const std::string value = to_json(*event, options_.external_url);
    const rd_kafka_resp_err_t err =
        rd_kafka_producev(producer_.get(), RD_KAFKA_V_TOPIC(kafka_.topic.c_str()),
                          RD_KAFKA_V_KEY(event->stream.data(), event->stream.size()),
                          RD_KAFKA_V_VALUE(const_cast<char*>(value.data()), value.size()),
                          RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      produced_.fetch_add(1, std::memory_order_relaxed);
    } else if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
      ++dropped;
    } else {  // a message larger than the producer takes, say
      failed_.fetch_add(1, std::memory_order_relaxed);
      if (const auto logged = fail_log_.add(1, std::chrono::steady_clock::now()))
        log_->error("sink '{}': gave up {} event(s); the last: {}", options_.name, logged,
                    rd_kafka_err2str(err));
    }
  }
  if (dropped == 0) return;
  dropped_.fetch_add(dropped, std::memory_order_relaxed);
  if (const auto logged = drop_log_.add(dropped, std::chrono::steady_clock::now()))
    log_->warn("sink '{}': queue full ({} events): refused the newest {} event(s)", options_.name,
               options_.queue, logged);
}

void KafkaSink::run() {
  while (!stopping_) rd_kafka_poll(producer_.get(), poll_ms);
}

void KafkaSink::delivered(const rd_kafka_message_t& m) {
  reports_.fetch_add(1, std::memory_order_relaxed);
  if (m.err == RD_KAFKA_RESP_ERR_NO_ERROR) {
    sent_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (m.err == RD_KAFKA_RESP_ERR__PURGE_QUEUE || m.err == RD_KAFKA_RESP_ERR__PURGE_INFLIGHT) {
    unsent_at_stop_.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  failed_.fetch_add(1, std::memory_order_relaxed);
  if (const auto logged = fail_log_.add(1, std::chrono::steady_clock::now()))
    log_->error("sink '{}': gave up {} event(s); the last: {}", options_.name, logged,
                rd_kafka_message_errstr(&m));
}

void KafkaSink::stop(std::chrono::steady_clock::time_point deadline) {
  if (stopping_.exchange(true)) return;
  if (thread_.joinable()) thread_.join();
  rd_kafka_t* rk = producer_.get();
  // Delivery until the deadline (rd_kafka_flush serves the reports on this thread now).
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  rd_kafka_flush(rk, static_cast<int>(std::clamp<long>(left.count(), 0, 600000)));
  // What is left is given up: its delivery reports (purged) count it as unsent.
  rd_kafka_purge(rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  for (int i = 0; i < 50 && rd_kafka_outq_len(rk) > 0; ++i) rd_kafka_poll(rk, 20);
  if (const auto unsent = unsent_at_stop_.load(); unsent > 0)
    log_->warn("sink '{}': {} event(s) not delivered when the sink stopped", options_.name, unsent);
}

SinkCounters KafkaSink::counters() const {
  SinkCounters c;
  c.name = options_.name;
  c.sent = sent_.load(std::memory_order_relaxed);
  c.dropped = dropped_.load(std::memory_order_relaxed);
  c.failed = failed_.load(std::memory_order_relaxed);
  c.unsent_at_stop = unsent_at_stop_.load(std::memory_order_relaxed);
  // Produced and not reported yet: in librdkafka's queue or under way.
  const std::uint64_t reported = reports_.load(std::memory_order_relaxed);
  const std::uint64_t produced = produced_.load(std::memory_order_relaxed);
  c.queued = produced > reported ? produced - reported : 0;
  return c;
}

}  // namespace warpwatch::alerting
