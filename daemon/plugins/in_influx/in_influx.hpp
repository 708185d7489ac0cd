// `ingest[].influx`: InfluxDB line protocol received on a TCP listener or a UDP socket
// (docs/ingest.md §7).
#pragma once

#include <cstddef>
#include <string>

#include "warpwatch/plugins/source_plugin.hpp"
#include "warpwatch/stream/sources/influx_mapping.hpp"

namespace warpwatch::plugins::in_influx {

struct InfluxOptions : config::PluginOptionsOf<InfluxOptions> {
  static constexpr std::string_view kind = "influx";
  std::string endpoint;                   // tcp://host:port or udp://host:port
  stream::InfluxMappingOptions mapping;   // lines -> streams (checked when read)
  std::size_t max_line_bytes = 64 << 10;  // longer lines are skipped and counted
  std::size_t max_connections = 256;      // over tcp
  friend bool operator==(const InfluxOptions&, const InfluxOptions&) = default;
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_influx
