// The built warpwatchd as a real process: systemd readiness (NOTIFY_SOCKET), events over
// ZeroMQ on loopback, SIGHUP reload, and SIGTERM's drain: exit status 0, the last
// batch's events and the pending SPRING candidate flushed at the end, the summary line.
#include <gtest/gtest.h>

#include <csignal>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "processes/daemon_process.hpp"
#include "processes/notify_socket.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/service/checkpoint.hpp"
#include "warpwatch/service/daemon.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

struct Ports {
  int ingest = free_loopback_port(), publish = free_loopback_port(), metrics = free_loopback_port();
};

std::string config_text(const Ports& ports, const std::string& extra_stream) {
  std::string c = "instance: proc\nbackend: cpu\ncpu_threads: 1\nscheduler: {tick_ms: 5}\n";
  c += "ingest:\n  - pull: tcp://127.0.0.1:" + std::to_string(ports.ingest) + "\n";
  c += "streams:\n  declared:\n    - {id: probe, period_ms: 10}\n    - {id: s1, period_ms: 10}\n" +
       extra_stream;
  c += "libraries:\n  - name: shapes\n    defaults: {metric: dtw, mode: stream, threshold: 1}\n";
  c += "    patterns:\n      - {id: blip, values: [5, -5]}\n";
  c += "publish: {endpoint: tcp://127.0.0.1:" + std::to_string(ports.publish) + "}\n";
  c += "metrics: {listen: 127.0.0.1:" + std::to_string(ports.metrics) + "}\n";
  return c;
}

// A subscriber receives only what is published after its subscription reached the
// publisher, which nothing announces: send blips on the probe stream until one's event
// arrives, then every later event reaches the subscriber. `from`: the probe's first sample
// index (a restarted daemon with state goes on after the samples it had).
bool subscription_works(Producer& push, Subscriber& sub, std::size_t from = 0) {
  const auto deadline = Clock::now() + 10s;
  for (std::size_t at = from; Clock::now() < deadline; at += 4) {
    push.send("probe", stream::encode_frame(samples_at(at, {0, 5, -5, 0}), false));
    sub.wait_for(1, 200ms);
    if (!sub.events.empty()) return true;
  }
  return false;
}

std::vector<Received> events_of(const std::vector<Received>& events, const std::string& stream) {
  std::vector<Received> out;
  for (const auto& e : events)
    if (e.event.at("stream") == stream) out.push_back(e);
  return out;
}

class WarpwatchdProcess : public ::testing::Test {
 protected:
  void start(const std::string& config, std::size_t probe_from = 0) {
    config_path_ = dir_.write("warpwatch.yaml", config);
    daemon_.emplace(WARPWATCHD_PATH, std::vector<std::string>{"--config", config_path_},
                    std::vector<std::string>{"NOTIFY_SOCKET=" + systemd_.path()},
                    dir_.path() + "/stderr.log");
    ASSERT_TRUE(systemd_.receive_containing("READY=1", 20s)) << daemon_->stderr_text();
    const std::string loopback = "tcp://127.0.0.1:";
    sub_.emplace(ctx_, loopback + std::to_string(ports_.publish));
    push_.emplace(ctx_, loopback + std::to_string(ports_.ingest));
    ASSERT_TRUE(subscription_works(*push_, *sub_, probe_from)) << daemon_->stderr_text();
  }
  // Waits until an event of `stream` arrives (at most 10 s); returns that stream's events.
  std::vector<Received> wait_for_event_of(const std::string& stream) {
    const auto deadline = Clock::now() + 10s;
    while (events_of(sub_->events, stream).empty() && Clock::now() < deadline)
      sub_->wait_for(sub_->events.size() + 1, 100ms);
    return events_of(sub_->events, stream);
  }
  void stop_and_expect_clean_exit() {
    daemon_->signal(SIGTERM);
    const auto status = daemon_->wait_exit(20s);
    ASSERT_TRUE(status) << "still running 20 s after SIGTERM\n" << daemon_->stderr_text();
    ASSERT_TRUE(WIFEXITED(*status)) << daemon_->stderr_text();
    EXPECT_EQ(WEXITSTATUS(*status), 0) << daemon_->stderr_text();
  }

  TempDir dir_;
  NotifySocket systemd_{dir_.path() + "/notify"};
  Ports ports_;
  std::string config_path_;
  std::optional<DaemonProcess> daemon_;
  zmq::context_t ctx_;
  std::optional<Subscriber> sub_;
  std::optional<Producer> push_;
};

TEST_F(WarpwatchdProcess, SigtermDrainsPublishesTheLastBatchAndExitsZero) {
  ASSERT_NO_FATAL_FAILURE(start(config_text(ports_, "")));
  EXPECT_EQ(http_get(ports_.metrics, "/healthz").body, "ok\n");
  // The log names each ingest source as bound.
  EXPECT_NE(
      daemon_->stderr_text().find("ingest: pull tcp://127.0.0.1:" + std::to_string(ports_.ingest)),
      std::string::npos)
      << daemon_->stderr_text();

  // One frame: a blip at 3-4 (reported in its batch) and one at 8-9 that ends the
  // input, a pending candidate that only the shutdown flush reports.
  push_->send("s1", stream::encode_frame(samples_at(0, {0, 0, 0, 5, -5, 0, 0, 0, 5, -5}), false));
  ASSERT_EQ(wait_for_event_of("s1").size(), 1u) << daemon_->stderr_text();
  const auto metrics = parse_prometheus_text(http_get(ports_.metrics, "/metrics").body);
  EXPECT_EQ(metrics.at(R"(warpwatch_stream_accepted_samples_total{stream="s1"})"), 10);

  stop_and_expect_clean_exit();
  EXPECT_TRUE(systemd_.receive_containing("STOPPING=1", 5s));
  sub_->wait_for(sub_->events.size() + 1, 5000ms);
  const auto s1 = events_of(sub_->events, "s1");
  ASSERT_EQ(s1.size(), 2u) << "the pending candidate is flushed and published on SIGTERM\n"
                           << daemon_->stderr_text();
  EXPECT_EQ(s1[0].event.at("start_index"), 3);
  EXPECT_EQ(s1[0].event.at("end_index"), 4);
  EXPECT_EQ(s1[1].event.at("start_index"), 8);
  EXPECT_EQ(s1[1].event.at("end_index"), 9);
  EXPECT_EQ(s1[1].event.at("distance"), 0.0);
  const std::string log = daemon_->stderr_text();
  EXPECT_NE(log.find("warpwatchd info: stopping on signal 15: draining"), std::string::npos) << log;
  // Probe events published before the subscription count too: compare the line with itself.
  std::smatch summary;
  ASSERT_TRUE(std::regex_search(
      log, summary,
      std::regex(R"(warpwatchd info: stopped: \d+ samples in \d+ batches, (\d+) matches, )"
                 R"((\d+) events \((\d+) published, 0 dropped\), 0 rejected inputs)")))
      << log;
  EXPECT_EQ(summary[1], summary[2]);
  EXPECT_EQ(summary[2], summary[3]);
}

TEST_F(WarpwatchdProcess, SighupReloadAddsAStream) {
  ASSERT_NO_FATAL_FAILURE(start(config_text(ports_, "")));
  dir_.write("warpwatch.yaml", config_text(ports_, "    - {id: s2, period_ms: 10}\n"));
  daemon_->signal(SIGHUP);
  ASSERT_TRUE(systemd_.receive_containing("RELOADING=1", 10s)) << daemon_->stderr_text();
  ASSERT_TRUE(systemd_.receive_containing("READY=1", 10s)) << daemon_->stderr_text();
  push_->send("s2", stream::encode_frame(samples_at(0, {0, 5, -5, 0}), false));
  ASSERT_EQ(wait_for_event_of("s2").size(), 1u) << daemon_->stderr_text();
  EXPECT_NE(daemon_->stderr_text().find("stream 's2' added by the reload"), std::string::npos)
      << daemon_->stderr_text();
  stop_and_expect_clean_exit();
}

// issue 16: a period that converted to INT64_MIN ns passed validation and made the
// registry throw on SIGHUP, outside the reload's try block: warpwatchd exited. A bad file
// (here: that period, then an alias bomb) is refused on reload; the daemon keeps matching
// with the running configuration and says so on its systemd status line.
TEST_F(WarpwatchdProcess, SighupWithABadFileKeepsRunning) {
  ASSERT_NO_FATAL_FAILURE(start(config_text(ports_, "")));
  for (const std::string& bad :
       {config_text(ports_, "    - {id: s2, period_ms: 1e300}\n"),
        config_text(ports_, "") + "x: &a [[1,1,1,1,1,1,1,1,1,1]]\n" + "y: &b [" +
            [] {
              std::string aliases;
              for (int i = 0; i < 20000; ++i) aliases += i ? ",*a" : "*a";
              return aliases;
            }() +
            "]\n"}) {
    dir_.write("warpwatch.yaml", bad);
    daemon_->signal(SIGHUP);
    ASSERT_TRUE(systemd_.receive_containing("RELOADING=1", 10s)) << daemon_->stderr_text();
    ASSERT_TRUE(systemd_.receive_containing("(last reload refused: see the log)", 10s))
        << daemon_->stderr_text();
  }
  const std::string log = daemon_->stderr_text();
  EXPECT_NE(log.find("reload refused, keeping the running configuration: "), std::string::npos)
      << log;
  EXPECT_NE(log.find("'streams.declared[].period_ms' must be 1e-06 to 1000000000, got 1e300"),
            std::string::npos)
      << log;
  EXPECT_NE(log.find("aliases expand the document by more than 100000 nodes"), std::string::npos)
      << log;
  EXPECT_NE(http_get(ports_.metrics, "/metrics")
                .body.find("warpwatch_reloads_total{result=\"refused\"} 2"),
            std::string::npos);
  // Still matching, with the running configuration: s1 is declared there.
  push_->send("s1", stream::encode_frame(samples_at(0, {0, 5, -5, 0}), false));
  ASSERT_EQ(wait_for_event_of("s1").size(), 1u) << daemon_->stderr_text();
  stop_and_expect_clean_exit();
}

// issue 17: matching state across a restart. SIGTERM while a copy of `ramp` (samples 100-109
// of s1) is in progress: the checkpoint holds it (checked in the file: a live SPRING cell
// starting at 100, every sample sent matched), nothing of it is reported; the restarted
// daemon restores it and reports the occurrence once, at the indices of an uninterrupted
// run, and the events' sequence goes on (the events file holds both runs).
TEST_F(WarpwatchdProcess, SigtermMidOccurrenceAndRestartReportItOnce) {
  const std::string state = dir_.path() + "/state", events = dir_.path() + "/events.jsonl";
  std::string text = config_text(ports_, "");
  text.replace(text.find("    patterns:\n"), 14,
               "    patterns:\n      - {id: ramp, values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}\n");
  text.replace(text.find("publish: {endpoint: "), 20,
               "publish: {events_file: " + events + ", endpoint: ");
  text += "state: {dir: " + state + ", checkpoint_ms: 0}\n";
  std::vector<float> values(160, 0.0f);
  for (std::size_t i = 100; i < 110; ++i) values[i] = static_cast<float>(i - 100);
  Series s1{"s1", values, {}};
  for (std::size_t i = 0; i < values.size(); ++i)
    s1.times.push_back(kT0 + static_cast<std::int64_t>(i) * kPeriod);
  const auto ramp = make_pattern("ramp", {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, kernels::Mode::stream, 1);
  const auto want = reference_matches({s1}, {ramp}, true);
  ASSERT_EQ(want.size(), 1u);

  ASSERT_NO_FATAL_FAILURE(start(text));
  push_->send("s1", stream::encode_frame(slice(s1, 0, 105), false));
  const auto deadline = Clock::now() + 10s;
  while (Clock::now() < deadline &&
         parse_prometheus_text(http_get(ports_.metrics, "/metrics").body)
                 .at(R"(warpwatch_stream_accepted_samples_total{stream="s1"})") < 105)
    std::this_thread::sleep_for(20ms);
  stop_and_expect_clean_exit();
  const auto saved =
      service::decode_checkpoint(service::read_whole_file(state + "/checkpoint.bin"));
  const service::StreamRecord* record = nullptr;
  for (const auto& r : saved.streams)
    if (r.matcher.def.id == "s1") record = &r;
  ASSERT_NE(record, nullptr) << daemon_->stderr_text();
  EXPECT_EQ(record->matcher.next_index, 105u) << "every sample sent was matched";
  bool live = false;
  for (const auto& pair : record->matcher.pairs)
    if (const auto* lane = std::get_if<kernels::common::SpringLaneState>(&pair.state);
        lane && pair.pattern_id == "ramp")
      for (std::size_t i = 0; i < lane->d.size(); ++i)
        live |= lane->d[i] <= 1.0f && lane->s[i] == 100;
  EXPECT_TRUE(live) << "the occurrence at 100-109 is in progress at SIGTERM";
  const std::uint64_t sequence_before = saved.publisher_sequence;
  EXPECT_TRUE(events_of(sub_->events, "s1").empty()) << "a pending occurrence is not flushed";

  sub_.reset();
  push_.reset();
  ASSERT_NO_FATAL_FAILURE(start(text, 1'000'000));
  EXPECT_NE(daemon_->stderr_text().find("state: restored 2 of 2 streams"), std::string::npos)
      << daemon_->stderr_text();
  push_->send("s1", stream::encode_frame(slice(s1, 105, 55), false));
  const auto got = wait_for_event_of("s1");
  ASSERT_EQ(got.size(), 1u) << daemon_->stderr_text();
  EXPECT_EQ(got[0].event.at("start_index"), want[0].start_index);
  EXPECT_EQ(got[0].event.at("end_index"), want[0].end_index);
  EXPECT_EQ(got[0].event.at("distance"), want[0].distance);
  EXPECT_GT(got[0].event.at("sequence").get<std::uint64_t>(), sequence_before);
  stop_and_expect_clean_exit();
  // Every event of both runs, in the file: the sequence 1, 2, ... without a restart in it,
  // and the occurrence once.
  std::ifstream in(events);
  std::uint64_t expected = 1, ramps = 0;
  for (std::string line; std::getline(in, line); ++expected) {
    const auto e = nlohmann::json::parse(line);
    EXPECT_EQ(e.at("sequence"), expected) << line;
    ramps += e.at("pattern") == "ramp";
  }
  EXPECT_GT(expected, sequence_before + 1);
  EXPECT_EQ(ramps, 1u);
}

}  // namespace

// A lost CUDA device ends the daemon with its own status (for the service manager to
// restart it); every other fatal error with 1.
TEST(WarpwatchdExitStatus, NamesALostDevice) {
  EXPECT_EQ(
      warpwatch::service::exit_status_for(warpwatch::kernels::DeviceLost(719, "launch failure")),
      3);
  EXPECT_EQ(warpwatch::service::exit_status_for(warpwatch::kernels::CudaError(2, "out of memory")),
            1);
  EXPECT_EQ(warpwatch::service::exit_status_for(std::runtime_error("bad endpoint")), 1);
}
