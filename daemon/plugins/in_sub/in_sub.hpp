// `ingest[].sub`: a ZeroMQ SUB socket connected to a publisher (docs/ingest.md §2), a CURVE
// client of its key with `curve`.
#pragma once

#include <string>

#include "warpwatch/plugins/source_plugin.hpp"

namespace warpwatch::plugins::in_sub {

struct SubOptions : config::PluginOptionsOf<SubOptions> {
  static constexpr std::string_view kind = "sub";
  std::string endpoint;         // connected, e.g. tcp://10.0.0.7:5556
  std::string topic;            // subscription prefix ("" = everything)
  std::string server_key_file;  // with `curve`: the publisher's public key file
  std::string server_key;       // the key read from it (Z85)
  friend bool operator==(const SubOptions&, const SubOptions&) = default;
};

extern const SourcePlugin plugin;

}  // namespace warpwatch::plugins::in_sub
