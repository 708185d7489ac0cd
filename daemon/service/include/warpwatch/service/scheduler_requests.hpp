// Work that another thread needs done on the scheduler's thread (the Matcher and the
// registry are the scheduler's alone), and waits for: a Kafka source's cut and restore.
// The scheduler serves the requests in Pipeline::step(), and while the pipeline stops
// (a source's last cut runs as it leaves its group); once closed, waiting and later
// requests are refused at once, so that nothing waits on a scheduler that is gone.
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>

namespace warpwatch::service {

class SchedulerRequests {
 public:
  // `wake` makes the scheduler look soon (it may be waiting for samples).
  explicit SchedulerRequests(std::function<void()> wake) : wake_(std::move(wake)) {}

  // From any thread but the scheduler's: runs `work` on the scheduler's thread and waits
  // until it has run (what it throws is thrown here). False when the requests were closed
  // before it ran, or `limit` passed first (it will not run then).
  bool run(const std::function<void()>& work, std::chrono::steady_clock::duration limit);
  // The scheduler's thread: runs every request waiting now.
  void serve();
  // The scheduler's thread: waits (at most `limit`) until a request comes, then serves.
  void serve_for(std::chrono::steady_clock::duration limit);
  // Refuses what waits and whatever comes later.
  void close();

 private:
  struct Request {
    const std::function<void()>* work = nullptr;
    enum class State { waiting, running, done, refused } state = State::waiting;
    std::exception_ptr error;
  };
  std::function<void()> wake_;
  std::mutex mu_;
  std::condition_variable cv_;  // a request done or refused (callers), a request came (serve_for)
  std::deque<std::shared_ptr<Request>> waiting_;
  bool closed_ = false;
};

}  // namespace warpwatch::service
