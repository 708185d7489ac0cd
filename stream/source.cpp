#include "warpwatch/stream/source.hpp"

namespace warpwatch::stream {

ThreadedSource::~ThreadedSource() = default;

void ThreadedSource::start() {
  if (thread_.joinable()) return;
  ended_ = false;
  thread_ = std::jthread([this](std::stop_token stop) {
    run(stop);
    ended_ = true;
  });
}

void ThreadedSource::request_stop() {
  thread_.request_stop();
}

void ThreadedSource::stop() {
  if (!thread_.joinable()) return;
  thread_.request_stop();  // wakes wait_while_paused through the stop token
  thread_.join();
}

void ThreadedSource::pause() {
  paused_ = true;
}

void ThreadedSource::resume() {
  {
    const std::lock_guard lock(mu_);
    paused_ = false;
  }
  cv_.notify_all();
}

bool ThreadedSource::wait_while_paused(const std::stop_token& stop) {
  std::unique_lock lock(mu_);
  const bool running = cv_.wait(lock, stop, [this] { return !paused_.load(); });
  return running && !stop.stop_requested();
}

}  // namespace warpwatch::stream
