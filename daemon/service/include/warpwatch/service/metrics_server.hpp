// The HTTP side of monitoring: GET /metrics (Prometheus text exposition format), GET
// /healthz (alive) and GET /readyz (ready to take input), served with Boost.Beast on Asio (two
// threads of its own). Not CivetWeb, which prometheus-cpp's Exposer wraps: its stop waits out a
// poll period (1-2 s added to every daemon exit); an io_context stops at once.
//
// The server knows nothing about the daemon: it asks its callbacks on every request,
// from its own threads, so they must be thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "warpwatch/service/logging.hpp"

namespace warpwatch::service {

struct MetricsCallbacks {
  std::function<std::string()> metrics;                   // the /metrics body
  std::function<std::optional<std::string>()> unhealthy;  // nullopt = healthy, else why
  std::function<std::optional<std::string>()> unready;    // nullopt = ready, else why
};

class MetricsServer {
 public:
  // Listens on `listen` ("host:port" with an IP address, "localhost", or "" / "*" for
  // every address; port 0 picks a free one, see port()). Throws std::runtime_error naming
  // the address when it cannot listen.
  MetricsServer(const std::string& listen, MetricsCallbacks callbacks, Logger log);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The port actually listened on.
  int port() const { return port_; }

 private:
  class Session;
  struct Io;  // Asio's io_context, acceptor and threads
  void accept();

  MetricsCallbacks callbacks_;
  Logger log_;
  std::unique_ptr<Io> io_;
  int port_ = 0;
};

}  // namespace warpwatch::service
