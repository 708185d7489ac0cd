// The sockets of the HTTP server: Boost.Beast on Asio, plain or TLS (boost::asio::ssl on
// OpenSSL), keep-alive, the limits; each request goes to Server::handle (router.cpp).
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <atomic>
#include <thread>
#include <utility>

#include "warpwatch/service/http_server.hpp"
#include "warpwatch/stream/socket_address.hpp"

namespace warpwatch::service::http {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = beast::http;
namespace ssl = asio::ssl;
using tcp = asio::ip::tcp;

// The server's threads: a scrape, a probe and an API call are answered at once, also while
// a POST /api/v1/learn and a /backtest (one of each at most, job_routes.cpp) hold one each.
constexpr int server_threads = 4;

}  // namespace

struct Server::Io {
  asio::io_context context;
  tcp::acceptor acceptor{context};
  std::optional<ssl::context> tls;
  std::atomic<std::size_t> connections{0};  // sessions open now
  std::vector<std::thread> threads;
};

// One connection: (TLS handshake,) requests read and answered in turn while the client keeps
// it alive. A session over http.max_connections reads one request, answers 503 with
// Retry-After and closes.
template <class Stream>
class Server::Session : public std::enable_shared_from_this<Session<Stream>> {
 public:
  Session(Stream stream, const Server& server, bool over_cap)
      : stream_(std::move(stream)), server_(server), over_cap_(over_cap) {}
  ~Session() { --server_.io_->connections; }

  void start() {
    if constexpr (tls) {
      lowest().expires_after(server_.config_.timeout);
      stream_.async_handshake(ssl::stream_base::server,
                              [self = this->shared_from_this()](beast::error_code ec) {
                                if (!ec) self->read();  // plain HTTP to a TLS port ends here
                              });
    } else {
      read();
    }
  }

 private:
  static constexpr bool tls = !std::is_same_v<Stream, beast::tcp_stream>;

  beast::tcp_stream& lowest() { return beast::get_lowest_layer(stream_); }

  void read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(server_.config_.max_header_bytes));
    parser_->body_limit(server_.config_.max_body_bytes);
    lowest().expires_after(server_.config_.timeout);
    bhttp::async_read(stream_, buffer_, *parser_,
                      [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
                        self->on_read(ec);
                      });
  }

  void on_read(beast::error_code ec) {
    if (ec == bhttp::error::header_limit)
      return respond(problem(431, "the request's line and headers exceed http.max_header_bytes (" +
                                      std::to_string(server_.config_.max_header_bytes) + ")"),
                     false);
    if (ec == bhttp::error::body_limit)
      return respond(problem(413, "the request's body exceeds http.max_body_bytes (" +
                                      std::to_string(server_.config_.max_body_bytes) + ")"),
                     false);
    if (ec) return close();  // the client left, timed out or sent no HTTP
    const auto& message = parser_->get();
    if (over_cap_) {
      Response r = problem(503, "the server is serving http.max_connections (" +
                                    std::to_string(server_.config_.max_connections) +
                                    ") connections; try again");
      r.headers.emplace_back("Retry-After", "1");
      return respond(std::move(r), false);
    }
    Request request;
    request.method = std::string(message.method_string());
    request.path = std::string(message.target());
    for (const auto& field : message) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      request.headers[name] = std::string(field.value());
    }
    request.body = message.body();
    head_ = message.method() == bhttp::verb::head;
    version_ = message.version();
    respond(server_.handle(request), message.keep_alive());
  }

  void respond(Response r, bool keep_alive) {
    response_ = {};
    response_.version(version_);
    response_.result(static_cast<unsigned>(r.status));
    response_.set(bhttp::field::content_type, r.content_type);
    response_.set(bhttp::field::cache_control, "no-cache");
    for (auto& [name, value] : r.headers) response_.set(name, value);
    response_.keep_alive(keep_alive);
    response_.body() = std::move(r.body);
    response_.prepare_payload();
    if (head_) response_.body().clear();  // Content-Length stays the GET's
    lowest().expires_after(server_.config_.timeout);
    bhttp::async_write(
        stream_, response_,
        [self = this->shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
          if (!ec && keep_alive) return self->read();
          self->close();
        });
  }

  void close() {
    if constexpr (tls) {
      lowest().expires_after(std::chrono::seconds(1));
      stream_.async_shutdown([self = this->shared_from_this()](beast::error_code) {});
    } else {
      beast::error_code ignored;
      stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  }

  Stream stream_;
  const Server& server_;
  bool over_cap_;
  bool head_ = false;
  unsigned version_ = 11;
  beast::flat_buffer buffer_;
  std::optional<bhttp::request_parser<bhttp::string_body>> parser_;
  bhttp::response<bhttp::string_body> response_;
};

Server::Server(const config::HttpConfig& config, Router router, Logger log)
    : config_(config),
      router_(std::move(router)),
      log_(log ? std::move(log) : stderr_logger()),
      tokens_(config.tokens),
      io_(std::make_unique<Io>()) {
  if (config_.tls()) {
    io_->tls.emplace(ssl::context::tls_server);
    io_->tls->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                          ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
                          ssl::context::no_tlsv1_1);
    try {
      io_->tls->use_certificate_chain_file(config_.tls_cert_file);
    } catch (const std::exception& e) {
      throw std::runtime_error("http.tls.cert_file '" + config_.tls_cert_file + "': " + e.what());
    }
    try {
      io_->tls->use_private_key_file(config_.tls_key_file, ssl::context::pem);
    } catch (const std::exception& e) {
      throw std::runtime_error("http.tls.key_file '" + config_.tls_key_file + "': " + e.what());
    }
  }
  try {
    const auto [address, port] = stream::parse_socket_address(config_.listen);
    const tcp::endpoint endpoint(address, port);
    io_->acceptor.open(endpoint.protocol());
    io_->acceptor.set_option(asio::socket_base::reuse_address(true));
    io_->acceptor.bind(endpoint);
    io_->acceptor.listen();
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot serve HTTP on '" + config_.listen + "': " + e.what());
  }
  port_ = io_->acceptor.local_endpoint().port();
  accept();
  for (int i = 0; i < server_threads; ++i)
    io_->threads.emplace_back([this] { io_->context.run(); });
}

Server::~Server() {
  // Stops at once: pending accepts, reads and writes are abandoned with their sockets.
  io_->context.stop();
  for (auto& t : io_->threads) t.join();
}

void Server::accept() {
  io_->acceptor.async_accept(
      asio::make_strand(io_->context), [this](beast::error_code ec, tcp::socket socket) {
        if (ec == asio::error::operation_aborted) return;
        if (!ec) {
          const bool over = ++io_->connections > config_.max_connections;
          beast::tcp_stream plain(std::move(socket));
          if (io_->tls)
            std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(
                beast::ssl_stream<beast::tcp_stream>(std::move(plain), *io_->tls), *this, over)
                ->start();
          else
            std::make_shared<Session<beast::tcp_stream>>(std::move(plain), *this, over)->start();
        }
        accept();
      });
}

}  // namespace warpwatch::service::http
