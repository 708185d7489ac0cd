// The CUDA backend's device contexts, one per device and process (faiss GpuResources): the
// streams, events, pinned staging and scratch that its work on that device shares, so that
// `warpwatch distance`, the bench and every Matcher reuse them instead of building their
// own per call. The whole-series engine (distance/elastic_engine.hpp: its stream, events,
// two 32 MiB pinned staging chunks and device scratch) lives here, used by distance_matrix
// and by window mode.
//
// Several devices (cuda.devices): each has its own context, used by its own host thread
// (sharded_matcher.hpp, distance_matrix's row blocks). CUDA's current device is a host
// thread's: a call that allocates, launches or copies runs with its context's device
// current, which get() and lock() set. Users lock the context (lock()) for the length of one
// call that uses it (a Matcher method, a distance_matrix call): a context is shared, not
// concurrent. Device memory that holds state (a Matcher's stream-mode columns) stays with
// its owner.
#pragma once

#include <mutex>

#include "cuda/distance/elastic_engine.hpp"
#include "cuda/runtime/device_memory.hpp"

namespace warpwatch::kernels::cuda {

class DeviceContext {
 public:
  // Device `device`'s context, made on first use, and that device made the calling thread's
  // current one. It lives until the process exits (the driver releases what it holds then):
  // destroying it at exit could run after the CUDA runtime's own teardown. Throws CudaError
  // when the device is not usable (no device, an index past the last one).
  static DeviceContext& get(int device = 0);

  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  // The context locked for one call, its device current on the calling thread meanwhile.
  class Lock {
   public:
    explicit Lock(DeviceContext& context);

   private:
    std::unique_lock<std::mutex> lock_;
  };
  [[nodiscard]] Lock lock() { return Lock(*this); }
  // Makes the context's device the calling thread's current one (a destructor that frees
  // device memory; work locked elsewhere).
  void make_current() const;

  int device() const { return device_; }
  std::mutex& mutex() { return mu_; }
  const Stream& compute() const { return compute_; }   // stream-mode kernels, calibration
  const Stream& copy() const { return copy_; }         // uploads that overlap compute
  detail::ElasticEngine& engine() { return engine_; }  // whole-series distances (own stream)

 private:
  explicit DeviceContext(int device) : device_(device) {}

  int device_;
  std::mutex mu_;
  Stream compute_, copy_;
  detail::ElasticEngine engine_;
};

}  // namespace warpwatch::kernels::cuda
