// A fixed set of worker threads for parallel host loops: the CPU backend's kernels, the
// Matcher base's batch preparation, the CUDA backend's packing (Boost.Asio's thread_pool
// underneath). The calling thread takes part as worker 0, so `threads` workers in all do
// the work and a pool of one runs everything inline.
#pragma once

#include <boost/asio/thread_pool.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace warpwatch::kernels::common {

class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);  // 0 = one per hardware thread
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  unsigned size() const { return threads_; }

  // Calls fn(item, worker) for every item in [0, count), items handed out one at a time
  // to whichever worker is free (worker < size(): index per-worker scratch with it).
  // Returns when all are done; the first exception thrown by fn is rethrown here.
  void for_each(std::size_t count, const std::function<void(std::size_t, unsigned)>& fn);

 private:
  unsigned threads_;
  std::unique_ptr<boost::asio::thread_pool> pool_;  // threads_ - 1 helpers; null when 1
};

// Calls fn(i) for every i in [0, n): on `pool` (null: none), in parts of consecutive items,
// when the work's `samples` pay for handing parts out (at least 16384 a part); else here.
void for_each_part(WorkerPool* pool, std::size_t n, std::uint64_t samples,
                   const std::function<void(std::size_t)>& fn);

}  // namespace warpwatch::kernels::common
