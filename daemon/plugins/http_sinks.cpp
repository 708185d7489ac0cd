#include "warpwatch/plugins/http_sinks.hpp"

#include <algorithm>
#include <cctype>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/plugins/sink_plugin.hpp"

namespace warpwatch::plugins {
namespace {

using config::cat;
using config::ConfigError;
using config::in_quotes;
using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;

std::string lower(std::string_view text) {
  std::string s(text);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A field value: visible ASCII, spaces and tabs, and bytes of UTF-8; no CR, LF or NUL,
// which would end the header or the request early.
bool is_field_value(std::string_view text) {
  return std::none_of(text.begin(), text.end(), [](char c) {
    const auto u = static_cast<unsigned char>(c);
    return (u < 0x20 && u != '\t') || u == 0x7f;
  });
}

std::string join(const std::vector<std::string>& items) {
  std::string s;
  for (const auto& item : items) s += cat(s.empty() ? "" : ",", item);
  return s;
}

}  // namespace

std::vector<config::OptionInfo> http_options() {
  return {
      {.name = "sinks[].headers",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "request headers added to every request, e.g. `Authorization`",
       .set =
           [](T& t, const V& v) {
             t.sink_parts<HttpOptions>([&](HttpOptions& http) { http.headers = v.text_map; });
           }},
      {.name = "sinks[].max_batch",
       .type = OT::integer,
       .default_yaml = "100",
       .help = "events sent in one request, at most (`alertmanager`, `webhook`)",
       .min = 1,
       .max = 10000,
       .set =
           [](T& t, const V& v) {
             t.sink_parts<HttpOptions>(
                 [&](HttpOptions& http) { http.max_batch = static_cast<std::size_t>(v.integer); });
           }},
  };
}

config::HttpUrl http_url(const V& v) {
  auto url = config::parse_http_url(v.text, nullptr);
  WW_ASSERT(url.has_value(), cat("sink URL '", v.text, "' passed the reader unparsed"));
  return std::move(*url);
}

bool is_http_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
  });
}

void check_headers(const config::SinkCheck& check, std::string_view signature_header) {
  const auto it = check.keys.find("headers");
  if (it == check.keys.end()) return;
  // The sink writes these itself: a second copy would make the request ambiguous.
  std::vector<std::string> own = {"host", "content-length", "content-type", "connection",
                                  "transfer-encoding"};
  if (!signature_header.empty()) own.push_back(lower(signature_header));
  for (const auto& kv : it->second.node) {
    const std::string name = kv.first.Scalar();
    const config::SourceLocation where = config::where_is(check.ctx, kv.first);
    if (!is_http_token(name))
      throw ConfigError(where, cat("header name ", in_quotes(name),
                                   " is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)"));
    if (std::find(own.begin(), own.end(), lower(name)) != own.end())
      throw ConfigError(where, cat("header ", in_quotes(name), " is set by the sink itself"));
    if (!is_field_value(kv.second.Scalar()))
      throw ConfigError(config::where_is(check.ctx, kv.second),
                        cat("header ", in_quotes(name), " has a control character in its value"));
  }
}

std::string http_default_name(std::string_view kind, const HttpOptions& http) {
  return cat(kind, " ", http.url.authority());
}

std::string http_describe(std::string_view kind, const config::SinkConfig& entry,
                          const HttpOptions& http) {
  const config::SinkOptions& s = entry.sink;
  std::string line =
      cat(s.name, ": ", kind, " at ", http.url.authority(), ", rules ", rules_text(s), ", queue ",
          std::to_string(s.queue), ", batch ", std::to_string(http.max_batch), ", timeout ",
          std::to_string(s.timeout.count()), " ms, ", std::to_string(s.max_attempts),
          " attempts, backoff ", std::to_string(s.backoff.count()), "-",
          std::to_string(s.max_backoff.count()), " ms");
  std::vector<std::string> names;
  for (const auto& header : http.headers) names.push_back(header.first);
  if (!names.empty()) line += cat(", headers ", join(names));
  return line;
}

std::string http_destination(const HttpOptions& http) {
  return cat(std::to_string(http.max_batch), " per request");
}

alerting::HttpSinkOptions http_sink_options(const HttpOptions& http) {
  alerting::HttpSinkOptions o;
  o.url = http.url;
  o.headers = http.headers;
  o.max_batch = http.max_batch;
  return o;
}

}  // namespace warpwatch::plugins
