#include "warpwatch/service/scheduler_requests.hpp"

namespace warpwatch::service {

bool SchedulerRequests::run(const std::function<void()>& work,
                            std::chrono::steady_clock::duration limit) {
  auto request = std::make_shared<Request>();
  request->work = &work;
  {
    const std::lock_guard lock(mu_);
    if (closed_) return false;
    waiting_.push_back(request);
  }
  cv_.notify_all();
  if (wake_) wake_();
  std::unique_lock lock(mu_);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  cv_.wait_until(lock, deadline, [&] {
    return request->state == Request::State::done || request->state == Request::State::refused;
  });
  if (request->state == Request::State::waiting) {  // too late: it must not run any more
    request->state = Request::State::refused;
    std::erase(waiting_, request);
  }
  // One that runs now refers to `work`: wait for its end, however long.
  cv_.wait(lock, [&] { return request->state != Request::State::running; });
  if (request->error) std::rethrow_exception(request->error);
  return request->state == Request::State::done;
}

void SchedulerRequests::serve() {
  for (;;) {
    std::shared_ptr<Request> request;
    {
      const std::lock_guard lock(mu_);
      if (waiting_.empty()) return;
      request = waiting_.front();
      waiting_.pop_front();
      request->state = Request::State::running;
    }
    std::exception_ptr error;
    try {
      (*request->work)();
    } catch (...) {
      error = std::current_exception();
    }
    {
      const std::lock_guard lock(mu_);
      request->error = error;
      request->state = Request::State::done;
    }
    cv_.notify_all();
  }
}

void SchedulerRequests::serve_for(std::chrono::steady_clock::duration limit) {
  {
    std::unique_lock lock(mu_);
    cv_.wait_for(lock, limit, [&] { return !waiting_.empty() || closed_; });
  }
  serve();
}

void SchedulerRequests::close() {
  {
    const std::lock_guard lock(mu_);
    closed_ = true;
    for (const auto& request : waiting_) request->state = Request::State::refused;
    waiting_.clear();
  }
  cv_.notify_all();
}

}  // namespace warpwatch::service
