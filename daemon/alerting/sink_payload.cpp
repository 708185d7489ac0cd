// The sinks' request bodies and the webhook's signature.
#include "warpwatch/alerting/sink_payload.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <ctime>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "warpwatch/base/sha256.hpp"

namespace warpwatch::alerting {
namespace {

std::string number_text(double value) {
  return nlohmann::json(value).dump();  // the digits the event's JSON has
}

nlohmann::json alert(const Event& e, std::string_view external_url) {
  using nlohmann::json;
  json labels = json::object();
  labels["stream"] = e.stream;
  labels["pattern"] = e.pattern;
  labels["severity"] = e.severity;
  for (const auto& [key, value] : e.labels) labels[key] = value;  // as Prometheus' rules do
  labels["alertname"] = e.rule;
  const std::int64_t resolve_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(e.resolve).count();
  nlohmann::json out = {
      {"labels", std::move(labels)},
      {"annotations",
       {{"summary", "pattern '" + e.pattern + "' matched stream '" + e.stream + "' at distance " +
                        number_text(e.distance) + " (threshold " + number_text(e.threshold) + ")"},
        {"distance", number_text(e.distance)},
        {"threshold", number_text(e.threshold)},
        {"library", e.library},
        {"metric", e.metric},
        {"mode", e.mode},
        {"start_index", std::to_string(e.start_index)},
        {"end_index", std::to_string(e.end_index)},
        {"match_start", rfc3339(e.start_ns)},
        {"match_end", rfc3339(e.end_ns)},
        {"detected", rfc3339(e.detected_ns)},
        {"instance", e.instance},
        {"sequence", std::to_string(e.sequence)},
        {"id", e.id}}},
      {"startsAt", rfc3339(e.detected_ns)},
      {"endsAt", rfc3339(e.detected_ns + resolve_ns)}};
  if (!external_url.empty()) out["generatorURL"] = explain_url(external_url, e);
  return out;
}

}  // namespace

std::string rfc3339(std::int64_t ns_since_epoch) {
  constexpr std::int64_t ns_per_ms = 1'000'000, ms_per_s = 1000;
  // Floor division: a time before 1970 still counts its milliseconds forward.
  std::int64_t ms = ns_since_epoch / ns_per_ms;
  if (ns_since_epoch % ns_per_ms < 0) --ms;
  std::int64_t seconds = ms / ms_per_s, millis = ms % ms_per_s;
  if (millis < 0) {
    millis += ms_per_s;
    --seconds;
  }
  const std::time_t t = static_cast<std::time_t>(seconds);
  std::tm utc{};
  ::gmtime_r(&t, &utc);
  char text[40];
  const std::size_t n = std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%S", &utc);
  return std::string(text, n) + "." + std::to_string(1000 + millis).substr(1) + "Z";
}

std::string alertmanager_body(std::span<const SharedEvent> events, std::string_view external_url) {
  nlohmann::json alerts = nlohmann::json::array();
  for (const SharedEvent& e : events) alerts.push_back(alert(*e, external_url));
  // Invalid UTF-8 is replaced, never thrown, as in the event's own JSON.
  return alerts.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string webhook_body(std::span<const SharedEvent> events, std::string_view external_url) {
  std::string body = "{\"events\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i > 0) body += ',';
    body += to_json(*events[i], external_url);
  }
  body += "]}";
  return body;
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (!HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
            reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest, &size))
    throw std::runtime_error("HMAC-SHA256 failed (OpenSSL)");
  return stream::to_hex(std::span<const std::uint8_t>(digest, size));
}

}  // namespace warpwatch::alerting
