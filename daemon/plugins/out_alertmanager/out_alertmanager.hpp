// `sinks[].alertmanager`: events become alerts POSTed to an Alertmanager's
// `<url>/api/v2/alerts` (docs/sinks.md §5). The HTTP part is shared with `webhook`
// (http_sinks.hpp); the sink is alerting::HttpSink.
#pragma once

#include <string_view>

#include "warpwatch/plugins/http_sinks.hpp"
#include "warpwatch/plugins/sink_plugin.hpp"

namespace warpwatch::plugins::out_alertmanager {

struct AlertmanagerOptions : config::PluginOptionsOf<AlertmanagerOptions>, HttpOptions {
  static constexpr std::string_view kind = "alertmanager";
  friend bool operator==(const AlertmanagerOptions&, const AlertmanagerOptions&) = default;
};

extern const SinkPlugin plugin;

}  // namespace warpwatch::plugins::out_alertmanager
