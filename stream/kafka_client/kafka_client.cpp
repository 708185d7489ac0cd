// What the Kafka source, the Kafka event sink and the tests' cluster share of librdkafka's
// client: the configuration's properties and the log (kafka_options.hpp).
#include <librdkafka/rdkafka.h>

#include <algorithm>
#include <array>
#include <iterator>
#include <stdexcept>

#include "warpwatch/stream/kafka_options.hpp"

namespace warpwatch::stream {
namespace {

// The property `name` = `value` in `conf`, or librdkafka's reason why not.
std::optional<std::string> set_property(rd_kafka_conf_t* conf, const std::string& name,
                                        const std::string& value) {
  std::array<char, 512> error{};
  if (rd_kafka_conf_set(conf, name.c_str(), value.c_str(), error.data(), error.size()) ==
      RD_KAFKA_CONF_OK)
    return std::nullopt;
  return std::string(error.data());
}

// librdkafka's levels are syslog's: 0-3 errors, 4 warning, 5-6 notice and info, 7 debug.
KafkaLogLevel level_of(int syslog_level) {
  if (syslog_level <= 3) return KafkaLogLevel::error;
  if (syslog_level == 4) return KafkaLogLevel::warning;
  if (syslog_level <= 6) return KafkaLogLevel::info;
  return KafkaLogLevel::debug;
}

}  // namespace

void KafkaConfDeleter::operator()(rd_kafka_conf_s* conf) const {
  rd_kafka_conf_destroy(conf);
}

std::optional<std::string> kafka_properties_problem(
    const std::map<std::string, std::string>& properties) {
  const KafkaConf conf(rd_kafka_conf_new());
  for (const auto& [name, value] : properties) {
    if (std::find(std::begin(kafka_reserved_properties), std::end(kafka_reserved_properties),
                  name) != std::end(kafka_reserved_properties))
      return "'" + name + "' is set by warpwatch itself";
    if (auto why = set_property(conf.get(), name, value)) return *why;
  }
  return std::nullopt;
}

KafkaConf kafka_conf(const std::string& brokers,
                     const std::map<std::string, std::string>& properties,
                     const std::map<std::string, std::string>& own, KafkaClientContext* context) {
  KafkaConf conf(rd_kafka_conf_new());
  const auto set = [&](const std::string& name, const std::string& value) {
    if (auto why = set_property(conf.get(), name, value))
      throw std::invalid_argument("kafka property " + name + ": " + *why);
  };
  set("bootstrap.servers", brokers);
  for (const auto& [name, value] : properties) set(name, value);
  for (const auto& [name, value] : own) set(name, value);
  rd_kafka_conf_set_opaque(conf.get(), context);
  rd_kafka_conf_set_log_cb(
      conf.get(), [](const rd_kafka_t* rk, int level, const char* facility, const char* text) {
        const auto* c = static_cast<const KafkaClientContext*>(rd_kafka_opaque(rk));
        if (c && c->log) c->log(level_of(level), c->name + ": " + facility + ": " + text);
      });
  return conf;
}

}  // namespace warpwatch::stream
