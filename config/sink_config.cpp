// read_sinks: the `sinks:` list through the option table, then what spans an entry's keys
// (one kind, the webhook-only keys, headers, the secret file) and the whole file (unique
// names, rule labels an Alertmanager accepts).
#include <algorithm>
#include <fstream>
#include <iterator>

#include "warpwatch/config/config_reader.hpp"

namespace warpwatch::config {
namespace {

std::string lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// RFC 9110's token: what a header name may hold.
bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

// A field value: visible ASCII, spaces and tabs, and bytes of UTF-8; no CR, LF or NUL,
// which would end the header or the request early.
bool is_field_value(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
  });
}

// [a-zA-Z_][a-zA-Z0-9_]*: Alertmanager refuses a request with any other label name.
bool is_prometheus_label_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

void check_headers(const SinkConfig& sink, const PresentKeys& keys, const ReadContext& ctx) {
  if (!is_token(sink.signature_header))
    throw ConfigError(value_at(keys, "signature_header", sink.where),
                      cat("header name ", in_quotes(sink.signature_header),
                          " is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)"));
  const auto it = keys.find("headers");
  if (it == keys.end()) return;
  // The sink writes these itself: a second copy would make the request ambiguous.
  std::vector<std::string> own = {"host", "content-length", "content-type", "connection",
                                  "transfer-encoding"};
  if (!sink.hmac_secret_file.empty()) own.push_back(lower(sink.signature_header));
  for (const auto& kv : it->second.node) {
    const std::string name = kv.first.Scalar();
    const SourceLocation where = where_is(ctx, kv.first);
    if (!is_token(name))
      throw ConfigError(where, cat("header name ", in_quotes(name),
                                   " is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)"));
    if (std::find(own.begin(), own.end(), lower(name)) != own.end())
      throw ConfigError(where, cat("header ", in_quotes(name), " is set by the sink itself"));
    if (!is_field_value(kv.second.Scalar()))
      throw ConfigError(where_is(ctx, kv.second),
                        cat("header ", in_quotes(name), " has a control character in its value"));
  }
}

// The key, without the line breaks that end the file (`echo secret > file` adds one).
std::string read_secret(const std::string& path, const SourceLocation& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(where, cat("cannot read the HMAC secret file ", in_quotes(path)));
  std::string secret{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty())
    throw ConfigError(where, cat("the HMAC secret file ", in_quotes(path), " is empty"));
  return secret;
}

void check_sink(SinkConfig& sink, const PresentKeys& keys, const ReadContext& ctx) {
  const std::string_view kind_key =
      entry_kind(keys, {"alertmanager", "webhook", "kafka"}, "a sink entry", "kind", sink.where);
  check_kind_keys(keys, kind_key,
                  {{"hmac_secret_file", "webhook"}, {"signature_header", "webhook"}});
  if (kind_key == "kafka") {
    sink.kind = SinkConfig::Kind::kafka;
    for (const char* http_only : {"headers", "max_batch"})
      if (const auto it = keys.find(http_only); it != keys.end())
        throw ConfigError(it->second.key, cat(in_quotes(http_only),
                                              " applies to 'alertmanager' and 'webhook' "
                                              "entries only"));
    check_kafka_keys(keys, {"brokers", "topic"}, sink.kafka.properties);
  }
  if (sink.kind == SinkConfig::Kind::alertmanager && sink.url.has_query)
    throw ConfigError(value_at(keys, kind_key, sink.where),
                      "an Alertmanager URL is a base (the sink adds /api/v2/alerts): no ?query");
  if (sink.backoff > sink.max_backoff)
    throw ConfigError(
        value_at(keys, "backoff_ms", sink.where),
        cat("'backoff_ms' (", std::to_string(sink.backoff.count()),
            ") is larger than 'max_backoff_ms' (", std::to_string(sink.max_backoff.count()), ")"));
  if (!sink.hmac_secret_file.empty())
    sink.hmac_secret =
        read_secret(sink.hmac_secret_file, value_at(keys, "hmac_secret_file", sink.where));
  check_headers(sink, keys, ctx);
  if (sink.name.empty())
    sink.name = sink.kind == SinkConfig::Kind::kafka ? cat("kafka ", sink.kafka.topic)
                                                     : cat(kind_key, " ", sink.url.authority());
}

// Alertmanager takes the rule's labels as alert labels: their names must be label names.
void check_rule_label_names(const PresentKeys& top, const ReadContext& ctx) {
  for (const YAML::Node& rule : list_entries(top, "rules")) {
    const YAML::Node labels = rule["labels"];  // invalid (not even null) when absent
    if (!labels.IsDefined() || !labels.IsMap()) continue;
    for (const auto& kv : labels)
      if (!is_prometheus_label_name(kv.first.Scalar()))
        throw ConfigError(where_is(ctx, kv.first),
                          cat("label name ", in_quotes(kv.first.Scalar()),
                              " is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*), which an "
                              "'alertmanager' sink needs"));
  }
}

}  // namespace

std::vector<SinkConfig> read_sinks(const PresentKeys& top, const ReadContext& ctx) {
  std::vector<SinkConfig> sinks;
  UniqueNames names("sink name");
  read_list(top, ctx, "sinks", &OptionTargets::sink,
            [&](SinkConfig& sink, const PresentKeys& keys) {
              check_sink(sink, keys, ctx);
              const auto name = keys.find("name");
              names.add(sink.name, name == keys.end() ? sink.where : name->second.value);
              sinks.push_back(std::move(sink));
            });
  const bool alertmanager = std::any_of(sinks.begin(), sinks.end(), [](const SinkConfig& s) {
    return s.kind == SinkConfig::Kind::alertmanager;
  });
  if (alertmanager) check_rule_label_names(top, ctx);
  return sinks;
}

}  // namespace warpwatch::config
