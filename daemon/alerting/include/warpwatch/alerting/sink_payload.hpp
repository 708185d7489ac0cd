// What the alert sinks send (docs/sinks.md §5): Alertmanager's postable alerts,
// the webhook's JSON, and the webhook's HMAC-SHA256 signature.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "warpwatch/alerting/event.hpp"

namespace warpwatch::alerting {

// Sinks share an event, read-only, between their queues.
using SharedEvent = std::shared_ptr<const Event>;

// RFC 3339 in UTC with milliseconds, as Alertmanager writes its times:
// "2024-05-01T12:00:00.123Z" (the nanoseconds below the millisecond are cut, towards the past).
std::string rfc3339(std::int64_t ns_since_epoch);

// The body of POST /api/v2/alerts: a JSON array, one alert per event. Labels: alertname
// (the rule), stream, pattern, severity, then the rule's labels over them (alertname
// stays the rule's name). Annotations: summary, distance, threshold, library, metric, mode,
// start_index, end_index, match_start, match_end (the match's timestamps), detected,
// instance, sequence, id (Event::id). startsAt: the detection time; endsAt: that plus the rule's
// resolve. generatorURL: explain_url(external_url, event), with an external_url only.
std::string alertmanager_body(std::span<const SharedEvent> events,
                              std::string_view external_url = {});

// The webhook's body: {"events": [...]}, each event the JSON object `publish` sends, with its
// explain_url when external_url is not "".
std::string webhook_body(std::span<const SharedEvent> events, std::string_view external_url = {});

// HMAC-SHA256 of `data` under `key` (OpenSSL), as lower-case hex.
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

}  // namespace warpwatch::alerting
