// The ZeroMQ ingest source: a PULL socket that binds or a SUB socket that connects,
// receiving [stream id][payload] messages (README.md, "Ingest protocol") into the
// IngestHub on a thread of its own.
#pragma once

#include <zmq.hpp>

#include <string>

#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/source.hpp"

namespace warpwatch::stream {

struct ZmqSourceOptions {
  enum class Kind { pull, sub };
  Kind kind = Kind::pull;
  std::string endpoint;  // e.g. tcp://127.0.0.1:5555; pull binds, sub connects
  std::string topic;     // sub: subscription prefix of stream ids ("" = everything)
};

class ZmqSource final : public ThreadedSource {
 public:
  // Binds (pull) or connects (sub) now, so that a bad endpoint fails at start-up with a
  // std::runtime_error naming it. `context` must outlive the source.
  ZmqSource(zmq::context_t& context, const ZmqSourceOptions& options, IngestHub& hub);
  ~ZmqSource() override;

  std::string describe() const override;
  // The endpoint actually bound or connected (a wildcard port resolved).
  const std::string& endpoint() const { return endpoint_; }

 private:
  // Receives until the stop, polling every 100 ms; paused, it does not read (the socket's
  // receive high-water mark then pushes back). At the stop it takes what is queued.
  void run(std::stop_token stop) override;
  // The messages queued now, without waiting: at most max_messages (0 = all).
  void drain(std::size_t max_messages);

  ZmqSourceOptions options_;
  zmq::socket_t socket_;
  IngestHub& hub_;
  std::string endpoint_;
};

}  // namespace warpwatch::stream
