// A real HTTP server on 127.0.0.1 for the alert sink tests (Boost.Beast on Asio, a thread
// of its own, a port of the system's choosing): records every request, and answers each
// as its policy says, or holds it unanswered (a stalled receiver) until release().
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace warpwatch::testing {

struct ReceivedRequest {
  std::string method, target, body;
  std::map<std::string, std::string> headers;  // names in lower case
  std::chrono::steady_clock::time_point at;    // when it was read
};

class HttpReceiver {
 public:
  // The status to answer request number `index` (0-based) with; nullopt holds it unanswered.
  using Policy = std::function<std::optional<int>(const ReceivedRequest&, std::size_t index)>;

  // Policies: every request answered 200; every request held.
  static std::optional<int> answer_ok(const ReceivedRequest&, std::size_t) { return 200; }
  static std::optional<int> hold(const ReceivedRequest&, std::size_t) { return std::nullopt; }

  explicit HttpReceiver(Policy policy = answer_ok) : policy_(std::move(policy)) {
    namespace asio = boost::asio;
    acceptor_.open(asio::ip::tcp::v4());
    acceptor_.bind({asio::ip::address_v4::loopback(), 0});
    acceptor_.listen();
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~HttpReceiver() {
    io_.stop();
    thread_.join();
  }
  HttpReceiver(const HttpReceiver&) = delete;
  HttpReceiver& operator=(const HttpReceiver&) = delete;

  int port() const { return acceptor_.local_endpoint().port(); }
  std::string url(const std::string& target = "/") const {
    return "http://127.0.0.1:" + std::to_string(port()) + target;
  }

  std::vector<ReceivedRequest> requests() const {
    const std::lock_guard lock(mu_);
    return requests_;
  }
  // The requests once at least `n` arrived, or those that did after `limit`.
  std::vector<ReceivedRequest> wait_for(std::size_t n, std::chrono::milliseconds limit) const {
    std::unique_lock lock(mu_);
    arrived_.wait_for(lock, limit, [&] { return requests_.size() >= n; });
    return requests_;
  }

  // From now on requests are answered by `policy`; those held so far get `status`.
  void release(int status, Policy policy) {
    {
      const std::lock_guard lock(mu_);
      policy_ = std::move(policy);
    }
    boost::asio::post(io_, [this, status] {
      for (auto& session : held_) session->answer(status);
      held_.clear();
    });
  }

 private:
  class Session : public std::enable_shared_from_this<Session> {
   public:
    Session(boost::asio::ip::tcp::socket socket, HttpReceiver& owner)
        : stream_(std::move(socket)), owner_(owner) {
      parser_.body_limit(64 << 20);
    }
    void start() {
      boost::beast::http::async_read(
          stream_, buffer_, parser_,
          [self = shared_from_this()](boost::beast::error_code ec, std::size_t) {
            if (!ec) self->owner_.received(self, self->parser_.get());
          });
    }
    void answer(int status) {
      namespace http = boost::beast::http;
      response_.result(static_cast<http::status>(status));
      response_.keep_alive(false);
      response_.set(http::field::content_type, "text/plain");
      response_.body() = status < 300 ? "" : "receiver says " + std::to_string(status) + "\n";
      response_.prepare_payload();
      http::async_write(
          stream_, response_, [self = shared_from_this()](boost::beast::error_code, std::size_t) {
            boost::beast::error_code ignored;
            self->stream_.socket().shutdown(boost::asio::ip::tcp::socket::shutdown_send, ignored);
          });
    }

   private:
    boost::beast::tcp_stream stream_;
    HttpReceiver& owner_;
    boost::beast::flat_buffer buffer_;
    boost::beast::http::request_parser<boost::beast::http::string_body> parser_;
    boost::beast::http::response<boost::beast::http::string_body> response_;
  };

  void accept() {
    acceptor_.async_accept([this](boost::beast::error_code ec, boost::asio::ip::tcp::socket s) {
      if (ec) return;
      std::make_shared<Session>(std::move(s), *this)->start();
      accept();
    });
  }

  void received(const std::shared_ptr<Session>& session,
                const boost::beast::http::request<boost::beast::http::string_body>& request) {
    ReceivedRequest r;
    r.method = std::string(request.method_string());
    r.target = std::string(request.target());
    r.body = request.body();
    for (const auto& field : request) {
      std::string name(field.name_string());
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = std::string(field.value());
    }
    r.at = std::chrono::steady_clock::now();
    std::optional<int> status;
    {
      const std::lock_guard lock(mu_);
      status = policy_(r, requests_.size());
      requests_.push_back(std::move(r));
    }
    arrived_.notify_all();
    if (status)
      session->answer(*status);
    else
      held_.push_back(session);  // the io thread's: only it touches held_
  }

  boost::asio::io_context io_;
  boost::asio::ip::tcp::acceptor acceptor_{io_};
  mutable std::mutex mu_;
  mutable std::condition_variable arrived_;
  Policy policy_;
  std::vector<ReceivedRequest> requests_;
  std::vector<std::shared_ptr<Session>> held_;
  std::thread thread_;
};

}  // namespace warpwatch::testing
