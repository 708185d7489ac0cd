// An http:// URL as the alert sinks use it (docs/sinks.md §5): checked once, when
// the configuration is read, and kept in pieces, so that the sinks never parse text.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace warpwatch::config {

struct HttpUrl {
  std::string host;          // a name or an address; an IPv6 address without its brackets
  std::uint16_t port = 80;   // 80 when the URL names none
  std::string target = "/";  // path and query as the request line sends them
  bool has_query = false;    // target holds a '?'
  bool tls = false;          // https:// (where the caller allows it; port 443 by default)

  // "host:port" ("[::1]:9093"): the Host header and what logs and /metrics name.
  std::string authority() const;
  friend bool operator==(const HttpUrl&, const HttpUrl&) = default;
};

// `http://host[:port][/path][?query]` (and `https://` with `https_allowed`: the CLI's
// clients of the daemon's API; the alert sinks speak plain HTTP). nullopt, with the reason in
// `why`, for anything else: another scheme, user:password@, a #fragment, whitespace or
// control characters, an empty host, a port outside 1 to 65535.
std::optional<HttpUrl> parse_http_url(std::string_view text, std::string* why,
                                      bool https_allowed = false);

}  // namespace warpwatch::config
