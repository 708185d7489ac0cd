#include "in_influx/in_influx.hpp"

#include "warpwatch/stream/decode/influx_lines.hpp"
#include "warpwatch/stream/sources/influx_source.hpp"

namespace warpwatch::plugins::in_influx {
namespace {

using config::ConfigError;
using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;

std::vector<config::OptionInfo> options() {
  return {
      {.name = "ingest[].influx",
       .type = OT::socket,
       .help = "InfluxDB line protocol (Telegraf's `socket_writer`, `data_format = \"influx\"`) "
               "received on this TCP listener or UDP socket (README: InfluxDB line protocol)",
       .set = [](T& t, const V& v) { t.source_options<InfluxOptions>().endpoint = v.text; }},
      {.name = "ingest[].stream_template",
       .type = OT::string,
       .default_yaml = "\"{measurement}.{field}\"",
       .help = "`influx` only: a line's stream id, text and `{measurement}`, `{field}`, "
               "`{tag:KEY}` (quote it in YAML); with `{field}` each numeric field is a stream of "
               "its own",
       .min = 1,
       .set =
           [](T& t, const V& v) {
             t.source_options<InfluxOptions>().mapping.stream_template = v.text;
           }},
      {.name = "ingest[].fields",
       .type = OT::string_list,
       .help = "`influx` only: with `{field}`, the fields taken (unset = every numeric field); "
               "without, required: the fields whose values make a sample, in order",
       .min = 1,
       .set = [](T& t, const V& v) { t.source_options<InfluxOptions>().mapping.fields = v.texts; }},
      {.name = "ingest[].precision",
       .type = OT::choice,
       .default_yaml = "ns",
       .help = "`influx` only: unit of the lines' timestamps; a line without one gets the time "
               "it was received",
       .choices = {std::begin(stream::precision_names), std::end(stream::precision_names)},
       .set =
           [](T& t, const V& v) {
             t.source_options<InfluxOptions>().mapping.precision =
                 config::chosen(stream::parse_precision(v.text), v.text);
           }},
      {.name = "ingest[].max_line_bytes",
       .type = OT::integer,
       .default_yaml = "65536",
       .help = "`influx` only: a longer line is skipped and counted (`line_too_long`)",
       .min = 64,
       .max = 16 << 20,
       .set =
           [](T& t, const V& v) {
             t.source_options<InfluxOptions>().max_line_bytes = static_cast<std::size_t>(v.integer);
           }},
      {.name = "ingest[].max_connections",
       .type = OT::integer,
       .default_yaml = "256",
       .help = "`influx` over tcp only: connections beyond this many are closed at once and "
               "counted",
       .min = 1,
       .max = 65536,
       .set =
           [](T& t, const V& v) {
             t.source_options<InfluxOptions>().max_connections =
                 static_cast<std::size_t>(v.integer);
           }},
  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<InfluxOptions>();
}

// One listener per address, and the mapping checked as the source will build it; an error is
// located at the key it is about (the entry's `influx` key when that key is left to its
// default).
void check(config::PluginOptions& options, config::SourceCheck& check) {
  const auto& src = static_cast<const InfluxOptions&>(options);
  if (const auto connections = check.keys.find("max_connections");
      connections != check.keys.end() && src.endpoint.starts_with("udp://"))
    throw ConfigError(connections->second.key,
                      "'max_connections' applies to tcp:// 'influx' entries only");
  if (!config::binds_any_port(src.endpoint))
    check.unique("influx address").add(src.endpoint, check.at);
  const auto at = [&](const char* key) { return config::value_at(check.keys, key, check.at); };
  try {
    const stream::StreamIdTemplate template_check(src.mapping.stream_template);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(at("stream_template"), e.what());
  }
  try {
    const stream::InfluxMapping mapping_check(src.mapping);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(at("fields"), e.what());
  }
}

// What a source holds of reads and unfinished lines.
std::size_t buffer_bytes(const config::PluginOptions& options) {
  const auto& src = static_cast<const InfluxOptions&>(options);
  return stream::influx_buffer_bytes(src.endpoint.starts_with("tcp://"), src.max_connections,
                                     src.max_line_bytes);
}

MadeSource make(const config::IngestSource& entry, const SourceContext& context) {
  const auto& src = entry.options_as<InfluxOptions>();
  auto source = std::make_unique<stream::InfluxSource>(
      stream::InfluxSourceOptions{.address = src.endpoint,
                                  .mapping = src.mapping,
                                  .max_line_bytes = src.max_line_bytes,
                                  .max_connections = src.max_connections},
      context.hub);
  std::string endpoint = source->endpoint();
  return {std::move(source), std::move(endpoint)};
}

LineInput line_input(const config::IngestSource& entry) {
  const auto& src = entry.options_as<InfluxOptions>();
  return {src.mapping, src.max_line_bytes};
}

std::string describe(const config::IngestSource& entry) {
  const auto& src = entry.options_as<InfluxOptions>();
  std::string fields;
  for (const auto& field : src.mapping.fields) fields += (fields.empty() ? "" : ",") + field;
  return "influx " + src.endpoint + " -> " + src.mapping.stream_template +
         (fields.empty() ? std::string() : " fields " + fields) + ", timestamps in " +
         std::string(stream::to_string(src.mapping.precision));
}

// docs/ingest.md §7, one label value per source; none without an influx source.
void families(MetricFamilies& f, std::span<const stream::Source* const> sources) {
  if (sources.empty()) return;
  std::vector<stream::InfluxStats> stats;
  for (const stream::Source* source : sources)
    stats.push_back(static_cast<const stream::InfluxSource*>(source)->stats());
  const auto d = metric_value;
  const auto each = [&](auto value) {
    for (const auto& s : stats) f.add(value(s), {{"source", s.source}});
  };
  f.counter("influx_bytes_total", "Bytes of line protocol read, per source");
  each([&](const stream::InfluxStats& s) { return d(s.bytes); });
  f.counter("influx_lines_total", "Lines read (not blank, not comments), per source");
  each([&](const stream::InfluxStats& s) { return d(s.lines); });
  f.counter("influx_samples_total", "Samples made of the lines and offered to the queue");
  each([&](const stream::InfluxStats& s) { return d(s.samples); });
  f.counter("influx_rejected_total",
            "Lines (per-field: fields) that became no sample, per source and reason");
  for (const auto& s : stats)
    for (const auto reason : stream::all_line_rejects)
      f.add(d(s.rejected[static_cast<std::size_t>(reason)]),
            {{"source", s.source}, {"reason", std::string(stream::to_string(reason))}});
  f.counter("influx_ignored_fields_total", "String and boolean fields skipped (per-field mode)");
  each([&](const stream::InfluxStats& s) { return d(s.ignored_fields); });
  f.counter("influx_datagrams_total", "UDP datagrams read");
  each([&](const stream::InfluxStats& s) { return d(s.datagrams); });
  f.counter("influx_connections_total", "TCP connections accepted");
  each([&](const stream::InfluxStats& s) { return d(s.connections); });
  f.gauge("influx_connections", "TCP connections open now");
  each([&](const stream::InfluxStats& s) { return d(s.connections_open); });
  f.counter("influx_connections_refused_total", "TCP connections over max_connections, closed");
  each([&](const stream::InfluxStats& s) { return d(s.connections_refused); });
}

}  // namespace

const SourcePlugin plugin{
    .config = {.name = InfluxOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check,
               .buffer_bytes = buffer_bytes,
               .buffer_name = "influx line buffers"},
    .make = make,
    .describe = describe,
    .families = families,
    .line_input = line_input,
};

}  // namespace warpwatch::plugins::in_influx
