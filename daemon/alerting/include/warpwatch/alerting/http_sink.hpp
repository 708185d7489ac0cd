// An alert sink (docs/sinks.md §5): the events of the rules it takes, POSTed to an
// Alertmanager (`POST <url>/api/v2/alerts`) or a webhook, from a bounded queue, by a thread
// of its own, with retries.
//
// offer() never waits on the network: it copies pointers into the queue under a mutex
// that the sink's thread holds only to move a batch out. When the queue is full the
// oldest event is dropped (the newest say most about now), counted and logged (at most
// once every 10 s). The thread sends up to max_batch events per request; a batch that
// fails (no answer, a timeout, 5xx, 408, 429) is sent again after a wait that starts at
// backoff, doubles after each failure up to max_backoff, and is drawn between half and all
// of that (jitter, so that several daemons do not retry in step); after max_attempts
// requests its events are given up. Any other 4xx is the receiver refusing the request:
// given up at once, since sending it again would be refused again. The first failure of a
// run is logged with its reason, and the run's end; events given up are logged at most
// once every 10 s, with their count.
//
// Thread model: offer() from one thread (the scheduler), counters() from any.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "warpwatch/alerting/event_sink.hpp"
#include "warpwatch/alerting/http_post.hpp"
#include "warpwatch/alerting/sink_payload.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/logging.hpp"

namespace warpwatch::alerting {

// Where and what an HTTP sink sends: its plugin's (daemon/plugins/out_alertmanager/,
// out_webhook/), which know the kind; the sink does not.
struct HttpSinkOptions {
  config::HttpUrl url;  // the receiver
  std::string target;   // the request target: the webhook's, or <base>/api/v2/alerts
  // A batch's body (sink_payload.hpp: alertmanager_body, webhook_body).
  std::function<std::string(std::span<const SharedEvent> events)> body;
  std::map<std::string, std::string> headers;  // sent with every request
  std::size_t max_batch = 100;                 // events per request, at most
  std::string hmac_secret;                     // "" = unsigned
  std::string signature_header;                // carries the HMAC when signed
};

class HttpSink final : public AlertSink {
 public:
  // Starts the sink's thread. `options` and `http` as load_daemon_config checked them.
  HttpSink(config::SinkOptions options, HttpSinkOptions http, service::Logger log);
  ~HttpSink() override;  // stop(now)

  void offer(std::span<const SharedEvent> events) override;
  // A request under way at the deadline is given up too.
  void stop(Clock::time_point deadline) override;
  SinkCounters counters() const override;

 private:
  void run();
  std::vector<SharedEvent> take_batch();  // blocks until events or stop
  void deliver(std::vector<SharedEvent> batch);
  HttpOutcome send(const std::string& body);
  // Waits until `until` or the stop deadline, whichever comes first; false when the wait
  // was cut by the stop deadline.
  bool wait_until(Clock::time_point until);
  Clock::duration backoff_before(unsigned retry);  // retry 1, 2, ...: jittered
  void give_up(std::size_t events, std::atomic<std::uint64_t>& counter, const std::string& why);

  const HttpSinkOptions http_;
  service::Logger log_;
  HttpHeaders headers_;

  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::deque<SharedEvent> queue_;
  bool stopping_ = false;
  std::size_t in_flight_ = 0;  // events of the batch being delivered
  SinkLogThrottle drop_log_;   // the queue-full warning
  // The stop deadline as steady-clock ticks (max until stop()): http_post reads it to cut
  // a request short.
  std::atomic<Clock::rep> stop_at_{Clock::time_point::max().time_since_epoch().count()};

  std::atomic<std::uint64_t> sent_{0}, retried_{0}, dropped_{0}, failed_{0}, rejected_{0},
      unsent_at_stop_{0};
  bool failing_ = false;  // the thread's: logs a run of failures once
  SinkLogThrottle give_up_log_;
  std::minstd_rand jitter_;
  std::thread thread_;  // last: starts once everything above is built
};

}  // namespace warpwatch::alerting
