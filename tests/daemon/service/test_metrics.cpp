// /metrics, /healthz and /readyz (daemon/service/metrics*.cpp): the text format of a known
// snapshot, and an in-process Pipeline fed known good and bad frames over ZeroMQ, scraped over
// HTTP.
#include <gtest/gtest.h>

#include <prometheus/histogram.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "in_sub/in_sub.hpp"
#include "log_capture.hpp"
#include "warpwatch/service/metrics.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

TEST(Metrics, RendersKnownCountersInPrometheusTextFormat) {
  service::MetricsSnapshot s;
  s.instance = "plant-1";
  s.backend = "cpu";
  s.version = "0.1.0";
  s.ingest.messages = 7;
  s.ingest.accepted_samples = 70;
  s.ingest.rejected.add(stream::RejectReason::wrong_dims, 2);
  stream::StreamCounters a;
  a.stream = stream::make_stream({"pump-1", 1, 1'000'000'000});
  a.declared = true;
  a.accepted_samples = 70;
  a.rejected.add(stream::RejectReason::wrong_dims, 2);
  s.ingest.streams.push_back(a);
  s.pipeline.batches = 3;
  s.pipeline.last_batch_seconds = 0.25;
  s.pipeline.rules = {{"hot", {5, 1, 2}}};
  s.publisher.by_rule["hot"] = {4, 1};
  s.backlog.samples = 300;
  s.backlog.bytes = 3600;
  s.backlog.oldest_age_seconds = 1.5;
  s.backlog.limits = {1 << 20, 1 << 28, 1 << 24};
  stream::SourceBacklog sub;
  sub.name = "sub tcp://127.0.0.1:7000";
  sub.overflow = stream::Overflow::drop;
  sub.samples = 300;
  sub.oldest_age_seconds = 1.5;
  sub.dropped_samples = 40;
  s.backlog.sources.push_back(sub);
  s.memory = {123456789, 1 << 30};
  const auto m = parse_prometheus_text(service::render_metrics(s));
  EXPECT_EQ(m.at("warpwatch_ingest_backlog_samples"), 300);
  EXPECT_EQ(m.at("warpwatch_ingest_backlog_bytes"), 3600);
  EXPECT_EQ(m.at("warpwatch_ingest_backlog_oldest_age_seconds"), 1.5);
  EXPECT_EQ(m.at(R"(warpwatch_ingest_queue_limit_bytes{scope="total"})"), 1 << 28);
  EXPECT_EQ(m.at(R"(warpwatch_source_backlog_samples{source="sub tcp://127.0.0.1:7000"})"), 300);
  EXPECT_EQ(m.at(R"(warpwatch_source_dropped_samples_total{source="sub tcp://127.0.0.1:7000"})"),
            40);
  EXPECT_EQ(m.at(R"(warpwatch_source_waiting{source="sub tcp://127.0.0.1:7000"})"), 0);
  EXPECT_EQ(m.at("warpwatch_resident_memory_bytes"), 123456789);
  EXPECT_EQ(m.at("warpwatch_memory_budget_bytes"), 1 << 30);
  EXPECT_EQ(m.at(R"(warpwatch_info{instance="plant-1",backend="cpu",version="0.1.0"})"), 1);
  EXPECT_EQ(m.at("warpwatch_ingest_messages_total"), 7);
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="wrong_dims"})"), 2);
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="malformed_frame"})"), 0)
      << "every reason is listed";
  EXPECT_EQ(m.at(R"(warpwatch_stream_accepted_samples_total{stream="pump-1"})"), 70);
  EXPECT_EQ(m.at(R"(warpwatch_stream_rejected_total{stream="pump-1",reason="wrong_dims"})"), 2);
  EXPECT_EQ(m.count(R"(warpwatch_stream_rejected_total{stream="pump-1",reason="malformed_frame"})"),
            0u)
      << "per stream, only the reasons that occurred";
  EXPECT_EQ(m.at(R"(warpwatch_streams{origin="declared"})"), 1);
  EXPECT_EQ(m.at("warpwatch_batches_total"), 3);
  EXPECT_EQ(m.at("warpwatch_last_batch_duration_seconds"), 0.25);
  EXPECT_EQ(m.at(R"(warpwatch_rule_events_total{rule="hot"})"), 5);
  EXPECT_EQ(m.at(R"(warpwatch_rule_cooldown_dropped_total{rule="hot"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_rule_threshold_filtered_total{rule="hot"})"), 2);
  EXPECT_EQ(m.at(R"(warpwatch_events_published_total{rule="hot"})"), 4);
  EXPECT_EQ(m.at(R"(warpwatch_events_dropped_total{rule="hot"})"), 1);
  const std::string text = service::render_metrics(s);
  EXPECT_NE(text.find("# TYPE warpwatch_ingest_rejected_total counter"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE warpwatch_round_duration_seconds histogram"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE warpwatch_detection_latency_seconds histogram"), std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE warpwatch_last_batch_duration_seconds gauge"), std::string::npos)
      << text;
}

TEST(Metrics, RendersHistogramsAndPatternCounters) {
  service::MetricsSnapshot s;
  s.pipeline.pattern_matches = {{"spike", {"shapes", 3}}, {"dip", {"other", 0}}};
  s.pipeline.untimed_events = 2;
  prometheus::Histogram rounds(service::seconds_buckets()), latency(service::seconds_buckets());
  rounds.Observe(0.003);
  rounds.Observe(0.2);
  latency.Observe(12.0);  // over the last bucket: +Inf only
  s.round_duration = rounds.Collect();
  s.detection_latency = latency.Collect();
  const auto m = parse_prometheus_text(service::render_metrics(s));
  EXPECT_EQ(m.at(R"(warpwatch_pattern_matches_total{library="shapes",pattern="spike"})"), 3);
  EXPECT_EQ(m.at(R"(warpwatch_pattern_matches_total{library="other",pattern="dip"})"), 0);
  EXPECT_EQ(m.at("warpwatch_detection_latency_untimed_total"), 2);
  EXPECT_EQ(m.at("warpwatch_round_duration_seconds_count"), 2);
  EXPECT_DOUBLE_EQ(m.at("warpwatch_round_duration_seconds_sum"), 0.203);
  // Cumulative buckets: 0.003 is in le 0.005 and above, 0.2 in le 0.25 and above.
  std::vector<std::pair<std::string, double>> rounds_le, latency_le;
  for (const auto& [series, value] : m) {
    const auto le = series.find("{le=\"");
    if (le == std::string::npos) continue;
    const std::string bound = series.substr(le + 5, series.size() - le - 7);
    if (series.starts_with("warpwatch_round_duration_seconds_bucket"))
      rounds_le.emplace_back(bound, value);
    if (series.starts_with("warpwatch_detection_latency_seconds_bucket"))
      latency_le.emplace_back(bound, value);
  }
  ASSERT_EQ(rounds_le.size(), service::seconds_buckets().size() + 1) << "the buckets and +Inf";
  for (const auto& [bound, count] : rounds_le) {
    const double le = bound == "+Inf" ? HUGE_VAL : std::stod(bound);
    EXPECT_EQ(count, (le >= 0.003 ? 1 : 0) + (le >= 0.2 ? 1 : 0)) << "le " << bound;
  }
  for (const auto& [bound, count] : latency_le) EXPECT_EQ(count, bound == "+Inf" ? 1 : 0) << bound;
  EXPECT_EQ(m.at("warpwatch_detection_latency_seconds_count"), 1);
}

config::DaemonConfig metrics_config() {
  auto c = base_config({"s-a", "s-b"},
                       {make_pattern("blip", {5.0f, -5.0f}, kernels::Mode::stream, 1.0)});
  c.http.listen = "127.0.0.1:0";
  return c;
}

TEST(Metrics, ScrapeAfterGoodAndBadFramesShowsExactCounters) {
  CapturedLog log;
  service::Pipeline pipeline(metrics_config(), log.logger());
  ASSERT_GT(pipeline.http_port(), 0);
  EXPECT_EQ(http_get(pipeline.http_port(), "/healthz").status, 503) << "not started yet";

  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // s-a: 10 good samples holding one "blip" (one match, one event of rule "default").
  const auto good = samples_at(0, {0, 0, 0, 5, -5, 0, 0, 0, 0, 0});
  push.send("s-a", stream::encode_frame(good, false));
  push.send("s-a", stream::encode_frame(good, true));  // 10 non_increasing_timestamp
  push.send("s-a", stream::encode_frame(samples_at(100, {1, 2}, 2), false));  // wrong_dims
  // s-b: 5 samples, one NaN.
  push.send("s-b",
            stream::encode_frame(samples_at(0, {0, nan, 0, 0, 0}), false));  // non_finite_value
  push.send("s-b", std::string("WWF\x01 not a frame"));                      // malformed_frame
  push.send("nobody", stream::encode_frame(good, false));                    // unknown_stream
  ASSERT_TRUE(step_until(
      pipeline,
      [&] {
        return pipeline.stats().samples == 14 &&
               pipeline.registry().snapshot().rejected.total() == 14;
      },
      5000ms))
      << log.joined();
  pipeline.step();  // the rule's event is published in the batch that matched it

  const HttpResponse scrape = http_get(pipeline.http_port(), "/metrics");
  ASSERT_EQ(scrape.status, 200);
  EXPECT_EQ(scrape.content_type.rfind("text/plain; version=0.0.4", 0), 0u) << scrape.content_type;
  const auto m = parse_prometheus_text(scrape.body);
  EXPECT_EQ(m.at(R"(warpwatch_stream_accepted_samples_total{stream="s-a"})"), 10) << scrape.body;
  EXPECT_EQ(m.at(R"(warpwatch_stream_accepted_samples_total{stream="s-b"})"), 4);
  EXPECT_EQ(
      m.at(R"(warpwatch_stream_rejected_total{stream="s-a",reason="non_increasing_timestamp"})"),
      10);
  EXPECT_EQ(m.at(R"(warpwatch_stream_rejected_total{stream="s-a",reason="wrong_dims"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_stream_rejected_total{stream="s-b",reason="non_finite_value"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_stream_rejected_total{stream="s-b",reason="malformed_frame"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="unknown_stream"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="oversized_message"})"), 0);
  EXPECT_EQ(m.at("warpwatch_ingest_accepted_samples_total"), 14);
  EXPECT_EQ(m.at("warpwatch_batch_samples_total"), 14);
  EXPECT_EQ(m.at("warpwatch_matcher_samples_total"), 14);
  EXPECT_GE(m.at("warpwatch_batches_total"), 1);
  EXPECT_EQ(m.at("warpwatch_matches_total"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_rule_events_total{rule="default"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_events_published_total{rule="default"})"), 1);
  EXPECT_EQ(m.at(R"(warpwatch_events_dropped_total{rule="default"})"), 0);
  EXPECT_EQ(m.at("warpwatch_matcher_patterns"), 1);
  EXPECT_EQ(m.count(std::string(R"(warpwatch_info{instance="e2e",backend="cpu",version=")") +
                    WARPWATCH_VERSION_FOR_TESTS + "\"}"),
            1u);
  EXPECT_GE(m.at("warpwatch_last_batch_duration_seconds"), 0);
  // The matcher's host time by phase: preparing the batches took some; a cpu matcher never
  // waits for a device and holds no device memory.
  EXPECT_GT(m.at(R"(warpwatch_matcher_host_seconds_total{phase="prepare"})"), 0);
  EXPECT_GT(m.at(R"(warpwatch_matcher_host_seconds_total{phase="start"})"), 0);
  EXPECT_EQ(m.at(R"(warpwatch_matcher_host_seconds_total{phase="wait"})"), 0);
  EXPECT_EQ(m.count(R"(warpwatch_matcher_host_seconds_total{phase="collect"})"), 1u);
  EXPECT_EQ(m.count(R"(warpwatch_matcher_host_seconds_total{phase="trim"})"), 1u);
  EXPECT_EQ(m.at("warpwatch_matcher_device_seconds_total"), 0);
  EXPECT_EQ(m.at("warpwatch_matcher_device_bytes"), 0);
  EXPECT_EQ(m.at("warpwatch_matcher_device_batches_total"), 0);  // the cpu backend, not auto
  EXPECT_EQ(m.at(R"(warpwatch_matcher_backend_switches_total{result="moved"})"), 0);
  EXPECT_EQ(m.at(R"(warpwatch_matcher_backend_switches_total{result="failed"})"), 0);
  EXPECT_EQ(m.at("warpwatch_ingest_backlog_samples"), 0) << "everything was matched";
  EXPECT_EQ(m.count(R"(warpwatch_source_waits_total{source="pull )" +
                    pipeline.ingest_endpoints().at(0) + "\"}"),
            1u);
  EXPECT_GT(m.at("warpwatch_resident_memory_bytes"), 1 << 20) << "read from /proc/self/statm";

  // Bad input is logged naming the stream and the reason.
  EXPECT_EQ(log.count("rejected input on stream 's-b': non_finite_value"), 1u) << log.joined();
  EXPECT_EQ(log.count("rejected input on stream 's-a': wrong_dims"), 1u) << log.joined();

  const HttpResponse health = http_get(pipeline.http_port(), "/healthz");
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, "ok\n");
  EXPECT_EQ(http_get(pipeline.http_port(), "/nothing").status, 404);
  pipeline.shutdown();
  const HttpResponse after = http_get(pipeline.http_port(), "/healthz");
  EXPECT_EQ(after.status, 503);
  EXPECT_EQ(after.body, "stopped\n");
}

// The latency of the one event is at least the time its frame waited before the scheduler
// ran (the test holds it back), and at most the time since it was sent.
TEST(Metrics, DetectionLatencyRoundsAndPatternMatchesAfterAMatch) {
  CapturedLog log;
  service::Pipeline pipeline(metrics_config(), log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  const auto sent = Clock::now();
  push.send("s-a", stream::encode_frame(samples_at(0, {0, 0, 0, 5, -5, 0, 0, 0, 0, 0}), false));
  // Until the hub holds the frame, without a round; then it waits 300 ms more.
  const auto deadline = sent + 5000ms;
  while (pipeline.metrics_snapshot().backlog.samples < 10 && Clock::now() < deadline)
    std::this_thread::sleep_for(1ms);
  ASSERT_EQ(pipeline.metrics_snapshot().backlog.samples, 10u);
  std::this_thread::sleep_for(300ms);
  ASSERT_TRUE(step_until(
      pipeline, [&] { return pipeline.stats().events == 1; }, 5000ms))
      << log.joined();
  const double since_sent = std::chrono::duration<double>(Clock::now() - sent).count();
  const auto before_idle = parse_prometheus_text(http_get(pipeline.http_port(), "/metrics").body);
  for (int i = 0; i < 20; ++i) pipeline.step();  // rounds without work are not timed
  const HttpResponse scrape = http_get(pipeline.http_port(), "/metrics");
  const auto m = parse_prometheus_text(scrape.body);

  EXPECT_EQ(m.at(R"(warpwatch_pattern_matches_total{library="shapes",pattern="blip"})"), 1)
      << scrape.body;
  EXPECT_EQ(m.at("warpwatch_detection_latency_seconds_count"), 1);
  EXPECT_GE(m.at("warpwatch_detection_latency_seconds_sum"), 0.3);
  EXPECT_LE(m.at("warpwatch_detection_latency_seconds_sum"), since_sent);
  EXPECT_EQ(m.at(R"(warpwatch_detection_latency_seconds_bucket{le="0.25"})"), 0);
  EXPECT_EQ(m.at(R"(warpwatch_detection_latency_seconds_bucket{le="+Inf"})"), 1);
  EXPECT_EQ(m.at("warpwatch_detection_latency_untimed_total"), 0);
  EXPECT_GE(m.at("warpwatch_round_duration_seconds_count"), m.at("warpwatch_batches_total"))
      << "each batch is taken in a round with work";
  EXPECT_GE(m.at("warpwatch_round_duration_seconds_count"), 1);
  EXPECT_EQ(m.at("warpwatch_round_duration_seconds_count"),
            before_idle.at("warpwatch_round_duration_seconds_count"));
  EXPECT_EQ(m.at(R"(warpwatch_round_duration_seconds_bucket{le="+Inf"})"),
            m.at("warpwatch_round_duration_seconds_count"));
}

TEST(Metrics, ReadyzOnceStartedWithEverySourceBound) {
  CapturedLog log;
  service::Pipeline pipeline(metrics_config(), log.logger());
  const HttpResponse before = http_get(pipeline.http_port(), "/readyz");
  EXPECT_EQ(before.status, 503);
  EXPECT_EQ(before.body, "not started\n");
  pipeline.start();
  const HttpResponse ready = http_get(pipeline.http_port(), "/readyz");
  EXPECT_EQ(ready.status, 200);
  EXPECT_EQ(ready.body, "ready\n");
  pipeline.shutdown();
  const HttpResponse after = http_get(pipeline.http_port(), "/readyz");
  EXPECT_EQ(after.status, 503);
  EXPECT_EQ(after.body, "stopped\n");
}

// /readyz until every source is connected: a sub source is not while no publisher
// listens at its endpoint, is once one binds there, and is not again once it goes.
TEST(Metrics, ReadyzWaitsForASubSourcesPublisher) {
  zmq::context_t ctx;
  // A free loopback port for the publisher that comes later: bound, read, and let go.
  zmq::socket_t publisher(ctx, zmq::socket_type::pub);
  publisher.set(zmq::sockopt::linger, 0);
  publisher.bind("tcp://127.0.0.1:*");
  const std::string endpoint = publisher.get(zmq::sockopt::last_endpoint);
  publisher.unbind(endpoint);

  auto cfg = metrics_config();
  plugins::in_sub::SubOptions sub;
  sub.endpoint = endpoint;
  cfg.ingest.push_back(plugins::source_entry(sub));
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  const auto readyz_until = [&](int status) {
    HttpResponse r;
    const auto deadline = Clock::now() + 5000ms;
    do {
      r = http_get(pipeline.http_port(), "/readyz");
      if (r.status != status) std::this_thread::sleep_for(20ms);
    } while (r.status != status && Clock::now() < deadline);
    return r;
  };
  for (int i = 0; i < 5; ++i) {  // nothing to connect to: not ready, for as long as that lasts
    const HttpResponse r = http_get(pipeline.http_port(), "/readyz");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(r.body, "source 'sub " + endpoint + "' not connected\n");
    std::this_thread::sleep_for(50ms);
  }
  publisher.bind(endpoint);
  const HttpResponse connected = readyz_until(200);
  EXPECT_EQ(connected.status, 200) << connected.body;
  EXPECT_EQ(connected.body, "ready\n");
  publisher.close();
  const HttpResponse gone = readyz_until(503);
  EXPECT_EQ(gone.status, 503);
  EXPECT_EQ(gone.body, "source 'sub " + endpoint + "' not connected\n");
}

TEST(Metrics, HealthzTurnsUnhealthyWhenTheSchedulerStalls) {
  auto cfg = metrics_config();
  cfg.metrics_stale_after = 50ms;
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  pipeline.step();
  // No step() from here on: the scheduler is "stalled".
  HttpResponse health;
  const auto deadline = Clock::now() + 5000ms;
  do health = http_get(pipeline.http_port(), "/healthz");
  while (health.status == 200 && Clock::now() < deadline);
  EXPECT_EQ(health.status, 503);
  EXPECT_EQ(health.body.rfind("scheduler stalled: last round ", 0), 0u) << health.body;
  pipeline.step();
  EXPECT_EQ(http_get(pipeline.http_port(), "/healthz").status, 200);
}

TEST(Metrics, ListenerThatCannotBindNamesTheAddress) {
  auto first = metrics_config();
  CapturedLog log;
  service::Pipeline pipeline(first, log.logger());
  auto second = metrics_config();
  second.http.listen = "127.0.0.1:" + std::to_string(pipeline.http_port());
  try {
    service::Pipeline clash(second, log.logger());
    FAIL() << "a second listener on the same port must be refused";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(second.http.listen), std::string::npos) << e.what();
  }
}

TEST(Metrics, OffWhenListenIsEmpty) {
  auto cfg = metrics_config();
  cfg.http.listen = "";
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  EXPECT_EQ(pipeline.http_port(), 0);
}

}  // namespace
