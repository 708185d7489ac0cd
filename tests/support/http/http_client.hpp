// HTTP GET over loopback and /metrics parsing for tests of warpwatchd's /metrics and
// /healthz: bench/loopback.hpp's, failing loudly where the bench reports "no answer".
#pragma once

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>

#include "warpwatch/bench/loopback.hpp"

namespace warpwatch::testing {

using bench::HttpResponse;
using bench::parse_prometheus_text;

inline HttpResponse http_get(int port, const std::string& target) {
  auto response = bench::http_get(port, target, std::chrono::seconds(10));
  if (!response)
    throw std::runtime_error("GET 127.0.0.1:" + std::to_string(port) + target + ": no answer");
  return *response;
}

}  // namespace warpwatch::testing
