// Event -> JSON payload (SPEC.md 5). The keys are documented in README.md, "Events".
#include "warpwatch/alerting/event.hpp"

#include <nlohmann/json.hpp>

namespace warpwatch::alerting {

std::string to_json(const Event& event) {
  // ordered_json keeps the documented key order, which makes `warpwatch tail` and the
  // JSON-lines file readable by eye.
  nlohmann::ordered_json labels = nlohmann::ordered_json::object();
  for (const auto& [key, value] : event.labels) labels[key] = value;
  const nlohmann::ordered_json j = {
      {"rule", event.rule},           {"severity", event.severity},
      {"stream", event.stream},       {"library", event.library},
      {"pattern", event.pattern},     {"metric", event.metric},
      {"mode", event.mode},           {"distance", event.distance},
      {"threshold", event.threshold}, {"start_index", event.start_index},
      {"end_index", event.end_index}, {"start_ns", event.start_ns},
      {"end_ns", event.end_ns},       {"detected_ns", event.detected_ns},
      {"sequence", event.sequence},   {"instance", event.instance},
      {"labels", std::move(labels)},
  };
  // Invalid UTF-8 (a stream id is bytes off the wire) is replaced, never thrown: one odd
  // id must not stop publishing.
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace warpwatch::alerting
