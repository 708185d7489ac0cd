// warpwatchd's configuration, typed (the YAML file is described in docs/configuration.md §2; the
// option table in config/options/options.cpp declares each option once).
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/http_url.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::config {

// A plugin's own options (daemon/plugins/: an ingest or sink kind's struct), type-erased so
// that the configuration holds every kind's without naming them.
class PluginOptions {
 public:
  virtual ~PluginOptions() = default;
  // The same settings (a reload says that `ingest` waits for a restart when not).
  virtual bool same(const PluginOptions& other) const = 0;
};

// PluginOptions of a struct that compares with ==: `struct PullOptions :
// PluginOptionsOf<PullOptions>`.
template <class Self>
class PluginOptionsOf : public PluginOptions {
 public:
  bool same(const PluginOptions& other) const override {
    const auto* o = dynamic_cast<const Self*>(&other);
    return o && static_cast<const Self&>(*this) == *o;
  }
  friend bool operator==(const PluginOptionsOf&, const PluginOptionsOf&) { return true; }
};

// Where samples come from: one entry of `ingest:`, of the kind its plugin names (`pull`,
// `sub`, `replay`, `mqtt`, `influx`, `kafka`: daemon/plugins/in_<kind>/), with that plugin's
// options, checked.
struct IngestSource {
  std::string kind;
  std::shared_ptr<const PluginOptions> options;
  SourceLocation where;

  // The plugin's struct (std::bad_cast for another kind's: a bug).
  template <class Options>
  const Options& options_as() const {
    return dynamic_cast<const Options&>(*options);
  }
};

// `curve:` (docs/operations.md §6): CURVE on every ZeroMQ socket of the
// daemon. Bound sockets (pull, publish) are servers with the daemon's key pair and accept
// the allowed clients only (a ZAP handler); `sub` entries are clients of their publisher.
struct CurveConfig {
  bool enabled = false;  // the file has a `curve` section
  std::string secret_key_file;
  std::string allowed_clients_file;
  stream::CurveKeyPair keys;  // the secret key read from secret_key_file, its public key
  // Read from allowed_clients_file (Z85 public keys, never empty). A reload applies a new
  // list; the rest of `curve` waits for a restart.
  std::vector<std::string> allowed_clients;
};

// One bearer token of the HTTP API (`http.tokens_file`, a line `NAME ROLE SHA256-HEX`): the
// token itself is never stored, only its SHA-256.
enum class TokenRole { read, write };
struct ApiToken {
  std::string name;
  TokenRole role = TokenRole::read;
  std::array<std::uint8_t, 32> sha256{};  // of the token
};

// `http:`: the daemon's one HTTP server (daemon/service/http/): /metrics, /healthz, /readyz and
// the API. `listen` is also `metrics.listen` (an alias). A reload applies a changed tokens file;
// the rest waits for a restart.
struct HttpConfig {
  std::string listen;  // "127.0.0.1:9464"; "" = off
  std::string tokens_file;
  std::vector<ApiToken> tokens;             // read from tokens_file (empty without one)
  std::string tls_cert_file, tls_key_file;  // both or neither: TLS
  std::string external_url;                 // links in events; "" = none
  bool metrics_auth = false;                // /metrics, /healthz, /readyz need a token too
  std::size_t max_header_bytes = 16 * 1024;
  std::size_t max_body_bytes = 1 << 20;
  std::chrono::milliseconds timeout{10000};  // to read a request, and to write its answer
  std::size_t max_connections = 64;          // more are answered 503 (Retry-After) and closed
  bool tls() const { return !tls_cert_file.empty(); }
};

// The lines of a tokens file (`NAME ROLE SHA256-HEX`, `#` comments, blank lines); a bad line
// is a ConfigError at the file's line. Throws ConfigError at `where` when it cannot be read.
std::vector<ApiToken> read_tokens_file(const std::string& path, const SourceLocation& where);
// "host:port" whose host is a loopback address (127.0.0.0/8, ::1, localhost).
bool is_loopback_listen(std::string_view host_port);

// The validated choices of the file, as enums (their names: to_string / parse_*).
// Least severe messages logged (`log.level`), in spdlog's order.
enum class LogLevel { trace, debug, info, warning, error, critical, off };
// An event's severity (`rules[].severity`).
enum class Severity { debug, info, notice, warning, error, critical };

std::string_view to_string(LogLevel level);
std::string_view to_string(Severity severity);
// nullopt for a name that is not one (the option table refuses those with a location).
std::optional<LogLevel> parse_log_level(std::string_view name);
std::optional<Severity> parse_severity(std::string_view name);
inline constexpr std::string_view log_level_names[] = {"trace", "debug",    "info", "warning",
                                                       "error", "critical", "off"};
inline constexpr std::string_view severity_names[] = {"debug",   "info",  "notice",
                                                      "warning", "error", "critical"};

// A declared stream (docs/spec.md §1): samples for undeclared ids are rejected unless
// auto_create_streams is on.
struct StreamDecl {
  stream::StreamDef def;  // the identity the registry gives the stream
  SourceLocation where;
};

// A named pattern library: patterns from files or inline YAML, each with the library's
// defaults and its own overrides already applied.
struct Library {
  std::string name;
  std::vector<kernels::PatternDef> patterns;  // ids are unique across all libraries; each
                                              // names this library in PatternDef::library
  std::vector<SourceLocation> pattern_where;  // patterns[i]'s `id` in the file
  // Nearest template (docs/spec.md §5.1): of overlapping matches of its patterns on one
  // stream, only the closest becomes an event (alerting/nearest_template.hpp).
  bool exclusive = false;
  SourceLocation where;
};

// An alert rule (docs/spec.md §5): which matches become events, and how they are labelled.
struct Rule {
  std::string name;
  std::vector<std::string> streams = {"*"};    // glob patterns on stream ids
  std::vector<std::string> patterns = {"*"};   // glob patterns on pattern ids
  std::vector<std::string> libraries = {"*"};  // glob patterns on library names
  std::optional<double> threshold;             // stricter threshold (distance <= threshold)
  std::chrono::milliseconds cooldown{0};       // per (rule, stream): events closer are dropped
  Severity severity = Severity::info;
  std::map<std::string, std::string> labels;
  // Alert sinks: an alert stays firing this long after its latest event (Alertmanager's
  // endsAt is the detection time plus this).
  std::chrono::milliseconds resolve{300000};
  SourceLocation where;
};

// What every alert sink has, whatever its kind (`sinks[].name`, `rules`, `queue`,
// `timeout_ms`, `max_attempts`, `backoff_ms`, `max_backoff_ms`; config/options/options_sinks.cpp):
// the settings of the sink base (alerting::AlertSink), read before the kind's own.
struct SinkOptions {
  std::string name;                         // in /metrics and the log; unique; default: the kind's
  std::vector<std::string> rules = {"*"};   // globs on rule names
  std::size_t queue = 10000;                // events waiting, at most
  std::chrono::milliseconds timeout{5000};  // one request: connect, send, answer (kafka: one
                                            // event's delivery, its retries included)
  unsigned max_attempts = 5;                // requests per batch before it is given up
  std::chrono::milliseconds backoff{500};   // first retry's wait, doubled after each failure
  std::chrono::milliseconds max_backoff{30000};
  std::string external_url;  // http.external_url (not a row of the sink's): links in payloads
  friend bool operator==(const SinkOptions&, const SinkOptions&) = default;
};

// An alert sink (docs/sinks.md §5): one entry of `sinks:`, of the kind its plugin names
// (`alertmanager`, `webhook`, `kafka`: daemon/plugins/out_<kind>/), with the options every
// sink has and that plugin's own, checked.
struct SinkConfig {
  std::string kind;
  SinkOptions sink;
  std::shared_ptr<const PluginOptions> options;
  SourceLocation where;

  // The plugin's struct (std::bad_cast for another kind's: a bug).
  template <class Options>
  const Options& options_as() const {
    return dynamic_cast<const Options&>(*options);
  }
};

// What a reload (SIGHUP) applies, as a whole: stream admission and declarations, pattern
// libraries, alert rules and the log level (and the allowed CURVE clients, CurveConfig).
// Everything else in DaemonConfig is taken at start and stays until a restart.
struct LiveConfig {
  bool auto_create_streams = false;                        // accept undeclared stream ids
  std::size_t max_streams = 10000;                         // limit for auto-created streams
  std::size_t auto_dims = 1;                               // dims of auto-created streams
  std::int64_t auto_period_ns = 1'000'000'000;             // nominal period of auto-created streams
  double max_stream_rate_hz = 0.0;                         // samples/s per stream; 0 = unlimited
  double max_stream_burst = 0.0;                           // the bucket; 0 = one second's worth
  std::size_t max_library_bytes = std::size_t{256} << 20;  // a library's patterns, estimated
  std::vector<StreamDecl> streams;
  std::vector<Library> libraries;
  std::vector<Rule> rules;  // the file's, or the implicit rule "default" when it has none
  LogLevel log_level = LogLevel::info;
};

// A round's most samples when the configuration leaves it to the backend: the device needs
// long rounds (a round's launches and host work are paid per round: 10,000 streams x 64
// patterns matched 3.5e6 samples/s in rounds of 65,536 and 1.0e7 in rounds of 1,048,576 on
// the H100), the cpu short ones (its rounds run to their end at shutdown: a bound on the
// drain's overshoot).
inline constexpr std::size_t batch_samples_cpu = 1 << 16;
inline constexpr std::size_t batch_samples_cuda = 1 << 20;
std::size_t batch_samples_for(std::size_t configured, kernels::Backend backend);

struct DaemonConfig {
  std::string source_file;
  std::string instance = "warpwatch";  // names this daemon in events
  kernels::Backend backend = kernels::Backend::automatic;
  unsigned cpu_threads = 0;  // 0 = one per hardware thread
  // cuda.devices: the cuda backend's devices (auto's too), each where the file lists it;
  // empty = every usable device.
  std::vector<int> cuda_devices{};
  std::vector<SourceLocation> cuda_devices_where{};
  std::chrono::milliseconds tick{10};  // scheduler period
  std::size_t batch_samples = 0;       // a batch is cut early once this many wait, and takes at
                                       // most this many; 0 = by the backend (batch_samples_for)
  std::vector<IngestSource> ingest;
  std::size_t max_message_bytes = 1 << 20;  // larger messages are rejected and counted
  // Ingest memory (docs/ingest.md §10). The file's 0 means "derived
  // from the budget", which load_daemon_config resolves (resolve_limits); the defaults
  // here are those derived values for the default budget and message size.
  std::size_t memory_budget_bytes = std::size_t{1} << 30;
  std::size_t queue_bytes = memory_budget_bytes / 4;  // all streams' queued samples
  std::size_t stream_queue_bytes = queue_bytes / 16;  // one stream's
  int receive_high_water_mark = 128;                  // ZMQ_RCVHWM: budget / 8 / max_message_bytes

  std::string publish_endpoint = "tcp://127.0.0.1:5556";  // ZeroMQ PUB bind
  int send_high_water_mark = 10000;        // messages queued per subscriber before drops
  std::optional<std::string> events_file;  // JSON lines, appended
  HttpConfig http;                         // the HTTP server (`http:`, `metrics.listen`)
  std::chrono::milliseconds metrics_stale_after{5000};  // /healthz: 503 after a round this late
  std::chrono::milliseconds drain_grace{2000};          // SIGTERM: time allowed to drain
  // Matching state across restarts (docs/operations.md §4): the folder of
  // checkpoint.bin ("" = off), and how often it is written (0 = only at shutdown).
  std::string state_dir;
  std::chrono::milliseconds checkpoint_interval{5000};
  // What the daemon remembers for its API (daemon/service/store/): the last events it
  // published, each with the samples it matched, and per stream its last samples.
  struct EventStoreOptions {
    std::size_t max_events = 10000;                 // 0 = no event kept (the store is off)
    std::size_t max_bytes = std::size_t{64} << 20;  // 0 = off
    // Context each side of a match: max(8, length / 2) samples, at most this many (0: none).
    std::size_t context_samples = 256;
    friend bool operator==(const EventStoreOptions&, const EventStoreOptions&) = default;
  } event_store;
  struct HistoryOptions {
    std::size_t samples_per_stream = 4096;           // 0 = no history (nor segments)
    std::size_t max_bytes = std::size_t{256} << 20;  // all streams together: wins
    friend bool operator==(const HistoryOptions&, const HistoryOptions&) = default;
  } history;
  std::vector<SinkConfig> sinks;  // alert sinks besides the PUB socket
  CurveConfig curve;
  LiveConfig live;
  // What loads but cannot do all it seems to (docs/configuration.md §4): check-config prints
  // them, the Pipeline logs them at start and on reload. The errors of the same checks throw.
  std::vector<ConfigWarning> warnings;
};

// What a reload changes of the live configuration, by name (each list sorted).
struct NamedChanges {
  std::vector<std::string> added, changed, removed;
};
struct LiveChanges {
  NamedChanges patterns;   // by id: changed = another definition (values, parameters, library)
  NamedChanges libraries;  // by name: changed = other patterns, or one of them changed
  NamedChanges rules;      // by name: changed = any setting of the rule
};
LiveChanges live_changes(const LiveConfig& running, const LiveConfig& next);

// The options of `next` that a reload does not apply and that differ from `running`,
// by option name ("backend", "publish.endpoint", ...), so that a reload can say which
// changes wait for a restart.
std::vector<std::string> startup_options_changed(const DaemonConfig& running,
                                                 const DaemonConfig& next);

// Fills in the limits left 0 (derived from the memory budget) and checks that they fit
// in it; throws ConfigError at `where` when they do not. load_daemon_config calls it.
void resolve_limits(DaemonConfig& config, const SourceLocation& where);

// cuda.devices against the devices this machine has (cuda_status().device_count, when the
// backend may use a device): ConfigError at the first listed index that is not below
// `device_count`. The daemon checks at start and `warpwatch check-config` with it; with no
// usable device there is nothing to check against (auto runs on the cpu, cuda fails).
void check_cuda_devices(const DaemonConfig& config, int device_count);
// The same against this machine (kernels::cuda_status()), asked only when the file lists
// devices and the backend may use one.
void check_cuda_devices(const DaemonConfig& config);

// How a file is read: as the daemon reads it, or for `warpwatch search --library`
// (docs/cli.md §4), whose input series are the streams: a pattern's dims then need no
// stream of the file (its `streams:` may be absent).
struct ReadAs {
  bool patterns_of_any_dims = false;
};

// Reads and validates the whole file; every error is a ConfigError naming
// file:line:column. Pattern files are resolved relative to the config file's folder. The
// file is read within the limits of yaml_file.hpp (size, alias expansion).
DaemonConfig load_daemon_config(const std::string& path, ReadAs as = {});

// The same from the file's text (what load_daemon_config does once it has read the file):
// `path` names the file in errors and its folder resolves relative paths.
DaemonConfig parse_daemon_config(const std::string& text, const std::string& path, ReadAs as = {});

}  // namespace warpwatch::config
