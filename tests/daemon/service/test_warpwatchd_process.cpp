// The built warpwatchd as a real process: systemd readiness (NOTIFY_SOCKET), events over
// ZeroMQ on loopback, SIGHUP reload, and SIGTERM's drain: exit status 0, the last
// batch's events and the pending SPRING candidate flushed at the end, the summary line.
#include <gtest/gtest.h>

#include <csignal>
#include <regex>
#include <string>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "daemon_process.hpp"
#include "http_client.hpp"
#include "notify_socket.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/errors.hpp"
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
// arrives, then every later event reaches the subscriber.
bool subscription_works(Producer& push, Subscriber& sub) {
  const auto deadline = Clock::now() + 10s;
  for (std::size_t at = 0; Clock::now() < deadline; at += 4) {
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
  void start(const std::string& config) {
    config_path_ = dir_.write("warpwatch.yaml", config);
    daemon_.emplace(WARPWATCHD_PATH, std::vector<std::string>{"--config", config_path_},
                    std::vector<std::string>{"NOTIFY_SOCKET=" + systemd_.path()},
                    dir_.path() + "/stderr.log");
    ASSERT_TRUE(systemd_.receive_containing("READY=1", 20s)) << daemon_->stderr_text();
    const std::string loopback = "tcp://127.0.0.1:";
    sub_.emplace(ctx_, loopback + std::to_string(ports_.publish));
    push_.emplace(ctx_, loopback + std::to_string(ports_.ingest));
    ASSERT_TRUE(subscription_works(*push_, *sub_)) << daemon_->stderr_text();
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
