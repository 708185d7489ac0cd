#include "warpwatch/service/metrics_server.hpp"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "warpwatch/stream/socket_address.hpp"

namespace warpwatch::service {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// Prometheus' text exposition format, version 0.0.4.
constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";
// A client gets this long to send its request and read the answer: a stalled client
// holds one connection, never a thread, and never delays the daemon's exit.
constexpr std::chrono::seconds client_timeout{10};

}  // namespace

// One connection: read a request, answer it, close (Connection: close; a scrape every
// few seconds gains nothing from keep-alive).
class MetricsServer::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(tcp::socket socket, MetricsServer& server)
      : stream_(std::move(socket)), server_(server) {}

  void start() {
    stream_.expires_after(client_timeout);
    http::async_read(stream_, buffer_, request_,
                     [self = shared_from_this()](beast::error_code ec, std::size_t) {
                       if (!ec) self->respond();
                     });
  }

 private:
  void respond() {
    response_.version(request_.version());
    response_.keep_alive(false);
    response_.set(http::field::cache_control, "no-cache");
    const std::string target(request_.target());
    try {
      if (request_.method() != http::verb::get && request_.method() != http::verb::head) {
        reply(http::status::method_not_allowed, "text/plain", "only GET\n");
      } else if (target == "/metrics") {
        reply(http::status::ok, metrics_content_type, server_.callbacks_.metrics());
      } else if (target == "/healthz") {
        reply_state(server_.callbacks_.unhealthy(), "ok");
      } else if (target == "/readyz") {
        reply_state(server_.callbacks_.unready(), "ready");
      } else {
        reply(http::status::not_found, "text/plain", "not found\n");
      }
    } catch (const std::exception& e) {  // a failed callback is a 500, never a dead thread
      server_.log_->error("metrics endpoint: {}", e.what());
      reply(http::status::internal_server_error, "text/plain",
            std::string("error: ") + e.what() + "\n");
    }
    if (request_.method() == http::verb::head) response_.body().clear();
    http::async_write(stream_, response_,
                      [self = shared_from_this()](beast::error_code, std::size_t) {
                        beast::error_code ignored;
                        self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                      });
  }

  // 200 with `fine`, or 503 with the reason.
  void reply_state(const std::optional<std::string>& why_not, const char* fine) {
    reply(why_not ? http::status::service_unavailable : http::status::ok,
          "text/plain; charset=utf-8", (why_not ? *why_not : std::string(fine)) + "\n");
  }

  void reply(http::status status, const char* content_type, std::string body) {
    response_.result(status);
    response_.set(http::field::content_type, content_type);
    response_.body() = std::move(body);
    response_.prepare_payload();
  }

  beast::tcp_stream stream_;
  MetricsServer& server_;
  beast::flat_buffer buffer_;
  http::request<http::empty_body> request_;
  http::response<http::string_body> response_;
};

struct MetricsServer::Io {
  asio::io_context context;
  tcp::acceptor acceptor{context};
  std::vector<std::thread> threads;
};

MetricsServer::MetricsServer(const std::string& listen, MetricsCallbacks callbacks, Logger log)
    : callbacks_(std::move(callbacks)),
      log_(log ? std::move(log) : stderr_logger()),
      io_(std::make_unique<Io>()) {
  try {
    const auto [address, port] = stream::parse_socket_address(listen);
    const tcp::endpoint endpoint(address, port);
    io_->acceptor.open(endpoint.protocol());
    io_->acceptor.set_option(asio::socket_base::reuse_address(true));
    io_->acceptor.bind(endpoint);
    io_->acceptor.listen();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot serve metrics on '" + listen + "': " + e.what());
  }
  port_ = io_->acceptor.local_endpoint().port();
  accept();
  // Two threads: a scrape and a health probe are answered at once.
  for (int i = 0; i < 2; ++i) io_->threads.emplace_back([this] { io_->context.run(); });
}

MetricsServer::~MetricsServer() {
  // Stops at once: pending accepts, reads and writes are abandoned with their sockets.
  io_->context.stop();
  for (auto& t : io_->threads) t.join();
}

void MetricsServer::accept() {
  io_->acceptor.async_accept(asio::make_strand(io_->context),
                             [this](beast::error_code ec, tcp::socket s) {
                               if (ec == asio::error::operation_aborted) return;
                               if (!ec) std::make_shared<Session>(std::move(s), *this)->start();
                               accept();
                             });
}

}  // namespace warpwatch::service
