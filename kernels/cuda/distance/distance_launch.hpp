// Host launchers of the whole-series distance kernels (SPEC.md 4). Plain structs only: this
// header is included by C++20 host code and by the .cu files, and needs no CUDA header.
//
// Three kernel families, chosen per job by the host (elastic_engine.cpp):
//   warp      warp per pair, a's rows in registers (R per lane), b streamed as a wavefront;
//             dtw/dk/twed, dims 1, no band, the register side at most kWarpMaxRows long;
//             float32 (explicit fma), within 1e-5 of the float64 reference.
//   long      one pair per launch, row bands of 32*kLongRows rows, one warp per band, bands
//             chained through a boundary row in global memory; same metrics as warp, any
//             lengths; float64 (long paths would lose the tolerance in float32).
//   generic   thread per job, any metric, dims, band and length; float64; O(m) row scratch
//             in global memory, interleaved across the jobs of a launch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

struct CUstream_st;  // cudaStream_t without the CUDA headers

namespace warpwatch::kernels::cuda::detail {

using stream_t = CUstream_st*;

// DistanceParams flattened for the device. band < 0: none.
struct DevParams {
  int metric = 0;  // Metric as int
  int cost = 0;    // Cost as int
  double band = -1.0;
  double gamma = 1.0;
  double nu = 0.0;
  double lambda = 0.0;
  double p = 2.0;
};

// One distance: series a (n samples) against b (m samples), both in DeviceData::values
// (row-major, `dims` floats a sample). Times offsets index DeviceData::times; -1 means
// sample index times. The result goes to DeviceData::out[out].
struct DevJob {
  std::uint64_t a_off = 0;
  std::uint64_t b_off = 0;
  std::int64_t a_toff = -1;
  std::int64_t b_toff = -1;
  std::uint32_t n = 0;
  std::uint32_t m = 0;
  std::uint32_t params = 0;
  std::uint32_t unused = 0;
  std::uint64_t out = 0;
};
static_assert(sizeof(DevJob) == 56);

struct DeviceData {
  const float* values = nullptr;
  const float* times = nullptr;  // twed: seconds on a clock common to all series of the call
  const DevParams* params = nullptr;
  double* out = nullptr;
  std::uint32_t dims = 1;
};

// The specialisations of the warp and long kernels (metric x cost).
enum class FastKind : int { dtw_sq = 0, dtw_abs = 1, dk_sq = 2, dk_abs = 3, twed = 4 };

// Calls f(std::integral_constant<FastKind, kind>{}): a launcher's one switch from the
// runtime kind to its kernel's template argument.
template <typename F>
decltype(auto) with_fast_kind(FastKind kind, F&& f) {
  switch (kind) {
    case FastKind::dtw_sq: return f(std::integral_constant<FastKind, FastKind::dtw_sq>{});
    case FastKind::dtw_abs: return f(std::integral_constant<FastKind, FastKind::dtw_abs>{});
    case FastKind::dk_sq: return f(std::integral_constant<FastKind, FastKind::dk_sq>{});
    case FastKind::dk_abs: return f(std::integral_constant<FastKind, FastKind::dk_abs>{});
    case FastKind::twed: break;
  }
  return f(std::integral_constant<FastKind, FastKind::twed>{});
}

// --- warp per pair --------------------------------------------------------------------
// Rows per lane the warp kernel is built for; a job uses the smallest with 32*R >= n.
inline constexpr int kWarpRows[] = {1, 2, 4, 8, 16, 32, 48};
inline constexpr std::size_t kWarpMaxRows = 32 * 48;
// twed keeps five values per row in registers: at 32 rows a lane it spills (ptxas).
inline constexpr std::size_t kWarpMaxRowsTwed = 32 * 16;

// Smallest R of kWarpRows with 32 * R >= n, or 0 when n is too long for `kind`.
int warp_rows_per_lane(FastKind kind, std::size_t n);

// One warp per job of jobs[0, count): a = job's a (rows, registers), b streamed.
void launch_warp(FastKind kind, int rows_per_lane, const DeviceData& data, const DevJob* jobs,
                 std::size_t count, stream_t stream);

// --- one long pair --------------------------------------------------------------------
inline constexpr int kLongRows = 8;  // rows per lane; a band is 32 * kLongRows rows

// Device scratch one launch needs, in bytes, for a pair with n rows and m columns.
std::size_t long_pair_scratch_bytes(std::size_t n, std::size_t m);

// Computes one job (its a as rows) with `scratch` (long_pair_scratch_bytes, 16-byte
// aligned). `job` is the host copy of the job, `job_on_device` the same job in device
// memory.
void launch_long_pair(FastKind kind, const DeviceData& data, const DevJob& job,
                      const DevJob* job_on_device, void* scratch, stream_t stream);

// --- thread per job -----------------------------------------------------------------------
// Doubles of scratch per job for jobs whose longest b has max_m samples.
inline std::size_t generic_scratch_per_job(std::size_t max_m) { return 3 * (max_m + 1); }

// jobs[0, count), every job's m <= max_m; scratch holds count * generic_scratch_per_job.
void launch_generic(const DeviceData& data, const DevJob* jobs, std::size_t count,
                    std::size_t max_m, double* scratch, stream_t stream);

}  // namespace warpwatch::kernels::cuda::detail
