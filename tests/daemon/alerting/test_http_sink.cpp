// Alert sinks (daemon/alerting/sink*.cpp, http_post.cpp): the payloads and the signature, and
// a webhook sink against a real HTTP server on loopback (tests/support/http/http_receiver.hpp):
// what it sends, its retries and their backoff, giving up, the full queue, and stopping.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "alerting_support.hpp"
#include "http/http_receiver.hpp"
#include "log_capture.hpp"
#include "warpwatch/alerting/http_sink.hpp"
#include "warpwatch/alerting/sink_payload.hpp"
#include "warpwatch/bench/loopback.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using namespace std::chrono_literals;
using alerting::Clock;
using alerting::HttpSink;
using alerting::SharedEvent;
using nlohmann::json;

// Events `first`, `first` + 1, ... of rule `rule`, numbered as published, resolving after
// 5 minutes.
std::vector<SharedEvent> events(std::uint64_t first, std::size_t n,
                                const std::string& rule = "hot") {
  std::vector<SharedEvent> out;
  for (std::size_t i = 0; i < n; ++i) {
    alerting::Event e = sample_event(rule, "pump.3");
    e.sequence = first + i;
    e.resolve = 300000ms;
    out.push_back(std::make_shared<const alerting::Event>(std::move(e)));
  }
  return out;
}

// A webhook's settings as its plugin (daemon/plugins/out_webhook/) gives them to the sink.
struct Webhook {
  config::SinkOptions sink;
  alerting::HttpSinkOptions http;
};

Webhook webhook(const std::string& url) {
  Webhook c;
  std::string why;
  c.http.url = config::parse_http_url(url, &why).value();
  c.http.target = c.http.url.target;
  c.http.body = [](std::span<const alerting::SharedEvent> e) { return alerting::webhook_body(e); };
  c.http.signature_header = "X-Warpwatch-Signature";
  c.sink.name = "webhook test";
  c.sink.timeout = 2000ms;
  c.sink.backoff = 10ms;
  c.sink.max_backoff = 20ms;
  return c;
}

// The sequence numbers of the events in webhook bodies, in the order received.
std::vector<std::uint64_t> sequences(const std::vector<ReceivedRequest>& requests) {
  std::vector<std::uint64_t> out;
  for (const auto& r : requests) {
    const json body = json::parse(r.body);
    for (const auto& e : body.at("events")) out.push_back(e.at("sequence"));
  }
  return out;
}

// ---- payloads

TEST(SinkPayload, Rfc3339InUtcWithMilliseconds) {
  EXPECT_EQ(alerting::rfc3339(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(alerting::rfc3339(1'700'000'001'263'999'999), "2023-11-14T22:13:21.263Z");
  EXPECT_EQ(alerting::rfc3339(-1), "1969-12-31T23:59:59.999Z");  // cut towards the past
  EXPECT_EQ(alerting::rfc3339(951'782'400'000'000'000), "2000-02-29T00:00:00.000Z");
}

TEST(SinkPayload, HmacSha256KnownAnswers) {
  // RFC 4231, test cases 2 and 1.
  EXPECT_EQ(alerting::hmac_sha256_hex("Jefe", "what do ya want for nothing?"),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  EXPECT_EQ(alerting::hmac_sha256_hex(std::string(20, '\x0b'), "Hi There"),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
}

TEST(SinkPayload, AlertmanagerAlertHasLabelsAnnotationsAndTimes) {
  alerting::Event e = sample_event("hot", "pump.3");
  e.sequence = 17;
  e.labels = {{"team", "ops"}, {"severity", "page"}, {"alertname", "not-this"}};
  e.resolve = 90000ms;
  const std::vector<SharedEvent> batch = {std::make_shared<const alerting::Event>(e)};
  const json alerts = json::parse(alerting::alertmanager_body(batch));
  ASSERT_EQ(alerts.size(), 1u);
  const json& a = alerts[0];
  // The rule's labels over the event's (severity), alertname always the rule's.
  EXPECT_EQ(a.at("labels"), (json{{"alertname", "hot"},
                                  {"stream", "pump.3"},
                                  {"pattern", "spike"},
                                  {"severity", "page"},
                                  {"team", "ops"}}));
  const json& n = a.at("annotations");
  EXPECT_EQ(n.at("distance"), "0.25");
  EXPECT_EQ(n.at("threshold"), "1.5");
  EXPECT_EQ(n.at("library"), "shapes");
  EXPECT_EQ(n.at("metric"), "dtw");
  EXPECT_EQ(n.at("mode"), "stream");
  EXPECT_EQ(n.at("start_index"), "5");
  EXPECT_EQ(n.at("end_index"), "9");
  EXPECT_EQ(n.at("match_start"), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(n.at("match_end"), "2023-11-14T22:13:20.000Z");
  EXPECT_EQ(n.at("detected"), "2023-11-14T22:13:21.000Z");
  EXPECT_EQ(n.at("instance"), "node-1");
  EXPECT_EQ(n.at("sequence"), "17");
  EXPECT_EQ(n.at("id"), "534b606bb6f8a00a96ffd8a0f0e99693");  // event_id, as EventId checks it
  EXPECT_EQ(n.at("summary"),
            "pattern 'spike' matched stream 'pump.3' at distance 0.25 (threshold 1.5)");
  EXPECT_EQ(a.at("startsAt"), "2023-11-14T22:13:21.000Z");
  EXPECT_EQ(a.at("endsAt"), "2023-11-14T22:14:51.000Z");  // + 90 s
}

TEST(SinkPayload, WebhookBodyHoldsTheEventsAsPublished) {
  const auto batch = events(5, 2);
  const json body = json::parse(alerting::webhook_body(batch));
  ASSERT_EQ(body.at("events").size(), 2u);
  EXPECT_EQ(body.at("events")[0], json::parse(alerting::to_json(*batch[0])));
  EXPECT_EQ(body.at("events")[1].at("sequence"), 6);
}

// ---- a webhook against a real server

TEST(WebhookSink, PostsSignedJsonWithItsHeaders) {
  HttpReceiver receiver;
  auto c = webhook(receiver.url("/hooks/warpwatch?token=abc"));
  c.http.headers = {{"Authorization", "Bearer t0k"}};
  c.http.hmac_secret = "s3cret";
  c.http.signature_header = "X-Warpwatch-Signature";
  HttpSink sink(c.sink, c.http, nullptr);
  sink.offer(events(1, 3));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 3; }));
  const auto got = receiver.requests();
  ASSERT_GE(got.size(), 1u);
  std::size_t events_seen = 0;
  for (const ReceivedRequest& r : got) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.target, "/hooks/warpwatch?token=abc");
    EXPECT_EQ(r.headers.at("content-type"), "application/json");
    EXPECT_EQ(r.headers.at("authorization"), "Bearer t0k");
    EXPECT_EQ(r.headers.at("host"), "127.0.0.1:" + std::to_string(receiver.port()));
    EXPECT_EQ(r.headers.at("user-agent").rfind("warpwatch/", 0), 0u);
    EXPECT_EQ(r.headers.at("x-warpwatch-signature"),
              "sha256=" + alerting::hmac_sha256_hex("s3cret", r.body));
    events_seen += json::parse(r.body).at("events").size();
  }
  EXPECT_EQ(events_seen, 3u);
  EXPECT_EQ(sequences(got), (std::vector<std::uint64_t>{1, 2, 3}));
  const auto k = sink.counters();
  EXPECT_EQ(k.retried, 0u);
  EXPECT_EQ(k.dropped + k.failed + k.rejected + k.unsent_at_stop, 0u);
}

TEST(WebhookSink, TakesTheEventsOfItsRulesOnly) {
  HttpReceiver receiver;
  auto c = webhook(receiver.url());
  c.sink.rules = {"hot*"};
  HttpSink sink(c.sink, c.http, nullptr);
  sink.offer(events(1, 2, "cold"));
  sink.offer(events(3, 2, "hotter"));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 2; }));
  sink.stop(Clock::now() + 2s);
  EXPECT_EQ(sequences(receiver.requests()), (std::vector<std::uint64_t>{3, 4}));
}

TEST(WebhookSink, RetriesServerErrorsWithGrowingJitteredBackoff) {
  HttpReceiver receiver([](const ReceivedRequest&, std::size_t i) { return i < 3 ? 503 : 200; });
  auto c = webhook(receiver.url());
  c.sink.backoff = 100ms;
  c.sink.max_backoff = 1000ms;
  c.http.max_batch = 10;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 4));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.sent == 4; }));
  const auto got = receiver.requests();
  ASSERT_EQ(got.size(), 4u);
  for (const auto& r : got) EXPECT_EQ(r.body, got[0].body);  // the same batch each time
  // Waits of 100, 200, 400 ms, each drawn between half and all of it.
  const std::chrono::milliseconds at_least[] = {50ms, 100ms, 200ms};
  for (std::size_t i = 1; i < got.size(); ++i) {
    const auto gap =
        std::chrono::duration_cast<std::chrono::milliseconds>(got[i].at - got[i - 1].at);
    EXPECT_GE(gap, at_least[i - 1]) << "retry " << i;
    EXPECT_LT(gap, at_least[i - 1] * 2 + 2000ms) << "retry " << i;  // generous: a busy CI
  }
  const auto k = sink.counters();
  EXPECT_EQ(k.retried, 3u);
  EXPECT_EQ(k.failed + k.rejected, 0u);
  EXPECT_EQ(log.count("request failed (HTTP 503: receiver says 503"), 1u) << log.joined();
  EXPECT_EQ(log.count("delivering again"), 1u) << log.joined();
}

TEST(WebhookSink, GivesUpAfterMaxAttempts) {
  HttpReceiver receiver([](const ReceivedRequest&, std::size_t) { return 500; });
  auto c = webhook(receiver.url());
  c.sink.max_attempts = 3;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 2));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.failed == 2; }));
  EXPECT_EQ(receiver.requests().size(), 3u);
  const auto k = sink.counters();
  EXPECT_EQ(k.retried, 2u);
  EXPECT_EQ(k.sent, 0u);
  EXPECT_EQ(k.queued, 0u);
  EXPECT_EQ(log.count("gave up 2 event(s); the last: 3 attempt(s) failed, the last: HTTP 500"), 1u)
      << log.joined();
}

TEST(WebhookSink, ARefusedRequestIsNotRetried) {
  HttpReceiver receiver([](const ReceivedRequest&, std::size_t) { return 400; });
  CapturedLog log;
  const auto c = webhook(receiver.url());
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 2));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.rejected == 2; }));
  EXPECT_EQ(receiver.requests().size(), 1u);
  EXPECT_EQ(sink.counters().retried, 0u);
  EXPECT_EQ(sink.counters().failed, 0u);
  EXPECT_EQ(log.count("gave up 2 event(s); the last: the receiver refused them: HTTP 400: "
                      "receiver says 400"),
            1u)
      << log.joined();
}

TEST(WebhookSink, AStalledReceiverTimesOut) {
  HttpReceiver receiver(HttpReceiver::hold);
  auto c = webhook(receiver.url());
  c.sink.timeout = 200ms;
  c.sink.max_attempts = 2;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 1));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.failed == 1; }));
  EXPECT_EQ(receiver.requests().size(), 2u);
  EXPECT_EQ(sink.counters().retried, 1u);
  EXPECT_EQ(log.count("request failed (timed out after "), 1u) << log.joined();
}

TEST(WebhookSink, NoReceiverIsAConnectionErrorRetried) {
  const int nobody = bench::free_loopback_port();  // reserved, never listening
  auto c = webhook("http://127.0.0.1:" + std::to_string(nobody) + "/");
  c.sink.max_attempts = 2;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 1));
  ASSERT_TRUE(wait_counters(sink, [](const auto& k) { return k.failed == 1; }));
  EXPECT_EQ(sink.counters().retried, 1u);
  EXPECT_EQ(log.count("request failed (connect: Connection refused)"), 1u) << log.joined();
}

// The receiver holds the first request; meanwhile offers fill the queue (4 events), which
// keeps the newest; offering never waits for the receiver.
TEST(WebhookSink, AFullQueueDropsTheOldestAndOffersNeverWait) {
  HttpReceiver receiver(HttpReceiver::hold);
  auto c = webhook(receiver.url());
  c.sink.queue = 4;
  c.http.max_batch = 10;
  c.sink.timeout = 60000ms;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 1));
  ASSERT_EQ(receiver.wait_for(1, 10000ms).size(), 1u);  // event 1 is under way, held
  const auto began = Clock::now();
  for (std::uint64_t s = 2; s <= 101; ++s) sink.offer(events(s, 1));
  const auto offering = Clock::now() - began;
  EXPECT_LT(offering, 1000ms);  // 100 offers; the receiver answers nothing meanwhile
  auto k = sink.counters();
  EXPECT_EQ(k.dropped, 96u);
  EXPECT_EQ(k.queued, 5u);  // 4 queued, 1 under way
  EXPECT_EQ(k.sent, 0u);
  EXPECT_EQ(log.count("queue full (4 events): dropped the oldest 1 event(s)"), 1u)
      << log.joined();  // the first drop; the next 95 fall in the same 10 s
  receiver.release(200, HttpReceiver::answer_ok);
  ASSERT_TRUE(wait_counters(sink, [](const auto& s) { return s.sent == 5; }));
  EXPECT_EQ(sequences(receiver.requests()), (std::vector<std::uint64_t>{1, 98, 99, 100, 101}));
  EXPECT_EQ(sink.counters().queued, 0u);
}

TEST(WebhookSink, StopDeliversWhatIsQueuedWithinTheDeadline) {
  HttpReceiver receiver;
  auto c = webhook(receiver.url());
  c.http.max_batch = 7;
  HttpSink sink(c.sink, c.http, nullptr);
  sink.offer(events(1, 50));
  sink.stop(Clock::now() + 10s);
  const auto k = sink.counters();
  EXPECT_EQ(k.sent, 50u);
  EXPECT_EQ(k.unsent_at_stop, 0u);
  EXPECT_EQ(receiver.requests().size(), 8u);  // ceil(50 / 7)
  sink.offer(events(51, 2));                  // after the stop: counted, not queued
  EXPECT_EQ(sink.counters().unsent_at_stop, 2u);
}

TEST(WebhookSink, StopGivesUpWhatIsLeftAtTheDeadline) {
  HttpReceiver receiver(HttpReceiver::hold);
  auto c = webhook(receiver.url());
  c.sink.timeout = 60000ms;
  c.http.max_batch = 2;
  CapturedLog log;
  HttpSink sink(c.sink, c.http, log.logger());
  sink.offer(events(1, 5));
  ASSERT_EQ(receiver.wait_for(1, 10000ms).size(), 1u);
  const auto began = Clock::now();
  sink.stop(Clock::now() + 200ms);  // cuts the held request short
  const auto stopping = Clock::now() - began;
  EXPECT_GE(stopping, 150ms);
  EXPECT_LT(stopping, 3000ms);
  const auto k = sink.counters();
  EXPECT_EQ(k.unsent_at_stop, 5u);
  EXPECT_EQ(k.sent + k.failed, 0u);
  EXPECT_EQ(k.queued, 0u);
  EXPECT_EQ(log.count("5 event(s) not delivered when the sink stopped"), 1u) << log.joined();
}

}  // namespace
