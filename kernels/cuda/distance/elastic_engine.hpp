// The host side shared by distance_matrix, softdtw_grad_matrix and ElasticBatcher: a list of
// series and of jobs (series x series x params), packed into pinned memory and uploaded
// once, every job routed to a kernel (distance_launch.hpp), results copied back. Buffers
// are kept and grow.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cuda::detail {

// Which kernel family computes the jobs: automatic picks per job the fastest whose
// can_implement says yes (distance_launch.hpp); the others force one family (tests), which
// must be able to run every job given (a broken precondition is asserted, not thrown).
enum class DistancePath { automatic, generic, warp, long_pair };

class ElasticEngine {
 public:
  ElasticEngine();
  ~ElasticEngine();
  ElasticEngine(const ElasticEngine&) = delete;
  ElasticEngine& operator=(const ElasticEngine&) = delete;

  // Forgets series, params and jobs (buffers are kept).
  void clear();
  // `length` samples of `dims` floats (the dims of run()); times (twed) null = sample index.
  // The memory must stay valid until run() returns.
  std::uint32_t add_series(const float* values, std::size_t length, const float* times);
  std::uint32_t add_params(const DistanceParams& params);  // validated by the caller
  // Job k (in the order added) computes distance(series a, series b).
  void add_job(std::uint32_t a, std::uint32_t b, std::uint32_t params);
  std::size_t job_count() const;

  // results[k] = the distance of job k. Timings (optional) are added to, not overwritten.
  void run(std::size_t dims, std::span<double> results, DistancePath path = DistancePath::automatic,
           DeviceTimings* timings = nullptr);

  // softdtw's gradient of every job (params softdtw, validated by the caller) with respect
  // to its series a: grads holds the jobs' gradients in the order added, job k's
  // (length of its a) x dims values row-major (SoftDtwGrad, distance_launch.hpp). The
  // launches' scratch fits `scratch_budget` bytes (but at least one job a launch) and is
  // freed when the call returns. Timings (optional) are added to, not overwritten.
  void run_softdtw_grad(std::size_t dims, std::span<double> grads, std::size_t scratch_budget,
                        DeviceTimings* timings = nullptr);

  std::size_t device_bytes() const;  // device memory held now

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace warpwatch::kernels::cuda::detail
