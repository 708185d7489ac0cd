// What the HTTP sinks (out_alertmanager/, out_webhook/) share, in one place: the part of their
// options struct both have (the URL, `headers`, `max_batch`), the rows of the shared keys, the
// check of the headers, their check-config and startup log lines, and the sink they make
// (alerting::HttpSink). Each kind adds its own: its kind key's row, the request's target and
// body, a webhook's signature.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/alerting/http_sink.hpp"
#include "warpwatch/config/http_url.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/config/sink_kinds.hpp"

namespace warpwatch::plugins {

// A base of each HTTP kind's options struct (`struct WebhookOptions :
// config::PluginOptionsOf<WebhookOptions>, HttpOptions`): the shared rows' setters fill it in
// every such struct of the entry (config::OptionTargets::sink_parts).
struct HttpOptions {
  config::HttpUrl url;                         // the kind key's value: where requests go
  std::map<std::string, std::string> headers;  // sinks[].headers: sent with every request
  std::size_t max_batch = 100;                 // sinks[].max_batch: events per request
  friend bool operator==(const HttpOptions&, const HttpOptions&) = default;
};

// The rows both HTTP kinds list after their kind key: `headers`, `max_batch` (one row each
// in the table, belonging to both kinds).
std::vector<config::OptionInfo> http_options();

// The kind key's URL: the reader checked it (OptionType::url), so one it cannot parse is a bug.
config::HttpUrl http_url(const config::OptionValue& value);

// RFC 9110's token: what a header name may hold.
bool is_http_token(std::string_view text);

// `headers`: names are tokens, values hold no control character, and none is a header the
// sink writes itself (Host, Content-Length, ..., and `signature_header` when not "").
void check_headers(const config::SinkCheck& check, std::string_view signature_header);

// "<kind> host:port": the sink's name when `name` is unset.
std::string http_default_name(std::string_view kind, const HttpOptions& http);

// `warpwatch check-config`'s line, hosts only ("<name>: <kind> at host:port, rules ...,
// queue ..., batch ..., timeout ..., attempts, backoff ...[, headers <names>]"); a kind may add
// to its end.
std::string http_describe(std::string_view kind, const config::SinkConfig& entry,
                          const HttpOptions& http);
// The startup log's: "<max_batch> per request".
std::string http_destination(const HttpOptions& http);

// The hooks of an HTTP kind whose options struct is `Options` (derived from HttpOptions),
// for its SinkPlugin: `.default_name = http_default_name_of<WebhookOptions>`.
template <class Options>
std::string http_default_name_of(const config::PluginOptions& options) {
  return http_default_name(Options::kind, static_cast<const Options&>(options));
}
template <class Options>
std::string http_describe_of(const config::SinkConfig& entry) {
  return http_describe(Options::kind, entry, entry.options_as<Options>());
}
template <class Options>
std::string http_destination_of(const config::SinkConfig& entry) {
  return http_destination(entry.options_as<Options>());
}

// The sink's settings of the shared part; the kind sets the target, the body and the
// signature.
alerting::HttpSinkOptions http_sink_options(const HttpOptions& http);

}  // namespace warpwatch::plugins
