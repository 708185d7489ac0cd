#include "out_kafka/out_kafka.hpp"

#include "warpwatch/config/config_reader.hpp"

namespace warpwatch::plugins::out_kafka {
namespace {

using config::cat;
using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;

std::vector<config::OptionInfo> options() {
  return {
      {.name = "sinks[].kafka",
       .type = OT::section,
       .help = "events are produced to a Kafka topic: key = stream id, value = the event as "
               "`publish` sends it (README: Kafka); the keys below"},
      {.name = "sinks[].kafka.brokers",
       .type = OT::string,
       .help = "required: the bootstrap brokers, `host:port[,host:port...]`",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink_options<KafkaOptions>().kafka.brokers = v.text; }},
      {.name = "sinks[].kafka.topic",
       .type = OT::string,
       .help = "required: the topic the events go to",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink_options<KafkaOptions>().kafka.topic = v.text; }},
      {.name = "sinks[].kafka.properties",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "further librdkafka properties of the producer; those warpwatch sets itself are "
               "refused",
       .set = [](T& t,
                 const V& v) { t.sink_options<KafkaOptions>().kafka.properties = v.text_map; }},
  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<KafkaOptions>();
}

void check(config::PluginOptions& options, const config::SinkCheck& check) {
  config::check_kafka_keys(check.keys, {"brokers", "topic"},
                           static_cast<const KafkaOptions&>(options).kafka.properties);
}

std::string default_name(const config::PluginOptions& options) {
  return cat("kafka ", static_cast<const KafkaOptions&>(options).kafka.topic);
}

std::unique_ptr<alerting::AlertSink> make(const config::SinkConfig& entry, service::Logger log) {
  return std::make_unique<alerting::KafkaSink>(entry.sink, entry.options_as<KafkaOptions>().kafka,
                                               std::move(log));
}

std::string describe(const config::SinkConfig& entry) {
  const alerting::KafkaSinkOptions& k = entry.options_as<KafkaOptions>().kafka;
  const config::SinkOptions& s = entry.sink;
  return cat(s.name, ": kafka topic ", k.topic, " at ", k.brokers, ", rules ", rules_text(s),
             ", queue ", std::to_string(s.queue), ", timeout ", std::to_string(s.timeout.count()),
             " ms, ", std::to_string(s.max_attempts), " attempts");
}

std::string destination(const config::SinkConfig& entry) {
  const alerting::KafkaSinkOptions& k = entry.options_as<KafkaOptions>().kafka;
  return cat("to topic ", k.topic, " at ", k.brokers);
}

}  // namespace

const SinkPlugin plugin{
    .config = {.name = KafkaOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check,
               .default_name = default_name},
    .make = make,
    .describe = describe,
    .destination = destination,
};

}  // namespace warpwatch::plugins::out_kafka
