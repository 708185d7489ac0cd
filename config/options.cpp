// The option table, first half: the daemon's own options (everything but libraries and
// rules, which options_matching.cpp declares). The reader (config_reader.cpp) and the
// reference (options_reference.cpp) only walk the table that option_table() joins.
#include <cmath>
#include <vector>

#include "config_reader.hpp"
#include "warpwatch/config/options.hpp"

namespace warpwatch::config {
namespace {

using T = OptionTargets;
using V = OptionValue;
using OT = OptionType;
using std::chrono::milliseconds;

// Periods are kept in whole nanoseconds, so the range in ms is what converts to 1 ns ..
// 1e15 ns (11.6 days): a shorter one would round to 0, and the bound keeps products such as
// a replay's i * period, or a pattern's times at the period, far from int64's end.
constexpr double min_period_ms = 1e-6;
constexpr double max_period_ms = 1e9;

// A period option's ns, after the table checked the ms against the bounds above (a value
// outside them is a bug of the table, not of the file).
std::int64_t period_ns(double ms) {
  WW_ASSERT(ms >= min_period_ms && ms <= max_period_ms,
            cat("period of ", std::to_string(ms), " ms passed the option table's bounds"));
  const auto ns = static_cast<std::int64_t>(std::llround(ms * 1e6));
  WW_ASSERT(ns >= 1, "a period within the bounds converts to >= 1 ns");
  return ns;
}

std::optional<stream::PayloadFormat> parse_mqtt_payload(std::string_view name) {
  for (const auto& [format_name, format] : mqtt_payload_formats)
    if (format_name == name) return format;
  return std::nullopt;
}

// The choices of `mqtt.payload` and `kafka.payload`.
std::vector<std::string_view> payload_format_names() {
  std::vector<std::string_view> names;
  for (const auto& [name, format] : mqtt_payload_formats) names.push_back(name);
  return names;
}

// An MQTT entry's TLS settings, turned on by the first of them that is set.
stream::MqttTls& tls_of(OptionTargets& t) {
  auto& tls = t.ingest->mqtt.tls;
  if (!tls) tls.emplace();
  return *tls;
}

}  // namespace

std::vector<OptionInfo> daemon_options() {
  return {
      // --- the daemon as a whole
      {.name = "instance",
       .type = OT::string,
       .default_yaml = "warpwatch",
       .help = "names this daemon in every event (`instance`) and in its logs",
       .min = 1,
       .set = [](T& t, const V& v) { t.config->instance = v.text; }},
      {.name = "backend",
       .type = OT::choice,
       .default_yaml = "auto",
       .help = "matching backend; `auto`: the cpu without a usable device, else by the declared "
               "pairs (see \"How auto chooses\"; one log line says which)",
       .choices = {"auto", "cuda", "cpu", "reference"},
       .set =
           [](T& t, const V& v) {
             t.config->backend = chosen(kernels::parse_backend(v.text), v.text);
           }},
      {.name = "cpu_threads",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "worker threads of the cpu backend; 0 = one per hardware thread",
       .min = 0,
       .max = 4096,
       .set = [](T& t, const V& v) { t.config->cpu_threads = static_cast<unsigned>(v.integer); }},
      {.name = "cuda", .type = OT::section, .help = "the cuda backend (and auto's)"},
      {.name = "cuda.devices",
       .type = OT::devices,
       .default_yaml = "all",
       .help = "the CUDA devices to match on: each stream's pairs on one device, streams "
               "placed to balance cells, a host thread a device (see \"Several GPUs\"); "
               "`warpwatch distance` and `bench` take `--devices`",
       .set =
           [](T& t, const V& v) {
             t.config->cuda_devices.assign(v.numbers.begin(), v.numbers.end());
           }},

      {.name = "scheduler", .type = OT::section, .help = "when batches are cut"},
      {.name = "scheduler.tick_ms",
       .type = OT::integer,
       .default_yaml = "10",
       .help = "a batch of every stream's new samples is matched every tick",
       .min = 1,
       .max = 60000,
       .set = [](T& t, const V& v) { t.config->tick = milliseconds(v.integer); }},
      {.name = "scheduler.batch_samples",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "a batch is cut before the tick once this many samples wait, and takes at most "
               "this many (all streams; the rest waits for the next round); 0 = by the "
               "backend: 65536 on cpu and reference, 1048576 on cuda",
       .min = 0,
       .max = 1 << 24,
       .set = [](T& t,
                 const V& v) { t.config->batch_samples = static_cast<std::size_t>(v.integer); }},

      // --- ingest
      {.name = "ingest",
       .type = OT::list,
       .help = "where samples come from; each entry has exactly one of `pull`, `sub`, `replay`, "
               "`mqtt`, `influx`, `kafka`"},
      {.name = "ingest[].pull",
       .type = OT::endpoint,
       .help = "a ZeroMQ PULL socket bound here receives `[stream id][payload]` messages",
       .set =
           [](T& t, const V& v) {
             t.ingest->kind = IngestSource::Kind::pull;
             t.ingest->endpoint = v.text;
           }},
      {.name = "ingest[].sub",
       .type = OT::endpoint,
       .help = "a ZeroMQ SUB socket connected here receives `[stream id][payload]` messages",
       .set =
           [](T& t, const V& v) {
             t.ingest->kind = IngestSource::Kind::sub;
             t.ingest->endpoint = v.text;
           }},
      {.name = "ingest[].topic",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "`sub` only: subscribe to stream ids starting with this; \"\" = every stream",
       .set = [](T& t, const V& v) { t.ingest->topic = v.text; }},
      {.name = "ingest[].server_key_file",
       .type = OT::path,
       .help = "`sub` with `curve` only, required there: the publisher's public key (a `.pub` "
               "file of `warpwatch keygen`); the daemon connects as a CURVE client with its own "
               "key pair",
       .set = [](T& t, const V& v) { t.ingest->server_key_file = v.text; }},
      {.name = "ingest[].replay",
       .type = OT::path,
       .help = "a series file (CSV, TSV, .npy; one series) replayed as one stream",
       .set =
           [](T& t, const V& v) {
             t.ingest->kind = IngestSource::Kind::replay;
             t.ingest->file = v.text;
           }},
      {.name = "ingest[].stream",
       .type = OT::string,
       .help = "`replay` only, required there: the stream id the file's samples get",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->stream = v.text; }},
      {.name = "ingest[].rate_hz",
       .type = OT::number,
       .default_yaml = "0",
       .help = "`replay` only: samples sent per second; 0 = as fast as possible; sending the "
               "file may take at most 1e9 s",
       .min = 0,
       .max = 1e9,
       .set = [](T& t, const V& v) { t.ingest->rate_hz = v.number; }},
      {.name = "ingest[].period_ms",
       .type = OT::number,
       .default_yaml = "1000",
       .help = "`replay` only: spacing of the replayed samples' timestamps, rounded to whole ns; "
               "the file's last timestamp must stay within int64 ns",
       .min = min_period_ms,
       .max = max_period_ms,
       .set = [](T& t, const V& v) { t.ingest->period_ns = period_ns(v.number); }},

      {.name = "ingest[].mqtt",
       .type = OT::section,
       .help = "an MQTT client that subscribes at a broker (README: MQTT); the keys below"},
      {.name = "ingest[].mqtt.host",
       .type = OT::string,
       .help = "required: the broker's host name or address",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->mqtt.host = v.text; }},
      {.name = "ingest[].mqtt.port",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "the broker's port; 0 = 1883, or 8883 with `tls`",
       .min = 0,
       .max = 65535,
       .set = [](T& t, const V& v) { t.ingest->mqtt.port = static_cast<int>(v.integer); }},
      {.name = "ingest[].mqtt.topics",
       .type = OT::string_list,
       .help = "required: the topic filters subscribed to (`+` one level, `#` all below)",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->mqtt.topics = v.texts; }},
      {.name = "ingest[].mqtt.qos",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "QoS asked for: 0 at most once, 1 at least once (kept for the daemon while it is "
               "away only with `clean_session: false`)",
       .min = 0,
       .max = 1,
       .set = [](T& t, const V& v) { t.ingest->mqtt.qos = static_cast<int>(v.integer); }},
      {.name = "ingest[].mqtt.stream_template",
       .type = OT::string,
       .default_yaml = "\"{topic}\"",
       .help = "a message's stream id from its topic: `{N}` is topic level N (from 1), "
               "`{topic}` the whole topic, `{{` and `}}` braces; e.g. `\"{2}-{3}\"`",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->mqtt.stream_template = v.text; }},
      {.name = "ingest[].mqtt.payload",
       .type = OT::choice,
       .default_yaml = "auto",
       .help = "how payloads are read; `auto`: a binary frame when it starts with `WWF`, JSON "
               "when it starts with `{` or `[`, otherwise text lines",
       .choices = payload_format_names(),
       .set =
           [](T& t, const V& v) {
             t.ingest->mqtt.payload = chosen(parse_mqtt_payload(v.text), v.text);
           }},
      {.name = "ingest[].mqtt.client_id",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "the client id; \"\" = a random one (clean sessions only); two clients with one id "
               "take the connection from each other",
       .set = [](T& t, const V& v) { t.ingest->mqtt.client_id = v.text; }},
      {.name = "ingest[].mqtt.clean_session",
       .type = OT::boolean,
       .default_yaml = "true",
       .help = "false: the broker keeps the subscriptions, and QoS 1 messages, while the daemon "
               "is away (needs `client_id`)",
       .set = [](T& t, const V& v) { t.ingest->mqtt.clean_session = v.boolean; }},
      {.name = "ingest[].mqtt.username",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "user name at the broker; \"\" = none",
       .set = [](T& t, const V& v) { t.ingest->mqtt.username = v.text; }},
      {.name = "ingest[].mqtt.password_file",
       .type = OT::path,
       .help = "a file that holds the password (one trailing newline is dropped), read at "
               "start; needs `username`; unset = no password",
       .set = [](T& t, const V& v) { t.ingest->password_file = v.text; }},
      {.name = "ingest[].mqtt.keepalive_s",
       .type = OT::integer,
       .default_yaml = "30",
       .help = "seconds between keepalive pings; a silent connection, or an attempt that gets "
               "no answer, ends after it",
       .min = 5,
       .max = 65535,
       .set = [](T& t, const V& v) { t.ingest->mqtt.keepalive_s = static_cast<int>(v.integer); }},
      {.name = "ingest[].mqtt.reconnect_min_ms",
       .type = OT::integer,
       .default_yaml = "1000",
       .help = "delay before reconnecting; it doubles after each failed attempt",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.ingest->mqtt.reconnect_min = milliseconds(v.integer); }},
      {.name = "ingest[].mqtt.reconnect_max_ms",
       .type = OT::integer,
       .default_yaml = "30000",
       .help = "the longest delay; also how long a connection must last for the delay to start "
               "again from `reconnect_min_ms`",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.ingest->mqtt.reconnect_max = milliseconds(v.integer); }},
      {.name = "ingest[].mqtt.retained",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "take the retained message a broker sends at subscription (an old sample) as "
               "input; false: skip and count it",
       .set = [](T& t, const V& v) { t.ingest->mqtt.retained = v.boolean; }},
      {.name = "ingest[].mqtt.tls",
       .type = OT::section,
       .help = "connect over TLS (written, even as `{}`, turns it on); the broker's certificate "
               "and host name are verified"},
      {.name = "ingest[].mqtt.tls.ca_file",
       .type = OT::path,
       .help = "the CA certificates (PEM) trusted for the broker; unset = the system's",
       .set = [](T& t, const V& v) { tls_of(t).ca_file = v.text; }},
      {.name = "ingest[].mqtt.tls.cert_file",
       .type = OT::path,
       .help = "a client certificate (PEM), with `key_file`; unset = none",
       .set = [](T& t, const V& v) { tls_of(t).cert_file = v.text; }},
      {.name = "ingest[].mqtt.tls.key_file",
       .type = OT::path,
       .help = "the client certificate's private key (PEM, not encrypted)",
       .set = [](T& t, const V& v) { tls_of(t).key_file = v.text; }},
      {.name = "ingest[].influx",
       .type = OT::socket,
       .help = "InfluxDB line protocol (Telegraf's `socket_writer`, `data_format = \"influx\"`) "
               "received on this TCP listener or UDP socket (README: InfluxDB line protocol)",
       .set =
           [](T& t, const V& v) {
             t.ingest->kind = IngestSource::Kind::influx;
             t.ingest->endpoint = v.text;
           }},
      {.name = "ingest[].stream_template",
       .type = OT::string,
       .default_yaml = "\"{measurement}.{field}\"",
       .help = "`influx` only: a line's stream id, text and `{measurement}`, `{field}`, "
               "`{tag:KEY}` (quote it in YAML); with `{field}` each numeric field is a stream of "
               "its own",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->mapping.stream_template = v.text; }},
      {.name = "ingest[].fields",
       .type = OT::string_list,
       .help = "`influx` only: with `{field}`, the fields taken (unset = every numeric field); "
               "without, required: the fields whose values make a sample, in order",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->mapping.fields = v.texts; }},
      {.name = "ingest[].precision",
       .type = OT::choice,
       .default_yaml = "ns",
       .help = "`influx` only: unit of the lines' timestamps; a line without one gets the time "
               "it was received",
       .choices = {std::begin(stream::precision_names), std::end(stream::precision_names)},
       .set =
           [](T& t, const V& v) {
             t.ingest->mapping.precision = chosen(stream::parse_precision(v.text), v.text);
           }},
      {.name = "ingest[].max_line_bytes",
       .type = OT::integer,
       .default_yaml = "65536",
       .help = "`influx` only: a longer line is skipped and counted (`line_too_long`)",
       .min = 64,
       .max = 16 << 20,
       .set = [](T& t,
                 const V& v) { t.ingest->max_line_bytes = static_cast<std::size_t>(v.integer); }},
      {.name = "ingest[].max_connections",
       .type = OT::integer,
       .default_yaml = "256",
       .help = "`influx` over tcp only: connections beyond this many are closed at once and "
               "counted",
       .min = 1,
       .max = 65536,
       .set = [](T& t,
                 const V& v) { t.ingest->max_connections = static_cast<std::size_t>(v.integer); }},
      {.name = "ingest[].kafka",
       .type = OT::section,
       .help = "a member of a Kafka consumer group: its share of a topic's partitions, key = "
               "stream id (README: Kafka); the keys below"},
      {.name = "ingest[].kafka.brokers",
       .type = OT::string,
       .help = "required: the bootstrap brokers, `host:port[,host:port...]`",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->kafka.brokers = v.text; }},
      {.name = "ingest[].kafka.topic",
       .type = OT::string,
       .help = "required: the input topic; a message's key is its stream id, its value the "
               "samples",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->kafka.topic = v.text; }},
      {.name = "ingest[].kafka.group_id",
       .type = OT::string,
       .help = "required: the consumer group (`group.id`) that the daemons sharing the topic "
               "join",
       .min = 1,
       .set = [](T& t, const V& v) { t.ingest->kafka.group_id = v.text; }},
      {.name = "ingest[].kafka.instance_id",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "`group.instance.id`: static membership, unique per daemon (its host name, say): a "
               "restart within `session_timeout_ms` keeps its partitions; \"\" = dynamic",
       .set = [](T& t, const V& v) { t.ingest->kafka.instance_id = v.text; }},
      {.name = "ingest[].kafka.payload",
       .type = OT::choice,
       .default_yaml = "auto",
       .help = "how values are read, as `mqtt.payload`: `auto`, `frame`, `text`, `json`",
       .choices = payload_format_names(),
       .set =
           [](T& t, const V& v) {
             t.ingest->kafka.payload = chosen(parse_mqtt_payload(v.text), v.text);
           }},
      {.name = "ingest[].kafka.session_timeout_ms",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "a daemon that stops answering keeps its partitions this long; then the group "
               "moves them to the others",
       .min = 1000,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.ingest->kafka.session_timeout = milliseconds(v.integer); }},
      {.name = "ingest[].kafka.properties",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "further librdkafka properties, e.g. `security.protocol: ssl`; those warpwatch "
               "sets itself are refused",
       .set = [](T& t, const V& v) { t.ingest->kafka.properties = v.text_map; }},

      // --- limits and streams
      {.name = "limits", .type = OT::section, .help = "what bad or abundant input may cost"},
      {.name = "limits.max_message_bytes",
       .type = OT::integer,
       .default_yaml = "1048576",
       .help = "larger ingest messages (id and payload) are refused: libzmq disconnects a "
               "peer that sends a larger frame (ZMQ_MAXMSGSIZE), larger messages of smaller "
               "frames are counted as `oversized_message`",
       .min = 64,
       .max = 1 << 30,
       .set =
           [](T& t, const V& v) {
             t.config->max_message_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "limits.memory_budget_bytes",
       .type = OT::integer,
       .default_yaml = "1073741824",
       .help = "what ingest may hold in memory: the queues and libzmq's receive buffers are "
               "sized from it (README: Backpressure and limits)",
       .min = 16 << 20,
       .max = std::int64_t{1} << 42,
       .set =
           [](T& t, const V& v) {
             t.config->memory_budget_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "limits.queue_bytes",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "samples queued for matching, all streams, at most (8 + 4 x dims bytes each); "
               "0 = a quarter of the memory budget",
       .min = 0,
       .max = std::int64_t{1} << 42,
       .set = [](T& t,
                 const V& v) { t.config->queue_bytes = static_cast<std::size_t>(v.integer); }},
      {.name = "limits.stream_queue_bytes",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "samples queued for one stream at most; 0 = a sixteenth of `queue_bytes`",
       .min = 0,
       .max = std::int64_t{1} << 42,
       .set =
           [](T& t, const V& v) {
             t.config->stream_queue_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "limits.receive_hwm",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "messages libzmq queues per connected producer before it stops reading from "
               "it (ZMQ_RCVHWM); 0 = an eighth of the memory budget in `max_message_bytes` "
               "messages, 1 to 1000",
       .min = 0,
       .max = 1000000,
       .set = [](T& t,
                 const V& v) { t.config->receive_high_water_mark = static_cast<int>(v.integer); }},
      {.name = "limits.max_streams",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "auto-created streams beyond this many are rejected and counted",
       .min = 1,
       .max = 10000000,
       .set = [](T& t,
                 const V& v) { t.config->live.max_streams = static_cast<std::size_t>(v.integer); }},
      {.name = "limits.max_stream_rate_hz",
       .type = OT::number,
       .default_yaml = "0",
       .help = "samples a second one stream may send (every source, a token bucket); samples "
               "over it are rejected and counted as `rate_limited`; 0 = unlimited; live on "
               "reload",
       .min = 0,
       .max = 1e12,
       .set = [](T& t, const V& v) { t.config->live.max_stream_rate_hz = v.number; }},
      {.name = "limits.max_stream_burst",
       .type = OT::number,
       .default_yaml = "0",
       .help = "samples a stream may send at once above `max_stream_rate_hz` (the bucket's "
               "size); 0 = one second's worth (at least 1)",
       .min = 0,
       .max = 1e12,
       .set = [](T& t, const V& v) { t.config->live.max_stream_burst = v.number; }},
      {.name = "limits.max_library_bytes",
       .type = OT::integer,
       .default_yaml = "268435456",
       .help = "what one pattern library's patterns may take in memory, estimated (README: "
               "Backpressure and limits); a larger library is refused, at start and on reload",
       .min = 1024,
       .max = std::int64_t{1} << 42,
       .set =
           [](T& t, const V& v) {
             t.config->live.max_library_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "streams", .type = OT::section, .help = "which stream ids are accepted"},
      {.name = "streams.auto_create",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "accept samples for undeclared stream ids (they get `auto_dims`)",
       .set = [](T& t, const V& v) { t.config->live.auto_create_streams = v.boolean; }},
      {.name = "streams.auto_dims",
       .type = OT::integer,
       .default_yaml = "1",
       .help = "dimension of auto-created streams",
       .min = 1,
       .max = 64,
       .set = [](T& t,
                 const V& v) { t.config->live.auto_dims = static_cast<std::size_t>(v.integer); }},
      {.name = "streams.auto_period_ms",
       .type = OT::number,
       .default_yaml = "1000",
       .help = "nominal sample spacing of auto-created streams (as `declared[].period_ms`); a "
               "reload's value applies to the streams created after it",
       .min = min_period_ms,
       .max = max_period_ms,
       .set = [](T& t, const V& v) { t.config->live.auto_period_ns = period_ns(v.number); }},
      {.name = "streams.declared",
       .type = OT::list,
       .help = "streams known in advance; ids are unique"},
      {.name = "streams.declared[].id",
       .type = OT::string,
       .required = true,
       .help = "stream id: 1 to 255 bytes of UTF-8, no whitespace",
       .min = 1,
       .set = [](T& t, const V& v) { t.stream->def.id = v.text; }},
      {.name = "streams.declared[].dims",
       .type = OT::integer,
       .default_yaml = "1",
       .help = "values per sample",
       .min = 1,
       .max = 64,
       .set = [](T& t, const V& v) { t.stream->def.dims = static_cast<std::size_t>(v.integer); }},
      {.name = "streams.declared[].period_ms",
       .type = OT::number,
       .default_yaml = "1000",
       .help = "nominal sample spacing, rounded to whole ns: patterns without `times` are "
               "spaced at it (twed)",
       .min = min_period_ms,
       .max = max_period_ms,
       .set = [](T& t, const V& v) { t.stream->def.nominal_period_ns = period_ns(v.number); }},

      // --- sinks and lifecycle
      {.name = "publish", .type = OT::section, .help = "where events go"},
      {.name = "publish.endpoint",
       .type = OT::endpoint,
       .default_yaml = "tcp://127.0.0.1:5556",
       .help = "a ZeroMQ PUB socket bound here publishes events (topic `<rule>/<stream>`, JSON)",
       .set = [](T& t, const V& v) { t.config->publish_endpoint = v.text; }},
      {.name = "publish.send_hwm",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "events queued per subscriber before further ones are dropped and counted; 0 = "
               "no limit",
       .min = 0,
       .max = 100000000,
       .set = [](T& t,
                 const V& v) { t.config->send_high_water_mark = static_cast<int>(v.integer); }},
      {.name = "publish.events_file",
       .type = OT::path,
       .help = "also append every event to this file as JSON lines; unset = no file",
       .set = [](T& t, const V& v) { t.config->events_file = v.text; }},
      {.name = "curve",
       .type = OT::section,
       .help = "CURVE authentication and encryption on every ZeroMQ socket (README: "
               "Authenticated sockets); written, it turns CURVE on and needs both keys below"},
      {.name = "curve.secret_key_file",
       .type = OT::path,
       .help = "the daemon's secret key (`warpwatch keygen`'s `.key`, mode 0600 or stricter); "
               "`pull` and `publish` are CURVE servers with it, `sub` entries clients",
       .set = [](T& t, const V& v) { t.config->curve.secret_key_file = v.text; }},
      {.name = "curve.allowed_clients_file",
       .type = OT::path,
       .help = "the public keys (one per line, `#` comments) of the clients that `pull` and "
               "`publish` accept; any other is refused, counted and logged; a reload re-reads it",
       .set = [](T& t, const V& v) { t.config->curve.allowed_clients_file = v.text; }},
      {.name = "metrics", .type = OT::section, .help = "monitoring"},
      {.name = "metrics.listen",
       .type = OT::listen,
       .default_yaml = "\"\"",
       .help = "serve `/metrics` (Prometheus), `/healthz` and `/readyz` over HTTP here; \"\" = "
               "off",
       .set = [](T& t, const V& v) { t.config->metrics_listen = v.text; }},
      {.name = "metrics.stale_after_ms",
       .type = OT::integer,
       .default_yaml = "5000",
       .help = "`/healthz` answers 503 once the scheduler has not finished a round for this long",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.config->metrics_stale_after = milliseconds(v.integer); }},
      {.name = "log",
       .type = OT::section,
       .help = "the daemon's own log (stderr, or the journal under systemd)"},
      {.name = "log.level",
       .type = OT::choice,
       .default_yaml = "info",
       .help = "least severe messages logged; `warpwatchd --log-level` overrides it; a reload "
               "applies it",
       .choices = {std::begin(log_level_names), std::end(log_level_names)},
       .set =
           [](T& t, const V& v) {
             t.config->live.log_level = chosen(parse_log_level(v.text), v.text);
           }},
      {.name = "shutdown", .type = OT::section, .help = "SIGTERM and SIGINT"},
      {.name = "shutdown.drain_grace_ms",
       .type = OT::integer,
       .default_yaml = "2000",
       .help = "after ingest stops, time allowed to match, flush and publish what was "
               "accepted; what is not matched by then is counted and logged",
       .min = 0,
       .max = 600000,
       .set = [](T& t, const V& v) { t.config->drain_grace = milliseconds(v.integer); }},
      {.name = "state",
       .type = OT::section,
       .help = "matching state that survives restarts (README: State and restarts)"},
      {.name = "state.dir",
       .type = OT::path,
       .default_yaml = "\"\"",
       .help = "folder of `checkpoint.bin`: the matching state, written every `checkpoint_ms` "
               "and at shutdown (instead of reporting pending candidates), restored at start; "
               "\"\" = off",
       .set = [](T& t, const V& v) { t.config->state_dir = v.text; }},
      {.name = "state.checkpoint_ms",
       .type = OT::integer,
       .default_yaml = "5000",
       .help = "how often the checkpoint is written while running; 0 = only at shutdown",
       .min = 0,
       .max = 86400000,
       .set = [](T& t, const V& v) { t.config->checkpoint_interval = milliseconds(v.integer); }},
  };
}

std::span<const OptionInfo> option_table() {
  static const std::vector<OptionInfo> table = [] {
    std::vector<OptionInfo> all = daemon_options();
    for (OptionInfo& option : sink_options()) all.push_back(std::move(option));
    for (OptionInfo& option : matching_options()) all.push_back(std::move(option));
    return all;
  }();
  return table;
}

const OptionInfo* find_option(std::string_view name) {
  for (const OptionInfo& option : option_table())
    if (option.name == name) return &option;
  return nullptr;
}

std::string_view leaf_name(std::string_view name) {
  const std::size_t dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::vector<const OptionInfo*> child_options(std::string_view parent) {
  std::vector<const OptionInfo*> children;
  for (const OptionInfo& option : option_table()) {
    const std::string_view name = option.name;
    const std::size_t dot = name.rfind('.');
    const std::string_view head = dot == std::string_view::npos ? "" : name.substr(0, dot);
    if (head == parent) children.push_back(&option);
  }
  return children;
}

}  // namespace warpwatch::config
