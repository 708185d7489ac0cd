// The CLI's CURVE: `warpwatch keygen` writes a usable pair with the right modes, and
// `warpwatch load` and `warpwatch tail` with keys work against a CURVE daemon (in-process,
// service::Pipeline on loopback), while a key the daemon does not allow gets nothing through.
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <chrono>
#include <sstream>
#include <string>
#include <thread>

#include "cli_test_support.hpp"
#include "curve_support.hpp"
#include "daemon_e2e_support.hpp"
#include "in_sub/in_sub.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;
using namespace std::chrono_literals;

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CurveCli, KeygenWritesAUsablePair) {
  const TempDir dir;
  const std::string prefix = dir.file("client");
  const auto r = run_cli({"keygen", prefix});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string public_key = stream::read_key_file(prefix + ".pub", false);
  EXPECT_EQ(r.out, public_key + "\n");
  EXPECT_EQ(file_mode(prefix + ".key"), 0600u);
  EXPECT_EQ(file_mode(prefix + ".pub"), 0644u);
  // The secret key is the public key's: the pair works.
  EXPECT_EQ(stream::key_pair_of(stream::read_key_file(prefix + ".key", true)).public_key,
            public_key);

  const auto again = run_cli({"keygen", prefix});
  EXPECT_EQ(again.status, 1);
  EXPECT_NE(again.err.find("warpwatch keygen: '" + prefix + ".key' exists (--force replaces it)"),
            std::string::npos)
      << again.err;
  EXPECT_EQ(stream::read_key_file(prefix + ".pub", false), public_key);  // nothing replaced
  const auto forced = run_cli({"keygen", prefix, "--force"});
  ASSERT_EQ(forced.status, 0) << forced.err;
  EXPECT_NE(forced.out, r.out);
  EXPECT_EQ(forced.out, stream::read_key_file(prefix + ".pub", false) + "\n");
}

// A CURVE daemon in-process that allows the `client` key; streams are auto-created.
struct CurveDaemon {
  CurveDaemon(const TempDir& dir, const KeyFiles& daemon, const KeyFiles& client)
      : pipeline(config(dir, daemon, client), log.logger()) {
    pipeline.start();
  }
  static config::DaemonConfig config(const TempDir& dir, const KeyFiles& daemon,
                                     const KeyFiles& client) {
    auto cfg = base_config({}, {make_pattern("blip", {5.0f, -5.0f}, kernels::Mode::stream, 1.0)});
    cfg.live.auto_create_streams = true;
    cfg.curve.enabled = true;
    cfg.curve.keys = daemon.keys;
    cfg.curve.secret_key_file = daemon.secret_file;
    cfg.curve.allowed_clients_file = write_allowed(dir, "clients", {client.keys.public_key});
    cfg.curve.allowed_clients = {client.keys.public_key};
    return cfg;
  }
  std::uint64_t accepted() const { return pipeline.registry().snapshot().accepted_samples; }
  stream::ZapCounters auth(const std::string& prefix) const {
    for (const auto& c : pipeline.metrics_snapshot().auth)
      if (c.socket.starts_with(prefix)) return c;
    return {};
  }
  CapturedLog log;
  service::Pipeline pipeline;
};

TEST(CurveCli, LoadWithKeysFeedsACurveDaemon) {
  const TempDir dir;
  const auto daemon = write_key_pair(dir, "daemon"), client = write_key_pair(dir, "client"),
             stranger = write_key_pair(dir, "stranger");
  CurveDaemon d(dir, daemon, client);
  const std::string pull = d.pipeline.ingest_endpoints().at(0);
  const auto r = run_cli({"load", "--endpoint", pull, "--streams", "2", "--samples", "300", "--key",
                          client.secret_file, "--server-key", daemon.public_file});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_TRUE(step_until(
      d.pipeline, [&] { return d.accepted() == 600; }, 5000ms));

  // A key the daemon does not know: refused, nothing arrives (a short linger ends the run).
  const auto refused =
      run_cli({"load", "--endpoint", pull, "--streams", "1", "--samples", "100", "--linger-ms",
               "500", "--key", stranger.secret_file, "--server-key", daemon.public_file});
  EXPECT_EQ(refused.status, 0) << refused.err;
  step_until(
      d.pipeline, [] { return false; }, 300ms);
  EXPECT_EQ(d.accepted(), 600u);
  EXPECT_GE(d.auth("pull ").refused_key, 1u);
  EXPECT_EQ(d.auth("pull ").accepted, 1u);

  const auto half = run_cli({"load", "--endpoint", pull, "--key", client.secret_file});
  EXPECT_EQ(half.status, 1);
  EXPECT_NE(half.err.find("CURVE needs both --key and --server-key"), std::string::npos)
      << half.err;
}

TEST(CurveCli, TailWithKeysReadsACurveDaemon) {
  const TempDir dir;
  const auto daemon = write_key_pair(dir, "daemon"), client = write_key_pair(dir, "client"),
             stranger = write_key_pair(dir, "stranger");
  CurveDaemon d(dir, daemon, client);
  const std::string publish = d.pipeline.publish_endpoint();
  const auto series = frequent_series(1, 200);
  const std::size_t events =
      reference_matches(series, d.pipeline.config().live.libraries[0].patterns, true).size();
  ASSERT_GT(events, 10u);
  CliResult tail{}, stranger_tail{};
  std::thread reader([&] {
    tail =
        run_cli({"tail", "--endpoint", publish, "--count", std::to_string(events), "--idle-exit-ms",
                 "5000", "--key", client.secret_file, "--server-key", daemon.public_file});
  });
  std::thread outsider([&] {
    stranger_tail = run_cli({"tail", "--endpoint", publish, "--idle-exit-ms", "1500", "--key",
                             stranger.secret_file, "--server-key", daemon.public_file});
  });
  ASSERT_TRUE(step_until(
      d.pipeline,
      [&] { return d.auth("publish ").accepted >= 1 && d.auth("publish ").refused_key >= 1; },
      5000ms));
  std::this_thread::sleep_for(300ms);  // the subscription reaches the PUB socket
  zmq::context_t peers;
  const stream::CurveSocketOptions curve{
      .keys = client.keys, .server_public_key = daemon.keys.public_key, .zap_domain = {}};
  Producer push(peers, d.pipeline.ingest_endpoints().at(0), &curve);
  send_all(push, series, 50);
  EXPECT_TRUE(step_until(
      d.pipeline, [&] { return d.accepted() == 200; }, 5000ms));
  d.pipeline.shutdown();
  reader.join();
  outsider.join();
  EXPECT_EQ(tail.status, 0) << tail.err;
  EXPECT_EQ(line_count(tail.out), events) << tail.out;
  EXPECT_EQ(stranger_tail.status, 0) << stranger_tail.err;
  EXPECT_EQ(stranger_tail.out, "");
}

TEST(CurveCli, LoadBindsAsACurveServerForASubIngest) {
  const TempDir dir;
  const auto daemon = write_key_pair(dir, "daemon"), load = write_key_pair(dir, "load");
  const std::string endpoint = "tcp://127.0.0.1:" + std::to_string(bench::free_loopback_port());
  auto cfg = CurveDaemon::config(dir, daemon, load);
  plugins::in_sub::SubOptions sub;
  sub.endpoint = endpoint;
  sub.server_key = load.keys.public_key;
  cfg.ingest.front() = plugins::source_entry(sub);
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  const std::string allowed = write_allowed(dir, "load_clients", {daemon.keys.public_key});
  CliResult r{};
  std::thread sender([&] {  // 2 s at 500 samples/s: the daemon subscribes meanwhile
    r = run_cli({"load", "--endpoint", endpoint, "--bind", "--pub", "--streams", "1", "--rate",
                 "500", "--duration-s", "2", "--key", load.secret_file, "--allowed-clients",
                 allowed});
  });
  const bool some = step_until(
      pipeline, [&] { return pipeline.registry().snapshot().accepted_samples > 100; }, 5000ms);
  sender.join();
  EXPECT_TRUE(some);
  EXPECT_EQ(r.status, 0) << r.err;
}

}  // namespace
