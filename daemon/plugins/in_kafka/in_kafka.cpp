#include "in_kafka/in_kafka.hpp"

#include "warpwatch/alerting/kafka_sink.hpp"
#include "warpwatch/plugins/payload_formats.hpp"
#include "warpwatch/stream/sources/kafka_source.hpp"

namespace warpwatch::plugins::in_kafka {
namespace {

using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;
using std::chrono::milliseconds;

std::vector<config::OptionInfo> options() {
  return {
      {.name = "ingest[].kafka",
       .type = OT::section,
       .help = "a member of a Kafka consumer group: its share of a topic's partitions, key = "
               "stream id (README: Kafka); the keys below"},
      {.name = "ingest[].kafka.brokers",
       .type = OT::string,
       .help = "required: the bootstrap brokers, `host:port[,host:port...]`",
       .min = 1,
       .set = [](T& t, const V& v) { t.source_options<KafkaOptions>().kafka.brokers = v.text; }},
      {.name = "ingest[].kafka.topic",
       .type = OT::string,
       .help = "required: the input topic; a message's key is its stream id, its value the "
               "samples",
       .min = 1,
       .set = [](T& t, const V& v) { t.source_options<KafkaOptions>().kafka.topic = v.text; }},
      {.name = "ingest[].kafka.group_id",
       .type = OT::string,
       .help = "required: the consumer group (`group.id`) that the daemons sharing the topic "
               "join",
       .min = 1,
       .set = [](T& t, const V& v) { t.source_options<KafkaOptions>().kafka.group_id = v.text; }},
      {.name = "ingest[].kafka.instance_id",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "`group.instance.id`: static membership, unique per daemon (its host name, say): a "
               "restart within `session_timeout_ms` keeps its partitions; \"\" = dynamic",
       .set = [](T& t,
                 const V& v) { t.source_options<KafkaOptions>().kafka.instance_id = v.text; }},
      {.name = "ingest[].kafka.payload",
       .type = OT::choice,
       .default_yaml = "auto",
       .help = "how values are read, as `mqtt.payload`: `auto`, `frame`, `text`, `json`",
       .choices = payload_format_names(),
       .set =
           [](T& t, const V& v) {
             t.source_options<KafkaOptions>().kafka.payload =
                 config::chosen(parse_payload_format(v.text), v.text);
           }},
      {.name = "ingest[].kafka.session_timeout_ms",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "a daemon that stops answering keeps its partitions this long; then the group "
               "moves them to the others",
       .min = 1000,
       .max = 3600000,
       .set =
           [](T& t, const V& v) {
             t.source_options<KafkaOptions>().kafka.session_timeout = milliseconds(v.integer);
           }},
      {.name = "ingest[].kafka.properties",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "further librdkafka properties, e.g. `security.protocol: ssl`; those warpwatch "
               "sets itself are refused",
       .set = [](T& t,
                 const V& v) { t.source_options<KafkaOptions>().kafka.properties = v.text_map; }},

  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<KafkaOptions>();
}

void check(config::PluginOptions& options, config::SourceCheck& check) {
  const auto& src = static_cast<const KafkaOptions&>(options);
  config::check_kafka_keys(check.keys, {"brokers", "topic", "group_id"}, src.kafka.properties);
}

MadeSource make(const config::IngestSource& entry, const SourceContext& context) {
  // Its cuts follow state.checkpoint_ms (0: only when partitions are revoked).
  stream::KafkaSourceOptions options = entry.options_as<KafkaOptions>().kafka;
  options.commit_interval = context.config.checkpoint_interval;
  return {std::make_unique<stream::KafkaSource>(
              options, context.hub, alerting::kafka_log(context.log), context.state_store()),
          std::nullopt};
}

std::string describe(const config::IngestSource& entry) {
  const auto& k = entry.options_as<KafkaOptions>().kafka;
  std::string s = "kafka  " + k.topic + " at " + k.brokers + ", group " + k.group_id +
                  (k.instance_id.empty() ? std::string() : " as " + k.instance_id) + ", payload " +
                  std::string(payload_format_name(k.payload)) + ", session timeout " +
                  std::to_string(k.session_timeout.count()) + " ms";
  // Names only: a property's value may be a credential (sasl.password).
  std::string names;
  for (const auto& property : k.properties) names += (names.empty() ? "" : ",") + property.first;
  if (!names.empty()) s += ", properties " + names;
  return s;
}

const stream::KafkaSource& kafka_source(const stream::Source& source) {
  return static_cast<const stream::KafkaSource&>(source);
}

// A consumer leaving its group cuts the state of its partitions through the scheduler.
void begin_leaving(stream::Source& source) {
  static_cast<stream::KafkaSource&>(source).request_stop();
}
bool leaving(const stream::Source& source) {
  return !kafka_source(source).thread_ended();
}

// The streams of its partitions are kept by its changelog, with the offsets they belong to.
void own_streams(const stream::Source& source, std::set<std::string, std::less<>>& streams) {
  for (const auto& [partition, ids] : kafka_source(source).partition_streams())
    streams.insert(ids.begin(), ids.end());
}

// docs/ingest.md §6, one label value per source; none without a Kafka source.
void families(MetricFamilies& f, std::span<const stream::Source* const> sources) {
  if (sources.empty()) return;
  std::vector<stream::KafkaCounters> counters;
  for (const stream::Source* source : sources) counters.push_back(kafka_source(*source).counters());
  const auto d = metric_value;
  f.gauge("kafka_connected", "1 while the Kafka source's group membership is up");
  for (const auto& s : counters) f.add(s.connected ? 1.0 : 0.0, {{"source", s.name}});
  f.counter("kafka_messages_total", "Kafka messages received, per source");
  for (const auto& s : counters) f.add(d(s.messages), {{"source", s.name}});
  f.counter("kafka_rejected_total",
            "Kafka messages rejected before decoding, per source and reason: no_key, "
            "stream_mismatch; consume_error: errors the consumer reported");
  for (const auto& s : counters)
    f.add(d(s.no_key), {{"source", s.name}, {"reason", "no_key"}})
        .add(d(s.stream_mismatch), {{"source", s.name}, {"reason", "stream_mismatch"}})
        .add(d(s.consume_errors), {{"source", s.name}, {"reason", "consume_error"}});
  f.gauge("kafka_partitions_assigned", "Partitions the group assigned to this daemon now");
  for (const auto& s : counters) f.add(d(s.partitions_assigned), {{"source", s.name}});
  f.counter("kafka_rebalances_total", "Assignments and revocations of partitions handled");
  for (const auto& s : counters) f.add(d(s.rebalances), {{"source", s.name}});
  f.gauge("kafka_lag_messages", "Messages behind the ends of the assigned partitions");
  for (const auto& s : counters) f.add(d(s.lag), {{"source", s.name}});
  f.gauge("kafka_paused", "1 while the assigned partitions are paused for a full queue");
  for (const auto& s : counters) f.add(s.backpressure ? 1.0 : 0.0, {{"source", s.name}});
  f.counter("kafka_pauses_total", "Times the partitions were paused for a full queue");
  for (const auto& s : counters) f.add(d(s.pauses), {{"source", s.name}});
  f.counter("kafka_commits_failed_total", "Offset commits the group coordinator refused");
  for (const auto& s : counters) f.add(d(s.commits_failed), {{"source", s.name}});
  f.counter("kafka_cuts_total",
            "Changelog cuts: made (records flushed, offsets committed), failed (not committed)");
  for (const auto& s : counters)
    f.add(d(s.cuts), {{"source", s.name}, {"result", "made"}})
        .add(d(s.cuts_failed), {{"source", s.name}, {"result", "failed"}});
  f.counter("kafka_changelog_records_total",
            "Changelog records: written by cuts, restored (streams), behind their partition's "
            "latest cut");
  for (const auto& s : counters)
    f.add(d(s.records_written), {{"source", s.name}, {"event", "written"}})
        .add(d(s.streams_restored), {{"source", s.name}, {"event", "restored"}})
        .add(d(s.records_behind), {{"source", s.name}, {"event", "behind"}});
}

}  // namespace

const SourcePlugin plugin{
    .config = {.name = KafkaOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check},
    .make = make,
    .describe = describe,
    .families = families,
    .begin_leaving = begin_leaving,
    .leaving = leaving,
    .own_streams = own_streams,
};

}  // namespace warpwatch::plugins::in_kafka
