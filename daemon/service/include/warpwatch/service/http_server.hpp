// The daemon's one HTTP server (daemon/service/http/, its README): Boost.Beast on Asio, plain
// or TLS, bearer tokens with roles, limits, and a router of (method, path pattern) to handlers
// that run on the server's threads. Errors are application/problem+json (RFC 9457).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/logging.hpp"

namespace warpwatch::service::http {

// Who asked: the token's name and role; no token (a route that needs none) is "" / read.
struct Identity {
  std::string name;
  config::TokenRole role = config::TokenRole::read;
};

struct Request {
  std::string method;                                       // "GET", "PUT", ...
  std::string path;                                         // without the query
  std::map<std::string, std::string, std::less<>> params;   // the pattern's {name} segments
  std::map<std::string, std::string, std::less<>> query;    // decoded; the last of a repeated key
  std::map<std::string, std::string, std::less<>> headers;  // names in lower case
  std::string body;
  Identity who;

  // The query parameter `name` as an integer in [min, max], `fallback` when absent; otherwise
  // a Problem (400) naming the parameter.
  std::int64_t query_integer(std::string_view name, std::int64_t fallback, std::int64_t min,
                             std::int64_t max) const;
  std::string query_text(std::string_view name, std::string fallback = {}) const;
};

struct Response {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // besides Content-Type
};

// An error a handler throws: answered as application/problem+json
// {type, title, status, detail, field}; `field` names the parameter or body field at fault
// ("" = none).
class Problem : public std::runtime_error {
 public:
  Problem(int status, std::string detail, std::string field = {});
  int status() const { return status_; }
  const std::string& field() const { return field_; }

 private:
  int status_;
  std::string field_;
};

// The problem+json answer for `status` (its title from the status), `detail`, `field`.
Response problem(int status, std::string_view detail, std::string_view field = {});

// Who may call a route.
enum class Access {
  open,   // no token (or `http.metrics_auth`: any token) — /metrics, /healthz, /readyz
  read,   // a token of either role
  write,  // a write token
  page,   // never a token, even with `http.metrics_auth`: the console's static files
};

using Handler = std::function<Response(const Request&)>;

// Method + path pattern ("/api/v1/streams/{id}") -> handler. Routes are added before the
// server starts; matching is then read-only (thread-safe).
class Router {
 public:
  // A GET route answers HEAD too. Access defaults from the method: GET read, others write.
  void add(std::string method, std::string pattern, Handler handler,
           std::optional<Access> access = std::nullopt);

  struct Match {
    const Handler* handler = nullptr;
    Access access = Access::read;
    std::map<std::string, std::string, std::less<>> params;
    std::vector<std::string> allowed;  // the path matched with other methods only: 405
  };
  Match find(std::string_view method, std::string_view path) const;

 private:
  struct Route {
    std::string method;
    std::vector<std::string> segments;  // "{name}" = a parameter
    Handler handler;
    Access access;
  };
  std::vector<Route> routes_;
};

// The bearer tokens now in force: replaced whole on reload (set), read by every request.
class TokenTable {
 public:
  explicit TokenTable(std::vector<config::ApiToken> tokens) { set(std::move(tokens)); }
  void set(std::vector<config::ApiToken> tokens);
  bool empty() const;
  // The token whose SHA-256 equals the presented token's, compared in constant time with
  // every token of the table (no early exit); nullopt = none.
  std::optional<Identity> identify(std::string_view presented) const;

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const std::vector<config::ApiToken>> tokens_;
};

class Server {
 public:
  // Listens on config.listen ("host:port" with an IP address, "localhost", or "" / "*" for every
  // address; port 0 = a free one, see port()), with TLS
  // when config.tls(); throws std::runtime_error naming the address or the file at fault.
  Server(const config::HttpConfig& config, Router router, Logger log);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const { return port_; }
  // A reload's tokens file (http.tokens_file re-read).
  void set_tokens(std::vector<config::ApiToken> tokens) { tokens_.set(std::move(tokens)); }

  // One request through auth and the router (the sessions' work; public for the sessions).
  Response handle(Request& request) const;

 private:
  struct Io;
  template <class Stream>
  class Session;
  void accept();

  config::HttpConfig config_;
  Router router_;
  Logger log_;
  TokenTable tokens_;
  std::unique_ptr<Io> io_;
  int port_ = 0;
};

}  // namespace warpwatch::service::http
