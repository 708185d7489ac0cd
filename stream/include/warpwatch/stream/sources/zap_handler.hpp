// The ZAP handler (ZeroMQ's RFC 27) of a ZeroMQ context: which CURVE clients the context's
// server sockets accept. libzmq asks it, at inproc://zeromq.zap.01, about every CURVE
// handshake on a server socket, naming the socket's ZAP domain, the peer's address and the
// public key the peer proved it holds; it answers 200 for a key of the allowed list and 400
// for any other (and for any mechanism but CURVE). Without a handler libzmq would accept
// every CURVE client: server sockets also set ZMQ_ZAP_ENFORCE_DOMAIN (curve.hpp), so that
// they accept no one once the handler is gone.
//
// Every answer is counted per domain (named with name_domain, e.g. "pull tcp://...:5555"),
// and refusals are logged: at most one line per domain every `log_interval`, the refusals
// in between counted in the next line. The peer's address is escaped (stream::quoted), its
// key printed in Z85 (printable by construction).
//
// Thread model: one thread of its own answers; set_allowed, name_domain and counters may be
// called from any thread.
#pragma once

#include <zmq.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace warpwatch::stream {

// One server socket's answers.
struct ZapCounters {
  std::string socket;                   // the domain's name (name_domain), else the domain
  std::uint64_t accepted = 0;           // handshakes of an allowed key
  std::uint64_t refused_key = 0;        // CURVE handshakes of a key not in the list
  std::uint64_t refused_mechanism = 0;  // handshakes of another mechanism (NULL, PLAIN)
};

class ZapHandler {
 public:
  using Log = std::function<void(std::string_view line)>;

  // Binds inproc://zeromq.zap.01 in `context` (which must outlive the handler) now, so that
  // the server sockets made after it are answered from their first handshake, and starts
  // answering. `allowed` holds Z85 public keys (std::invalid_argument for one that is not).
  // std::runtime_error when the context has a handler already.
  ZapHandler(zmq::context_t& context, const std::vector<std::string>& allowed, Log log,
             std::chrono::milliseconds log_interval = std::chrono::seconds(10));
  ~ZapHandler();  // stops answering: from then on the context's CURVE servers accept no one
  ZapHandler(const ZapHandler&) = delete;
  ZapHandler& operator=(const ZapHandler&) = delete;

  // Replaces the allowed list (a reload); connections made before keep going.
  void set_allowed(const std::vector<std::string>& allowed);
  std::size_t allowed_count() const;
  // What the counters and the log call the socket whose ZAP domain is `domain`.
  void name_domain(const std::string& domain, std::string name);
  // One entry per named domain and per other domain that was asked about, by domain.
  std::vector<ZapCounters> counters() const;

 private:
  struct Domain {
    ZapCounters counters;
    std::chrono::steady_clock::time_point last_line{};
    bool logged = false;
    std::uint64_t unlogged = 0;  // refusals since the last line
  };
  void run(std::stop_token stop);
  // The reply to one request (RFC 27): version, request id, status code and text, user id
  // (the client's key in Z85 when accepted), metadata.
  std::vector<std::string> answer(const std::vector<zmq::message_t>& request);
  // The refusal's log line, or "" when the rate limit holds it back; called under mu_.
  std::string refusal_line(Domain& domain, std::string_view address, std::string_view why);

  zmq::socket_t socket_;
  Log log_;
  std::chrono::milliseconds log_interval_;
  mutable std::mutex mu_;
  std::set<std::string, std::less<>> allowed_;  // 32-byte binary keys
  std::map<std::string, Domain, std::less<>> domains_;
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

}  // namespace warpwatch::stream
