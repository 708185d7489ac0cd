// Publishes events (docs/spec.md §5) on a ZeroMQ PUB socket and, optionally, to a JSON-lines
// file: the EventSink that takes every event (`publish:`). docs/sinks.md §1 describes the
// wire format for subscribers.
//
// Each event is one two-frame message: topic "<rule>/<stream>", then the JSON payload
// (to_json). Sends never block: the socket runs with ZMQ_XPUB_NODROP, so when a
// subscriber of that topic has SNDHWM messages queued the send fails with EAGAIN and the
// event is counted as dropped (for every subscriber of the topic: libzmq sends a message
// to all matching subscribers or to none). Without subscribers an event is published to
// nobody, as PUB does. The events come numbered (EventSequence, event.hpp): a subscriber sees a
// gap in the sequence where events were dropped.
//
// The file sink receives every event, sent or dropped, one JSON object per line,
// appended, written with one write(2) per batch. A failed open or write is counted and
// logged, never thrown; the next batch tries again.
//
// Thread model: offer() is called from one thread; counters() may be read from any.
#pragma once

#include <zmq.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>

#include "warpwatch/alerting/event.hpp"
#include "warpwatch/alerting/event_sink.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::alerting {

struct PublisherOptions {
  std::string endpoint = "tcp://127.0.0.1:5556";  // bound; "tcp://127.0.0.1:*" picks a port
  int send_high_water_mark = 10000;               // ZMQ_SNDHWM, messages per subscriber
  std::optional<std::string> events_file;         // JSON lines, appended
  // How long close waits for queued messages to reach subscribers (ZMQ_LINGER), so a
  // drained daemon delivers its last batch but a stuck subscriber cannot hold it up.
  std::chrono::milliseconds linger{1000};
  // Where file errors are reported; null = stderr_logger().
  service::Logger log;
  // CURVE as the server (stream/curve.hpp; subscribers are checked by the context's ZAP
  // handler under its zap_domain); unset = plain.
  std::optional<stream::CurveSocketOptions> curve = std::nullopt;
};

struct Delivery {
  std::uint64_t published = 0;  // events accepted by the socket
  std::uint64_t dropped = 0;    // events refused at the high-water mark
};

struct PublisherCounters {
  std::uint64_t published = 0;    // events accepted by the socket
  std::uint64_t dropped = 0;      // events refused at the high-water mark
  std::uint64_t file_errors = 0;  // batches the events file failed to take (open or write)
  std::map<std::string, Delivery, std::less<>> by_rule;  // the same, per event rule
};

class Publisher final : public EventSink {
 public:
  // Binds a PUB socket in `context`, which must outlive the publisher. Throws
  // std::runtime_error naming the endpoint when the bind fails.
  Publisher(zmq::context_t& context, PublisherOptions options);
  // Same, with a context of its own.
  explicit Publisher(PublisherOptions options);
  ~Publisher() override;

  // The endpoint actually bound (ZMQ_LAST_ENDPOINT), e.g. "tcp://127.0.0.1:40123".
  const std::string& endpoint() const { return endpoint_; }

  // Sends each event and appends the batch to the events file. Never blocks on subscribers.
  void offer(std::span<const SharedEvent> events) override;
  // Closing the socket may wait for queued events to leave until `deadline`, no longer
  // (ZMQ_LINGER): the daemon's shutdown gives them what is left of its grace period.
  void stop(std::chrono::steady_clock::time_point deadline) override;

  PublisherCounters counters() const;

 private:
  void start();
  bool send(const std::string& topic, const std::string& payload);
  void append_to_file(const std::string& lines);

  PublisherOptions options_;
  std::unique_ptr<zmq::context_t> owned_context_;  // declared first: destroyed last
  zmq::socket_t socket_;
  std::string endpoint_;
  int file_ = -1;              // events file descriptor, -1 when not open
  bool partial_line_ = false;  // the last failed write may have left half a line
  bool file_failing_ = false;  // logs once per run of errors, not once per batch
  std::atomic<std::uint64_t> published_{0}, dropped_{0}, file_errors_{0};
  mutable std::mutex by_rule_mu_;  // counters() reads from other threads (/metrics)
  std::map<std::string, Delivery, std::less<>> by_rule_;
};

}  // namespace warpwatch::alerting
