// http_post: resolve, connect, write, read as a chain of Asio operations on a private
// io_context, cut short by closing the socket once the deadline (or the cutoff) passes.
#include "warpwatch/alerting/http_post.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <algorithm>
#include <cctype>
#include <memory>

namespace warpwatch::alerting {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

// How often the cutoff is looked at while a request is under way.
constexpr std::chrono::milliseconds cutoff_poll{20};
// An answer's body is only logged: a receiver that sends more is not read further.
constexpr std::size_t answer_body_limit = 64 * 1024;
constexpr std::size_t logged_body_bytes = 512;

// One request's state; its handlers run on the io_context's one thread (the caller's).
struct Exchange {
  Exchange(asio::io_context& io, http::request<http::string_body> r)
      : resolver(io), socket(io), request(std::move(r)) {
    parser.body_limit(answer_body_limit);
  }

  // The first error wins: the ones that closing the socket causes say nothing new.
  void fail(std::string what) {
    if (outcome.error.empty() && outcome.status == 0) outcome.error = std::move(what);
    close();
  }
  void close() {
    resolver.cancel();
    beast::error_code ignored;
    socket.shutdown(tcp::socket::shutdown_both, ignored);
    socket.close(ignored);
  }

  tcp::resolver resolver;
  tcp::socket socket;
  http::request<http::string_body> request;
  beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  HttpOutcome outcome;
};

void start(Exchange& x, const config::HttpUrl& url) {
  const auto failed = [&x](const char* step, const beast::error_code& ec) {
    x.fail(std::string(step) + ": " + ec.message());
  };
  x.resolver.async_resolve(
      url.host, std::to_string(url.port),
      [&x, failed](const beast::error_code& ec, const tcp::resolver::results_type& results) {
        if (ec) return failed("resolve", ec);
        asio::async_connect(
            x.socket, results, [&x, failed](const beast::error_code& ec, const auto&) {
              if (ec) return failed("connect", ec);
              http::async_write(
                  x.socket, x.request, [&x, failed](const beast::error_code& ec, auto) {
                    if (ec) return failed("send", ec);
                    http::async_read(
                        x.socket, x.buffer, x.parser,
                        [&x, failed](const beast::error_code& ec, auto) {
                          // A status line read is an answer even when the body was cut.
                          if (x.parser.is_header_done()) {
                            x.outcome.status = static_cast<int>(x.parser.get().result_int());
                            std::string& body = x.outcome.body;
                            body = x.parser.get().body().substr(0, logged_body_bytes);
                            while (!body.empty() &&
                                   std::isspace(static_cast<unsigned char>(body.back())))
                              body.pop_back();  // one log line
                            x.close();
                          } else if (ec) {
                            failed("answer", ec);
                          }
                        });
                  });
            });
      });
}

}  // namespace

HttpOutcome http_post(const config::HttpUrl& url, const std::string& target,
                      const HttpHeaders& headers, const std::string& body,
                      Clock::time_point deadline, const std::atomic<Clock::rep>& cutoff) {
  http::request<http::string_body> request{http::verb::post, target, 11};
  request.set(http::field::host, url.authority());
  request.set(http::field::connection, "close");
  request.set(http::field::content_type, "application/json");
  for (const auto& [name, value] : headers) request.set(name, value);
  request.body() = body;
  request.prepare_payload();

  asio::io_context io;
  Exchange x(io, std::move(request));
  start(x, url);
  const auto began = Clock::now();
  while (!io.stopped()) {
    const auto now = Clock::now();
    const Clock::time_point cut{Clock::duration(cutoff.load(std::memory_order_relaxed))};
    if (now >= deadline || now >= cut) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(now - began);
      x.fail(now >= deadline ? "timed out after " + std::to_string(spent.count()) + " ms"
                             : std::string("stopped: the sink is shutting down"));
      io.run();  // the closed socket's operations end at once, aborted
      break;
    }
    io.run_one_until(std::min({deadline, cut, now + cutoff_poll}));
  }
  return std::move(x.outcome);
}

}  // namespace warpwatch::alerting
