// The Pipeline's matching state across restarts (docs/operations.md §4),
// in-process over loopback: a restart mid-occurrence through state.dir's checkpoint reports
// the occurrence once at the uninterrupted run's indices and the events' sequence goes on;
// a refused file (truncated, corrupt, foreign, newer) is logged, moved aside and the daemon
// starts fresh; a changed pattern or stream starts fresh with a log line; the periodic
// checkpoint is written; export_streams(release) / import_streams carry an occurrence from
// one pipeline to another (what the Kafka source does on a rebalance).
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

constexpr std::size_t kLength = 160, kCut = 105;  // ramp copies at 20-29 and 100-109

kernels::PatternDef ramp(double threshold = 1.0) {
  return make_pattern("ramp", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, kernels::Mode::stream, threshold);
}
kernels::PatternDef falling() {
  return make_pattern("falling", {9, 7, 5, 3, 1}, kernels::Mode::stream, 1.0);
}

Series ramp_series() {
  Series s;
  s.id = "s";
  for (std::size_t i = 0; i < kLength; ++i) {
    const bool copy = (i >= 20 && i < 30) || (i >= 100 && i < 110);
    s.values.push_back(copy ? static_cast<float>(i % 10) : 0.0f);
    s.times.push_back(kT0 + static_cast<std::int64_t>(i) * kPeriod);
  }
  return s;
}

struct Run {
  std::vector<nlohmann::json> events;  // from the events file, both runs
};

// warpwatch_superseded_total{library="shapes"} as /metrics shows it (0 when absent).
std::uint64_t render_superseded(const service::Pipeline& p) {
  const auto metrics = parse_prometheus_text(service::render_metrics(p.metrics_snapshot()));
  const auto it = metrics.find(R"(warpwatch_superseded_total{library="shapes"})");
  return it == metrics.end() ? 0 : static_cast<std::uint64_t>(it->second);
}

class PipelineState : public ::testing::Test {
 protected:
  config::DaemonConfig config(std::vector<kernels::PatternDef> patterns = {ramp()}) const {
    auto c = base_config({"s"}, std::move(patterns));
    c.state_dir = state_dir();
    c.checkpoint_interval = std::chrono::milliseconds(0);
    c.events_file = dir_.path() + "/events.jsonl";
    return c;
  }
  std::string state_dir() const { return dir_.path() + "/state"; }
  std::filesystem::path checkpoint_file() const { return state_dir() + "/checkpoint.bin"; }

  // Samples [from, to) of the series into `p`, matched.
  void feed(service::Pipeline& p, std::size_t from, std::size_t to) {
    zmq::context_t ctx;
    Producer push(ctx, p.ingest_endpoints().at(0));
    push.send("s", stream::encode_frame(slice(series_, from, to - from), false));
    const std::uint64_t want = p.stats().samples + (to - from);
    ASSERT_TRUE(step_until(
        p, [&] { return p.stats().samples >= want; }, 10s))
        << "matched " << p.stats().samples << " of " << want;
  }
  std::vector<nlohmann::json> events() const {
    std::vector<nlohmann::json> out;
    std::ifstream in(dir_.path() + "/events.jsonl");
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  // A checkpoint of the stream cut at kCut, mid-occurrence.
  std::string checkpoint_bytes() {
    {
      service::Pipeline p(config(), log_.logger());
      p.start();
      feed(p, 0, kCut);
      p.shutdown();
    }
    return service::read_whole_file(checkpoint_file());
  }

  TempDir dir_;
  CapturedLog log_;
  Series series_ = ramp_series();
};

TEST_F(PipelineState, RestartMidOccurrenceReportsItOnceWhereAnUninterruptedRunDoes) {
  const auto want = reference_matches({series_}, {ramp()}, true);
  ASSERT_EQ(want.size(), 2u);
  {
    service::Pipeline p(config(), log_.logger());
    p.start();
    feed(p, 0, kCut);
    p.shutdown();  // checkpoints instead of reporting the pending occurrence
  }
  ASSERT_EQ(events().size(), 1u) << "only the first copy, which ended before the cut";
  const service::Checkpoint saved =
      service::decode_checkpoint(service::read_whole_file(checkpoint_file()));
  ASSERT_EQ(saved.streams.size(), 1u);
  EXPECT_EQ(saved.publisher_sequence, 1u);
  const kernels::StreamSnapshot& s = saved.streams[0].matcher;
  EXPECT_EQ(s.next_index, kCut);
  // In progress at the cut: a live SPRING cell whose start is the copy's.
  const auto& lane = std::get<kernels::common::SpringLaneState>(s.pairs.at(0).state);
  bool live = false;
  for (std::size_t i = 0; i < lane.d.size(); ++i) live |= lane.d[i] <= 1.0f && lane.s[i] == 100;
  EXPECT_TRUE(live) << "the occurrence at 100-109 is in progress at the cut";
  {
    service::Pipeline p(config(), log_.logger());
    EXPECT_EQ(log_.count("state: restored 1 of 1 streams"), 1u) << log_.joined();
    p.start();
    feed(p, kCut, kLength);
    p.shutdown();
  }
  const auto got = events();
  ASSERT_EQ(got.size(), 2u) << log_.joined();
  for (std::size_t k = 0; k < 2; ++k) {
    EXPECT_EQ(got[k].at("start_index"), want[k].start_index);
    EXPECT_EQ(got[k].at("end_index"), want[k].end_index);
    EXPECT_EQ(got[k].at("distance"), want[k].distance);
    EXPECT_EQ(got[k].at("sequence"), k + 1) << "the sequence goes on after the restart";
  }
}

// docs/spec.md §5.1: the matches an exclusive library holds at a restart travel with the
// stream's record and are decided after it as an uninterrupted run decides them. "ramp" and
// "shifted" (the ramp plus 0.5: distance 2.5 over threshold 10, closeness 0.25 against
// ramp's 0) both match each copy; "slow" (another library: window mode, 30 samples of 50,
// never matched) can still report a window starting 29 samples back, so the stream settles
// that late and at the cut (copy 100-109 ended 10 samples before) both matches of the
// second copy are held.
TEST_F(PipelineState, HeldMatchesOfAnExclusiveLibraryTravelWithTheCheckpoint) {
  constexpr std::size_t cut = 120;
  std::vector<float> shifted_values;
  for (int i = 0; i < 10; ++i) shifted_values.push_back(static_cast<float>(i) + 0.5f);
  auto c = config({ramp(), make_pattern("shifted", shifted_values, kernels::Mode::stream, 10.0)});
  c.live.libraries[0].exclusive = true;
  config::Library other;
  other.name = "other";
  other.patterns = {
      make_pattern("slow", std::vector<float>(30, 50.0f), kernels::Mode::window, 1.0)};
  other.patterns[0].library = "other";
  c.live.libraries.push_back(other);
  {
    service::Pipeline p(c, log_.logger());
    p.start();
    feed(p, 0, cut);
    EXPECT_EQ(p.stats().matches, 4u) << "ramp and shifted on both copies";
    p.shutdown();
  }
  ASSERT_EQ(events().size(), 1u) << log_.joined();
  EXPECT_EQ(events()[0].at("pattern"), "ramp");
  EXPECT_EQ(events()[0].at("end_index"), 29);
  const service::Checkpoint saved =
      service::decode_checkpoint(service::read_whole_file(checkpoint_file()));
  ASSERT_EQ(saved.streams.size(), 1u);
  ASSERT_EQ(saved.streams[0].held.size(), 2u) << "both matches of the second copy are held";
  EXPECT_EQ(saved.streams[0].held[0].pattern_id, "ramp");  // the closer first
  EXPECT_EQ(saved.streams[0].held[0].end_index, 109u);
  EXPECT_EQ(saved.streams[0].held[1].pattern_id, "shifted");
  {
    service::Pipeline p(c, log_.logger());
    p.start();
    feed(p, cut, kLength);
    p.shutdown();
    EXPECT_EQ(render_superseded(p), 1u) << "shifted on the second copy, after the restart";
  }
  const auto got = events();
  ASSERT_EQ(got.size(), 2u) << "nothing lost, nothing twice\n" << log_.joined();
  EXPECT_EQ(got[1].at("pattern"), "ramp");
  EXPECT_EQ(got[1].at("end_index"), 109);
  EXPECT_EQ(got[1].at("sequence"), 2);
  // The record with held matches reads back as it was written.
  EXPECT_EQ(service::decode_stream_record(service::encode_stream_record(saved.streams[0])),
            saved.streams[0]);
}

TEST_F(PipelineState, ARefusedFileIsLoggedMovedAsideAndTheDaemonStartsFresh) {
  const std::string good = checkpoint_bytes();
  std::string corrupt = good, newer = good;
  corrupt[good.size() - 5] ^= 0x01;
  newer[4] = 3;  // the pipeline writes version 2 (with the event store's section)
  const std::vector<std::pair<std::string, std::string>> cases = {
      {good.substr(0, good.size() / 2), "truncated"},
      {corrupt, "checksum mismatch"},
      {"# not a checkpoint\n", "bad magic"},
      {newer, "unsupported version 3"}};
  for (const auto& [bytes, reason] : cases) {
    service::write_file_atomically(checkpoint_file(), bytes);
    CapturedLog log;
    service::Pipeline p(config(), log.logger());
    EXPECT_EQ(log.count("refused"), 1u) << reason << "\n" << log.joined();
    EXPECT_EQ(log.count(reason), 1u) << log.joined();
    EXPECT_EQ(log.count("moved aside to " + checkpoint_file().string() + ".bad"), 1u)
        << log.joined();
    EXPECT_EQ(service::read_whole_file(checkpoint_file().string() + ".bad"), bytes);
    EXPECT_FALSE(std::filesystem::exists(checkpoint_file()));
    EXPECT_EQ(p.stats().streams, 1u) << "the declared stream, fresh";
    p.abandon();
  }
}

TEST_F(PipelineState, AChangedPatternStartsFreshWithALogLineTheOthersGoOn) {
  {
    service::Pipeline p(config({ramp(), falling()}), log_.logger());
    p.start();
    feed(p, 0, kCut);
    p.shutdown();
  }
  CapturedLog log;
  service::Pipeline p(config({ramp(2.0), falling()}), log.logger());
  EXPECT_EQ(log.count("stream 's', pattern 'ramp': starts fresh (pattern changed)"), 1u)
      << log.joined();
  EXPECT_EQ(log.count("pattern 'falling'"), 0u) << log.joined();
  p.start();
  feed(p, kCut, kLength);
  p.shutdown();
  for (const auto& e : events())
    EXPECT_NE(e.at("start_index"), 100) << "a fresh pair cannot see the start before the cut";
}

TEST_F(PipelineState, AStreamWhoseDefinitionChangedIsNotRestored) {
  checkpoint_bytes();
  auto c = config();
  c.live.streams[0].def.nominal_period_ns *= 2;
  CapturedLog log;
  service::Pipeline p(c, log.logger());
  EXPECT_EQ(log.count("state of stream 's' not restored, it starts fresh: its definition "
                      "changed (dims 1 -> 1, nominal period 10000000 -> 20000000 ns)"),
            1u)
      << log.joined();
  EXPECT_EQ(log.count("state: restored 0 of 1 streams"), 1u) << log.joined();
  p.abandon();
}

TEST_F(PipelineState, ThePeriodicCheckpointIsWritten) {
  auto c = config();
  c.checkpoint_interval = std::chrono::milliseconds(20);
  service::Pipeline p(c, log_.logger());
  EXPECT_EQ(log_.count("state: no checkpoint at"), 1u) << log_.joined();
  p.start();
  feed(p, 0, 50);
  ASSERT_TRUE(step_until(
      p, [&] { return p.stats().checkpoints_written >= 2; }, 5s));
  const auto saved = service::decode_checkpoint(service::read_whole_file(checkpoint_file()));
  ASSERT_EQ(saved.streams.size(), 1u);
  EXPECT_EQ(saved.streams[0].matcher.next_index, 50u);
  EXPECT_EQ(saved.streams[0].matcher.last_ns, series_.times[49]);
  // Between rounds, samples may wait in the hub unmatched: the file names no validator
  // timestamp of its own, so that those are taken again after a restore.
  EXPECT_EQ(saved.streams[0].validator_last_ns, service::no_timestamp);
  EXPECT_GT(p.stats().last_checkpoint_bytes, 0u);
  EXPECT_EQ(p.stats().checkpoints_failed, 0u);
  const std::string metrics = service::render_metrics(p.metrics_snapshot());
  EXPECT_NE(metrics.find("warpwatch_checkpoints_total{result=\"written\"}"), std::string::npos);
  p.abandon();
}

TEST_F(PipelineState, ExportWithReleaseAndImportCarryAnOccurrenceBetweenPipelines) {
  auto c = config();
  c.state_dir.clear();  // the Kafka source's path: no file
  c.events_file = dir_.path() + "/first.jsonl";
  service::Pipeline first(c, log_.logger());
  first.start();
  feed(first, 0, kCut);
  const std::vector<std::string> ids = {"s", "unknown"};
  std::vector<service::StreamRecord> records = first.export_streams(ids, true);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(first.stats().streams, 0u) << "released";
  first.shutdown();  // reports nothing of the released stream
  c.events_file = dir_.path() + "/events.jsonl";
  service::Pipeline second(c, log_.logger());
  EXPECT_EQ(second.import_streams(std::move(records)), std::vector<std::string>{"s"});
  second.start();
  feed(second, kCut, kLength);
  second.shutdown();
  const auto got = events();
  ASSERT_EQ(got.size(), 1u) << log_.joined();
  EXPECT_EQ(got[0].at("start_index"), 100);
  EXPECT_EQ(got[0].at("end_index"), 109);
}

}  // namespace
