// `sinks[].webhook`: events POSTed as JSON (`{"events": [...]}`), each body signed with
// HMAC-SHA256 when a secret is given (docs/sinks.md §5). The HTTP part is shared with
// `alertmanager` (http_sinks.hpp); the sink is alerting::HttpSink.
#pragma once

#include <string>
#include <string_view>

#include "warpwatch/plugins/http_sinks.hpp"
#include "warpwatch/plugins/sink_plugin.hpp"

namespace warpwatch::plugins::out_webhook {

struct WebhookOptions : config::PluginOptionsOf<WebhookOptions>, HttpOptions {
  static constexpr std::string_view kind = "webhook";
  std::string hmac_secret;       // the key read from hmac_secret_file; "" = unsigned
  std::string hmac_secret_file;  // where it came from ("" = none)
  std::string signature_header = "X-Warpwatch-Signature";
  // The same settings: the secret, not the file it was read from.
  friend bool operator==(const WebhookOptions& a, const WebhookOptions& b) {
    return static_cast<const HttpOptions&>(a) == static_cast<const HttpOptions&>(b) &&
           a.hmac_secret == b.hmac_secret && a.signature_header == b.signature_header;
  }
};

extern const SinkPlugin plugin;

}  // namespace warpwatch::plugins::out_webhook
