// The ZeroMQ ingest source: a PULL socket that binds or a SUB socket that connects,
// receiving [stream id][payload] messages (docs/ingest.md §1) into the
// IngestHub on a thread of its own.
//
// Limits (docs/ingest.md §10): ZMQ_MAXMSGSIZE is the message limit, so
// libzmq disconnects a peer that sends a larger frame before it is read into memory;
// ZMQ_RCVHWM bounds the messages libzmq queues per connected peer. PULL waits for room in
// the hub's queue before it reads on (its peers then block at their send high-water mark:
// backpressure); SUB cannot push back (PUB drops for slow subscribers), so it reads on
// and the hub drops and counts what a full queue cannot take (Overflow::drop).
#pragma once

#include <zmq.hpp>

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>

#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/source.hpp"
#include "warpwatch/stream/sources/curve.hpp"

namespace warpwatch::stream {

struct ZmqSourceOptions {
  enum class Kind { pull, sub };
  Kind kind = Kind::pull;
  std::string endpoint;  // e.g. tcp://127.0.0.1:5555; pull binds, sub connects
  std::string topic;     // sub: subscription prefix of stream ids ("" = everything)
  std::size_t max_message_bytes = 1 << 20;  // ZMQ_MAXMSGSIZE
  int receive_high_water_mark = 1000;       // ZMQ_RCVHWM, messages per peer
  // CURVE (curve.hpp); unset = plain. pull is the server (its clients are checked by the
  // context's ZAP handler under `zap_domain`), sub the client of the publisher whose public
  // key `server_public_key` names (std::invalid_argument when it is "").
  std::optional<CurveSocketOptions> curve = std::nullopt;
};

// What a ZeroMQ source hands the hub for one message of `parts` parts, the first `id`, the
// second `payload` (empty when there is none): a message of other than 2 parts is counted
// as wrong_part_count under its first part (`peer`, libzmq's Peer-Address, named in the
// log line when known), one of 2 is offered as [stream id][payload]. Free of sockets, so
// that tests and the fuzz target call what the source calls.
void deliver_zmq_message(IngestHub& hub, SourceId source, std::size_t parts, std::string_view id,
                         std::span<const std::byte> payload, std::string_view peer = {});

class ZmqSource final : public ThreadedSource {
 public:
  // Binds (pull) or connects (sub) now, so that a bad endpoint fails at start-up with a
  // std::runtime_error naming it, and registers with the hub. `context` must outlive the
  // source.
  ZmqSource(zmq::context_t& context, const ZmqSourceOptions& options, IngestHub& hub);
  ~ZmqSource() override;

  std::string describe() const override;
  // The endpoint actually bound or connected (a wildcard port resolved).
  const std::string& endpoint() const { return endpoint_; }
  // pull: bound (the constructor throws otherwise). sub over tcp or ipc: while a ZMTP
  // session with the publisher is up (libzmq's socket monitor: handshake succeeded, not
  // disconnected since), as seen by the source's thread between polls (every 100 ms at
  // most); an inproc sub: at once.
  bool connected() const override;

 private:
  // libzmq's socket monitor: its events arrive on an inproc PAIR socket that the source's
  // thread reads between polls. A sub socket's tells whether it is connected; a plain pull
  // socket's tell of peers that do not speak ZeroMQ (raw text over TCP: libzmq drops them
  // at the handshake without a message), each counted as malformed_frame and logged with
  // its address (got from the accepted connection's fd; the failed handshake is the next
  // disconnection's).
  class ConnectionWatch final : public zmq::monitor_t {
   public:
    std::atomic<bool> up{false};
    std::function<void(const std::string& peer)> on_not_zeromq;

   private:
    void on_event_handshake_succeeded(const zmq_event_t&, const char*) override { up = true; }
    void on_event_accepted(const zmq_event_t& event, const char*) override;
    void on_event_handshake_failed_no_detail(const zmq_event_t&, const char*) override {
      ++failed_;
    }
    void on_event_handshake_failed_protocol(const zmq_event_t&, const char*) override { ++failed_; }
    void on_event_disconnected(const zmq_event_t& event, const char*) override;

    std::map<int, std::string> peers_;  // accepted connections: fd -> address
    std::size_t failed_ = 0;            // failed handshakes not yet matched to a disconnection
  };

  // Receives until the stop, polling every 100 ms; paused, or (pull) while the hub's
  // queue is full, it does not read. At the stop it takes what the socket holds while
  // the queue has room; the rest is left unread (never accepted, so never counted).
  void run(std::stop_token stop) override;
  // Reads the messages queued now, without waiting: at most max_messages (0 = all), and
  // (pull) only while the hub has room.
  void drain(std::size_t max_messages);
  // One message, frame by frame: a message of other than 2 frames is counted as
  // wrong_part_count, and frames after the second are read and discarded, not kept.
  // False when none was waiting.
  bool receive_one();
  // A peer of a pull socket that failed the ZeroMQ handshake: counted and logged.
  void not_zeromq(const std::string& peer);

  ZmqSourceOptions options_;
  zmq::socket_t socket_;
  std::unique_ptr<ConnectionWatch> watch_;  // sub over tcp or ipc; closed before socket_
  std::jthread peer_watch_;                 // pull: reads watch_; joined before it closes
  IngestHub& hub_;
  std::string endpoint_;
  SourceId source_ = 0;
  zmq::message_t id_, payload_, extra_;
};

}  // namespace warpwatch::stream
