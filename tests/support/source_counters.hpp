// The counters of a pipeline's running sources of one kind (their plugins render them on
// /metrics): what tests wait on.
#pragma once

#include <cstddef>

#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/stream/sources/kafka_source.hpp"
#include "warpwatch/stream/sources/mqtt_source.hpp"

namespace warpwatch::testing {

inline stream::MqttCounters mqtt_counters(const service::Pipeline& pipeline, std::size_t i = 0) {
  return static_cast<const stream::MqttSource*>(pipeline.sources_of("mqtt").at(i))->counters();
}

inline stream::KafkaCounters kafka_counters(const service::Pipeline& pipeline, std::size_t i = 0) {
  return static_cast<const stream::KafkaSource*>(pipeline.sources_of("kafka").at(i))->counters();
}

}  // namespace warpwatch::testing
