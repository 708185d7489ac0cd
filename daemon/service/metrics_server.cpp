#include "warpwatch/service/metrics_server.hpp"

#include <CivetServer.h>

#include <stdexcept>
#include <utility>

namespace warpwatch::service {
namespace {

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

void respond(mg_connection* connection, int status, const char* content_type,
             const std::string& body) {
  mg_response_header_start(connection, status);
  mg_response_header_add(connection, "Content-Type", content_type, -1);
  mg_response_header_add(connection, "Content-Length", std::to_string(body.size()).c_str(), -1);
  mg_response_header_add(connection, "Cache-Control", "no-cache", -1);
  mg_response_header_send(connection);
  mg_write(connection, body.data(), body.size());
}

}  // namespace

// One GET handler; anything that throws becomes a 500 with the reason, never a dead
// worker thread.
class MetricsServer::Handler final : public CivetHandler {
 public:
  using Respond = std::function<void(mg_connection*)>;
  Handler(Respond respond, const Logger& log) : respond_(std::move(respond)), log_(log) {}

  bool handleGet(CivetServer*, mg_connection* connection) override {
    try {
      respond_(connection);
    } catch (const std::exception& e) {
      log_->error("metrics endpoint: {}", e.what());
      respond(connection, 500, "text/plain", std::string("error: ") + e.what() + "\n");
    }
    return true;
  }

 private:
  Respond respond_;
  const Logger& log_;
};

MetricsServer::MetricsServer(const std::string& listen, MetricsCallbacks callbacks, Logger log)
    : callbacks_(std::move(callbacks)), log_(log ? std::move(log) : stderr_logger()) {
  metrics_handler_ = std::make_unique<Handler>(
      [this](mg_connection* c) { respond(c, 200, metrics_content_type, callbacks_.metrics()); },
      log_);
  health_handler_ = std::make_unique<Handler>(
      [this](mg_connection* c) {
        if (const auto why = callbacks_.unhealthy())
          respond(c, 503, "text/plain; charset=utf-8", *why + "\n");
        else
          respond(c, 200, "text/plain; charset=utf-8", "ok\n");
      },
      log_);
  // Two workers: a scrape and a health probe at once; nothing else is served.
  const std::vector<std::string> options{"listening_ports", listen, "num_threads", "2"};
  try {
    server_ = std::make_unique<CivetServer>(options);
  } catch (const CivetException& e) {
    throw std::runtime_error("cannot serve metrics on '" + listen + "': " + e.what());
  }
  server_->addHandler("/metrics", *metrics_handler_);
  server_->addHandler("/healthz", *health_handler_);
  const std::vector<int> ports = server_->getListeningPorts();
  port_ = ports.empty() ? 0 : ports.front();
}

MetricsServer::~MetricsServer() = default;

}  // namespace warpwatch::service
