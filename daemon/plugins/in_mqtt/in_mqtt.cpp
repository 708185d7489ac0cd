#include "in_mqtt/in_mqtt.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>

#include "warpwatch/config/yaml_file.hpp"
#include "warpwatch/plugins/payload_formats.hpp"
#include "warpwatch/stream/sources/mqtt_source.hpp"
#include "warpwatch/stream/sources/topic_template.hpp"

namespace warpwatch::plugins::in_mqtt {
namespace {

using config::cat;
using config::ConfigError;
using config::in_quotes;
using config::PresentKey;
using config::SourceLocation;
using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;
using std::chrono::milliseconds;

// An entry's TLS settings, turned on by the first of them that is set.
stream::MqttTls& tls_of(T& t) {
  auto& tls = t.source_options<MqttOptions>().mqtt.tls;
  if (!tls) tls.emplace();
  return *tls;
}

std::vector<config::OptionInfo> options() {
  return {
      {.name = "ingest[].mqtt",
       .type = OT::section,
       .help = "an MQTT client that subscribes at a broker (README: MQTT); the keys below"},
      {.name = "ingest[].mqtt.host",
       .type = OT::string,
       .help = "required: the broker's host name or address",
       .min = 1,
       .set = [](T& t, const V& v) { t.source_options<MqttOptions>().mqtt.host = v.text; }},
      {.name = "ingest[].mqtt.port",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "the broker's port; 0 = 1883, or 8883 with `tls`",
       .min = 0,
       .max = 65535,
       .set =
           [](T& t, const V& v) {
             t.source_options<MqttOptions>().mqtt.port = static_cast<int>(v.integer);
           }},
      {.name = "ingest[].mqtt.topics",
       .type = OT::string_list,
       .help = "required: the topic filters subscribed to (`+` one level, `#` all below)",
       .min = 1,
       .set = [](T& t, const V& v) { t.source_options<MqttOptions>().mqtt.topics = v.texts; }},
      {.name = "ingest[].mqtt.qos",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "QoS asked for: 0 at most once, 1 at least once (kept for the daemon while it is "
               "away only with `clean_session: false`)",
       .min = 0,
       .max = 1,
       .set =
           [](T& t, const V& v) {
             t.source_options<MqttOptions>().mqtt.qos = static_cast<int>(v.integer);
           }},
      {.name = "ingest[].mqtt.stream_template",
       .type = OT::string,
       .default_yaml = "\"{topic}\"",
       .help = "a message's stream id from its topic: `{N}` is topic level N (from 1), "
               "`{topic}` the whole topic, `{{` and `}}` braces; e.g. `\"{2}-{3}\"`",
       .min = 1,
       .set = [](T& t,
                 const V& v) { t.source_options<MqttOptions>().mqtt.stream_template = v.text; }},
      {.name = "ingest[].mqtt.payload",
       .type = OT::choice,
       .default_yaml = "auto",
       .help = "how payloads are read; `auto`: a binary frame when it starts with `WWF`, JSON "
               "when it starts with `{` or `[`, otherwise text lines",
       .choices = payload_format_names(),
       .set =
           [](T& t, const V& v) {
             t.source_options<MqttOptions>().mqtt.payload =
                 config::chosen(parse_payload_format(v.text), v.text);
           }},
      {.name = "ingest[].mqtt.client_id",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "the client id; \"\" = a random one (clean sessions only); two clients with one id "
               "take the connection from each other",
       .set = [](T& t, const V& v) { t.source_options<MqttOptions>().mqtt.client_id = v.text; }},
      {.name = "ingest[].mqtt.clean_session",
       .type = OT::boolean,
       .default_yaml = "true",
       .help = "false: the broker keeps the subscriptions, and QoS 1 messages, while the daemon "
               "is away (needs `client_id`)",
       .set = [](T& t,
                 const V& v) { t.source_options<MqttOptions>().mqtt.clean_session = v.boolean; }},
      {.name = "ingest[].mqtt.username",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "user name at the broker; \"\" = none",
       .set = [](T& t, const V& v) { t.source_options<MqttOptions>().mqtt.username = v.text; }},
      {.name = "ingest[].mqtt.password_file",
       .type = OT::path,
       .help = "a file that holds the password (one trailing newline is dropped), read at "
               "start; needs `username`; unset = no password",
       .set = [](T& t, const V& v) { t.source_options<MqttOptions>().password_file = v.text; }},
      {.name = "ingest[].mqtt.keepalive_s",
       .type = OT::integer,
       .default_yaml = "30",
       .help = "seconds between keepalive pings; a silent connection, or an attempt that gets "
               "no answer, ends after it",
       .min = 5,
       .max = 65535,
       .set =
           [](T& t, const V& v) {
             t.source_options<MqttOptions>().mqtt.keepalive_s = static_cast<int>(v.integer);
           }},
      {.name = "ingest[].mqtt.reconnect_min_ms",
       .type = OT::integer,
       .default_yaml = "1000",
       .help = "delay before reconnecting; it doubles after each failed attempt",
       .min = 1,
       .max = 3600000,
       .set =
           [](T& t, const V& v) {
             t.source_options<MqttOptions>().mqtt.reconnect_min = milliseconds(v.integer);
           }},
      {.name = "ingest[].mqtt.reconnect_max_ms",
       .type = OT::integer,
       .default_yaml = "30000",
       .help = "the longest delay; also how long a connection must last for the delay to start "
               "again from `reconnect_min_ms`",
       .min = 1,
       .max = 3600000,
       .set =
           [](T& t, const V& v) {
             t.source_options<MqttOptions>().mqtt.reconnect_max = milliseconds(v.integer);
           }},
      {.name = "ingest[].mqtt.retained",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "take the retained message a broker sends at subscription (an old sample) as "
               "input; false: skip and count it",
       .set = [](T& t, const V& v) { t.source_options<MqttOptions>().mqtt.retained = v.boolean; }},
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
  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<MqttOptions>();
}

// The password: the file's content without one trailing newline.
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

// What the entry's keys cannot check one by one.
void check(config::PluginOptions& options, config::SourceCheck& check) {
  auto& src = static_cast<MqttOptions&>(options);
  stream::MqttSourceOptions& m = src.mqtt;
  const auto key = [&](std::string_view name) -> const PresentKey* {
    const auto it = check.keys.find(cat("mqtt.", name));
    return it == check.keys.end() ? nullptr : &it->second;
  };
  const SourceLocation& at = check.at;
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
    const SourceLocation where = topics.node.IsSequence()
                                     ? config::location_of(check.where.file, topics.node[i])
                                     : topics.value;
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

MadeSource make(const config::IngestSource& entry, const SourceContext& context) {
  return {std::make_unique<stream::MqttSource>(
              entry.options_as<MqttOptions>().mqtt, context.hub,
              [log = context.log](stream::MqttLogLevel level, std::string_view line) {
                if (level == stream::MqttLogLevel::warning)
                  log->warn("ingest: {}", line);
                else
                  log->info("ingest: {}", line);
              }),
          std::nullopt};
}

std::string describe(const config::IngestSource& entry) {
  const auto& src = entry.options_as<MqttOptions>();
  const auto& m = src.mqtt;
  std::string s =
      (m.tls ? "mqtts  " : "mqtt   ") + m.host + ":" + std::to_string(m.port) + " topics";
  for (const auto& filter : m.topics) s += " \"" + filter + "\"";
  s += cat(" -> \"", m.stream_template, "\", payload ", payload_format_name(m.payload), ", qos ",
           std::to_string(m.qos));
  if (!m.clean_session) s += ", persistent session";
  if (!m.username.empty()) s += ", user " + m.username;
  if (!m.password.empty()) s += " (password from " + src.password_file + ")";
  return s;
}

// docs/ingest.md §5, one label value per source; the families are there with no MQTT source.
void families(MetricFamilies& f, std::span<const stream::Source* const> sources) {
  std::vector<stream::MqttCounters> counters;
  for (const stream::Source* source : sources)
    counters.push_back(static_cast<const stream::MqttSource*>(source)->counters());
  const auto d = metric_value;
  f.gauge("mqtt_connected", "1 while the MQTT source is connected and subscribed");
  for (const auto& s : counters) f.add(s.connected ? 1.0 : 0.0, {{"source", s.name}});
  f.counter("mqtt_messages_total", "MQTT messages received, per source");
  for (const auto& s : counters) f.add(d(s.messages), {{"source", s.name}});
  f.counter("mqtt_retained_skipped_total",
            "Retained messages (sent at subscription) skipped, `retained: false`");
  for (const auto& s : counters) f.add(d(s.retained_skipped), {{"source", s.name}});
  f.counter("mqtt_connections_total",
            "Connection events per MQTT source: made, failed (attempts), lost");
  for (const auto& s : counters)
    f.add(d(s.connects), {{"source", s.name}, {"event", "made"}})
        .add(d(s.connect_failures), {{"source", s.name}, {"event", "failed"}})
        .add(d(s.connections_lost), {{"source", s.name}, {"event", "lost"}});
  f.counter("mqtt_subscriptions_refused_total", "Topic filters the broker refused, per source");
  for (const auto& s : counters) f.add(d(s.subscriptions_refused), {{"source", s.name}});
}

}  // namespace

const SourcePlugin plugin{
    .config = {.name = MqttOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check},
    .make = make,
    .describe = describe,
    .families = families,
};

}  // namespace warpwatch::plugins::in_mqtt
