// The operators' console (README.md): its embedded files served at "/", "/app.js", ... to
// anyone (Access::page: the files hold no data; every API call the page makes carries the
// token), with their ETags (If-Match-free revalidation: 304 on If-None-Match) and a Content
// Security Policy that allows nothing but this server.
#include "../http/routes_internal.hpp"
#include "console_assets.hpp"

namespace warpwatch::service::http {

// Scripts, styles, images, connections: this origin only (no inline script, no CDN); images
// also from blob: (the event's plot.svg, fetched with the token) and data: (dygraphs).
constexpr const char* console_csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

namespace {

void add_security_headers(Response& out) {
  out.headers.emplace_back("Cache-Control", "no-cache");
  out.headers.emplace_back("Content-Security-Policy", console_csp);
  out.headers.emplace_back("X-Content-Type-Options", "nosniff");
  out.headers.emplace_back("Referrer-Policy", "no-referrer");
}

}  // namespace

void add_console_routes(Router& router, bool tokens_required) {
  // Whether the page must ask for a token before its first API call (without a tokens file
  // every call is allowed): asked first, so that no call is made to be refused.
  router.add(
      "GET", "/console.json",
      [tokens_required](const Request&) {
        Response out = json({{"tokens_required", tokens_required}});
        add_security_headers(out);
        return out;
      },
      Access::page);
  for (const console::Asset& asset : console::assets()) {
    router.add(
        "GET", std::string(asset.path),
        [&asset](const Request& r) {
          Response out;
          const auto seen = r.headers.find("if-none-match");
          if (seen != r.headers.end() && seen->second == asset.etag) {
            out.status = 304;
          } else {
            out.body = std::string(asset.bytes);
          }
          out.content_type = std::string(asset.content_type);
          out.headers.emplace_back("ETag", std::string(asset.etag));
          add_security_headers(out);
          return out;
        },
        Access::page);
  }
}

}  // namespace warpwatch::service::http
