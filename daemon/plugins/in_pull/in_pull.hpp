// `ingest[].pull`: a ZeroMQ PULL socket bound at an endpoint (docs/ingest.md §2).
#pragma once

#include <string>

#include "warpwatch/plugins/source_plugin.hpp"

namespace warpwatch::plugins::in_pull {

struct PullOptions : config::PluginOptionsOf<PullOptions> {
  static constexpr std::string_view kind = "pull";
  std::string endpoint;  // bound, e.g. tcp://127.0.0.1:5555
  friend bool operator==(const PullOptions&, const PullOptions&) = default;
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_pull
