#include "warpwatch/service/kafka_state.hpp"

#include <map>

#include "warpwatch/service/checkpoint.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace warpwatch::service {

std::optional<std::vector<stream::KafkaStateStore::Value>> KafkaChangelog::cut(
    const std::vector<std::pair<std::string, stream::KafkaPosition>>& streams, bool release) {
  std::vector<std::string> ids;
  std::map<std::string, stream::KafkaPosition, std::less<>> where;
  for (const auto& [id, position] : streams) {
    ids.push_back(id);
    where.emplace(id, position);
  }
  std::vector<Value> values;
  try {
    const bool served = requests_.run(
        [&] {
          for (StreamRecord& r : pipeline_.export_streams(ids, release)) {
            const stream::KafkaPosition& p = where.at(r.matcher.def.id);
            r.positions = {{"partition", p.partition}, {"offset", p.offset}};
            values.push_back({r.matcher.def.id, encode_stream_record(r)});
          }
        },
        limit_);
    if (!served) return std::nullopt;
  } catch (const std::exception& e) {
    log_->error("kafka: the state of {} streams could not be cut: {}", ids.size(), e.what());
    return std::nullopt;
  }
  return values;
}

std::optional<stream::KafkaPosition> KafkaChangelog::position(std::string_view bytes,
                                                              std::string& why) const {
  try {
    const StreamRecord r = decode_stream_record(bytes);
    const auto partition = r.positions.find("partition");
    const auto offset = r.positions.find("offset");
    if (partition == r.positions.end() || offset == r.positions.end()) {
      why = "it holds no Kafka position";
      return std::nullopt;
    }
    if (partition->second < 0 || partition->second > INT32_MAX || offset->second < 0) {
      why = "its Kafka position is out of range";
      return std::nullopt;
    }
    return stream::KafkaPosition{static_cast<std::int32_t>(partition->second), offset->second};
  } catch (const CheckpointError& e) {
    why = e.what();
    return std::nullopt;
  }
}

std::optional<std::vector<std::string>> KafkaChangelog::restore(std::vector<std::string> values) {
  std::vector<StreamRecord> records;
  records.reserve(values.size());
  for (const std::string& bytes : values) {
    try {
      records.push_back(decode_stream_record(bytes));
    } catch (const CheckpointError& e) {  // position() read it: this is not expected
      log_->warn("kafka: a changelog record refused: {}", e.what());
    }
  }
  std::vector<std::string> restored;
  try {
    const bool served =
        requests_.run([&] { restored = pipeline_.import_streams(std::move(records)); }, limit_);
    if (!served) return std::nullopt;
  } catch (const std::exception& e) {
    log_->error("kafka: {} streams could not be restored: {}", values.size(), e.what());
    return std::vector<std::string>{};
  }
  return restored;
}

}  // namespace warpwatch::service
