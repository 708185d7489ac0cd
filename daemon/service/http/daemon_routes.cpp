// warpwatchd's routes: monitoring (/metrics, /healthz, /readyz)
// and the API (docs/api.md). Add a route here and to openapi.json.
#include <nlohmann/json.hpp>

#include "routes_internal.hpp"
#include "warpwatch/service/api_routes.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace warpwatch::service::http {
namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

constexpr std::int64_t streams_default_limit = 100, streams_max_limit = 1000;

// 200 with `fine`, or 503 with the reason.
Response state(const std::optional<std::string>& why_not, const char* fine) {
  return text(why_not ? 503 : 200, (why_not ? *why_not : std::string(fine)) + "\n",
              "text/plain; charset=utf-8");
}

nlohmann::json to_json(const StreamStatus& s) {
  nlohmann::json out = {{"id", s.id},
                        {"dims", s.dims},
                        {"period_ns", s.period_ns},
                        {"rate_hz", s.period_ns > 0 ? 1e9 / static_cast<double>(s.period_ns) : 0.0},
                        {"last_ns", nullptr},
                        {"samples", s.samples},
                        {"backlog", s.backlog},
                        {"patterns", s.patterns},
                        {"declared", s.declared}};
  if (s.last_ns) out["last_ns"] = *s.last_ns;
  return out;
}

}  // namespace

Router daemon_routes(const Pipeline& pipeline) {
  const Pipeline* p = &pipeline;
  Router router;
  router.add(
      "GET", "/metrics",
      [p](const Request&) {
        return text(200, render_metrics(p->metrics_snapshot()), metrics_content_type);
      },
      Access::open);
  router.add(
      "GET", "/healthz", [p](const Request&) { return state(p->unhealthy(), "ok"); }, Access::open);
  router.add(
      "GET", "/readyz", [p](const Request&) { return state(p->unready(), "ready"); }, Access::open);
  router.add("GET", "/api/v1/openapi.json", [](const Request&) {
    return text(200, std::string(openapi_document()), "application/json");
  });
  router.add("GET", "/api/v1/streams", [p](const Request& r) {
    const auto offset = static_cast<std::size_t>(
        r.query_integer("offset", 0, 0, std::numeric_limits<std::int32_t>::max()));
    const auto limit = static_cast<std::size_t>(
        r.query_integer("limit", streams_default_limit, 1, streams_max_limit));
    const StreamPage page = p->streams_page(offset, limit, r.query_text("q"));
    nlohmann::json streams = nlohmann::json::array();
    for (const StreamStatus& s : page.streams) streams.push_back(to_json(s));
    const std::size_t next = offset + page.streams.size();
    return json({{"streams", std::move(streams)},
                 {"total", page.total},
                 {"next_offset", next < page.total ? nlohmann::json(next) : nlohmann::json()}});
  });
  add_event_routes(router, pipeline, pipeline.config().http.external_url);
  add_library_routes(router, pipeline);
  add_job_routes(router, pipeline);
  return router;
}

}  // namespace warpwatch::service::http
