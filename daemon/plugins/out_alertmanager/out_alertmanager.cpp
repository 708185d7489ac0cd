#include "out_alertmanager/out_alertmanager.hpp"

#include <algorithm>

#include "warpwatch/alerting/sink_payload.hpp"

namespace warpwatch::plugins::out_alertmanager {
namespace {

using config::cat;
using config::ConfigError;
using config::in_quotes;
using T = config::OptionTargets;
using V = config::OptionValue;
using OT = config::OptionType;

std::vector<config::OptionInfo> options() {
  std::vector<config::OptionInfo> rows = {
      {.name = "sinks[].alertmanager",
       .type = OT::url,
       .help = "an Alertmanager's base URL: events become alerts POSTed to "
               "`<url>/api/v2/alerts`",
       .set = [](T& t, const V& v) { t.sink_options<AlertmanagerOptions>().url = http_url(v); }},
  };
  for (config::OptionInfo& row : http_options()) rows.push_back(std::move(row));
  return rows;
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<AlertmanagerOptions>();
}

void check(config::PluginOptions& options, const config::SinkCheck& check) {
  const auto& am = static_cast<const AlertmanagerOptions&>(options);
  if (am.url.has_query)
    throw ConfigError(check.at,
                      "an Alertmanager URL is a base (the sink adds /api/v2/alerts): no ?query");
  check_headers(check, "");
}

// [a-zA-Z_][a-zA-Z0-9_]*: Alertmanager refuses a request with any other label name.
bool is_prometheus_label_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
}

// Alertmanager takes the rule's labels as alert labels: their names must be label names.
void check_file(const config::PresentKeys& top, const config::ReadContext& ctx) {
  for (const YAML::Node& rule : config::list_entries(top, "rules")) {
    const YAML::Node labels = rule["labels"];  // invalid (not even null) when absent
    if (!labels.IsDefined() || !labels.IsMap()) continue;
    for (const auto& kv : labels)
      if (!is_prometheus_label_name(kv.first.Scalar()))
        throw ConfigError(config::where_is(ctx, kv.first),
                          cat("label name ", in_quotes(kv.first.Scalar()),
                              " is not a Prometheus label name ([a-zA-Z_][a-zA-Z0-9_]*), which an "
                              "'alertmanager' sink needs"));
  }
}

std::unique_ptr<alerting::AlertSink> make(const config::SinkConfig& entry, service::Logger log) {
  const auto& am = entry.options_as<AlertmanagerOptions>();
  alerting::HttpSinkOptions http = http_sink_options(am);
  std::string base = am.url.target;  // a route prefix, or "/"
  while (base.ends_with('/')) base.pop_back();
  http.target = base + "/api/v2/alerts";
  http.body = [url = entry.sink.external_url](std::span<const alerting::SharedEvent> events) {
    return alerting::alertmanager_body(events, url);
  };
  return std::make_unique<alerting::HttpSink>(entry.sink, std::move(http), std::move(log));
}

}  // namespace

const SinkPlugin plugin{
    .config = {.name = AlertmanagerOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check,
               .default_name = http_default_name_of<AlertmanagerOptions>,
               .check_file = check_file},
    .make = make,
    .describe = http_describe_of<AlertmanagerOptions>,
    .destination = http_destination_of<AlertmanagerOptions>,
};

}  // namespace warpwatch::plugins::out_alertmanager
