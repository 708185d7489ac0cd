// The router, problem+json, the tokens and what a request goes through before its handler
// (Server::handle): everything of the server but the sockets (server.cpp).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>

#include "warpwatch/base/sha256.hpp"
#include "warpwatch/service/http_server.hpp"

namespace warpwatch::service::http {
namespace {

std::vector<std::string> split_path(std::string_view path) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at < path.size()) {
    if (path[at] == '/') {
      ++at;
      continue;
    }
    const std::size_t end = std::min(path.find('/', at), path.size());
    out.emplace_back(path.substr(at, end - at));
    at = end;
  }
  return out;
}

// %XX and '+' of a query or a path segment; nullopt on a broken escape.
std::optional<std::string> percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out += ' ';
    } else if (c == '%') {
      unsigned value = 0;
      if (i + 2 >= text.size()) return std::nullopt;
      const auto [ptr, ec] = std::from_chars(text.data() + i + 1, text.data() + i + 3, value, 16);
      if (ec != std::errc() || ptr != text.data() + i + 3) return std::nullopt;
      out += static_cast<char>(value);
      i += 2;
    } else {
      out += c;
    }
  }
  return out;
}

const char* status_title(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 409:
      return "Conflict";
    case 412:
      return "Precondition Failed";
    case 413:
      return "Content Too Large";
    case 428:
      return "Precondition Required";
    case 431:
      return "Request Header Fields Too Large";
    case 503:
      return "Service Unavailable";
    default:
      return status >= 500 ? "Internal Server Error" : "Error";
  }
}

}  // namespace

Problem::Problem(int status, std::string detail, std::string field)
    : std::runtime_error(std::move(detail)), status_(status), field_(std::move(field)) {}

Response problem(int status, std::string_view detail, std::string_view field) {
  nlohmann::json body = {{"type", "about:blank"},
                         {"title", status_title(status)},
                         {"status", status},
                         {"detail", detail}};
  if (!field.empty()) body["field"] = field;
  Response r;
  r.status = status;
  r.content_type = "application/problem+json";
  // A detail quoting a path or body that is not UTF-8 (the caller's bytes): U+FFFD for them.
  r.body = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return r;
}

std::string Request::query_text(std::string_view name, std::string fallback) const {
  const auto it = query.find(name);
  return it == query.end() ? std::move(fallback) : it->second;
}

std::int64_t Request::query_integer(std::string_view name, std::int64_t fallback, std::int64_t min,
                                    std::int64_t max) const {
  const auto it = query.find(name);
  if (it == query.end()) return fallback;
  const std::string& text = it->second;
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  std::string name_text(name);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty())
    throw Problem(400, name_text + " must be an integer, got '" + text + "'", name_text);
  if (value < min || value > max)
    throw Problem(400,
                  name_text + " must be between " + std::to_string(min) + " and " +
                      std::to_string(max) + ", got " + text,
                  name_text);
  return value;
}

void Router::add(std::string method, std::string pattern, Handler handler,
                 std::optional<Access> access) {
  const Access a = access.value_or(method == "GET" ? Access::read : Access::write);
  routes_.push_back({std::move(method), split_path(pattern), std::move(handler), a});
}

Router::Match Router::find(std::string_view method, std::string_view path) const {
  const std::vector<std::string> segments = split_path(path);
  Match out;
  for (const Route& route : routes_) {
    if (route.segments.size() != segments.size()) continue;
    std::map<std::string, std::string, std::less<>> params;
    bool matches = true;
    for (std::size_t i = 0; i < segments.size() && matches; ++i) {
      const std::string& want = route.segments[i];
      if (want.size() > 2 && want.front() == '{' && want.back() == '}') {
        const auto decoded = percent_decode(segments[i], false);
        if (!decoded)
          matches = false;
        else
          params[want.substr(1, want.size() - 2)] = *decoded;
      } else {
        matches = want == segments[i];
      }
    }
    if (!matches) continue;
    if (route.method == method || (method == "HEAD" && route.method == "GET")) {
      out.handler = &route.handler;
      out.access = route.access;
      out.params = std::move(params);
      out.allowed.clear();
      return out;
    }
    out.allowed.push_back(route.method);
  }
  return out;
}

void TokenTable::set(std::vector<config::ApiToken> tokens) {
  auto next = std::make_shared<const std::vector<config::ApiToken>>(std::move(tokens));
  const std::lock_guard lock(mu_);
  tokens_ = std::move(next);
}

bool TokenTable::empty() const {
  const std::lock_guard lock(mu_);
  return tokens_->empty();
}

std::optional<Identity> TokenTable::identify(std::string_view presented) const {
  std::shared_ptr<const std::vector<config::ApiToken>> tokens;
  {
    const std::lock_guard lock(mu_);
    tokens = tokens_;
  }
  const auto digest = stream::sha256(presented);
  const config::ApiToken* found = nullptr;
  for (const config::ApiToken& t : *tokens)  // every one compared: no early exit
    if (stream::equal_in_constant_time(digest, t.sha256) && !found) found = &t;
  if (!found) return std::nullopt;
  return Identity{found->name, found->role};
}

Response Server::handle(Request& request) const {
  const auto query_at = request.path.find('?');
  if (query_at != std::string::npos) {
    const std::string query = request.path.substr(query_at + 1);
    request.path.resize(query_at);
    std::size_t at = 0;
    while (at <= query.size()) {
      const std::size_t end = std::min(query.find('&', at), query.size());
      const std::string_view pair = std::string_view(query).substr(at, end - at);
      if (!pair.empty()) {
        const std::size_t eq = pair.find('=');
        const auto key = percent_decode(pair.substr(0, eq), true);
        const auto value = percent_decode(
            eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1), true);
        if (!key || !value)
          return problem(400, "a broken %-escape in the query", key ? *key : std::string());
        request.query[*key] = *value;
      }
      at = end + 1;
    }
  }
  Router::Match match = router_.find(request.method, request.path);
  if (!match.handler) {
    if (match.allowed.empty()) return problem(404, "no such resource: " + request.path);
    std::string allow;
    for (const std::string& m : match.allowed) allow += (allow.empty() ? "" : ", ") + m;
    Response r =
        problem(405, request.method + " is not served on " + request.path + "; allowed: " + allow);
    r.headers.emplace_back("Allow", allow);
    return r;
  }
  // Without a tokens file (which config allows on loopback only) every caller may do
  // everything; with one, every route but the open ones needs a token.
  if (!tokens_.empty() && match.access != Access::page &&
      (match.access != Access::open || config_.metrics_auth)) {
    const auto it = request.headers.find("authorization");
    std::optional<Identity> who;
    constexpr std::string_view bearer = "Bearer ";
    if (it != request.headers.end() && it->second.size() > bearer.size() &&
        std::equal(bearer.begin(), bearer.end(), it->second.begin(),
                   [](char a, char b) { return std::tolower(a) == std::tolower(b); }))
      who = tokens_.identify(std::string_view(it->second).substr(bearer.size()));
    if (!who) {
      Response r =
          problem(401,
                  it == request.headers.end() ? "this resource needs `Authorization: Bearer TOKEN`"
                                              : "the bearer token is not known",
                  "Authorization");
      r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"warpwatch\"");
      return r;
    }
    if (match.access == Access::write && who->role != config::TokenRole::write)
      return problem(403,
                     "token '" + who->name + "' has role read; " + request.method + " " +
                         request.path + " needs a write token",
                     "Authorization");
    request.who = std::move(*who);
  } else {
    request.who =
        Identity{"", tokens_.empty() ? config::TokenRole::write : config::TokenRole::read};
  }
  request.params = std::move(match.params);
  try {
    return (*match.handler)(request);
  } catch (const Problem& p) {
    return problem(p.status(), p.what(), p.field());
  } catch (const std::exception& e) {  // a failed handler is a 500, never a dead thread
    log_->error("HTTP {} {}: {}", request.method, request.path, e.what());
    return problem(500, e.what());
  }
}

}  // namespace warpwatch::service::http
