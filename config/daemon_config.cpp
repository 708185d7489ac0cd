// load_daemon_config: the whole file through the option table, then the checks that
// span several options (one source per ingest entry, unique ids, dims that fit).
#include "warpwatch/config/daemon_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <tuple>

#include "config_reader.hpp"
#include "warpwatch/config/series_file.hpp"
#include "warpwatch/config/yaml_file.hpp"

#include "warpwatch/base/stream_id.hpp"
#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/stream/sources/topic_template.hpp"

namespace warpwatch::config {
namespace {

// docs/spec.md §1, checked by the same function that checks ids arriving on the wire.
void check_stream_id(const std::string& id, const SourceLocation& where) {
  if (const auto reason = stream::invalid_stream_id_reason(id))
    throw ConfigError(where, cat("stream id ", in_quotes(id), ": ", std::string(*reason)));
}

std::vector<StreamDecl> read_streams(const PresentKeys& top, const ReadContext& ctx) {
  std::vector<StreamDecl> streams;
  UniqueNames ids("stream id");
  read_list(top, ctx, "streams.declared", &OptionTargets::stream,
            [&](StreamDecl& stream, const PresentKeys& keys) {
              const SourceLocation& id_at = keys.find("id")->second.value;
              check_stream_id(stream.def.id, id_at);
              ids.add(stream.def.id, id_at);
              streams.push_back(std::move(stream));
            });
  return streams;
}

std::vector<Rule> read_rules(const PresentKeys& top, const ReadContext& ctx) {
  std::vector<Rule> rules;
  UniqueNames names("rule name");
  read_list(top, ctx, "rules", &OptionTargets::rule, [&](Rule& rule, const PresentKeys& keys) {
    names.add(rule.name, keys.find("name")->second.value);
    rules.push_back(std::move(rule));
  });
  if (rules.empty()) {
    // No rules: one implicit rule passes every match, with the table's defaults.
    Rule rule;
    const auto it = top.find("rules");
    rule.where = it == top.end() ? SourceLocation{ctx.file, 0, 0} : it->second.key;
    OptionTargets targets;
    targets.rule = &rule;
    read_section(YAML::Load("{name: default}"), rule.where, "rules[]", targets, ctx);
    rules.push_back(std::move(rule));
  }
  return rules;
}

// The password of an MQTT entry: the file's content without one trailing newline.
std::string read_password(const std::string& path, const SourceLocation& where) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  if (!std::filesystem::is_regular_file(path, ec) || !in)
    throw ConfigError(where, cat("cannot read password file ", in_quotes(path)));
  std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw ConfigError(where, cat("cannot read password file ", in_quotes(path)));
  if (text.ends_with('\n')) text.pop_back();
  if (text.ends_with('\r')) text.pop_back();
  if (text.empty()) throw ConfigError(where, cat("password file ", in_quotes(path), " is empty"));
  return text;
}

// An `mqtt` entry: what its keys cannot check one by one.
void check_mqtt(IngestSource& src, const PresentKeys& keys) {
  stream::MqttSourceOptions& m = src.mqtt;
  const auto key = [&](std::string_view name) -> const PresentKey* {
    const auto it = keys.find(cat("mqtt.", name));
    return it == keys.end() ? nullptr : &it->second;
  };
  const SourceLocation& at = keys.find("mqtt")->second.value;
  for (const char* required : {"host", "topics"})
    if (!key(required))
      throw ConfigError(at, cat("missing required key ", in_quotes(required), " in 'mqtt'"));
  if (key("tls") && !m.tls) m.tls.emplace();  // `tls: {}`: TLS with the system's CAs
  if (m.port == 0) m.port = m.tls ? 8883 : 1883;

  std::optional<stream::TopicTemplate> tmpl;
  const PresentKey* tmpl_key = key("stream_template");
  try {
    tmpl.emplace(m.stream_template);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(tmpl_key ? tmpl_key->value : at, e.what());
  }
  const PresentKey& topics = *key("topics");
  for (std::size_t i = 0; i < m.topics.size(); ++i) {
    const SourceLocation where =
        topics.node.IsSequence() ? location_of(src.where.file, topics.node[i]) : topics.value;
    const std::string& filter = m.topics[i];
    if (!stream::is_topic_filter(filter))
      throw ConfigError(where, cat("topic filter ", in_quotes(filter),
                                   " is not valid MQTT ('+' must be a whole level, '#' the "
                                   "whole last one)"));
    if (const auto why = tmpl->misfit(filter)) throw ConfigError(where, *why);
  }
  if (m.reconnect_max < m.reconnect_min)
    throw ConfigError(key("reconnect_max_ms") ? key("reconnect_max_ms")->value : at,
                      "'reconnect_max_ms' is less than 'reconnect_min_ms'");
  if (!m.clean_session && m.client_id.empty())
    throw ConfigError(key("clean_session")->value,
                      "'clean_session: false' needs a 'client_id' (the session is the id's)");
  if (const PresentKey* password = key("password_file")) {
    if (m.username.empty()) throw ConfigError(password->key, "'password_file' needs a 'username'");
    m.password = read_password(src.password_file, password->value);
  }
  if (m.tls) {
    for (const auto& [name, file] :
         {std::pair{"ca_file", &m.tls->ca_file}, std::pair{"cert_file", &m.tls->cert_file},
          std::pair{"key_file", &m.tls->key_file}}) {
      std::error_code ec;
      if (!file->empty() && !std::filesystem::is_regular_file(*file, ec))
        throw ConfigError(key(cat("tls.", name))->value, cat("cannot read ", in_quotes(*file)));
    }
    if (m.tls->cert_file.empty() != m.tls->key_file.empty())
      throw ConfigError(key(m.tls->cert_file.empty() ? "tls.key_file" : "tls.cert_file")->key,
                        "a client certificate needs both 'cert_file' and 'key_file'");
  }
}

// `curve:`: both files are required, and read here, so that a bad key is an error at its
// option before anything starts.
void read_curve(const PresentKeys& top, CurveConfig& curve) {
  const auto section = top.find("curve");
  if (section == top.end()) return;
  curve.enabled = true;
  const auto key = [&](std::string_view name) -> const PresentKey& {
    const auto it = top.find(cat("curve.", name));
    if (it == top.end())
      throw ConfigError(section->second.value,
                        cat("missing required key ", in_quotes(name), " in 'curve'"));
    return it->second;
  };
  const PresentKey& secret = key("secret_key_file");
  const PresentKey& clients = key("allowed_clients_file");
  try {
    curve.keys = stream::key_pair_of(stream::read_key_file(curve.secret_key_file, true));
  } catch (const std::exception& e) {
    throw ConfigError(secret.value, e.what());
  }
  try {
    curve.allowed_clients = stream::read_key_list_file(curve.allowed_clients_file);
  } catch (const std::exception& e) {
    throw ConfigError(clients.value, e.what());
  }
  if (curve.allowed_clients.empty())
    throw ConfigError(clients.value, cat("key list file ", in_quotes(curve.allowed_clients_file),
                                         " holds no key: no client could connect"));
}

// A `sub` entry's publisher key: required with `curve`, refused without.
void read_server_key(IngestSource& src, const PresentKeys& keys, const CurveConfig& curve) {
  const auto it = keys.find("server_key_file");
  if (!curve.enabled) {
    if (it != keys.end())
      throw ConfigError(it->second.key, "'server_key_file' needs the 'curve' section");
    return;
  }
  if (it == keys.end())
    throw ConfigError(keys.find("sub")->second.value,
                      "with 'curve', a 'sub' entry needs 'server_key_file' (the publisher's "
                      "public key)");
  try {
    src.server_key = stream::read_key_file(src.server_key_file, false);
  } catch (const std::exception& e) {
    throw ConfigError(it->second.value, e.what());
  }
}

// An influx entry's mapping, checked as the source will build it; an error is located at
// the key it is about (the entry's `influx` key when that key is left to its default).
void check_influx_mapping(const PresentKeys& keys, const IngestSource& src) {
  const auto at = [&](const char* key) {
    const auto it = keys.find(key);
    return it != keys.end() ? it->second.value : keys.find("influx")->second.value;
  };
  try {
    const stream::StreamIdTemplate check(src.mapping.stream_template);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(at("stream_template"), e.what());
  }
  try {
    const stream::InfluxMapping check(src.mapping);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(at("fields"), e.what());
  }
}

void check_kafka(IngestSource& src, const PresentKeys& keys) {
  check_kafka_keys(keys, {"brokers", "topic", "group_id"}, src.kafka.properties);
}

// A replay entry's file as samples, sample i at i * period: one series, whose last
// timestamp fits in int64 nanoseconds.
std::shared_ptr<const stream::Samples> replay_samples(const IngestSource& src,
                                                      const SourceLocation& at) {
  std::vector<LoadedSeries> series;
  try {
    series = load_series_file(src.file);
  } catch (const ConfigError& e) {
    throw ConfigError(at, cat("cannot load replay file: ", e.what()));
  }
  if (series.size() != 1 || series.front().length() == 0)
    throw ConfigError(
        at, cat("replay file ", in_quotes(src.file), " holds ", std::to_string(series.size()),
                " series: a replay entry takes a file of one non-empty series"));
  const LoadedSeries& s = series.front();
  const std::size_t length = s.length();
  const auto last_index = static_cast<std::uint64_t>(length - 1);
  if (last_index >
      static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max() / src.period_ns))
    throw ConfigError(at, cat("replay file ", in_quotes(src.file), " has ", std::to_string(length),
                              " samples: at 'period_ms' ", std::to_string(src.period_ns / 1e6),
                              " the last timestamp is beyond the int64 nanosecond range"));
  // The pacing's clock (steady_clock, int64 ns) must reach the last sample's time.
  if (src.rate_hz > 0 && static_cast<double>(last_index) / src.rate_hz > stream::max_replay_seconds)
    throw ConfigError(at, cat("replay file ", in_quotes(src.file), " has ", std::to_string(length),
                              " samples: at 'rate_hz' ", std::to_string(src.rate_hz),
                              " sending them would take more than 1e9 s"));
  auto samples = std::make_shared<stream::Samples>();
  samples->dims = s.dims;
  samples->values = s.values;
  samples->times_ns = stream::evenly_spaced_times(length, 0, src.period_ns);  // checked above
  return samples;
}

std::vector<IngestSource> read_ingest(const PresentKeys& top, const ReadContext& ctx,
                                      const DaemonConfig& config) {
  std::vector<IngestSource> sources;
  UniqueNames bound("pull endpoint");       // two sockets cannot bind one endpoint
  UniqueNames listening("influx address");  // nor one address and port
  read_list(
      top, ctx, "ingest", &OptionTargets::ingest, [&](IngestSource& src, const PresentKeys& keys) {
        const std::string_view kind_key =
            entry_kind(keys, {"pull", "sub", "replay", "mqtt", "influx", "kafka"},
                       "an ingest entry", "source", src.where);
        check_kind_keys(keys, kind_key,
                        {{"topic", "sub"},
                         {"server_key_file", "sub"},
                         {"stream", "replay"},
                         {"rate_hz", "replay"},
                         {"period_ms", "replay"},
                         {"stream_template", "influx"},
                         {"fields", "influx"},
                         {"precision", "influx"},
                         {"max_line_bytes", "influx"},
                         {"max_connections", "influx"}});
        if (const auto connections = keys.find("max_connections");
            connections != keys.end() && src.endpoint.starts_with("udp://"))
          throw ConfigError(connections->second.key,
                            "'max_connections' applies to tcp:// 'influx' entries only");
        if (kind_key == "mqtt") {
          src.kind = IngestSource::Kind::mqtt;
          check_mqtt(src, keys);
        }
        if (kind_key == "kafka") {
          src.kind = IngestSource::Kind::kafka;
          check_kafka(src, keys);
        }
        const SourceLocation& at = keys.find(kind_key)->second.value;
        if (src.kind == IngestSource::Kind::sub) read_server_key(src, keys, config.curve);
        // tcp://host:* (or :0) binds a port of the system's choosing, a different one each time.
        const bool any_port = src.endpoint.ends_with(":*") || src.endpoint.ends_with(":0");
        if (src.kind == IngestSource::Kind::pull &&
            !(src.endpoint.starts_with("tcp://") && any_port)) {
          bound.add(src.endpoint, at);
          if (src.endpoint == config.publish_endpoint)  // the PUB socket binds too
            throw ConfigError(at, cat("pull endpoint ", in_quotes(src.endpoint),
                                      " is also "
                                      "'publish.endpoint': two sockets cannot bind one endpoint"));
        }
        if (src.kind == IngestSource::Kind::influx) {
          if (!any_port) listening.add(src.endpoint, at);
          check_influx_mapping(keys, src);
        }
        if (src.kind == IngestSource::Kind::replay) {
          const auto stream = keys.find("stream");
          if (stream == keys.end())
            throw ConfigError(src.where, "missing required key 'stream' in a 'replay' entry");
          check_stream_id(src.stream, stream->second.value);
          std::error_code ec;
          if (!std::filesystem::is_regular_file(src.file, ec))
            throw ConfigError(at, cat("cannot read replay file ", in_quotes(src.file)));
          const auto declared =
              std::find_if(config.live.streams.begin(), config.live.streams.end(),
                           [&](const StreamDecl& s) { return s.def.id == src.stream; });
          if (declared == config.live.streams.end() && !config.live.auto_create_streams)
            throw ConfigError(stream->second.value,
                              cat("replay stream ", in_quotes(src.stream),
                                  " is not declared in "
                                  "'streams.declared' and 'streams.auto_create' is false"));
          src.replay = replay_samples(src, at);
          const std::size_t dims =
              declared == config.live.streams.end() ? config.live.auto_dims : declared->def.dims;
          if (src.replay->dims != dims)
            throw ConfigError(at,
                              cat("replay file ", in_quotes(src.file), " has ",
                                  std::to_string(src.replay->dims), " values per sample, stream ",
                                  in_quotes(src.stream), " ", std::to_string(dims)));
        }
        sources.push_back(std::move(src));
      });
  return sources;
}

// Which pattern dims some stream can have, and the words to say so in an error.
std::pair<std::set<std::size_t>, std::string> stream_dims(const DaemonConfig& config) {
  std::set<std::size_t> dims;
  for (const StreamDecl& s : config.live.streams) dims.insert(s.def.dims);
  std::string text;
  for (const std::size_t d : dims)
    text += cat(text.empty() ? "declared streams have dims " : ", ", std::to_string(d));
  if (text.empty()) text = "no streams are declared";
  if (config.live.auto_create_streams) {
    dims.insert(config.live.auto_dims);
    text += cat("; auto-created streams have dims ", std::to_string(config.live.auto_dims));
  } else {
    text += "; 'streams.auto_create' is false";
  }
  return {dims, text};
}

template <typename E, std::size_t N>
std::optional<E> parse_name(const std::string_view (&names)[N], std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

bool same_source(const IngestSource& a, const IngestSource& b) {
  return a.kind == b.kind && a.endpoint == b.endpoint && a.topic == b.topic &&
         a.server_key_file == b.server_key_file && a.server_key == b.server_key &&
         a.file == b.file && a.stream == b.stream && a.rate_hz == b.rate_hz &&
         a.period_ns == b.period_ns && a.mqtt == b.mqtt && a.password_file == b.password_file &&
         a.kafka == b.kafka && a.mapping == b.mapping && a.max_line_bytes == b.max_line_bytes &&
         a.max_connections == b.max_connections;
}

bool same_sink(const SinkConfig& a, const SinkConfig& b) {
  const auto fields = [](const SinkConfig& s) {
    return std::tie(s.kind, s.name, s.url, s.kafka, s.rules, s.headers, s.queue, s.max_batch,
                    s.timeout, s.max_attempts, s.backoff, s.max_backoff, s.hmac_secret,
                    s.signature_header);
  };
  return fields(a) == fields(b);
}

}  // namespace

std::string_view mqtt_payload_name(stream::PayloadFormat format) {
  for (const auto& [name, f] : mqtt_payload_formats)
    if (f == format) return name;
  return "?";  // frame_or_text: not an MQTT choice
}

std::string_view to_string(IngestSource::Kind kind) {
  switch (kind) {
    case IngestSource::Kind::pull:
      return "pull";
    case IngestSource::Kind::sub:
      return "sub";
    case IngestSource::Kind::replay:
      return "replay";
    case IngestSource::Kind::mqtt:
      return "mqtt";
    case IngestSource::Kind::influx:
      return "influx";
    case IngestSource::Kind::kafka:
      return "kafka";
  }
  return "?";
}

std::string_view to_string(LogLevel level) {
  return log_level_names[static_cast<std::size_t>(level)];
}
std::string_view to_string(Severity severity) {
  return severity_names[static_cast<std::size_t>(severity)];
}
std::optional<LogLevel> parse_log_level(std::string_view name) {
  return parse_name<LogLevel>(log_level_names, name);
}
std::optional<Severity> parse_severity(std::string_view name) {
  return parse_name<Severity>(severity_names, name);
}

void resolve_limits(DaemonConfig& c, const SourceLocation& where) {
  if (c.queue_bytes == 0) c.queue_bytes = c.memory_budget_bytes / 4;
  if (c.stream_queue_bytes == 0)
    c.stream_queue_bytes = std::max<std::size_t>(c.queue_bytes / 16, 1);
  if (c.receive_high_water_mark == 0)
    c.receive_high_water_mark = static_cast<int>(
        std::clamp<std::size_t>(c.memory_budget_bytes / 8 / c.max_message_bytes, 1, 1000));
  // Sums that saturate: the options' ranges keep each term far below 2^64, but the count
  // of influx entries is the file's.
  const auto add = [](std::size_t a, std::size_t b) {
    return a > std::numeric_limits<std::size_t>::max() - b ? std::numeric_limits<std::size_t>::max()
                                                           : a + b;
  };
  const std::size_t receive_bytes =
      static_cast<std::size_t>(c.receive_high_water_mark) * c.max_message_bytes;
  std::size_t line_bytes = 0;  // what the influx sources hold of reads and unfinished lines
  for (const IngestSource& s : c.ingest)
    if (s.kind == IngestSource::Kind::influx)
      line_bytes =
          add(line_bytes, stream::influx_buffer_bytes(s.endpoint.starts_with("tcp://"),
                                                      s.max_connections, s.max_line_bytes));
  const std::size_t total = add(add(c.queue_bytes, receive_bytes), line_bytes);
  if (c.stream_queue_bytes > c.queue_bytes)
    throw ConfigError(
        where, cat("limits.stream_queue_bytes (", std::to_string(c.stream_queue_bytes),
                   ") is larger than limits.queue_bytes (", std::to_string(c.queue_bytes), ")"));
  if (total > c.memory_budget_bytes)
    throw ConfigError(
        where,
        cat("the ingest limits do not fit in limits.memory_budget_bytes (",
            std::to_string(c.memory_budget_bytes), "): queue_bytes ", std::to_string(c.queue_bytes),
            " + receive_hwm ", std::to_string(c.receive_high_water_mark), " x max_message_bytes ",
            std::to_string(c.max_message_bytes),
            line_bytes ? cat(" + influx line buffers ", std::to_string(line_bytes)) : std::string(),
            " = ", std::to_string(total)));
}

std::vector<std::string> startup_options_changed(const DaemonConfig& running,
                                                 const DaemonConfig& next) {
  const auto& a = running;
  const auto& b = next;
  const bool same_ingest =
      a.ingest.size() == b.ingest.size() &&
      std::equal(a.ingest.begin(), a.ingest.end(), b.ingest.begin(), same_source);
  const bool same_sinks = a.sinks.size() == b.sinks.size() &&
                          std::equal(a.sinks.begin(), a.sinks.end(), b.sinks.begin(), same_sink);
  const std::pair<const char*, bool> options[] = {
      {"instance", a.instance == b.instance},
      {"backend", a.backend == b.backend},
      {"cpu_threads", a.cpu_threads == b.cpu_threads},
      {"cuda.devices", a.cuda_devices == b.cuda_devices},
      {"scheduler.tick_ms", a.tick == b.tick},
      {"scheduler.batch_samples", a.batch_samples == b.batch_samples},
      {"ingest", same_ingest},
      {"limits.max_message_bytes", a.max_message_bytes == b.max_message_bytes},
      {"limits.memory_budget_bytes", a.memory_budget_bytes == b.memory_budget_bytes},
      {"limits.queue_bytes", a.queue_bytes == b.queue_bytes},
      {"limits.stream_queue_bytes", a.stream_queue_bytes == b.stream_queue_bytes},
      {"limits.receive_hwm", a.receive_high_water_mark == b.receive_high_water_mark},
      {"publish.endpoint", a.publish_endpoint == b.publish_endpoint},
      {"publish.send_hwm", a.send_high_water_mark == b.send_high_water_mark},
      {"publish.events_file", a.events_file == b.events_file},
      {"metrics.listen", a.metrics_listen == b.metrics_listen},
      {"metrics.stale_after_ms", a.metrics_stale_after == b.metrics_stale_after},
      {"shutdown.drain_grace_ms", a.drain_grace == b.drain_grace},
      {"state.dir", a.state_dir == b.state_dir},
      {"state.checkpoint_ms", a.checkpoint_interval == b.checkpoint_interval},
      {"sinks", same_sinks},
      {"curve", a.curve.enabled == b.curve.enabled},
      {"curve.secret_key_file",
       a.curve.secret_key_file == b.curve.secret_key_file && a.curve.keys == b.curve.keys},
  };
  std::vector<std::string> changed;
  for (const auto& [name, same] : options)
    if (!same) changed.emplace_back(name);
  return changed;
}

void check_cuda_devices(const DaemonConfig& config, int device_count) {
  if (device_count <= 0 || config.backend == kernels::Backend::cpu ||
      config.backend == kernels::Backend::reference)
    return;
  for (std::size_t k = 0; k < config.cuda_devices.size(); ++k)
    if (config.cuda_devices[k] >= device_count)
      throw ConfigError(k < config.cuda_devices_where.size()
                            ? config.cuda_devices_where[k]
                            : SourceLocation{config.source_file, 0, 0},
                        cat("cuda.devices: device ", std::to_string(config.cuda_devices[k]),
                            " does not exist: this machine has ", std::to_string(device_count),
                            " usable CUDA device(s), 0 to ", std::to_string(device_count - 1)));
}

void check_cuda_devices(const DaemonConfig& config) {
  if (config.cuda_devices.empty() || config.backend == kernels::Backend::cpu ||
      config.backend == kernels::Backend::reference)
    return;
  check_cuda_devices(config, kernels::cuda_status().device_count);
}

DaemonConfig load_daemon_config(const std::string& path) {
  return parse_daemon_config(read_config_text(path), path);
}

DaemonConfig parse_daemon_config(const std::string& text, const std::string& path) {
  const YAML::Node root = parse_yaml(text, path);
  // Absolute, so that resolved paths survive a change of working directory.
  const ReadContext ctx{path, std::filesystem::absolute(std::filesystem::path(path)).parent_path()};
  DaemonConfig config;
  config.source_file = path;
  OptionTargets targets;
  targets.config = &config;
  const PresentKeys top = read_section(root, {path, 1, 1}, "", targets, ctx);
  config.live.streams = read_streams(top, ctx);
  const auto [dims, dims_text] = stream_dims(config);
  config.live.libraries = read_libraries(top, ctx, dims, dims_text, config.live.max_library_bytes);
  config.live.rules = read_rules(top, ctx);
  config.sinks = read_sinks(top, ctx);
  read_curve(top, config.curve);
  config.ingest = read_ingest(top, ctx, config);
  if (const auto devices = top.find("cuda.devices"); devices != top.end())
    for (const YAML::Node& item : devices->second.node)  // `all` has none
      if (item.IsScalar()) config.cuda_devices_where.push_back(where_is(ctx, item));
  const auto limits = top.find("limits");
  resolve_limits(config, limits == top.end() ? SourceLocation{path, 1, 1} : limits->second.key);
  return config;
}

std::size_t batch_samples_for(std::size_t configured, kernels::Backend backend) {
  if (configured) return configured;
  return backend == kernels::Backend::cuda ? batch_samples_cuda : batch_samples_cpu;
}

}  // namespace warpwatch::config
