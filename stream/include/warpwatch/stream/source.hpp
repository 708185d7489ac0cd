// The one interface every ingest source has (the shape of a fluent-bit input plugin):
// start() begins delivering to the IngestHub on the source's own thread, pause() and
// resume() stop and restart reading (backpressure: a paused ZeroMQ socket fills up to its
// high-water mark and the transport pushes back on producers), stop() ends it. What a
// source had already received before stop() is delivered: it is accepted input.
#pragma once

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <string>
#include <thread>

namespace warpwatch::stream {

class Source {
 public:
  virtual ~Source() = default;
  Source() = default;
  Source(const Source&) = delete;
  Source& operator=(const Source&) = delete;

  // For logs: "pull tcp://127.0.0.1:5555", "replay pump.csv -> pump-1".
  virtual std::string describe() const = 0;
  virtual void start() = 0;
  // Returns once the source's thread has ended. Idempotent.
  virtual void stop() = 0;
  virtual void pause() = 0;
  virtual void resume() = 0;
  // A finite source (a replay) that has delivered everything; live sources never finish.
  virtual bool finished() const { return false; }
  // Whether the source can receive now: a socket that binds, once bound; one that connects
  // (a ZeroMQ sub, MQTT), while its connection is up (warpwatchd's /readyz asks every
  // source). Thread-safe.
  virtual bool connected() const { return true; }
};

// A Source whose work runs on one thread of its own: run() loops until its stop token is
// requested, calling wait_while_paused() between reads.
class ThreadedSource : public Source {
 public:
  ~ThreadedSource() override;  // derived classes call stop() in theirs, before their members go
  void start() override;
  void stop() override;
  void pause() override;
  void resume() override;
  // Asks the thread to end, without waiting (stop() waits); thread_ended() says when it has.
  void request_stop();
  // The thread has ended (or never started).
  bool thread_ended() const { return ended_.load(); }

 protected:
  virtual void run(std::stop_token stop) = 0;
  // Blocks while paused; returns false when a stop was requested meanwhile (or before).
  bool wait_while_paused(const std::stop_token& stop);
  // For a run() that must notice a pause between its own waits (an Asio loop).
  bool paused() const { return paused_.load(); }

 private:
  std::jthread thread_;
  std::atomic<bool> ended_{true};
  std::atomic<bool> paused_{false};
  std::mutex mu_;
  std::condition_variable_any cv_;
};

}  // namespace warpwatch::stream
