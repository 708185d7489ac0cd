// The ingest sources of warpwatchd: ZeroMQ PULL (bind) and SUB (connect) sockets
// receiving [stream id][payload] messages, and the replay of a series file. Each runs on
// its own thread until asked to stop, delivering to the IngestHub.
#pragma once

#include <zmq.hpp>

#include <atomic>
#include <stop_token>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/ingest_hub.hpp"

namespace warpwatch::service {

class ZmqSource {
 public:
  // Binds (pull) or connects (sub) now, so that a bad endpoint fails at start-up with a
  // std::runtime_error naming it.
  ZmqSource(zmq::context_t& context, const config::IngestSource& source, IngestHub& hub,
            stream::StreamRegistry& registry);
  // Receives until `stop` is requested (checked every 100 ms), then takes what is still
  // queued on the socket.
  void run(std::stop_token stop);
  // The endpoint actually bound or connected (a wildcard port resolved).
  const std::string& endpoint() const { return endpoint_; }

 private:
  void drain();  // every message queued now, without waiting

  zmq::socket_t socket_;
  IngestHub& hub_;
  stream::StreamRegistry& registry_;
  std::string endpoint_;
};

class ReplaySource {
 public:
  // Loads the file now (config::ConfigError on a bad file); the first series of the file
  // becomes the stream, sample i at i * period.
  ReplaySource(const config::IngestSource& source, IngestHub& hub);
  // Sends the samples at the configured rate (or as fast as possible), then ends the
  // stream (its pending matches are reported); returns early when `stop` is requested.
  void run(std::stop_token stop);
  bool done() const { return done_.load(); }

 private:
  config::IngestSource source_;
  IngestHub& hub_;
  stream::Samples samples_;
  std::atomic<bool> done_{false};
};

}  // namespace warpwatch::service
