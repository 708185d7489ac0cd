// The routes warpwatchd serves (daemon/service/http/daemon_routes.cpp): /metrics, /healthz,
// /readyz and the API under /api/v1 (docs/api.md), each answered from the Pipeline's
// thread-safe accessors on the HTTP server's threads.
#pragma once

#include <string_view>

#include "warpwatch/service/http_server.hpp"

namespace warpwatch::service {
class Pipeline;
}

namespace warpwatch::service::http {

Router daemon_routes(const Pipeline& pipeline);

// The OpenAPI 3 document of those routes (daemon/service/http/openapi.json, embedded at build
// time), served at GET /api/v1/openapi.json.
std::string_view openapi_document();

}  // namespace warpwatch::service::http
