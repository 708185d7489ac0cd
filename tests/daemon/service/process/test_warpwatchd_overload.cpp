// The built warpwatchd under hostile load, as a real process on loopback: a producer far
// faster than matching keeps the daemon's memory under its budget (it is pushed back, not
// buffered), SIGTERM in the middle of it exits within the grace, saying what it did not
// match, and a message larger than the limit is refused before it is read into memory.
// Memory is read from the child's /proc/PID/status.
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "processes/daemon_process.hpp"
#include "processes/notify_socket.hpp"
#include "test_support.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

struct Ports {
  int ingest = free_loopback_port(), publish = free_loopback_port(), metrics = free_loopback_port();
};

// 4 stream-mode patterns of 512 samples on one worker thread: about 2e5 samples/s here,
// several times less than one producer thread sends.
std::string heavy_config(const Ports& ports, const std::string& limits) {
  std::string c = "instance: load\nbackend: cpu\ncpu_threads: 1\n";
  c += "scheduler: {tick_ms: 10, batch_samples: 16384}\nshutdown: {drain_grace_ms: 500}\n";
  c += "ingest:\n  - pull: tcp://127.0.0.1:" + std::to_string(ports.ingest) + "\n";
  c += "streams: {auto_create: true}\n" + limits;
  c += "libraries:\n  - name: heavy\n    defaults: {metric: dtw, mode: stream, threshold: 0.001}\n";
  c += "    patterns:\n";
  for (int p = 0; p < 4; ++p) {
    c += "      - {id: p" + std::to_string(p) + ", values: [";
    for (int i = 0; i < 512; ++i) c += (i ? ", " : "") + std::to_string(100 + p + (i % 7));
    c += "]}\n";
  }
  c += "publish: {endpoint: tcp://127.0.0.1:" + std::to_string(ports.publish) + "}\n";
  c += "metrics: {listen: 127.0.0.1:" + std::to_string(ports.metrics) + "}\n";
  return c;
}

class WarpwatchdOverload : public ::testing::Test {
 protected:
  void start(const std::string& config) {
    daemon_.emplace(
        WARPWATCHD_PATH, std::vector<std::string>{"--config", dir_.write("warpwatch.yaml", config)},
        std::vector<std::string>{"NOTIFY_SOCKET=" + systemd_.path()}, dir_.path() + "/stderr.log");
    ASSERT_TRUE(systemd_.receive_containing("READY=1", 20s)) << daemon_->stderr_text();
  }
  std::map<std::string, double> scrape() {
    return parse_prometheus_text(http_get(ports_.metrics, "/metrics").body);
  }

  TempDir dir_;
  NotifySocket systemd_{dir_.path() + "/notify"};
  Ports ports_;
  std::optional<DaemonProcess> daemon_;
  zmq::context_t ctx_;
};

// Sends 100-sample frames round-robin over 20 streams as fast as the socket takes them
// (non-blocking: a full socket is backpressure, counted, never a drop) until `stop`.
struct FastProducer {
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> sent_samples{0}, refused{0};
  std::thread thread;

  FastProducer(zmq::context_t& ctx, const std::string& endpoint) {
    thread = std::thread([this, &ctx, endpoint] {
      zmq::socket_t push(ctx, zmq::socket_type::push);
      push.set(zmq::sockopt::sndhwm, 1000);
      push.set(zmq::sockopt::linger, 0);
      push.connect(endpoint);
      std::vector<std::size_t> next(20, 0);
      for (std::size_t k = 0; !stop; k = (k + 1) % next.size()) {
        std::vector<float> values(100);
        for (std::size_t i = 0; i < values.size(); ++i)
          values[i] = static_cast<float>((next[k] + i) % 13);
        const auto frame = stream::encode_frame(samples_at(next[k], values), false);
        const std::string id = "load-" + std::to_string(k);
        for (;;) {
          if (stop) return;
          if (push.send(zmq::buffer(id), zmq::send_flags::sndmore | zmq::send_flags::dontwait)) {
            (void)push.send(zmq::buffer(frame.data(), frame.size()), zmq::send_flags::none);
            break;
          }
          ++refused;  // the daemon pushes back: wait and try again
          std::this_thread::sleep_for(1ms);
        }
        next[k] += values.size();
        sent_samples += values.size();
      }
    });
  }
  ~FastProducer() {
    stop = true;
    thread.join();
  }
};

TEST_F(WarpwatchdOverload, UnderBudgetAndQuickSigterm) {
  constexpr std::uint64_t budget = 64 << 20;
  ASSERT_NO_FATAL_FAILURE(
      start(heavy_config(ports_, "limits: {memory_budget_bytes: " + std::to_string(budget) +
                                     ", max_message_bytes: 65536}\n")));
  const std::uint64_t rss_at_start = daemon_->resident_bytes();
  FastProducer producer(ctx_, "tcp://127.0.0.1:" + std::to_string(ports_.ingest));
  // Overload for 4 s: the queue fills to its limit and stays there.
  std::uint64_t max_rss = 0;
  for (int i = 0; i < 40; ++i) {
    std::this_thread::sleep_for(100ms);
    max_rss = std::max(max_rss, daemon_->resident_bytes());
  }
  const auto m = scrape();
  EXPECT_GT(m.at("warpwatch_ingest_backlog_samples"), 0) << "overloaded: a backlog waits";
  EXPECT_LE(m.at("warpwatch_ingest_backlog_bytes"), (16 << 20) + 65536)
      << "the queue (a quarter of the budget) plus one message";
  EXPECT_GT(m.at("warpwatch_ingest_backlog_oldest_age_seconds"), 0);
  const std::string source = "pull tcp://127.0.0.1:" + std::to_string(ports_.ingest);
  EXPECT_GT(m.at(R"(warpwatch_source_waits_total{source=")" + source + "\"}"), 0)
      << "the source waited for room";
  EXPECT_EQ(m.at(R"(warpwatch_ingest_rejected_total{reason="queue_full"})"), 0)
      << "a pull source pushes back, it does not drop";
  EXPECT_GT(producer.refused.load(), 0u) << "the producer was pushed back";
  EXPECT_GT(m.at("warpwatch_batches_total"), 0);

  // SIGTERM while the producer still pushes and a batch may be running.
  const auto signalled = std::chrono::steady_clock::now();
  daemon_->signal(SIGTERM);
  const auto status = daemon_->wait_exit(10s);
  const auto exit_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - signalled)
                           .count();
  const std::uint64_t peak = daemon_->peak_resident_bytes();  // 0: already reaped
  producer.stop = true;
  const std::string log = daemon_->stderr_text();
  ASSERT_TRUE(status) << "still running 10 s after SIGTERM\n" << log;
  ASSERT_TRUE(WIFEXITED(*status)) << log;
  EXPECT_EQ(WEXITSTATUS(*status), 0) << log;
  // drain_grace_ms 500, plus the round under way (16384 samples x 4 x 512 cells, about
  // 0.15 s here, several times that sanitized) and the process' own exit.
  EXPECT_LT(exit_ms, 500 + scaled(1000ms).count()) << log;
  std::smatch unmatched;
  ASSERT_TRUE(std::regex_search(
      log, unmatched,
      std::regex(R"(shutdown: (\d+) accepted samples of \d+ streams were not matched within )"
                 R"(shutdown.drain_grace_ms \(500 ms\))")))
      << log;
  EXPECT_GT(std::stoull(unmatched[1]), 0u);
  EXPECT_NE(log.find(std::string(unmatched[1]) + " accepted samples not matched within the grace"),
            std::string::npos)
      << "the summary line counts them too\n"
      << log;
  std::cout << "[ measured ] RSS at start " << rss_at_start << " B, peak sampled " << max_rss
            << " B (budget " << budget << "), backlog at 4 s "
            << m.at("warpwatch_ingest_backlog_bytes") << " B, SIGTERM to exit " << exit_ms
            << " ms, unmatched " << unmatched[1] << " samples, producer pushed back "
            << producer.refused << " times\n";
  if (kSanitizedMemory) {
    std::cout << "[ not held ] RSS to the budget: a sanitizer's shadow memory and quarantine "
                 "count in it (the backlog's bytes are held to it above)\n";
  } else {
    EXPECT_LT(max_rss, budget) << "RSS at start " << rss_at_start << ", peak sampled " << max_rss
                               << ", VmHWM " << peak;
    if (peak > 0) {
      EXPECT_LT(peak, budget);
    }
  }
}

// ZMQ_MAXMSGSIZE: a 64 MiB frame against a 1 MiB limit is refused while libzmq reads its
// header, so the daemon's memory never holds it; good producers are served throughout.
TEST_F(WarpwatchdOverload, OversizedNeverRead) {
  ASSERT_NO_FATAL_FAILURE(start(heavy_config(ports_, "")));
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(ports_.ingest);
  const std::uint64_t before = daemon_->peak_resident_bytes();
  {
    zmq::socket_t bad(ctx_, zmq::socket_type::push);
    bad.set(zmq::sockopt::linger, 0);
    bad.connect(endpoint);
    const std::string huge(64 << 20, '1');
    for (int i = 0; i < 2; ++i) {
      (void)bad.send(zmq::str_buffer("big"), zmq::send_flags::sndmore);
      (void)bad.send(zmq::buffer(huge), zmq::send_flags::none);
    }
    std::this_thread::sleep_for(1s);  // the daemon reads (and refuses) what arrives
  }
  Producer good(ctx_, endpoint);
  good.send("small", stream::encode_frame(samples_at(0, {1, 2, 3}), false));
  std::map<std::string, double> m;
  for (int i = 0; i < 100; ++i) {
    m = scrape();
    if (m["warpwatch_ingest_accepted_samples_total"] >= 3) break;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_EQ(m["warpwatch_ingest_accepted_samples_total"], 3);
  EXPECT_EQ(m[R"(warpwatch_ingest_rejected_total{reason="oversized_message"})"], 0)
      << "refused by libzmq, never read: nothing to count";
  const std::uint64_t after = daemon_->peak_resident_bytes();
  std::cout << "[ measured ] VmHWM before the oversized frames " << before << " B, after " << after
            << " B\n";
  EXPECT_LT(after, before + (16 << 20)) << "peak RSS grew from " << before << " to " << after;
  daemon_->signal(SIGTERM);
  const auto status = daemon_->wait_exit(10s);
  ASSERT_TRUE(status) << daemon_->stderr_text();
  EXPECT_EQ(WEXITSTATUS(*status), 0);
}

}  // namespace
