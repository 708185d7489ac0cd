// Links to an event's page in the daemon's console (http.external_url): Alertmanager's
// generatorURL, the webhook's and Kafka's explain_url (daemon/alerting/event.cpp,
// sink_payload.cpp); none without an external_url.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "alerting_support.hpp"
#include "warpwatch/alerting/event.hpp"
#include "warpwatch/alerting/sink_payload.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(EventLinks, PresentWithAnExternalUrlAndAbsentWithout) {
  const auto event = std::make_shared<const alerting::Event>(sample_event("hot", "pump-1"));
  const std::vector<alerting::SharedEvent> events{event};
  const std::string url = "https://ww.example/#/events/" + event->id;
  ASSERT_EQ(event->id.size(), 32u);

  const auto alerts =
      nlohmann::json::parse(alerting::alertmanager_body(events, "https://ww.example"));
  EXPECT_EQ(alerts.at(0).at("generatorURL"), url);
  const auto hook = nlohmann::json::parse(alerting::webhook_body(events, "https://ww.example"));
  EXPECT_EQ(hook.at("events").at(0).at("explain_url"), url);
  EXPECT_EQ(hook.at("events").at(0).at("id"), event->id);
  // Kafka's value is to_json with the sink's external_url.
  EXPECT_EQ(
      nlohmann::json::parse(alerting::to_json(*event, "https://ww.example")).at("explain_url"),
      url);

  EXPECT_FALSE(
      nlohmann::json::parse(alerting::alertmanager_body(events)).at(0).contains("generatorURL"));
  EXPECT_FALSE(nlohmann::json::parse(alerting::webhook_body(events))
                   .at("events")
                   .at(0)
                   .contains("explain_url"));
  EXPECT_FALSE(nlohmann::json::parse(alerting::to_json(*event)).contains("explain_url"));
  EXPECT_EQ(alerting::explain_url("", *event), "");
}

}  // namespace
