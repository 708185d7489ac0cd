// The routes warpwatchd serves (daemon/service/http/daemon_routes.cpp): /metrics, /healthz,
// /readyz and the API under /api/v1 (docs/api.md), each answered from the Pipeline's
// thread-safe accessors on the HTTP server's threads.
#pragma once

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string_view>

#include "warpwatch/service/http_server.hpp"

namespace warpwatch::service {
class Pipeline;
}

namespace warpwatch::service::http {

Router daemon_routes(const Pipeline& pipeline);

// POST /api/v1/learn and /api/v1/backtest (job_routes.cpp, docs/api.md): at most one of each
// runs at a time in the process; a second is answered 429 with Retry-After. (Tests hold one
// to see that answer.)
struct JobSlots {
  std::mutex learn, backtest;
};
JobSlots& job_slots();

// Their bounds.
inline constexpr std::chrono::seconds job_time_limit{30};
inline constexpr std::size_t learn_max_examples = 100;  // ranges, and negative ranges
inline constexpr std::size_t learn_min_example_samples = 3;
inline constexpr std::size_t learn_max_example_samples = 10'000;
inline constexpr std::size_t learn_max_negative_samples = 200'000;  // all negatives together
inline constexpr std::size_t backtest_max_streams = 16;
inline constexpr std::size_t backtest_max_samples = 100'000;  // per stream: the newest
inline constexpr std::size_t backtest_max_events = 1000;      // answered; `total` counts all
inline constexpr std::size_t backtest_chunk_samples = 4096;   // the time limit checked between

// The OpenAPI 3 document of those routes (daemon/service/http/openapi.json, embedded at build
// time), served at GET /api/v1/openapi.json.
std::string_view openapi_document();

}  // namespace warpwatch::service::http
