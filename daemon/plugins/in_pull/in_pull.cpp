#include "in_pull/in_pull.hpp"

#include "warpwatch/stream/sources/zmq_source.hpp"

namespace warpwatch::plugins::in_pull {
namespace {

using config::OptionInfo;
using config::OptionTargets;
using config::OptionValue;
using OT = config::OptionType;

std::vector<OptionInfo> options() {
  return {
      {.name = "ingest[].pull",
       .type = OT::endpoint,
       .help = "a ZeroMQ PULL socket bound here receives `[stream id][payload]` messages",
       .set = [](OptionTargets& t,
                 const OptionValue& v) { t.source_options<PullOptions>().endpoint = v.text; }},
  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<PullOptions>();
}

// Two sockets cannot bind one endpoint: another pull entry's, or the publisher's.
void check(config::PluginOptions& options, config::SourceCheck& check) {
  const auto& pull = static_cast<const PullOptions&>(options);
  if (pull.endpoint.starts_with("tcp://") && config::binds_any_port(pull.endpoint)) return;
  check.unique("pull endpoint").add(pull.endpoint, check.at);
  if (pull.endpoint == check.config.publish_endpoint)
    throw config::ConfigError(check.at,
                              config::cat("pull endpoint ", config::in_quotes(pull.endpoint),
                                          " is also 'publish.endpoint': two sockets "
                                          "cannot bind one endpoint"));
}

MadeSource make(const config::IngestSource& entry, const SourceContext& context) {
  const auto& pull = entry.options_as<PullOptions>();
  // The socket's ZAP domain: the entry, as the log and the auth counters name it once bound.
  const std::string domain = "ingest[" + std::to_string(context.index) + "]";
  auto source = std::make_unique<stream::ZmqSource>(
      context.zmq,
      stream::ZmqSourceOptions{
          stream::ZmqSourceOptions::Kind::pull, pull.endpoint, "", context.config.max_message_bytes,
          context.config.receive_high_water_mark, context.curve_server(domain)},
      context.hub);
  context.bound(domain, source->describe(), source->endpoint());
  std::string endpoint = source->endpoint();
  return {std::move(source), std::move(endpoint)};
}

std::string describe(const config::IngestSource& entry) {
  return "pull   " + entry.options_as<PullOptions>().endpoint;
}

}  // namespace

const SourcePlugin plugin{
    .config = {.name = PullOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check},
    .make = make,
    .describe = describe,
};

}  // namespace warpwatch::plugins::in_pull
