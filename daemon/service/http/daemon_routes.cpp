// warpwatchd's routes: monitoring (/metrics, /healthz, /readyz)
// and the API (docs/api.md). Add a route here and to openapi.json.
#include <nlohmann/json.hpp>

#include <chrono>
#include <vector>

#include "routes_internal.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/service/api_routes.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/service/recent_history.hpp"

namespace warpwatch::service::http {
namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

constexpr std::int64_t streams_default_limit = 100, streams_max_limit = 1000;
constexpr std::int64_t streams_max_recent = 1000;

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

// GET /api/v1/status: the daemon's counters for the console's overview (the page computes
// rates from two answers); `cuda` asked once, when the routes are made.
nlohmann::json status_of(const Pipeline& p, const kernels::CudaStatus& cuda,
                         std::chrono::steady_clock::time_point started) {
  const MetricsSnapshot m = p.metrics_snapshot();
  nlohmann::json sinks = nlohmann::json::array();
  for (const alerting::SinkCounters& s : m.sinks)
    sinks.push_back({{"name", s.name},
                     {"queued", s.queued},
                     {"sent", s.sent},
                     {"dropped", s.dropped},
                     {"failed", s.failed + s.rejected}});
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const std::chrono::duration<double> up = std::chrono::steady_clock::now() - started;
  return {{"version", m.version},
          {"instance", m.instance},
          {"backend", m.backend},
          {"cuda",
           {{"compiled", cuda.compiled}, {"devices", cuda.device_count}, {"detail", cuda.detail}}},
          {"time_ns", std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()},
          {"uptime_seconds", up.count()},
          {"streams", m.pipeline.streams},
          {"patterns", m.pipeline.patterns},
          {"samples_in", m.ingest.accepted_samples},
          {"samples_rejected", m.ingest.rejected.total()},
          {"samples_matched", m.pipeline.samples},
          {"backlog_samples", m.backlog.samples},
          {"rounds", m.pipeline.batches},
          {"matches", m.pipeline.matches},
          {"events", m.pipeline.events},
          {"events_published", m.publisher.published},
          {"sinks", std::move(sinks)}};
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
    const auto recent =
        static_cast<std::size_t>(r.query_integer("recent", 0, 0, streams_max_recent));
    const StreamPage page = p->streams_page(offset, limit, r.query_text("q"));
    nlohmann::json streams = nlohmann::json::array();
    for (const StreamStatus& s : page.streams) {
      nlohmann::json j = to_json(s);
      if (recent > 0) {  // the newest samples' first components: a sparkline each
        std::vector<float> firsts;
        if (const auto h = p->history().newest(s.id, recent))
          for (std::size_t i = 0; i < h->count(); ++i) firsts.push_back(h->values[i * h->dims]);
        j["recent"] = std::move(firsts);
      }
      streams.push_back(std::move(j));
    }
    const std::size_t next = offset + page.streams.size();
    return json({{"streams", std::move(streams)},
                 {"total", page.total},
                 {"next_offset", next < page.total ? nlohmann::json(next) : nlohmann::json()}});
  });
  router.add("GET", "/api/v1/status",
             [p, cuda = kernels::cuda_status(), started = std::chrono::steady_clock::now()](
                 const Request&) { return json(status_of(*p, cuda, started)); });
  add_event_routes(router, pipeline, pipeline.config().http.external_url);
  add_library_routes(router, pipeline);
  add_console_routes(router, !pipeline.config().http.tokens_file.empty());
  add_job_routes(router, pipeline);
  return router;
}

}  // namespace warpwatch::service::http
