// parse_http_url: the one place that reads a sink's URL.
#include "warpwatch/config/http_url.hpp"

#include <algorithm>
#include <charconv>

namespace warpwatch::config {

std::string HttpUrl::authority() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* why, bool https_allowed) {
  const auto fail = [&](const char* reason) -> std::optional<HttpUrl> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const bool tls = text.starts_with("https://");
  if (tls && !https_allowed)
    return fail("must be an http:// URL: alert sinks speak plain HTTP, not https");
  const std::string_view scheme = tls ? "https://" : "http://";
  if (!text.starts_with(scheme))
    return fail(https_allowed ? "must start with http:// or https://" : "must start with http://");
  // Bytes outside printable ASCII would be sent as they are in the request line.
  if (std::any_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u <= 0x20 || u >= 0x7f;
      }))
    return fail("must not hold spaces, control or non-ASCII characters (percent-encode them)");
  if (text.find('#') != std::string_view::npos) return fail("must not have a #fragment");
  const std::string_view rest = text.substr(scheme.size());
  const std::size_t slash = std::min(rest.find_first_of("/?"), rest.size());
  const std::string_view authority = rest.substr(0, slash);
  if (authority.find('@') != std::string_view::npos)
    return fail("must not hold user:password@ (send credentials with `headers`)");

  HttpUrl url;
  url.tls = tls;
  if (tls) url.port = 443;
  std::string_view host = authority, port;
  if (authority.starts_with('[')) {  // [v6]:port
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("has an unclosed '[' in its host");
    host = authority.substr(1, close - 1);
    const std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':')) return fail("has text after ']' in its host");
    if (!after.empty()) port = after.substr(1);
  } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (host.find(':') != std::string_view::npos)
      return fail("needs brackets around an IPv6 address: http://[::1]:9093");
  }
  if (host.empty()) return fail("has no host");
  if (authority.ends_with(':')) return fail("has an empty port");
  if (!port.empty()) {
    unsigned value = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), value);
    if (ec != std::errc() || end != port.data() + port.size() || value < 1 || value > 65535)
      return fail("has a port that is not 1 to 65535");
    url.port = static_cast<std::uint16_t>(value);
  }
  url.host = std::string(host);
  const std::string_view target = rest.substr(slash);
  url.target = target.empty()            ? "/"
               : target.starts_with('?') ? "/" + std::string(target)
                                         : std::string(target);
  url.has_query = url.target.find('?') != std::string::npos;
  return url;
}

}  // namespace warpwatch::config
