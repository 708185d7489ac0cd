// The option table, first half: the daemon's own options (everything but the ingest kinds'
// rows, which their plugins declare (source_kinds.hpp), the sinks' (options_sinks.cpp, with
// the sink kinds' rows their plugins declare, sink_kinds.hpp), and libraries and rules, which
// options_matching.cpp declares). The reader (config_reader.cpp) and the
// reference (options_reference.cpp) only walk the table that option_table() joins.
#include <algorithm>
#include <cmath>
#include <iterator>
#include <vector>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/config/sink_kinds.hpp"
#include "warpwatch/config/source_kinds.hpp"

namespace warpwatch::config {
namespace {

using T = OptionTargets;
using V = OptionValue;
using OT = OptionType;
using std::chrono::milliseconds;

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
      {.name = "http",
       .type = OT::section,
       .help = "the daemon's one HTTP server: `/metrics`, `/healthz`, `/readyz` and the API "
               "`/api/v1/` (docs/api.md, docs/operations.md §9); a reload applies a changed "
               "tokens file, the rest waits for a restart"},
      {.name = "http.listen",
       .type = OT::listen,
       .default_yaml = "\"\"",
       .help = "serve HTTP here; \"\" = off. Beyond loopback it needs `tokens_file`. "
               "`metrics.listen` is another name for it",
       .set =
           [](T& t, const V& v) {
             if (!v.text.empty()) t.config->http.listen = v.text;
           }},
      {.name = "http.tokens_file",
       .type = OT::path,
       .help = "the API's bearer tokens, lines `NAME ROLE SHA256-HEX` (`warpwatch token` makes "
               "them; role `read`: every GET, `write`: everything); re-read on reload; unset = "
               "no token is needed, which only a loopback `listen` allows",
       .set = [](T& t, const V& v) { t.config->http.tokens_file = v.text; }},
      {.name = "http.tls",
       .type = OT::section,
       .help = "HTTPS: both files, PEM; written, the server speaks TLS only"},
      {.name = "http.tls.cert_file",
       .type = OT::path,
       .help = "the server's certificate chain (PEM)",
       .set = [](T& t, const V& v) { t.config->http.tls_cert_file = v.text; }},
      {.name = "http.tls.key_file",
       .type = OT::path,
       .help = "the certificate's private key (PEM)",
       .set = [](T& t, const V& v) { t.config->http.tls_key_file = v.text; }},
      {.name = "http.external_url",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "the server's address as its users reach it (`https://warpwatch.example`): "
               "events carry links under it (Alertmanager's `generatorURL`, the webhook's and "
               "Kafka's `explain_url`); \"\" = no links",
       .allowed = "`http://` or `https://` URL, or `\"\"`",
       .set = [](T& t, const V& v) { t.config->http.external_url = v.text; }},
      {.name = "http.metrics_auth",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "`/metrics`, `/healthz` and `/readyz` need a token too (any role)",
       .set = [](T& t, const V& v) { t.config->http.metrics_auth = v.boolean; }},
      {.name = "http.max_header_bytes",
       .type = OT::integer,
       .default_yaml = "16384",
       .help = "a request's line and headers; larger ones are answered 431",
       .min = 1024,
       .max = 1 << 20,
       .set =
           [](T& t, const V& v) {
             t.config->http.max_header_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "http.max_body_bytes",
       .type = OT::integer,
       .default_yaml = "1048576",
       .help = "a request's body; larger ones are answered 413",
       .min = 0,
       .max = 1 << 30,
       .set =
           [](T& t, const V& v) {
             t.config->http.max_body_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "http.timeout_ms",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "time to read a request and to write its answer; an idle keep-alive connection "
               "is closed after it",
       .min = 100,
       .max = 600000,
       .set = [](T& t, const V& v) { t.config->http.timeout = milliseconds(v.integer); }},
      {.name = "http.max_connections",
       .type = OT::integer,
       .default_yaml = "64",
       .help = "connections served at once; one more is answered 503 with `Retry-After` and "
               "closed",
       .min = 1,
       .max = 100000,
       .set =
           [](T& t, const V& v) {
             t.config->http.max_connections = static_cast<std::size_t>(v.integer);
           }},
      {.name = "metrics", .type = OT::section, .help = "monitoring"},
      {.name = "metrics.listen",
       .type = OT::listen,
       .default_yaml = "\"\"",
       .help = "another name for `http.listen` (both written: the same value)",
       .set =
           [](T& t, const V& v) {
             if (!v.text.empty()) t.config->http.listen = v.text;
           }},
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
               "and of `overlay/`, the runtime changes of libraries (operations.md 4.1); "
               "\"\" = off",
       .set = [](T& t, const V& v) { t.config->state_dir = v.text; }},
      {.name = "state.checkpoint_ms",
       .type = OT::integer,
       .default_yaml = "5000",
       .help = "how often the checkpoint is written while running; 0 = only at shutdown",
       .min = 0,
       .max = 86400000,
       .set = [](T& t, const V& v) { t.config->checkpoint_interval = milliseconds(v.integer); }},
      {.name = "event_store",
       .type = OT::section,
       .help = "the last events published, each with the samples it matched and its pattern "
               "as matched (for the API; kept in the checkpoint with `state.dir`); the oldest "
               "go first when either bound is reached"},
      {.name = "event_store.max_events",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "events kept at most; 0 = off",
       .min = 0,
       .max = 10'000'000,
       .set =
           [](T& t, const V& v) {
             t.config->event_store.max_events = static_cast<std::size_t>(v.integer);
           }},
      {.name = "event_store.max_bytes",
       .type = OT::integer,
       .default_yaml = "67108864",
       .help = "bytes of events kept at most (each event's strings, segment and pattern "
               "counted); 0 = off",
       .min = 0,
       .max = std::int64_t{1} << 40,
       .set =
           [](T& t, const V& v) {
             t.config->event_store.max_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "event_store.context_samples",
       .type = OT::integer,
       .default_yaml = "256",
       .help = "samples kept before and after a match: max(8, its length / 2), at most this "
               "many (before a stream-mode match at least 4 pattern lengths); what the history "
               "holds when the event is published (the samples after it that arrive later are "
               "not added)",
       .min = 0,
       .max = 1 << 20,
       .set =
           [](T& t, const V& v) {
             t.config->event_store.context_samples = static_cast<std::size_t>(v.integer);
           }},
      {.name = "history",
       .type = OT::section,
       .help = "each stream's last samples, as matched (for the API and the events' segments)"},
      {.name = "history.samples_per_stream",
       .type = OT::integer,
       .default_yaml = "4096",
       .help = "samples kept per stream; at least the longest pattern and twice the context "
               "for whole segments; 0 = off (events then have no segment)",
       .min = 0,
       .max = 1 << 24,
       .set =
           [](T& t, const V& v) {
             t.config->history.samples_per_stream = static_cast<std::size_t>(v.integer);
           }},
      {.name = "history.max_bytes",
       .type = OT::integer,
       .default_yaml = "268435456",
       .help = "bytes of history of all streams together; it wins: with many streams each "
               "keeps fewer than `samples_per_stream`; 0 = off",
       .min = 0,
       .max = std::int64_t{1} << 40,
       .set =
           [](T& t, const V& v) {
             t.config->history.max_bytes = static_cast<std::size_t>(v.integer);
           }},
  };
}

namespace {

std::vector<SourceKind>& registered_source_kinds() {
  static std::vector<SourceKind> kinds;
  return kinds;
}
std::vector<SinkKind>& registered_sink_kinds() {
  static std::vector<SinkKind> kinds;
  return kinds;
}
bool table_built = false;  // register_source_kind and register_sink_kind come first

}  // namespace

void register_source_kind(const SourceKind& kind) {
  WW_ASSERT(!table_built, cat("ingest kind '", kind.name,
                              "' registered after the option table "
                              "was built"));
  WW_ASSERT(!find_source_kind(kind.name), cat("ingest kind '", kind.name, "' registered twice"));
  registered_source_kinds().push_back(kind);
}

std::span<const SourceKind> source_kinds() {
  return registered_source_kinds();
}

const SourceKind* find_source_kind(std::string_view name) {
  for (const SourceKind& kind : registered_source_kinds())
    if (kind.name == name) return &kind;
  return nullptr;
}

void register_sink_kind(const SinkKind& kind) {
  WW_ASSERT(!table_built,
            cat("sink kind '", kind.name, "' registered after the option table was built"));
  WW_ASSERT(!find_sink_kind(kind.name), cat("sink kind '", kind.name, "' registered twice"));
  registered_sink_kinds().push_back(kind);
}

std::span<const SinkKind> sink_kinds() {
  return registered_sink_kinds();
}

const SinkKind* find_sink_kind(std::string_view name) {
  for (const SinkKind& kind : registered_sink_kinds())
    if (kind.name == name) return &kind;
  return nullptr;
}

std::vector<PluginOptions*> SinkEntry::every_kind() {
  std::vector<PluginOptions*> all;
  for (const SinkKind& kind : sink_kinds()) {
    std::unique_ptr<PluginOptions>& slot = options[std::string(kind.name)];
    if (!slot) slot = kind.make_options();
    all.push_back(slot.get());
  }
  return all;
}

namespace {

// The `ingest` list and the rows of every kind registered, in their order.
std::vector<OptionInfo> ingest_options() {
  std::vector<OptionInfo> rows;
  std::string kinds;
  for (const SourceKind& kind : source_kinds())
    kinds += cat(kinds.empty() ? "" : ", ", "`", kind.name, "`");
  static std::string help;  // the table holds string_views
  help = cat("where samples come from; each entry has exactly one of ", kinds);
  rows.push_back({.name = "ingest", .type = OptionType::list, .help = help});
  for (const SourceKind& kind : source_kinds())
    for (OptionInfo& option : kind.options()) rows.push_back(std::move(option));
  return rows;
}

}  // namespace

std::span<const OptionInfo> option_table() {
  static const std::vector<OptionInfo> table = [] {
    // Without them no `ingest` or `sinks` entry could be read: the caller forgot
    // plugins::register_builtin_plugins(), and a silent table without them would say
    // "unknown key" for every source and sink.
    WW_ASSERT(!source_kinds().empty() && !sink_kinds().empty(),
              "no ingest or sink kinds registered: plugins::register_builtin_plugins() comes "
              "before the option table");
    table_built = true;
    std::vector<OptionInfo> all = daemon_options();
    // After the daemon's own "scheduler" rows, before "limits": where the reference has
    // always listed them.
    const auto limits = std::find_if(all.begin(), all.end(),
                                     [](const OptionInfo& o) { return o.name == "limits"; });
    std::vector<OptionInfo> ingest = ingest_options();
    all.insert(limits, std::make_move_iterator(ingest.begin()),
               std::make_move_iterator(ingest.end()));
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
