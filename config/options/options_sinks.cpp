// The option table, third part: the alert sinks (`sinks:`), read by read_sinks
// (sink_config.cpp): the `sinks` list, the rows of every sink kind registered
// (sink_kinds.hpp: their plugins', daemon/plugins/out_<kind>/) and the rows every sink has,
// whatever its kind (SinkOptions: the sink base's).
#include <algorithm>
#include <string>
#include <vector>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/config/sink_kinds.hpp"

namespace warpwatch::config {
namespace {

using T = OptionTargets;
using V = OptionValue;
using OT = OptionType;
using std::chrono::milliseconds;

// The rows every sink has (SinkOptions).
std::vector<OptionInfo> common_sink_options() {
  return {
      {.name = "sinks[].name",
       .type = OT::string,
       .help = "names the sink in `/metrics` and the log; unset = `<kind> host:port` (`kafka "
               "<topic>`); unique",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->sink.name = v.text; }},
      {.name = "sinks[].rules",
       .type = OT::string_list,
       .default_yaml = "[\"*\"]",
       .help = "globs on rule names: the events of these rules go to the sink",
       .min = 1,
       .set = [](T& t, const V& v) { t.sink->sink.rules = v.texts; }},
      {.name = "sinks[].queue",
       .type = OT::integer,
       .default_yaml = "10000",
       .help = "events waiting for the sink, at most; when it is full the oldest is dropped "
               "and counted (`kafka`: the newest is refused and counted)",
       .min = 1,
       .max = 10000000,
       .set = [](T& t, const V& v) { t.sink->sink.queue = static_cast<std::size_t>(v.integer); }},
      {.name = "sinks[].timeout_ms",
       .type = OT::integer,
       .default_yaml = "5000",
       .help = "one request, at most: connecting, sending, and reading the answer; `kafka`: "
               "one event's delivery, its retries included (`message.timeout.ms`)",
       .min = 1,
       .max = 600000,
       .set = [](T& t, const V& v) { t.sink->sink.timeout = milliseconds(v.integer); }},
      {.name = "sinks[].max_attempts",
       .type = OT::integer,
       .default_yaml = "5",
       .help = "requests for one batch before its events are given up and counted as failed "
               "(`kafka`: sends of one event)",
       .min = 1,
       .max = 1000,
       .set = [](T& t,
                 const V& v) { t.sink->sink.max_attempts = static_cast<unsigned>(v.integer); }},
      {.name = "sinks[].backoff_ms",
       .type = OT::integer,
       .default_yaml = "500",
       .help = "wait before the first retry; doubled after each failure up to `max_backoff_ms`, "
               "each wait drawn between half and all of it (jitter)",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.sink->sink.backoff = milliseconds(v.integer); }},
      {.name = "sinks[].max_backoff_ms",
       .type = OT::integer,
       .default_yaml = "30000",
       .help = "the longest wait between two retries; at least `backoff_ms`",
       .min = 1,
       .max = 3600000,
       .set = [](T& t, const V& v) { t.sink->sink.max_backoff = milliseconds(v.integer); }},
  };
}

// A row directly under `sinks[]` (not in a kind's section), besides the kind key.
bool is_flat_key(const SinkKind& kind, std::string_view name) {
  const std::string_view key = name.substr(std::string_view("sinks[].").size());
  return key != kind.name && key.find('.') == std::string_view::npos;
}

}  // namespace

std::vector<OptionInfo> sink_options() {
  std::string kinds;
  for (const SinkKind& kind : sink_kinds())
    kinds += cat(kinds.empty() ? "" : ", ", "`", kind.name, "`");
  static std::string help;  // the table holds string_views
  help = cat(
      "alert sinks besides `publish`, each with its own queue and retries (README: Alert sinks); "
      "each entry has exactly one of ",
      kinds);
  std::vector<OptionInfo> rows = {{.name = "sinks", .type = OT::list, .help = help}};
  // The reference's order: each kind's key and section, in the kinds' order; the rows every
  // sink has; then the keys of some kinds only, a row that kinds share once (the same row:
  // its setter fills each of their structs).
  for (const SinkKind& kind : sink_kinds())
    for (OptionInfo& option : kind.options())
      if (!is_flat_key(kind, option.name)) rows.push_back(std::move(option));
  for (OptionInfo& option : common_sink_options()) rows.push_back(std::move(option));
  for (const SinkKind& kind : sink_kinds())
    for (OptionInfo& option : kind.options()) {
      if (!is_flat_key(kind, option.name)) continue;
      const auto same = std::find_if(
          rows.begin(), rows.end(), [&](const OptionInfo& row) { return row.name == option.name; });
      if (same == rows.end()) {
        rows.push_back(std::move(option));
        continue;
      }
      WW_ASSERT(same->type == option.type && same->set == option.set,
                cat("sink row '", option.name, "' declared twice, differently"));
    }
  return rows;
}

}  // namespace warpwatch::config
