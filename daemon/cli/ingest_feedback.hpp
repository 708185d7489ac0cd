// What the daemon made of what a producer verb (`replay`, `load`) sent: the daemon's
// /metrics read before and after, the counters compared (docs/cli.md §6.1).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>

#include "warpwatch/bench/loopback.hpp"

namespace warpwatch::cli {

// Exit statuses of the producer verbs (docs/cli.md §6.1).
inline constexpr int exit_all_rejected = 2;  // the daemon rejected every sample sent
inline constexpr int exit_unchecked = 3;     // --metrics (or --config) named, not readable

struct FeedbackOptions {
  std::string metrics_url;  // http://host:port/metrics
  std::string config_path;  // the daemon's configuration: metrics.listen
  double settle_s = 5.0;    // how long to wait for the daemon to count what was sent
};
void add_feedback_options(CLI::App& sub, FeedbackOptions& options);

// The counters of /metrics that tell what became of a producer's samples.
struct IngestCounters {
  std::uint64_t accepted = 0;                      // the producer's streams, samples
  std::map<std::string, std::uint64_t> rejected;   // reason -> count, ingest-wide
  std::map<std::string, std::uint64_t> by_stream;  // reason -> count, the producer's streams
  std::uint64_t total() const;                     // accepted + every rejection
};
// From the Prometheus text of warpwatchd's /metrics, for the streams `streams`.
IngestCounters read_ingest_counters(const std::string& metrics_text,
                                    const std::set<std::string>& streams);

class IngestFeedback {
 public:
  // Reads the counters before anything is sent; nothing when no URL is known. Throws
  // std::runtime_error for a bad --metrics URL or --config file.
  IngestFeedback(const FeedbackOptions& options, std::set<std::string> streams);
  // After `sent` samples were sent (and delivered): waits up to settle_s for the daemon to
  // count them, prints what it accepted and rejected on `out` (`err` when it rejected
  // some), and returns the exit status: 0, exit_all_rejected or exit_unchecked.
  int report(std::uint64_t sent, std::ostream& out, std::ostream& err);

 private:
  std::optional<IngestCounters> read(std::string* why) const;

  FeedbackOptions options_;
  std::set<std::string> streams_;
  std::string host_, target_;  // of the metrics URL; host_ "" = none named
  int port_ = 0;
  bench::HttpTls tls_;  // https: the daemon's http.tls (its certificate trusted)
  std::string token_;   // $WARPWATCH_TOKEN: /metrics behind http.metrics_auth
  std::optional<IngestCounters> before_;
  std::string why_;  // why before_ is missing
};

}  // namespace warpwatch::cli
