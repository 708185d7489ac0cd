#include "common/worker_pool.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <latch>
#include <mutex>
#include <thread>

namespace warpwatch::kernels::common {

WorkerPool::WorkerPool(unsigned threads)
    : threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency())) {
  if (threads_ > 1) pool_ = std::make_unique<boost::asio::thread_pool>(threads_ - 1);
}

WorkerPool::~WorkerPool() {
  if (pool_) pool_->join();
}

void WorkerPool::for_each(std::size_t count, const std::function<void(std::size_t, unsigned)>& fn) {
  if (count == 0) return;
  const unsigned workers = static_cast<unsigned>(std::min<std::size_t>(threads_, count));
  if (workers == 1) {
    for (std::size_t i = 0; i < count; ++i) fn(i, 0);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::exception_ptr error;
  std::mutex error_mutex;
  std::latch done(workers);
  const auto work = [&](unsigned worker) {
    try {
      for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;)
        fn(i, worker);
    } catch (...) {
      const std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
      next.store(count, std::memory_order_relaxed);  // the others stop taking items
    }
    done.count_down();
  };
  for (unsigned w = 1; w < workers; ++w) boost::asio::post(*pool_, [&work, w] { work(w); });
  work(0);
  done.wait();
  if (error) std::rethrow_exception(error);
}

void for_each_part(WorkerPool* pool, std::size_t n, std::uint64_t samples,
                   const std::function<void(std::size_t)>& fn) {
  constexpr std::uint64_t min_samples_a_part = 16384;
  const std::size_t parts =
      pool ? static_cast<std::size_t>(std::min<std::uint64_t>(
                 {n, std::uint64_t{pool->size()} * 4, samples / min_samples_a_part}))
           : 1;
  if (parts <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  pool->for_each(parts, [&](std::size_t part, unsigned) {
    for (std::size_t i = part * n / parts; i < (part + 1) * n / parts; ++i) fn(i);
  });
}

}  // namespace warpwatch::kernels::common
