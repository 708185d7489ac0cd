// The ZAP handler (stream/zap_handler.hpp) on real sockets over loopback: a CURVE PULL
// server in a context with the handler serves an allowed client only; an unknown key is
// refused, counted and logged (rate-limited), a plain client gets nowhere; and a CURVE
// server in a context without a handler refuses everyone (ZMQ_ZAP_ENFORCE_DOMAIN).
#include <gtest/gtest.h>

#include <zmq.hpp>

#include <chrono>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "curve_support.hpp"
#include "warpwatch/stream/sources/curve.hpp"
#include "warpwatch/stream/sources/zap_handler.hpp"

namespace {

using namespace warpwatch;
using namespace std::chrono_literals;
using warpwatch::testing::curve_client_socket;

struct Lines {
  std::mutex mu;
  std::vector<std::string> lines;
  stream::ZapHandler::Log log() {
    return [this](std::string_view line) {
      const std::lock_guard lock(mu);
      lines.emplace_back(line);
    };
  }
  std::vector<std::string> taken() {
    const std::lock_guard lock(mu);
    return lines;
  }
};

// A CURVE PULL server bound on a loopback port.
struct Server {
  Server(zmq::context_t& context, const stream::CurveKeyPair& keys)
      : socket(context, zmq::socket_type::pull) {
    socket.set(zmq::sockopt::linger, 0);
    stream::apply_curve(socket, {.keys = keys, .server_public_key = {}, .zap_domain = "pull"});
    socket.bind("tcp://127.0.0.1:*");
    endpoint = socket.get(zmq::sockopt::last_endpoint);
  }
  // The messages that arrive within `limit`.
  std::vector<std::string> receive(std::chrono::milliseconds limit) {
    std::vector<std::string> got;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < deadline) {
      zmq::pollitem_t item{socket.handle(), 0, ZMQ_POLLIN, 0};
      zmq::poll(&item, 1, 20ms);
      zmq::message_t m;
      while (socket.recv(m, zmq::recv_flags::dontwait)) got.push_back(m.to_string());
    }
    return got;
  }
  zmq::socket_t socket;
  std::string endpoint;
};

// Sends `text` from `push` (connected to `endpoint`) without waiting for a peer.
void send_from(zmq::socket_t& push, const std::string& endpoint, const std::string& text) {
  push.connect(endpoint);
  (void)push.send(zmq::buffer(text), zmq::send_flags::dontwait);
}

// Waits (at most 5 s) until `done` holds.
template <class Done>
bool eventually(Done done) {
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(10ms);
  return done();
}

TEST(ZapHandler, ServesAllowedKeysAndRefusesAndCountsTheRest) {
  const auto server_keys = stream::generate_curve_keypair();
  const auto known = stream::generate_curve_keypair();
  const auto unknown = stream::generate_curve_keypair();
  zmq::context_t context;
  Lines log;
  stream::ZapHandler zap(context, {known.public_key}, log.log(), 1h);
  Server server(context, server_keys);
  zap.name_domain("pull", "pull " + server.endpoint);
  zmq::context_t clients;  // the peers: another context, as another process would be

  auto stranger =
      curve_client_socket(clients, zmq::socket_type::push, unknown, server_keys.public_key);
  send_from(stranger, server.endpoint, "from a stranger");
  zmq::socket_t plain(clients, zmq::socket_type::push);
  plain.set(zmq::sockopt::linger, 0);
  send_from(plain, server.endpoint, "plain");
  ASSERT_TRUE(eventually([&] {
    const auto c = zap.counters();
    return c.size() == 1 && c[0].refused_key >= 1;
  }));
  auto friend_ =
      curve_client_socket(clients, zmq::socket_type::push, known, server_keys.public_key);
  send_from(friend_, server.endpoint, "from a friend");

  EXPECT_EQ(server.receive(1s), std::vector<std::string>{"from a friend"});
  const auto counters = zap.counters();
  ASSERT_EQ(counters.size(), 1u);
  EXPECT_EQ(counters[0].socket, "pull " + server.endpoint);
  EXPECT_EQ(counters[0].accepted, 1u);
  // libzmq retries a refused peer's handshake on its reconnect timer: one or more refusals.
  EXPECT_GE(counters[0].refused_key, 1u);
  // A plain client fails at the greeting (mechanism mismatch), before ZAP is asked.
  EXPECT_EQ(counters[0].refused_mechanism, 0u);
  const auto lines = log.taken();
  ASSERT_EQ(lines.size(), 1u);  // the rest of the refusals are held back for an hour
  EXPECT_NE(lines[0].find("pull " + server.endpoint + ": refused a connection from '127.0.0.1"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("key " + unknown.public_key + " not in the allowed list"),
            std::string::npos)
      << lines[0];
}

TEST(ZapHandler, RateLimitedLinesCountWhatTheyHeldBack) {
  const auto server_keys = stream::generate_curve_keypair();
  zmq::context_t context, clients;
  Lines log;
  stream::ZapHandler zap(context, {stream::generate_curve_keypair().public_key}, log.log(), 300ms);
  Server server(context, server_keys);
  zap.name_domain("pull", "pull");
  std::vector<zmq::socket_t> strangers;
  for (int i = 0; i < 3; ++i) {
    strangers.push_back(curve_client_socket(
        clients, zmq::socket_type::push, stream::generate_curve_keypair(), server_keys.public_key));
    send_from(strangers.back(), server.endpoint, "x");
  }
  ASSERT_TRUE(eventually([&] { return zap.counters().at(0).refused_key >= 3; }));
  std::this_thread::sleep_for(350ms);  // the interval passes; the next refusal is logged
  strangers.push_back(curve_client_socket(
      clients, zmq::socket_type::push, stream::generate_curve_keypair(), server_keys.public_key));
  send_from(strangers.back(), server.endpoint, "x");
  ASSERT_TRUE(eventually([&] { return log.taken().size() >= 2; }));
  const auto lines = log.taken();
  EXPECT_EQ(lines[0].find("more refused"), std::string::npos);
  EXPECT_NE(lines[1].find("more refused since the last line)"), std::string::npos) << lines[1];
  EXPECT_TRUE(server.receive(100ms).empty());
}

TEST(ZapHandler, ReplacedListAppliesToNewConnections) {
  const auto server_keys = stream::generate_curve_keypair();
  const auto later = stream::generate_curve_keypair();
  zmq::context_t context, clients;
  stream::ZapHandler zap(context, {}, nullptr);
  EXPECT_EQ(zap.allowed_count(), 0u);
  Server server(context, server_keys);
  zap.name_domain("pull", "pull");
  auto early = curve_client_socket(clients, zmq::socket_type::push, later, server_keys.public_key);
  send_from(early, server.endpoint, "too early");
  ASSERT_TRUE(eventually([&] { return zap.counters().at(0).refused_key >= 1; }));
  early.close();
  zap.set_allowed({later.public_key});
  EXPECT_EQ(zap.allowed_count(), 1u);
  auto again = curve_client_socket(clients, zmq::socket_type::push, later, server_keys.public_key);
  send_from(again, server.endpoint, "welcome");
  EXPECT_EQ(server.receive(1s), std::vector<std::string>{"welcome"});
  EXPECT_THROW(zap.set_allowed({"not a key"}), std::invalid_argument);
  EXPECT_EQ(zap.allowed_count(), 1u);  // a bad list changes nothing
}

TEST(ZapHandler, WithoutAHandlerACurveServerAcceptsNoOne) {
  const auto server_keys = stream::generate_curve_keypair();
  zmq::context_t context, clients;
  Server server(context, server_keys);  // no ZapHandler in `context`
  auto client = curve_client_socket(clients, zmq::socket_type::push,
                                    stream::generate_curve_keypair(), server_keys.public_key);
  send_from(client, server.endpoint, "unchecked");
  EXPECT_TRUE(server.receive(500ms).empty());
}

TEST(ZapHandler, OneHandlerPerContext) {
  zmq::context_t context;
  const stream::ZapHandler first(context, {}, nullptr);
  EXPECT_THROW(stream::ZapHandler(context, {}, nullptr), std::runtime_error);
}

}  // namespace
