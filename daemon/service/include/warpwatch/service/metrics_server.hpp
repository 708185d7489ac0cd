// The HTTP side of monitoring: GET /metrics (Prometheus text exposition format) and
// GET /healthz, served by CivetWeb (the HTTP server prometheus-cpp's Exposer wraps;
// Exposer itself can serve only collectables, not a /healthz that answers 503).
//
// The server knows nothing about the daemon: it asks its two callbacks on every request,
// from CivetWeb's worker threads, so they must be thread-safe.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "warpwatch/service/logging.hpp"

class CivetServer;

namespace warpwatch::service {

struct MetricsCallbacks {
  std::function<std::string()> metrics;                   // the /metrics body
  std::function<std::optional<std::string>()> unhealthy;  // nullopt = healthy, else why
};

class MetricsServer {
 public:
  // Listens on `listen` ("host:port"; port 0 picks a free one, see port()). Throws
  // std::runtime_error naming the address when it cannot listen.
  MetricsServer(const std::string& listen, MetricsCallbacks callbacks, Logger log);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // The port actually listened on.
  int port() const { return port_; }

 private:
  class Handler;
  MetricsCallbacks callbacks_;
  Logger log_;
  std::unique_ptr<Handler> metrics_handler_, health_handler_;
  std::unique_ptr<CivetServer> server_;  // declared last: stopped before the handlers go
  int port_ = 0;
};

}  // namespace warpwatch::service
