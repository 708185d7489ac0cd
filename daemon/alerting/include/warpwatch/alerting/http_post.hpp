// One HTTP/1.1 POST for the alert sinks (Boost.Beast on Asio): a fresh connection per
// request (Connection: close), plain HTTP only, bounded in time as a whole.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "warpwatch/config/http_url.hpp"

namespace warpwatch::alerting {

using Clock = std::chrono::steady_clock;
using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

struct HttpOutcome {
  int status = 0;     // the answer's status; 0 when none came (error says why)
  std::string error;  // "connect: Connection refused", "timed out after 5000 ms", ...
  std::string body;   // the answer's body: its first 512 bytes, trailing space cut (the log)
};

// POSTs `body` to `url.host:url.port` with request target `target`. Resolving, connecting,
// sending and reading the answer end by `deadline`, or earlier once the steady clock
// passes `cutoff` (read as Clock ticks, checked every 20 ms: another thread may move it
// to stop a request under way). Host resolution by name is bounded by the system
// resolver only. Never throws for network errors: they are in the outcome.
HttpOutcome http_post(const config::HttpUrl& url, const std::string& target,
                      const HttpHeaders& headers, const std::string& body,
                      Clock::time_point deadline, const std::atomic<Clock::rep>& cutoff);

}  // namespace warpwatch::alerting
