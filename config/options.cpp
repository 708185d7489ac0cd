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

std::int64_t ms_to_ns(double ms) {
  return static_cast<std::int64_t>(std::llround(ms * 1e6));
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
               "`influx`"},
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
       .help = "`replay` only: samples sent per second; 0 = as fast as possible",
       .min = 0,
       .set = [](T& t, const V& v) { t.ingest->rate_hz = v.number; }},
      {.name = "ingest[].period_ms",
       .type = OT::number,
       .default_yaml = "1000",
       .help = "`replay` only: spacing of the replayed samples' timestamps",
       .min = 0,
       .min_exclusive = true,
       .set = [](T& t, const V& v) { t.ingest->period_ns = ms_to_ns(v.number); }},

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
       .help = "nominal sample spacing: patterns without `times` are spaced at it (twed)",
       .min = 0,
       .min_exclusive = true,
       .set = [](T& t, const V& v) { t.stream->def.nominal_period_ns = ms_to_ns(v.number); }},

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
      {.name = "metrics", .type = OT::section, .help = "monitoring"},
      {.name = "metrics.listen",
       .type = OT::listen,
       .default_yaml = "\"\"",
       .help = "serve `/metrics` (Prometheus) and `/healthz` over HTTP here; \"\" = off",
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
  };
}

std::span<const OptionInfo> option_table() {
  static const std::vector<OptionInfo> table = [] {
    std::vector<OptionInfo> all = daemon_options();
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
