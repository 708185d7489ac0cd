// Many independent whole-series distances (docs/spec.md §4) on the device in one go: window
// mode's batch (each window that ends in a batch against its pattern) and any list of
// (a, b) pairs. Host memory in, host memory out; the packing into pinned memory, the
// copies and the choice of kernel are inside.
#pragma once

#include <cstddef>
#include <memory>
#include <span>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cuda {

// One distance: a (n x dims, row-major) against b (m x dims). Times (twed only) are
// float32 seconds on a clock common to a and b (null: sample i at time i).
struct ElasticJob {
  const float* a = nullptr;
  const float* a_times = nullptr;
  std::size_t n = 0;
  const float* b = nullptr;
  const float* b_times = nullptr;
  std::size_t m = 0;
  std::size_t dims = 1;
  const DistanceParams* params = nullptr;  // validated by the caller
  double* out = nullptr;                   // receives the distance
};

// Runs on an engine it is given (the device context's: its buffers are reused from call to
// call; they grow, never shrink).
namespace detail {
class ElasticEngine;
}

class ElasticBatcher {
 public:
  explicit ElasticBatcher(detail::ElasticEngine& engine);
  ~ElasticBatcher();
  ElasticBatcher(const ElasticBatcher&) = delete;
  ElasticBatcher& operator=(const ElasticBatcher&) = delete;

  // Computes every job; returns when all outputs are written. `timings` as in
  // backends.hpp (optional). The caller holds the device context's lock.
  void run(std::span<const ElasticJob> jobs, DeviceTimings* timings = nullptr);
  std::size_t device_bytes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpwatch::kernels::cuda
