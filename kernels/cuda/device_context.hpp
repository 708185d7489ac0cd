// The CUDA backend's one device context per process (faiss GpuResources): the streams,
// events, pinned staging and scratch that its work shares, so that `warpwatch distance`,
// the bench and every Matcher reuse them instead of building their own per call. The
// whole-series engine (distance/elastic_engine.hpp: its stream, events, two 32 MiB pinned
// staging chunks and device scratch) lives here, used by distance_matrix and by window mode.
//
// One device (0) for now. Users lock mutex() for the length of one call that uses the
// context (a Matcher method, a distance_matrix call): the context is shared, not
// concurrent. Device memory that holds state (a Matcher's stream-mode columns) stays with
// its owner.
#pragma once

#include <mutex>

#include "cuda/distance/elastic_engine.hpp"
#include "cuda/runtime/device_memory.hpp"

namespace warpwatch::kernels::cuda {

class DeviceContext {
 public:
  // The process's context, made on first use. It lives until the process exits (the
  // driver releases what it holds then): destroying it at exit could run after the CUDA
  // runtime's own teardown. Throws CudaError when no device is usable.
  static DeviceContext& get();

  DeviceContext(const DeviceContext&) = delete;
  DeviceContext& operator=(const DeviceContext&) = delete;

  std::mutex& mutex() { return mu_; }
  const Stream& compute() const { return compute_; }   // stream-mode kernels, calibration
  const Stream& copy() const { return copy_; }         // uploads that overlap compute
  detail::ElasticEngine& engine() { return engine_; }  // whole-series distances (own stream)

 private:
  DeviceContext() = default;

  std::mutex mu_;
  Stream compute_, copy_;
  detail::ElasticEngine engine_;
};

}  // namespace warpwatch::kernels::cuda
