// Event -> JSON payload (docs/spec.md §5). The keys are documented in docs/sinks.md §1.
#include "warpwatch/alerting/event.hpp"

#include <nlohmann/json.hpp>

#include "warpwatch/base/little_endian.hpp"
#include "warpwatch/base/sha256.hpp"

namespace warpwatch::alerting {

std::string event_id(std::string_view stream, std::string_view pattern, std::uint64_t start_index,
                     std::uint64_t end_index) {
  std::string input;
  input.reserve(32 + stream.size() + pattern.size());
  stream::store_le(input, stream.size(), 8);
  input.append(stream);
  stream::store_le(input, pattern.size(), 8);
  input.append(pattern);
  stream::store_le(input, start_index, 8);
  stream::store_le(input, end_index, 8);
  return stream::sha256_hex(input, 16);
}

std::string explain_url(std::string_view external_url, const Event& event) {
  if (external_url.empty()) return {};
  std::string url(external_url);
  url += "/#/events/";
  url += event.id;
  return url;
}

std::string to_json(const Event& event, std::string_view external_url) {
  // ordered_json keeps the documented key order, which makes `warpwatch tail` and the
  // JSON-lines file readable by eye. The members go straight into the object's vector:
  // an initializer list copies every value once more and a keyed insert searches the keys
  // so far, and this ran at 5-6 us an event, 60% of the daemon's publishing (perf, 10,000
  // streams on the H100's host: 8-25 ms of every round); so it is 1.6 us.
  using Json = nlohmann::ordered_json;
  Json j(Json::value_t::object);
  auto& members = j.get_ref<Json::object_t&>();
  members.reserve(18);
  // (The key as a std::string: a label's key may hold a NUL.)
  const auto add = [](Json::object_t& to, std::string key, auto&& value) {
    to.emplace_back(std::move(key), Json(std::forward<decltype(value)>(value)));
  };
  add(members, "rule", event.rule);
  add(members, "severity", event.severity);
  add(members, "stream", event.stream);
  add(members, "library", event.library);
  add(members, "pattern", event.pattern);
  add(members, "metric", event.metric);
  add(members, "mode", event.mode);
  add(members, "distance", event.distance);
  add(members, "threshold", event.threshold);
  add(members, "start_index", event.start_index);
  add(members, "end_index", event.end_index);
  add(members, "start_ns", event.start_ns);
  add(members, "end_ns", event.end_ns);
  add(members, "detected_ns", event.detected_ns);
  add(members, "sequence", event.sequence);
  add(members, "id", event.id);
  add(members, "instance", event.instance);
  Json labels(Json::value_t::object);
  auto& label_members = labels.get_ref<Json::object_t&>();
  label_members.reserve(event.labels.size());
  for (const auto& [key, value] : event.labels) add(label_members, key, value);
  members.emplace_back("labels", std::move(labels));
  if (!external_url.empty()) add(members, "explain_url", explain_url(external_url, event));
  // Invalid UTF-8 (a stream id is bytes off the wire) is replaced, never thrown: one odd
  // id must not stop publishing.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace warpwatch::alerting
