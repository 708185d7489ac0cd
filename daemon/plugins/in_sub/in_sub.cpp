#include "in_sub/in_sub.hpp"

#include "warpwatch/stream/sources/zmq_source.hpp"

namespace warpwatch::plugins::in_sub {
namespace {

using config::OptionInfo;
using config::OptionTargets;
using config::OptionValue;
using OT = config::OptionType;

std::vector<OptionInfo> options() {
  return {
      {.name = "ingest[].sub",
       .type = OT::endpoint,
       .help = "a ZeroMQ SUB socket connected here receives `[stream id][payload]` messages",
       .set = [](OptionTargets& t,
                 const OptionValue& v) { t.source_options<SubOptions>().endpoint = v.text; }},
      {.name = "ingest[].topic",
       .type = OT::string,
       .default_yaml = "\"\"",
       .help = "`sub` only: subscribe to stream ids starting with this; \"\" = every stream",
       .set = [](OptionTargets& t,
                 const OptionValue& v) { t.source_options<SubOptions>().topic = v.text; }},
      {.name = "ingest[].server_key_file",
       .type = OT::path,
       .help = "`sub` with `curve` only, required there: the publisher's public key (a `.pub` "
               "file of `warpwatch keygen`); the daemon connects as a CURVE client with its own "
               "key pair",
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<SubOptions>().server_key_file = v.text;
           }},
  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<SubOptions>();
}

// The publisher's key: required with `curve`, refused without; read here, so that a bad key
// is an error at its option before anything starts.
void check(config::PluginOptions& options, config::SourceCheck& check) {
  auto& sub = static_cast<SubOptions&>(options);
  const auto it = check.keys.find("server_key_file");
  if (!check.config.curve.enabled) {
    if (it != check.keys.end())
      throw config::ConfigError(it->second.key, "'server_key_file' needs the 'curve' section");
    return;
  }
  if (it == check.keys.end())
    throw config::ConfigError(check.at,
                              "with 'curve', a 'sub' entry needs 'server_key_file' (the "
                              "publisher's public key)");
  try {
    sub.server_key = stream::read_key_file(sub.server_key_file, false);
  } catch (const std::exception& e) {
    throw config::ConfigError(it->second.value, e.what());
  }
}

MadeSource make(const config::IngestSource& entry, const SourceContext& context) {
  const auto& sub = entry.options_as<SubOptions>();
  auto source = std::make_unique<stream::ZmqSource>(
      context.zmq,
      stream::ZmqSourceOptions{stream::ZmqSourceOptions::Kind::sub, sub.endpoint, sub.topic,
                               context.config.max_message_bytes,
                               context.config.receive_high_water_mark,
                               context.curve_client(sub.server_key)},
      context.hub);
  std::string endpoint = source->endpoint();
  return {std::move(source), std::move(endpoint)};
}

std::string describe(const config::IngestSource& entry) {
  const auto& sub = entry.options_as<SubOptions>();
  return "sub    " + sub.endpoint + " topic \"" + sub.topic + "\"";
}

}  // namespace

const SourcePlugin plugin{
    .config = {.name = SubOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check},
    .make = make,
    .describe = describe,
};

}  // namespace warpwatch::plugins::in_sub
