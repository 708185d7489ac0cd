// What daemon_routes.cpp, event_routes.cpp and library_routes.cpp share: the answers' shapes
// and each group's routes (added to the daemon's Router by daemon_routes).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "warpwatch/service/http_server.hpp"

namespace warpwatch::service {
class Pipeline;
}

namespace warpwatch::service::http {

inline Response text(int status, std::string body, std::string content_type) {
  Response r;
  r.status = status;
  r.content_type = std::move(content_type);
  r.body = std::move(body);
  return r;
}

// Strings from the caller (a path's id, a library change's who and names) that are not UTF-8
// come out with U+FFFD for their bad bytes, rather than failing the answer.
inline Response json(const nlohmann::json& body, int status = 200) {
  return text(status, body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
              "application/json");
}

// A request's body as a JSON object, or a Problem (400, field `body`).
inline nlohmann::json body_of(const Request& r) {
  try {
    nlohmann::json body = nlohmann::json::parse(r.body);
    if (!body.is_object()) throw Problem(400, "the body must be a JSON object", "body");
    return body;
  } catch (const nlohmann::json::parse_error& e) {
    throw Problem(400, std::string("the body is not JSON: ") + e.what(), "body");
  }
}

// GET /api/v1/events, /events/{id}, /events/{id}/plot.svg, /streams/{id}/samples
// (event_routes.cpp); `external_url` (http.external_url, "" = none) makes the events'
// explain_url.
void add_event_routes(Router& router, const Pipeline& pipeline, std::string external_url);

// GET /api/v1/libraries, GET|PUT|DELETE /api/v1/libraries/{lib}/patterns/{id},
// PUT .../threshold, GET /api/v1/changes (library_routes.cpp), on the Pipeline's
// LibraryEditor (503 while it has none).
void add_library_routes(Router& router, const Pipeline& pipeline);

// GET /, /app.js, ...: the console's embedded files, and /console.json (whether the page
// must ask for a token: `tokens_required`) (../console/console_routes.cpp).
void add_console_routes(Router& router, bool tokens_required);

// POST /api/v1/learn and /api/v1/backtest (job_routes.cpp): bounded, one of each at a time
// (api_routes.hpp's JobSlots).
void add_job_routes(Router& router, const Pipeline& pipeline);

}  // namespace warpwatch::service::http
