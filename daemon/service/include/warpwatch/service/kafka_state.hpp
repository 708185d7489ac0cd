// A Kafka source's changelog values (stream/kafka_source.hpp, KafkaStateStore) made of the
// pipeline's matching state: a value is encode_stream_record() of the stream's record
// (checkpoint.hpp) with positions {"partition": p, "offset": o}. cut() and restore() run
// Pipeline::export_streams and import_streams on the scheduler's thread through its
// SchedulerRequests, waiting at most `limit`.
#pragma once

#include <chrono>

#include "warpwatch/service/logging.hpp"
#include "warpwatch/service/scheduler_requests.hpp"
#include "warpwatch/stream/sources/kafka_source.hpp"

namespace warpwatch::service {

class Pipeline;

class KafkaChangelog final : public stream::KafkaStateStore {
 public:
  KafkaChangelog(Pipeline& pipeline, SchedulerRequests& requests, Logger log,
                 std::chrono::steady_clock::duration limit = std::chrono::minutes(5))
      : pipeline_(pipeline), requests_(requests), log_(std::move(log)), limit_(limit) {}

  std::optional<std::vector<Value>> cut(
      const std::vector<std::pair<std::string, stream::KafkaPosition>>& streams,
      bool release) override;
  std::optional<stream::KafkaPosition> position(std::string_view bytes,
                                                std::string& why) const override;
  std::optional<std::vector<std::string>> restore(std::vector<std::string> values) override;

 private:
  Pipeline& pipeline_;
  SchedulerRequests& requests_;
  Logger log_;
  std::chrono::steady_clock::duration limit_;
};

}  // namespace warpwatch::service
