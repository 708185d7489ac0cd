// load_daemon_config: the whole file through the option table, then the checks that
// span several options (one source per ingest entry, its kind's checks, unique ids, dims
// that fit).
#include "warpwatch/config/daemon_config.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <tuple>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/source_kinds.hpp"
#include "warpwatch/config/yaml_file.hpp"

namespace warpwatch::config {
namespace {

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

// The rules, each checked against the streams and libraries of `live` (check_rule).
std::vector<Rule> read_rules(const PresentKeys& top, const ReadContext& ctx, const LiveConfig& live,
                             std::vector<ConfigWarning>& warnings) {
  std::vector<Rule> rules;
  UniqueNames names("rule name");
  read_list(top, ctx, "rules", &OptionTargets::rule, [&](Rule& rule, const PresentKeys& keys) {
    names.add(rule.name, keys.find("name")->second.value);
    check_rule(rule, keys, live, ctx, warnings);
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

// `ingest:`: every kind's rows are read into the entry (IngestEntry), its one kind key picks
// the kind, whose plugin checks what spans its keys (SourceKind::check).
std::vector<IngestSource> read_ingest(const PresentKeys& top, const ReadContext& ctx,
                                      const DaemonConfig& config) {
  std::vector<std::string_view> kinds;
  std::vector<std::pair<std::string_view, std::string_view>> owners;  // (key, kind)
  for (const SourceKind& kind : source_kinds()) {
    kinds.push_back(kind.name);
    for (const OptionInfo& option : kind.options()) {
      const std::string_view key = option.name.substr(std::string_view("ingest[].").size());
      if (key != kind.name && key.find('.') == std::string_view::npos)
        owners.emplace_back(key, kind.name);
    }
  }
  std::vector<IngestSource> sources;
  std::map<std::string, UniqueNames, std::less<>> unique;
  read_list(top, ctx, "ingest", &OptionTargets::ingest,
            [&](IngestEntry& entry, const PresentKeys& keys) {
              const std::string_view kind_key =
                  entry_kind(keys, kinds, "an ingest entry", "source", entry.where);
              check_kind_keys(keys, kind_key, owners);
              const SourceKind& kind = *find_source_kind(kind_key);
              std::unique_ptr<PluginOptions>& options = entry.options[std::string(kind_key)];
              if (!options) options = kind.make_options();
              SourceCheck check(keys, entry.where, keys.find(kind_key)->second.value, config, ctx,
                                unique);
              kind.check(*options, check);
              sources.push_back({std::string(kind_key), std::move(options), entry.where});
            });
  return sources;
}

// Which pattern dims some stream can have, and the words to say so in a message.
StreamDims stream_dims(const DaemonConfig& config, ReadAs as) {
  StreamDims dims;
  if (as.patterns_of_any_dims)  // the input's series are the streams
    for (std::size_t d = 1; d <= stream::max_dims; ++d) dims.any.insert(d);
  for (const StreamDecl& s : config.live.streams) dims.declared.insert(s.def.dims);
  dims.any.insert(dims.declared.begin(), dims.declared.end());
  for (const std::size_t d : dims.declared)
    dims.text += cat(dims.text.empty() ? "declared streams have dims " : ", ", std::to_string(d));
  if (dims.text.empty()) dims.text = "no streams are declared";
  if (config.live.auto_create_streams) {
    dims.any.insert(config.live.auto_dims);
    dims.text += cat("; auto-created streams have dims ", std::to_string(config.live.auto_dims));
  } else {
    dims.text += "; 'streams.auto_create' is false";
  }
  return dims;
}

std::vector<std::string> sorted(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  return names;
}

// added/changed/removed between two maps by name, `same` comparing a value kept.
template <class Value, class Same>
NamedChanges named_changes(const std::map<std::string, Value>& before,
                           const std::map<std::string, Value>& after, Same same) {
  NamedChanges out;
  for (const auto& [name, value] : after) {
    const auto it = before.find(name);
    if (it == before.end())
      out.added.push_back(name);
    else if (!same(it->second, value))
      out.changed.push_back(name);
  }
  for (const auto& [name, value] : before)
    if (!after.count(name)) out.removed.push_back(name);
  return out;
}

bool same_rule(const Rule* a, const Rule* b) {
  const auto fields = [](const Rule& r) {
    return std::tie(r.streams, r.patterns, r.libraries, r.threshold, r.cooldown, r.severity,
                    r.labels, r.resolve);
  };
  return fields(*a) == fields(*b);
}

template <typename E, std::size_t N>
std::optional<E> parse_name(const std::string_view (&names)[N], std::string_view name) {
  for (std::size_t i = 0; i < N; ++i)
    if (names[i] == name) return static_cast<E>(i);
  return std::nullopt;
}

bool same_source(const IngestSource& a, const IngestSource& b) {
  return a.kind == b.kind && a.options->same(*b.options);
}

bool same_sink(const SinkConfig& a, const SinkConfig& b) {
  return a.kind == b.kind && a.sink == b.sink && a.options->same(*b.options);
}

}  // namespace

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
  // What the sources hold besides the queues (the influx sources' reads and unfinished lines),
  // by kind, in the kinds' order.
  std::size_t buffer_bytes = 0;
  std::string buffers_text;
  for (const SourceKind& kind : source_kinds()) {
    if (!kind.buffer_bytes) continue;
    std::size_t bytes = 0;
    for (const IngestSource& s : c.ingest)
      if (s.kind == kind.name) bytes = add(bytes, kind.buffer_bytes(*s.options));
    if (bytes == 0) continue;
    buffer_bytes = add(buffer_bytes, bytes);
    buffers_text += cat(" + ", kind.buffer_name, " ", std::to_string(bytes));
  }
  const std::size_t total = add(add(c.queue_bytes, receive_bytes), buffer_bytes);
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
            std::to_string(c.max_message_bytes), buffers_text, " = ", std::to_string(total)));
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
      {"http.listen", a.http.listen == b.http.listen},
      {"http.tls",
       a.http.tls_cert_file == b.http.tls_cert_file && a.http.tls_key_file == b.http.tls_key_file},
      {"http.external_url", a.http.external_url == b.http.external_url},
      {"http.metrics_auth", a.http.metrics_auth == b.http.metrics_auth},
      {"http.limits", a.http.max_header_bytes == b.http.max_header_bytes &&
                          a.http.max_body_bytes == b.http.max_body_bytes &&
                          a.http.timeout == b.http.timeout &&
                          a.http.max_connections == b.http.max_connections},
      {"metrics.stale_after_ms", a.metrics_stale_after == b.metrics_stale_after},
      {"shutdown.drain_grace_ms", a.drain_grace == b.drain_grace},
      {"state.dir", a.state_dir == b.state_dir},
      {"state.checkpoint_ms", a.checkpoint_interval == b.checkpoint_interval},
      {"event_store", a.event_store == b.event_store},
      {"history", a.history == b.history},
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

LiveChanges live_changes(const LiveConfig& running, const LiveConfig& next) {
  std::map<std::string, const kernels::PatternDef*> patterns[2];
  std::map<std::string, const Library*> libraries[2];
  std::map<std::string, const Rule*> rules[2];
  const LiveConfig* live[2] = {&running, &next};
  for (int k = 0; k < 2; ++k) {
    for (const Library& library : live[k]->libraries) {
      libraries[k][library.name] = &library;
      for (const kernels::PatternDef& p : library.patterns) patterns[k][p.id] = &p;
    }
    for (const Rule& rule : live[k]->rules) rules[k][rule.name] = &rule;
  }
  const auto same_pattern = [](const kernels::PatternDef* a, const kernels::PatternDef* b) {
    return *a == *b;
  };
  const auto same_library = [&](const Library* a, const Library* b) {
    return std::equal(a->patterns.begin(), a->patterns.end(), b->patterns.begin(),
                      b->patterns.end());
  };
  LiveChanges out{named_changes(patterns[0], patterns[1], same_pattern),
                  named_changes(libraries[0], libraries[1], same_library),
                  named_changes(rules[0], rules[1], same_rule)};
  for (NamedChanges* c : {&out.patterns, &out.libraries, &out.rules})
    for (auto* names : {&c->added, &c->changed, &c->removed}) *names = sorted(std::move(*names));
  return out;
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

DaemonConfig load_daemon_config(const std::string& path, ReadAs as) {
  return parse_daemon_config(read_config_text(path), path, as);
}

DaemonConfig parse_daemon_config(const std::string& text, const std::string& path, ReadAs as) {
  const YAML::Node root = parse_yaml(text, path);
  // Absolute, so that resolved paths survive a change of working directory.
  const ReadContext ctx{path, std::filesystem::absolute(std::filesystem::path(path)).parent_path()};
  DaemonConfig config;
  config.source_file = path;
  OptionTargets targets;
  targets.config = &config;
  const PresentKeys top = read_section(root, {path, 1, 1}, "", targets, ctx);
  config.live.streams = read_streams(top, ctx);
  config.live.libraries = read_libraries(top, ctx, stream_dims(config, as),
                                         config.live.max_library_bytes, config.warnings);
  config.live.rules = read_rules(top, ctx, config.live, config.warnings);
  check_unselected_patterns(config.live, config.warnings);
  config.sinks = read_sinks(top, ctx);
  read_curve(top, config.curve);
  read_http(top, path, config.http);
  for (SinkConfig& sink : config.sinks) sink.sink.external_url = config.http.external_url;
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
