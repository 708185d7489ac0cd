#include "ingest_feedback.hpp"

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <thread>

#include "warpwatch/bench/loopback.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/http_url.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace warpwatch::cli {
namespace {

using Clock = std::chrono::steady_clock;

// "name{k="v",...}" -> name and the labels, Prometheus's escapes (\\, \", \n) undone.
std::string series_name(const std::string& series, std::map<std::string, std::string>& labels) {
  const auto brace = series.find('{');
  if (brace == std::string::npos) return series;
  std::size_t i = brace + 1;
  while (i < series.size() && series[i] != '}') {
    const auto eq = series.find("=\"", i);
    if (eq == std::string::npos) break;
    std::string key = series.substr(i, eq - i), value;
    for (i = eq + 2; i < series.size() && series[i] != '"'; ++i) {
      if (series[i] == '\\' && i + 1 < series.size()) {
        ++i;
        value += series[i] == 'n' ? '\n' : series[i];
      } else {
        value += series[i];
      }
    }
    labels[std::move(key)] = std::move(value);
    i += 1;  // the closing quote
    if (i < series.size() && series[i] == ',') ++i;
  }
  return series.substr(0, brace);
}

std::string streams_phrase(const std::set<std::string>& streams) {
  if (streams.size() == 1) return "stream '" + *streams.begin() + "'";
  return std::to_string(streams.size()) + " streams";
}

}  // namespace

void add_feedback_options(CLI::App& sub, FeedbackOptions& o) {
  sub.add_option("--metrics", o.metrics_url,
                 "the daemon's /metrics (http://HOST:PORT/metrics, or https://): read before "
                 "and after sending, to say what the daemon accepted and rejected "
                 "($WARPWATCH_TOKEN is sent as its bearer token when set)");
  sub.add_option("--config", o.config_path,
                 "the daemon's configuration: --metrics defaults to its metrics.listen")
      ->check(CLI::ExistingFile);
  sub.add_option("--settle-s", o.settle_s,
                 "with --metrics: how long to wait for the daemon to count what was sent")
      ->capture_default_str();
}

std::uint64_t IngestCounters::total() const {
  std::uint64_t n = accepted;
  for (const auto& [reason, count] : rejected) n += count;
  return n;
}

IngestCounters read_ingest_counters(const std::string& text, const std::set<std::string>& streams) {
  IngestCounters c;
  for (const auto& [series, value] : bench::parse_prometheus_text(text)) {
    std::map<std::string, std::string> labels;
    const std::string name = series_name(series, labels);
    const auto n = static_cast<std::uint64_t>(value);
    if (name == "warpwatch_ingest_rejected_total") c.rejected[labels["reason"]] += n;
    if (!streams.contains(labels["stream"])) continue;
    if (name == "warpwatch_stream_accepted_samples_total") c.accepted += n;
    if (name == "warpwatch_stream_rejected_total") c.by_stream[labels["reason"]] += n;
  }
  return c;
}

IngestFeedback::IngestFeedback(const FeedbackOptions& options, std::set<std::string> streams)
    : options_(options), streams_(std::move(streams)) {
  std::string url = options_.metrics_url;
  if (url.empty() && !options_.config_path.empty()) {
    plugins::register_builtin_plugins();  // the ingest kinds' options, to read the file
    const config::DaemonConfig daemon = config::load_daemon_config(options_.config_path);
    if (daemon.http.listen.empty()) {
      why_ = options_.config_path +
             " serves no /metrics (http.listen, or its other name metrics.listen, is not set)";
      return;
    }
    std::string listen = daemon.http.listen;  // a wildcard address: ask loopback
    if (listen.starts_with("0.0.0.0:")) listen = "127.0.0.1" + listen.substr(7);
    if (listen.starts_with("[::]:")) listen = "[::1]" + listen.substr(4);
    url = (daemon.http.tls() ? "https://" : "http://") + listen + "/metrics";
    tls_.ca_file = daemon.http.tls_cert_file;  // trusted as the daemon's own
  }
  if (const char* token = std::getenv("WARPWATCH_TOKEN")) token_ = token;
  if (url.empty()) {
    why_ = "name the daemon's /metrics with --metrics URL or its configuration with --config";
    return;
  }
  std::string bad;
  const auto parsed = config::parse_http_url(url, &bad, true);
  if (!parsed) throw std::runtime_error("--metrics: " + bad);
  tls_.on = parsed->tls;
  host_ = parsed->host;
  port_ = parsed->port;
  target_ = parsed->target;
  before_ = read(&why_);
}

std::optional<IngestCounters> IngestFeedback::read(std::string* why) const {
  std::vector<std::pair<std::string, std::string>> headers;
  if (!token_.empty()) headers.emplace_back("Authorization", "Bearer " + token_);
  const auto response =
      bench::http_get(host_, port_, target_, std::chrono::milliseconds(2000), why, headers, tls_);
  const std::string url =
      (tls_.on ? "https://" : "http://") + host_ + ":" + std::to_string(port_) + target_;
  if (!response) {
    *why = url + ": " + (why->empty() ? "no answer" : *why);
    return std::nullopt;
  }
  if (response->status != 200) {
    *why = url + ": HTTP status " + std::to_string(response->status);
    if (response->status == 401 || response->status == 403)
      *why += " (behind http.metrics_auth: set WARPWATCH_TOKEN to a token of the daemon's)";
    return std::nullopt;
  }
  if (response->body.find("warpwatch_ingest_rejected_total") == std::string::npos) {
    *why = url + ": not warpwatchd's /metrics (no warpwatch_ingest_rejected_total)";
    return std::nullopt;
  }
  return read_ingest_counters(response->body, streams_);
}

int IngestFeedback::report(std::uint64_t sent, std::ostream& out, std::ostream& err) {
  const auto unchecked = [&](const std::string& why) {
    err << "could not check what the daemon accepted: " << why << "\n";
    return host_.empty() && options_.config_path.empty() ? 0 : exit_unchecked;
  };
  if (!before_) return unchecked(why_);
  // Until every sample is counted as accepted, or the counters have stood still a while.
  std::optional<IngestCounters> after;
  const auto deadline =
      Clock::now() + std::chrono::milliseconds(static_cast<long>(options_.settle_s * 1000));
  auto last_change = Clock::now();
  std::uint64_t last_total = before_->total();
  for (;;) {
    std::string why;
    auto now_counters = read(&why);
    if (!now_counters) return unchecked(why);
    after = std::move(now_counters);
    const auto now = Clock::now();
    if (after->total() != last_total) {
      last_total = after->total();
      last_change = now;
    }
    const bool counted = after->accepted >= before_->accepted + sent;
    const bool still =
        last_total != before_->total() && now - last_change >= std::chrono::milliseconds(500);
    if (counted || still || now >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Saturating: a reload that removed a stream takes its counters away.
  const auto delta = [](std::uint64_t now, std::uint64_t was) { return now > was ? now - was : 0; };
  const std::uint64_t accepted = std::min(sent, delta(after->accepted, before_->accepted));
  std::string reasons;
  std::uint64_t rejections = 0;
  for (const auto& [reason, count] : after->rejected) {
    const auto was = before_->rejected.find(reason);
    const std::uint64_t more = delta(count, was == before_->rejected.end() ? 0 : was->second);
    if (more == 0) continue;
    rejections += more;
    reasons += (reasons.empty() ? "" : ", ") + reason + " " + std::to_string(more);
  }
  if (accepted == 0 && rejections == 0 && sent > 0)
    return unchecked("the daemon counted nothing of the " + std::to_string(sent) +
                     " samples within " + std::to_string(options_.settle_s) +
                     " s (is --endpoint the daemon of --metrics?)");
  if (accepted == sent) {
    out << "the daemon accepted all " << sent << " samples (" << streams_phrase(streams_) << ")\n";
    return 0;
  }
  err << sent - accepted << " of " << sent << " samples rejected (" << streams_phrase(streams_)
      << "): " << (reasons.empty() ? "no rejection counted" : reasons) << "\n";
  return accepted == 0 ? exit_all_rejected : 0;
}

}  // namespace warpwatch::cli
