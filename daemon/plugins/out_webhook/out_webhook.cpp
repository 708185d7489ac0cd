#include "out_webhook/out_webhook.hpp"

#include <fstream>
#include <iterator>

#include "warpwatch/alerting/sink_payload.hpp"

namespace warpwatch::plugins::out_webhook {
namespace {

using config::cat;
using config::ConfigError;
using config::in_quotes;
using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;

std::vector<config::OptionInfo> options() {
  std::vector<config::OptionInfo> rows = {
      {.name = "sinks[].webhook",
       .type = OT::url,
       .help = "events are POSTed here as JSON: `{\"events\": [...]}`, each as `publish` sends it",
       .set = [](T& t, const V& v) { t.sink_options<WebhookOptions>().url = http_url(v); }},
  };
  for (config::OptionInfo& row : http_options()) rows.push_back(std::move(row));
  rows.push_back(
      {.name = "sinks[].hmac_secret_file",
       .type = OT::path,
       .help = "`webhook` only: sign each body with HMAC-SHA256 under the secret in this file "
               "(read at start, trailing newlines dropped); unset = unsigned",
       .set = [](T& t, const V& v) {
         t.sink_options<WebhookOptions>().hmac_secret_file = v.text;
       }});
  rows.push_back({.name = "sinks[].signature_header",
                  .type = OT::string,
                  .default_yaml = "X-Warpwatch-Signature",
                  .help = "`webhook` with `hmac_secret_file` only: the header that carries "
                          "`sha256=<hex of the HMAC>`",
                  .min = 1,
                  .set = [](T& t, const V& v) {
                    t.sink_options<WebhookOptions>().signature_header = v.text;
                  }});
  return rows;
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<WebhookOptions>();
}

// The key, without the line breaks that end the file (`echo secret > file` adds one).
std::string read_secret(const std::string& path, const config::SourceLocation& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(where, cat("cannot read the HMAC secret file ", in_quotes(path)));
  std::string secret{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r')) secret.pop_back();
  if (secret.empty())
    throw ConfigError(where, cat("the HMAC secret file ", in_quotes(path), " is empty"));
  return secret;
}

void check(config::PluginOptions& options, const config::SinkCheck& check) {
  auto& hook = static_cast<WebhookOptions&>(options);
  if (!hook.hmac_secret_file.empty())
    hook.hmac_secret = read_secret(hook.hmac_secret_file,
                                   config::value_at(check.keys, "hmac_secret_file", check.where));
  if (!is_http_token(hook.signature_header))
    throw ConfigError(config::value_at(check.keys, "signature_header", check.where),
                      cat("header name ", in_quotes(hook.signature_header),
                          " is not an HTTP token (letters, digits, !#$%&'*+-.^_`|~)"));
  check_headers(check, hook.hmac_secret.empty() ? "" : hook.signature_header);
}

std::unique_ptr<alerting::AlertSink> make(const config::SinkConfig& entry, service::Logger log) {
  const auto& hook = entry.options_as<WebhookOptions>();
  alerting::HttpSinkOptions http = http_sink_options(hook);
  http.target = hook.url.target;
  http.body = [url = entry.sink.external_url](std::span<const alerting::SharedEvent> events) {
    return alerting::webhook_body(events, url);
  };
  http.hmac_secret = hook.hmac_secret;
  http.signature_header = hook.signature_header;
  return std::make_unique<alerting::HttpSink>(entry.sink, std::move(http), std::move(log));
}

std::string describe(const config::SinkConfig& entry) {
  const auto& hook = entry.options_as<WebhookOptions>();
  std::string line = http_describe_of<WebhookOptions>(entry);
  if (!hook.hmac_secret.empty()) line += cat(", signed (", hook.signature_header, ")");
  return line;
}

}  // namespace

const SinkPlugin plugin{
    .config = {.name = WebhookOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check,
               .default_name = http_default_name_of<WebhookOptions>},
    .make = make,
    .describe = describe,
    .destination = http_destination_of<WebhookOptions>,
};

}  // namespace warpwatch::plugins::out_webhook
