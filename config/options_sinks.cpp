// The option table, third part: the alert sinks (`sinks:`), read by read_sinks
// (sink_config.cpp).
#include <vector>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/options.hpp"

namespace warpwatch::config {
namespace {

using T = OptionTargets;
using V = OptionValue;
using OT = OptionType;
using std::chrono::milliseconds;

// The setter of `alertmanager` and `webhook`: the kind and the URL (checked already).
template <SinkConfig::Kind kind>
void set_sink_url(T& t, const V& v) {
  t.sink->kind = kind;
  auto url = parse_http_url(v.text, nullptr);
  WW_ASSERT(url.has_value(), cat("sink URL '", v.text, "' passed the reader unparsed"));
  t.sink->url = std::move(*url);
}

}  // namespace

std::vector<OptionInfo> sink_options() {
  return {
      {.name = "sinks",
       .type = OT::list,
       .help = "alert sinks besides `publish`, each with its own queue and retries (README: "
               "Alert sinks); each entry has exactly one of `alertmanager`, `webhook`, `kafka`"},
      {.name = "sinks[].alertmanager",
       .type = OT::url,
       .help = "an Alertmanager's base URL: events become alerts POSTed to "
               "`<url>/api/v2/alerts`",
       .set = set_sink_url<SinkConfig::Kind::alertmanager>},
      {.name = "sinks[].webhook",
       .type = OT::url,
       .help = "events are POSTed here as JSON: `{\"events\": [...]}`, each as `publish` sends it",
       .set = set_sink_url<SinkConfig::Kind::webhook>},
      {.name = "sinks[].kafka",
       .type = OT::section,
       .help = "events are produced to a Kafka topic: key = stream id, value = the event as "
               "`publish` sends it (README: Kafka); the keys below"},
      {.name = "sinks[].kafka.brokers",
       .type = OT::string,
       .help = "required: the bootstrap brokers, `host:port[,host:port...]`",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->kafka.brokers = v.text; }},
      {.name = "sinks[].kafka.topic",
       .type = OT::string,
       .help = "required: the topic the events go to",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->kafka.topic = v.text; }},
      {.name = "sinks[].kafka.properties",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "further librdkafka properties of the producer; those warpwatch sets itself are "
               "refused",
       .set = [](T& t, const V& v) { t.sink->kafka.properties = v.text_map; }},
      {.name = "sinks[].name",
       .type = OT::string,
       .help = "names the sink in `/metrics` and the log; unset = `<kind> host:port` (`kafka "
               "<topic>`); unique",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->name = v.text; }},
      {.name = "sinks[].rules",
       .type = OT::string_list,
       .default_yaml = "[\"*\"]",
       .help = "globs on rule names: the events of these rules go to the sink",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->rules = v.texts; }},
      {.name = "sinks[].headers",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "request headers added to every request, e.g. `Authorization`",
       .set = [](T& t, const V& v) { t.sink->headers = v.text_map; }},
      {.name = "sinks[].queue",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "events waiting for the sink, at most; when it is full the oldest is dropped "
               "and counted (`kafka`: the newest is refused and counted)",
       .min = 1,
       .max = 10000000,
       .set = [](T& t, const V& v) { t.sink->queue = static_cast<std::size_t>(v.integer); }},
      {.name = "sinks[].max_batch",
       .type = OT::integer,
       .default_yaml = "100",
       .help = "events sent in one request, at most (`alertmanager`, `webhook`)",
       .min = 1,
       .max = 10000,
       .set = [](T& t, const V& v) { t.sink->max_batch = static_cast<std::size_t>(v.integer); }},
      {.name = "sinks[].timeout_ms",
       .type = OT::integer,
       .default_yaml = "5000",
       .help = "one request, at most: connecting, sending, and reading the answer; `kafka`: "
               "one event's delivery, its retries included (`message.timeout.ms`)",
       .min = 1,
       .max = 600000,
       .set = [](T& t, const V& v) { t.sink->timeout = milliseconds(v.integer); }},
      {.name = "sinks[].max_attempts",
       .type = OT::integer,
       .default_yaml = "5",
       .help = "requests for one batch before its events are given up and counted as failed "
               "(`kafka`: sends of one event)",
       .min = 1,
       .max = 1000,
       .set = [](T& t, const V& v) { t.sink->max_attempts = static_cast<unsigned>(v.integer); }},
      {.name = "sinks[].backoff_ms",
       .type = OT::integer,
       .default_yaml = "500",
       .help = "wait before the first retry; doubled after each failure up to `max_backoff_ms`, "
               "each wait drawn between half and all of it (jitter)",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.sink->backoff = milliseconds(v.integer); }},
      {.name = "sinks[].max_backoff_ms",
       .type = OT::integer,
       .default_yaml = "30000",
       .help = "the longest wait between two retries; at least `backoff_ms`",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.sink->max_backoff = milliseconds(v.integer); }},
      {.name = "sinks[].hmac_secret_file",
       .type = OT::path,
       .help = "`webhook` only: sign each body with HMAC-SHA256 under the secret in this file "
               "(read at start, trailing newlines dropped); unset = unsigned",
       .set = [](T& t, const V& v) { t.sink->hmac_secret_file = v.text; }},
      {.name = "sinks[].signature_header",
       .type = OT::string,
       .default_yaml = "X-Warpwatch-Signature",
       .help = "`webhook` with `hmac_secret_file` only: the header that carries "
               "`sha256=<hex of the HMAC>`",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->signature_header = v.text; }},
  };
}

}  // namespace warpwatch::config
