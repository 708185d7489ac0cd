// The API's events and samples (docs/api.md): GET /api/v1/events, /events/{id} (with its
// explanation, computed on request from the stored segment), /events/{id}/plot.svg and
// /streams/{id}/samples, read from the Pipeline's EventStore and RecentHistory.
#include <limits>
#include <stdexcept>

#include "routes_internal.hpp"
#include "warpwatch/alerting/event.hpp"
#include "warpwatch/explain/explain.hpp"
#include "warpwatch/service/event_store.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/service/recent_history.hpp"

namespace warpwatch::service::http {
namespace {

constexpr std::int64_t events_default_limit = 100, events_max_limit = 1000;
constexpr std::int64_t samples_default_limit = 1000, samples_max_limit = 100000;
constexpr std::int64_t any_time_min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t any_time_max = std::numeric_limits<std::int64_t>::max();

std::optional<std::int64_t> since_of(const Request& r) {
  if (!r.query.contains("since")) return std::nullopt;
  return r.query_integer("since", 0, any_time_min, any_time_max);
}

std::shared_ptr<const StoredEvent> event_of(const Pipeline& p, const Request& r) {
  const std::string& id = r.params.at("id");
  auto event = p.event_store().find(id);
  if (!event) throw Problem(404, "no stored event '" + id + "'", "id");
  return event;
}

// The explanation of a stored event, in the arithmetic of the Matcher that found it; one
// whose segment no longer holds the match (a partial segment) has kind "none" saying why.
explain::Explanation explanation_of(const StoredEvent& e, const std::string& backend) {
  explain::Context context;
  context.backend = backend;
  context.distance = e.event.distance;
  context.times_ns = e.segment_times_ns;
  try {
    return explain::explain(*e.pattern, e.segment, e.first_index, e.event.start_index,
                            e.event.end_index, context);
  } catch (const std::invalid_argument& why) {
    explain::Explanation none;
    none.kind = "none";
    none.note = std::string("no explanation: ") + why.what();
    return none;
  }
}

}  // namespace

void add_event_routes(Router& router, const Pipeline& pipeline, std::string external_url) {
  const Pipeline* p = &pipeline;
  router.add("GET", "/api/v1/events", [p, url = std::move(external_url)](const Request& r) {
    EventFilter filter;
    filter.stream = r.query_text("stream");
    filter.pattern = r.query_text("pattern");
    filter.library = r.query_text("library");
    filter.since_ns = since_of(r);
    filter.limit = static_cast<std::size_t>(
        r.query_integer("limit", events_default_limit, 1, events_max_limit));
    nlohmann::json events = nlohmann::json::array();
    for (const auto& e : p->event_store().list(filter)) {
      nlohmann::json j = to_json(*e, false);
      if (!url.empty()) j["explain_url"] = alerting::explain_url(url, e->event);
      events.push_back(std::move(j));
    }
    return json({{"events", std::move(events)}});
  });
  router.add("GET", "/api/v1/events/{id}", [p](const Request& r) {
    const auto e = event_of(*p, r);
    nlohmann::json j = to_json(*e, true);
    j["explanation"] = explain::to_json(explanation_of(*e, p->backend_name()));
    return json(j);
  });
  router.add("GET", "/api/v1/events/{id}/plot.svg", [p](const Request& r) {
    const auto e = event_of(*p, r);
    std::string title = "event ";
    title += e->event.id;
    title += ": ";
    title += e->event.stream;
    title += " / ";
    title += e->event.pattern;
    return text(200,
                explain::plot_svg(explanation_of(*e, p->backend_name()), *e->pattern, e->segment,
                                  e->first_index, title, e->event.distance, e->event.threshold),
                "image/svg+xml");
  });
  router.add("GET", "/api/v1/streams/{id}/samples", [p](const Request& r) {
    const std::string& id = r.params.at("id");
    const auto limit = static_cast<std::size_t>(
        r.query_integer("limit", samples_default_limit, 1, samples_max_limit));
    const auto samples = p->history().samples(id, since_of(r), limit);
    if (!samples)
      throw Problem(404, "no samples of stream '" + id + "' (an unknown stream, or history off)",
                    "id");
    return json(to_json(*samples));
  });
}

}  // namespace warpwatch::service::http
