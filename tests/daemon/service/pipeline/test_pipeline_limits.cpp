// The Pipeline's bounds, in-process over loopback: a round matches at most
// scheduler.batch_samples; a SUB source, which cannot push back, drops what a full queue
// cannot take and counts it so that sent = accepted + dropped; the shutdown's grace
// bounds its matching and the rest is counted and logged, never dropped silently.
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "in_sub/in_sub.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

std::vector<kernels::PatternDef> one_pattern() {
  kernels::PatternDef p;
  p.id = "blip";
  p.values = {5, -5};
  p.params.mode = kernels::Mode::stream;
  p.params.threshold = 1.0;
  return {p};
}

std::vector<float> ramp(std::size_t n) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(i % 3);
  return v;
}

TEST(PipelineLimits, ARoundMatchesAtMostBatchSamples) {
  auto cfg = base_config({"a", "b", "c", "d"}, one_pattern());
  cfg.batch_samples = 100;
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  for (const char* id : {"a", "b", "c", "d"})
    for (std::size_t k = 0; k < 3; ++k)
      push.send(id, stream::encode_frame(samples_at(k * 100, ramp(100)), false));
  const auto deadline = Clock::now() + 5s;
  while (pipeline.registry().snapshot().accepted_samples < 1200 && Clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(pipeline.registry().snapshot().accepted_samples, 1200u);
  std::uint64_t before = 0;
  for (int round = 0; round < 12; ++round) {
    pipeline.step();
    const auto s = pipeline.stats();
    EXPECT_EQ(s.matcher.samples - before, 100u) << "round " << round << ": submitted";
    // Under load a round's batch stays on the device while the next is taken: matched
    // (collected) samples lag the submitted ones by one round at most.
    EXPECT_LE(s.matcher.samples - s.samples, 100u) << "round " << round;
    before = s.matcher.samples;
  }
  pipeline.step();
  EXPECT_EQ(pipeline.stats().samples, 1200u) << "nothing more to match";
  EXPECT_EQ(pipeline.metrics_snapshot().backlog.samples, 0u);
}

TEST(PipelineLimits, ASubSourceDropsWhatAFullQueueCannotTakeAndCountsIt) {
  zmq::context_t ctx;
  zmq::socket_t pub(ctx, zmq::socket_type::pub);
  pub.set(zmq::sockopt::sndhwm, 0);
  pub.bind("tcp://127.0.0.1:*");
  auto cfg = base_config({"s"}, one_pattern());
  plugins::in_sub::SubOptions sub;
  sub.endpoint = pub.get(zmq::sockopt::last_endpoint);
  cfg.ingest.front() = plugins::source_entry(sub);
  cfg.queue_bytes = 1000 * stream::queued_sample_bytes(1);  // 10 frames of 100
  cfg.stream_queue_bytes = cfg.queue_bytes;
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  // A subscription reaches the publisher when it reaches it: send until one frame lands.
  std::size_t sent = 0, k = 0;
  const auto deadline = Clock::now() + 10s;
  const auto send = [&] {
    const auto frame = stream::encode_frame(samples_at(k * 100, ramp(100)), false);
    const std::array<zmq::const_buffer, 2> parts = {zmq::str_buffer("s"),
                                                    zmq::buffer(frame.data(), frame.size())};
    (void)zmq::send_multipart(pub, parts);
    ++k;
  };
  while (pipeline.registry().snapshot().accepted_samples == 0 && Clock::now() < deadline) {
    send();
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_GT(pipeline.registry().snapshot().accepted_samples, 0u) << log.joined();
  // Everything sent before the first acceptance may have met no subscription yet: count
  // from here on, with the queue emptied by one unbounded drain.
  const auto counted = [&] {
    const auto snap = pipeline.registry().snapshot();
    return snap.accepted_samples + snap.rejected[stream::RejectReason::queue_full];
  };
  while (pipeline.metrics_snapshot().backlog.samples > 0) pipeline.step();
  const std::uint64_t base = counted();
  for (int i = 0; i < 50; ++i, sent += 100) send();  // 5000 samples into a queue of 1000
  while (counted() < base + sent && Clock::now() < deadline) std::this_thread::sleep_for(5ms);
  ASSERT_EQ(counted(), base + sent) << "every sample sent is accepted or counted as dropped";
  const auto snap = pipeline.registry().snapshot();
  EXPECT_GT(snap.rejected[stream::RejectReason::queue_full], 0u);
  const auto backlog = pipeline.metrics_snapshot().backlog;
  EXPECT_LE(backlog.bytes, cfg.queue_bytes + 100 * stream::queued_sample_bytes(1))
      << "at most the limit and the one message that found room below it";
  ASSERT_EQ(backlog.sources.size(), 1u);
  EXPECT_EQ(backlog.sources[0].dropped_samples, snap.rejected[stream::RejectReason::queue_full]);
  EXPECT_GT(log.count("queue_full"), 0u) << log.joined();
  pipeline.shutdown();
}

TEST(PipelineLimits, TheShutdownGraceBoundsMatchingAndCountsTheRest) {
  auto cfg = base_config({"a", "b"}, one_pattern());
  cfg.batch_samples = 50;
  cfg.drain_grace = std::chrono::milliseconds(0);
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  zmq::context_t ctx;
  Producer push(ctx, pipeline.ingest_endpoints().at(0));
  pipeline.start();
  push.send("a", stream::encode_frame(samples_at(0, ramp(300)), false));
  push.send("b", stream::encode_frame(samples_at(0, ramp(200)), false));
  const auto deadline = Clock::now() + 5s;
  while (pipeline.registry().snapshot().accepted_samples < 500 && Clock::now() < deadline)
    std::this_thread::sleep_for(5ms);
  ASSERT_EQ(pipeline.registry().snapshot().accepted_samples, 500u);
  const auto summary = pipeline.shutdown();
  EXPECT_EQ(summary.samples, 0u) << "no grace: nothing matched after the stop";
  EXPECT_EQ(summary.unmatched, 500u);
  EXPECT_EQ(log.count("shutdown: 500 accepted samples of 2 streams were not matched within "
                      "shutdown.drain_grace_ms (0 ms)"),
            1u)
      << log.joined();
}

}  // namespace

namespace {
// What backend: auto is told (docs/architecture.md §6.1): the declared streams' pairs with
// the patterns of their dims, none when streams are auto-created.
TEST(PipelineBackend, AutoIsToldTheDeclaredPairs) {
  auto patterns = one_pattern();
  kernels::PatternDef second = patterns.front(), three_d = patterns.front();
  second.id = "second";
  three_d.id = "three-d";
  three_d.dims = 3;
  three_d.values = {1, 2, 3, 4, 5, 6};
  patterns.push_back(second);
  patterns.push_back(three_d);
  auto cfg = base_config({"a", "b", "c"}, patterns);
  config::StreamDecl wide;
  wide.def = {"wide", 3, kPeriod};
  cfg.live.streams.push_back(wide);
  cfg.cpu_threads = 7;
  const kernels::WorkShape shape = service::work_shape(cfg);
  EXPECT_EQ(shape.pairs, std::optional<std::size_t>(3 * 2 + 1));
  EXPECT_EQ(shape.cpu_threads, 7u);
  cfg.live.auto_create_streams = true;
  EXPECT_FALSE(service::work_shape(cfg).pairs.has_value());
}
}  // namespace
