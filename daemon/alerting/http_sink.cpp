// Alert sink: queue, delivery thread, retries; see http_sink.hpp for the guarantees.
#include "warpwatch/alerting/http_sink.hpp"

#include <algorithm>
#include <utility>

#include "warpwatch/base/glob.hpp"
#include "warpwatch/base/stream_id.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::alerting {
namespace {

constexpr std::chrono::seconds log_period{10};

bool transient(int status) {  // worth sending again: no answer, overload, a server error
  return status == 0 || status == 408 || status == 429 || status >= 500;
}

std::string describe(const HttpOutcome& o) {
  if (o.status == 0) return o.error;
  // The receiver's answer is escaped (printable()): it may hold a terminal's control codes.
  return "HTTP " + std::to_string(o.status) +
         (o.body.empty() ? "" : ": " + stream::printable(o.body, o.body.size(), true));
}

}  // namespace

HttpSink::HttpSink(config::SinkOptions options, HttpSinkOptions http, service::Logger log)
    : AlertSink(std::move(options)),
      http_(std::move(http)),
      log_(log ? std::move(log) : service::stderr_logger()),
      jitter_(std::random_device{}()) {
  WW_ASSERT(http_.body != nullptr, "an HTTP sink without a body");
  headers_.emplace_back("User-Agent", "warpwatch/" WARPWATCH_VERSION);
  for (const auto& header : http_.headers) headers_.push_back(header);
  thread_ = std::thread([this] { run(); });
}

HttpSink::~HttpSink() {
  stop(Clock::now());
}

void HttpSink::offer(std::span<const SharedEvent> events) {
  std::uint64_t taken = 0, dropped = 0, unsent = 0;
  std::uint64_t log_drops = 0;
  {
    const std::lock_guard lock(mu_);
    for (const SharedEvent& event : events) {
      if (!stream::any_glob_matches(options_.rules, event->rule)) continue;
      if (stopping_) {
        ++unsent;
        continue;
      }
      if (queue_.size() >= options_.queue) {
        queue_.pop_front();
        ++dropped;
      }
      queue_.push_back(event);
      ++taken;
    }
    if (dropped > 0) log_drops = drop_log_.add(dropped, Clock::now());
  }
  dropped_.fetch_add(dropped, std::memory_order_relaxed);
  unsent_at_stop_.fetch_add(unsent, std::memory_order_relaxed);
  if (log_drops > 0)
    log_->warn("sink '{}': queue full ({} events): dropped the oldest {} event(s)", options_.name,
               options_.queue, log_drops);
  if (taken > 0) wake_.notify_one();
}

void HttpSink::stop(Clock::time_point deadline) {
  {
    const std::lock_guard lock(mu_);
    stopping_ = true;
    const Clock::rep at = deadline.time_since_epoch().count();
    if (at < stop_at_.load()) stop_at_ = at;
  }
  wake_.notify_all();
  if (!thread_.joinable()) return;
  thread_.join();
  if (const auto unsent = unsent_at_stop_.load(); unsent > 0)
    log_->warn("sink '{}': {} event(s) not delivered when the sink stopped", options_.name, unsent);
}

SinkCounters HttpSink::counters() const {
  SinkCounters c;
  c.name = options_.name;
  c.sent = sent_.load(std::memory_order_relaxed);
  c.retried = retried_.load(std::memory_order_relaxed);
  c.dropped = dropped_.load(std::memory_order_relaxed);
  c.failed = failed_.load(std::memory_order_relaxed);
  c.rejected = rejected_.load(std::memory_order_relaxed);
  c.unsent_at_stop = unsent_at_stop_.load(std::memory_order_relaxed);
  const std::lock_guard lock(mu_);
  c.queued = queue_.size() + in_flight_;
  return c;
}

void HttpSink::run() {
  for (;;) {
    std::vector<SharedEvent> batch = take_batch();
    if (batch.empty()) return;  // stopping, and nothing is left
    deliver(std::move(batch));
    const std::lock_guard lock(mu_);
    in_flight_ = 0;
  }
}

std::vector<SharedEvent> HttpSink::take_batch() {
  std::unique_lock lock(mu_);
  wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
  const std::size_t n = std::min(queue_.size(), http_.max_batch);
  std::vector<SharedEvent> batch(std::make_move_iterator(queue_.begin()),
                                 std::make_move_iterator(queue_.begin() + static_cast<long>(n)));
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<long>(n));
  in_flight_ = n;
  return batch;
}

void HttpSink::deliver(std::vector<SharedEvent> batch) {
  const std::uint64_t n = batch.size();
  const std::string body = http_.body(batch);
  HttpHeaders headers = headers_;
  if (!http_.hmac_secret.empty())
    headers.emplace_back(http_.signature_header,
                         "sha256=" + hmac_sha256_hex(http_.hmac_secret, body));
  const auto stopped = [this] {
    return Clock::now().time_since_epoch().count() >= stop_at_.load(std::memory_order_relaxed);
  };
  for (unsigned attempt = 1;; ++attempt) {
    if (stopped()) {
      unsent_at_stop_.fetch_add(n, std::memory_order_relaxed);
      return;
    }
    const HttpOutcome outcome = http_post(http_.url, http_.target, headers, body,
                                          Clock::now() + options_.timeout, stop_at_);
    if (outcome.status >= 200 && outcome.status < 300) {
      sent_.fetch_add(n, std::memory_order_relaxed);
      if (failing_) log_->info("sink '{}': delivering again", options_.name);
      failing_ = false;
      return;
    }
    if (stopped()) {  // cut short by the stop, or failed too late to wait for a retry
      unsent_at_stop_.fetch_add(n, std::memory_order_relaxed);
      return;
    }
    const std::string why = describe(outcome);
    if (!transient(outcome.status)) {
      give_up(n, rejected_, "the receiver refused them: " + why);
      return;
    }
    if (attempt >= options_.max_attempts) {
      give_up(n, failed_, std::to_string(attempt) + " attempt(s) failed, the last: " + why);
      return;
    }
    if (!failing_)
      log_->warn("sink '{}': request failed ({}); retrying, up to {} attempts per batch",
                 options_.name, why, options_.max_attempts);
    failing_ = true;
    retried_.fetch_add(1, std::memory_order_relaxed);
    if (!wait_until(Clock::now() + backoff_before(attempt))) {
      unsent_at_stop_.fetch_add(n, std::memory_order_relaxed);
      return;
    }
  }
}

void HttpSink::give_up(std::size_t events, std::atomic<std::uint64_t>& counter,
                       const std::string& why) {
  counter.fetch_add(events, std::memory_order_relaxed);
  failing_ = true;
  if (const std::uint64_t logged = give_up_log_.add(events, Clock::now()); logged > 0)
    log_->error("sink '{}': gave up {} event(s); the last: {}", options_.name, logged, why);
}

std::uint64_t SinkLogThrottle::add(std::uint64_t events, Clock::time_point now) {
  held += events;
  if (now < next) return 0;
  next = now + log_period;
  return std::exchange(held, 0);
}

Clock::duration HttpSink::backoff_before(unsigned retry) {
  Clock::duration wait = options_.backoff;
  for (unsigned i = 1; i < retry && wait < options_.max_backoff; ++i) wait *= 2;
  wait = std::min<Clock::duration>(wait, options_.max_backoff);
  std::uniform_int_distribution<Clock::rep> draw(wait.count() / 2, wait.count());
  return Clock::duration(draw(jitter_));
}

bool HttpSink::wait_until(Clock::time_point until) {
  std::unique_lock lock(mu_);
  for (;;) {
    const Clock::time_point stop_at{Clock::duration(stop_at_.load())};
    const auto now = Clock::now();
    if (now >= stop_at) return false;
    if (now >= until) return true;
    wake_.wait_until(lock, std::min(until, stop_at));
  }
}

}  // namespace warpwatch::alerting
