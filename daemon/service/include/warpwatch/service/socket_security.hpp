// CURVE for warpwatchd's ZeroMQ sockets (docs/operations.md §6): the ZAP
// handler of the pipeline's context, each socket's CURVE settings, the allowed clients'
// reloads, and a warning for a socket bound beyond loopback without CURVE.
#pragma once

#include <zmq.hpp>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/stream/sources/curve.hpp"
#include "warpwatch/stream/sources/zap_handler.hpp"

namespace warpwatch::service {

class SocketSecurity {
 public:
  // With `curve` on: requires a libzmq with CURVE (std::runtime_error saying so), starts the
  // ZAP handler in `context` (before any socket of it binds: none is accepted unchecked)
  // and logs the daemon's public key. `context` must outlive this object, and the sockets
  // it secured must be closed before it goes (from then on they would accept no one).
  SocketSecurity(zmq::context_t& context, const config::CurveConfig& curve, Logger log);

  bool enabled() const { return zap_ != nullptr; }
  // A bound socket's settings (a CURVE server checked under ZAP domain `domain`); nullopt
  // when CURVE is off.
  std::optional<stream::CurveSocketOptions> server(const std::string& domain) const;
  // A `sub` entry's settings (a client of the publisher whose public key, Z85, is
  // `server_key`); nullopt when CURVE is off.
  std::optional<stream::CurveSocketOptions> client(const std::string& server_key) const;
  // After a socket bound `endpoint`: with CURVE, `name` is what the counters and the log
  // call its domain; without, a warning when it is a tcp address beyond loopback.
  void bound(const std::string& domain, const std::string& name, const std::string& endpoint);
  // A reload: applies `next`'s allowed clients when CURVE is on (a bad file never gets
  // here: the reload is refused as a whole). Enabling or disabling CURVE, or another key,
  // waits for a restart (config::startup_options_changed names them).
  void reload(const config::CurveConfig& next);
  // Per bound socket; empty when CURVE is off.
  std::vector<stream::ZapCounters> counters() const;

 private:
  config::CurveConfig curve_;
  Logger log_;
  std::unique_ptr<stream::ZapHandler> zap_;
};

// Whether a bound tcp endpoint ("tcp://127.0.0.1:5555", as ZMQ_LAST_ENDPOINT writes it)
// is reachable beyond this host: any tcp address but 127.0.0.0/8 and ::1.
bool exposed_beyond_loopback(const std::string& endpoint);

}  // namespace warpwatch::service
