// CURVE on warpwatchd's sockets, in-process (service::Pipeline, real sockets on loopback
// wildcard ports): the pull ingest and the event publisher serve the allowed keys only, an
// unknown key is refused and counted in /metrics under its socket, a plain client gets
// nothing; a `sub` ingest is a CURVE client of a publisher (the test's, with a ZAP handler
// of its own) that accepts the daemon's key, and gets nothing from one that does not; a
// reload re-reads the allowed list (a bad one keeps the running list).
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "curve_support.hpp"
#include "daemon_e2e_support.hpp"
#include "in_sub/in_sub.hpp"
#include "log_capture.hpp"
#include "test_support.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/metrics.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/service/socket_security.hpp"
#include "warpwatch/stream/sources/zap_handler.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

const std::vector<kernels::PatternDef> blip = {
    make_pattern("blip", {5.0f, -5.0f}, kernels::Mode::stream, 1.0)};

config::CurveConfig curve_config(const KeyFiles& daemon, const std::string& allowed_file) {
  config::CurveConfig c;
  c.enabled = true;
  c.secret_key_file = daemon.secret_file;
  c.allowed_clients_file = allowed_file;
  c.keys = daemon.keys;
  c.allowed_clients = stream::read_key_list_file(allowed_file);
  return c;
}

stream::CurveSocketOptions client_of(const KeyFiles& client, const KeyFiles& server) {
  return {.keys = client.keys, .server_public_key = server.keys.public_key, .zap_domain = {}};
}

// The counters of the bound socket whose name starts with `prefix` ("pull ", "publish ").
stream::ZapCounters auth_of(const service::Pipeline& p, const std::string& prefix) {
  for (const auto& c : p.metrics_snapshot().auth)
    if (c.socket.starts_with(prefix)) return c;
  return {};
}

// Steps the pipeline until `done` holds or 5 s pass.
template <class Done>
bool step_until_done(service::Pipeline& p, Done done) {
  return step_until(p, done, std::chrono::milliseconds(5000));
}

TEST(CurveAuth, PullAndPublishServeAllowedKeysOnly) {
  const TempDir dir;
  const KeyFiles daemon = write_key_pair(dir, "daemon"), producer = write_key_pair(dir, "producer"),
                 reader = write_key_pair(dir, "reader"), stranger = write_key_pair(dir, "stranger");
  const auto series = frequent_series(2, 400);  // pump.00 from the producer, pump.01 from others
  const auto want = reference_matches({series[0]}, blip, true);
  ASSERT_GT(want.size(), 50u);
  auto cfg = base_config({"pump.00", "pump.01"}, blip);
  cfg.curve = curve_config(
      daemon, write_allowed(dir, "clients", {producer.keys.public_key, reader.keys.public_key}));
  CapturedLog log;
  service::Pipeline pipeline(cfg, log.logger());
  pipeline.start();
  const std::string pull = pipeline.ingest_endpoints().at(0);
  const std::string publish = pipeline.publish_endpoint();

  zmq::context_t peers;
  const auto reader_curve = client_of(reader, daemon), stranger_curve = client_of(stranger, daemon);
  Subscriber known(peers, publish, 0, -1, &reader_curve);
  Subscriber unknown(peers, publish, 0, -1, &stranger_curve);
  Subscriber plain(peers, publish);
  auto stranger_push =
      curve_client_socket(peers, zmq::socket_type::push, stranger.keys, daemon.keys.public_key);
  stranger_push.connect(pull);
  zmq::socket_t plain_push(peers, zmq::socket_type::push);
  plain_push.set(zmq::sockopt::linger, 0);
  plain_push.connect(pull);
  for (zmq::socket_t* s : {&stranger_push, &plain_push}) {
    s->send(zmq::str_buffer("pump.01"), zmq::send_flags::sndmore);
    s->send(zmq::buffer(stream::encode_frame(slice(series[1], 0, 100), false)),
            zmq::send_flags::none);
  }
  // Both sockets refuse the stranger; the reader gets in (its subscription follows).
  ASSERT_TRUE(step_until_done(pipeline, [&] {
    return auth_of(pipeline, "pull ").refused_key >= 1 &&
           auth_of(pipeline, "publish ").refused_key >= 1 &&
           auth_of(pipeline, "publish ").accepted >= 1;
  })) << log.joined();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));

  const auto producer_curve = client_of(producer, daemon);
  Producer push(peers, pull, &producer_curve);
  send_all(push, {series[0]}, 50);
  ASSERT_TRUE(step_until_done(pipeline, [&] {
    return pipeline.registry().snapshot().accepted_samples >= series[0].values.size();
  }));
  pipeline.shutdown();
  known.wait_for(want.size(), std::chrono::milliseconds(5000));
  unknown.wait_for(1, std::chrono::milliseconds(300));
  plain.wait_for(1, std::chrono::milliseconds(300));

  EXPECT_EQ(known.events.size(), want.size());
  EXPECT_TRUE(unknown.events.empty());
  EXPECT_TRUE(plain.events.empty());
  const auto snapshot = pipeline.metrics_snapshot();
  // Only the producer's samples: the stranger's and the plain client's never arrived.
  EXPECT_EQ(snapshot.ingest.accepted_samples, series[0].values.size());
  EXPECT_EQ(snapshot.ingest.rejected.total(), 0u);
  const auto pulled = auth_of(pipeline, "pull ");
  EXPECT_EQ(pulled.socket, "pull " + pull);
  EXPECT_EQ(pulled.accepted, 1u);
  const std::string metrics = service::render_metrics(snapshot);
  EXPECT_NE(metrics.find("warpwatch_auth_refused_total{socket=\"pull " + pull +
                         "\",reason=\"key\"} " + std::to_string(pulled.refused_key)),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find("warpwatch_auth_accepted_total{socket=\"publish " + publish + "\"} 1"),
            std::string::npos)
      << metrics;
  EXPECT_GE(log.count("authentication: pull " + pull + ": refused a connection from '127.0.0.1"),
            1u);
  EXPECT_GE(log.count(stranger.keys.public_key + " not in the allowed list"), 2u);  // both sockets
  EXPECT_EQ(log.count("CURVE on every ZeroMQ socket: the daemon's public key is " +
                      daemon.keys.public_key),
            1u);
}

// The test's own CURVE publisher, with a ZAP handler of its own that allows `allowed`.
struct CurvePublisher {
  CurvePublisher(const KeyFiles& keys, const std::vector<std::string>& allowed)
      : zap(context, allowed, nullptr), socket(context, zmq::socket_type::pub) {
    socket.set(zmq::sockopt::linger, 0);
    stream::apply_curve(socket, {.keys = keys.keys, .server_public_key = {}, .zap_domain = "pub"});
    socket.bind("tcp://127.0.0.1:*");
    endpoint = socket.get(zmq::sockopt::last_endpoint);
  }
  void send(const Series& s) {
    for (std::size_t i = 0; i < s.values.size(); i += 50) {
      socket.send(zmq::buffer(s.id), zmq::send_flags::sndmore);
      socket.send(zmq::buffer(stream::encode_frame(slice(s, i, 50), false)), zmq::send_flags::none);
    }
  }
  zmq::context_t context;
  stream::ZapHandler zap;
  zmq::socket_t socket;
  std::string endpoint;
};

config::DaemonConfig sub_config(const TempDir& dir, const KeyFiles& daemon,
                                const CurvePublisher& publisher, const KeyFiles& publisher_keys) {
  auto cfg = base_config({"pump.00"}, blip);
  cfg.curve = curve_config(daemon, write_allowed(dir, "clients", {daemon.keys.public_key}));
  plugins::in_sub::SubOptions sub;
  sub.endpoint = publisher.endpoint;
  sub.server_key = publisher_keys.keys.public_key;
  cfg.ingest.front() = plugins::source_entry(sub);
  return cfg;
}

TEST(CurveAuth, SubIngestIsAClientOfACurvePublisher) {
  const TempDir dir;
  const KeyFiles daemon = write_key_pair(dir, "daemon"), remote = write_key_pair(dir, "remote");
  CurvePublisher publisher(remote, {daemon.keys.public_key});
  CapturedLog log;
  service::Pipeline pipeline(sub_config(dir, daemon, publisher, remote), log.logger());
  pipeline.start();
  ASSERT_TRUE(step_until_done(pipeline, [&] { return !pipeline.unready(); }))
      << *pipeline.unready();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the subscription travels
  const auto series = frequent_series(1, 400);
  publisher.send(series[0]);
  EXPECT_TRUE(step_until_done(pipeline, [&] {
    return pipeline.registry().snapshot().accepted_samples == series[0].values.size();
  }));
  EXPECT_EQ(publisher.zap.counters().at(0).accepted, 1u);
}

TEST(CurveAuth, SubIngestGetsNothingFromAPublisherThatRefusesIt) {
  const TempDir dir;
  const KeyFiles daemon = write_key_pair(dir, "daemon"), remote = write_key_pair(dir, "remote");
  CurvePublisher publisher(remote, {stream::generate_curve_keypair().public_key});
  CapturedLog log;
  service::Pipeline pipeline(sub_config(dir, daemon, publisher, remote), log.logger());
  pipeline.start();
  ASSERT_TRUE(step_until_done(pipeline, [&] {
    const auto c = publisher.zap.counters();
    return !c.empty() && c[0].refused_key >= 1;
  }));
  publisher.send(frequent_series(1, 100)[0]);
  step_until(
      pipeline, [] { return false; }, std::chrono::milliseconds(300));
  EXPECT_EQ(pipeline.registry().snapshot().accepted_samples, 0u);
  EXPECT_TRUE(pipeline.unready().has_value());  // the sub source never connected
  EXPECT_EQ(publisher.zap.counters().at(0).accepted, 0u);
}

// The daemon from a file: a reload re-reads the allowed list; a bad list is refused whole.
TEST(CurveAuth, ReloadReReadsTheAllowedList) {
  const TempDir dir;
  const KeyFiles daemon = write_key_pair(dir, "daemon"), first = write_key_pair(dir, "first"),
                 second = write_key_pair(dir, "second");
  const std::string clients = write_allowed(dir, "clients", {first.keys.public_key});
  const std::string yaml =
      "streams: {auto_create: true}\n"
      "ingest: [{pull: 'tcp://127.0.0.1:*'}]\n"
      "publish: {endpoint: 'tcp://127.0.0.1:*'}\n"
      "curve:\n  secret_key_file: daemon.key\n"
      "  allowed_clients_file: clients\n";
  const std::string path = dir.write("warpwatch.yaml", yaml);
  CapturedLog log;
  service::Pipeline pipeline(warpwatch::plugins::load_daemon_config(path), log.logger());
  pipeline.start();
  const std::string pull = pipeline.ingest_endpoints().at(0);
  zmq::context_t peers;
  std::int64_t sent = 0;
  const auto send_one = [&](const KeyFiles& client) {
    auto push =
        curve_client_socket(peers, zmq::socket_type::push, client.keys, daemon.keys.public_key);
    push.connect(pull);
    push.send(zmq::str_buffer("s"), zmq::send_flags::sndmore);
    // One text sample, each a second after the one before (timestamps must increase).
    push.send(zmq::buffer(std::to_string(kT0 + 1'000'000'000 * ++sent) + ",1"),
              zmq::send_flags::none);
    return push;
  };
  auto refused = send_one(second);
  ASSERT_TRUE(step_until_done(pipeline, [&] { return auth_of(pipeline, "pull ").refused_key; }));
  refused.close();

  write_allowed(dir, "clients", {first.keys.public_key, second.keys.public_key});
  ASSERT_TRUE(pipeline.reload(path)) << log.joined();
  EXPECT_EQ(log.count("reload: 2 CURVE client key(s) allowed now"), 1u) << log.joined();
  auto accepted = send_one(second);
  ASSERT_TRUE(step_until_done(
      pipeline, [&] { return pipeline.registry().snapshot().accepted_samples == 1; }));

  dir.write("clients", first.keys.public_key + "\nnot a key\n");  // a bad file: refused
  EXPECT_FALSE(pipeline.reload(path));
  EXPECT_EQ(log.count("reload refused, keeping the running configuration"), 1u);
  auto still = send_one(second);  // the running list still allows the second key
  EXPECT_TRUE(step_until_done(
      pipeline, [&] { return pipeline.registry().snapshot().accepted_samples == 2; }));

  // A new key pair waits for a restart, and says so.
  write_key_pair(dir, "other");
  dir.write("clients", first.keys.public_key + "\n");
  dir.write("warpwatch.yaml", yaml.substr(0, yaml.find("daemon.key")) + "other.key\n" +
                                  "  allowed_clients_file: clients\n");
  ASSERT_TRUE(pipeline.reload(path));
  EXPECT_EQ(log.count("reload: 'curve.secret_key_file' changed in the file"), 1u) << log.joined();
}

TEST(CurveAuth, PlainSocketsBeyondLoopbackAreWarnedAbout) {
  EXPECT_TRUE(service::exposed_beyond_loopback("tcp://0.0.0.0:5555"));
  EXPECT_TRUE(service::exposed_beyond_loopback("tcp://192.168.1.5:5555"));
  EXPECT_TRUE(service::exposed_beyond_loopback("tcp://[::]:5555"));
  EXPECT_FALSE(service::exposed_beyond_loopback("tcp://127.0.0.1:5555"));
  EXPECT_FALSE(service::exposed_beyond_loopback("tcp://127.0.1.1:5555"));
  EXPECT_FALSE(service::exposed_beyond_loopback("tcp://[::1]:5555"));
  EXPECT_FALSE(service::exposed_beyond_loopback("ipc:///run/warpwatch/in"));

  CapturedLog log;
  auto cfg = base_config({"pump.00"}, blip);
  cfg.publish_endpoint = "tcp://0.0.0.0:*";
  service::Pipeline pipeline(cfg, log.logger());
  EXPECT_EQ(log.count("'publish tcp://0.0.0.0:"), 1u) << log.joined();
  EXPECT_EQ(log.count("is bound beyond loopback without CURVE"), 1u);  // not the loopback pull
}

}  // namespace
