// The whole-series distance kernels (docs/spec.md §4) as three families, each saying what it can
// run and the workspace it needs before it runs, then running on a given stream (CUTLASS's
// can_implement / get_workspace_size / run). Plain structs only: this header is included
// by C++20 host code and by the .cu files, and needs no CUDA header. The host picks a
// family per job (elastic_engine.cpp):
//   WarpDistance      warp per pair, a's rows in registers (R per lane), b streamed as a
//                     wavefront; dtw/dk/twed, dims 1, no band, the register side at most
//                     max_rows long; float32 (explicit fma), within 1e-5 of the float64
//                     reference.
//   LongPairDistance  one pair per launch, row bands of 32*rows_per_lane rows, one warp per
//                     band, bands chained through a boundary row in global memory; the same
//                     metrics as the warp family, any lengths; float64 (long paths would lose
//                     the tolerance in float32).
//   GenericDistance   thread per job, any metric, dims, band and length; float64; O(m) row
//                     workspace in global memory, interleaved across the jobs of a launch;
//                     msm, erp and lcss as the shared cells (common/measure_cells.hpp).
// and, not a distance, SoftDtwGrad: softdtw's gradient, thread per job (softdtw_grad.cu).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <type_traits>

#include "warpwatch/kernels/measures.hpp"

struct CUstream_st;  // cudaStream_t without the CUDA headers

namespace warpwatch::kernels {
struct DistanceParams;  // params.hpp is C++20; the .cu files that include this are C++17
}  // namespace warpwatch::kernels

namespace warpwatch::kernels::cuda::detail {

using stream_t = CUstream_st*;

// DistanceParams flattened for the device: the measures' own parameters as the cells read
// them (MeasureParams, generated from WARPWATCH_MEASURE_PARAMS), and band < 0: none.
struct DevParams : MeasureParams {
  int metric = 0;  // Metric (measures.hpp) as int
  int cost = 0;    // Cost as int
  double band = -1.0;
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
    case FastKind::dtw_sq:
      return f(std::integral_constant<FastKind, FastKind::dtw_sq>{});
    case FastKind::dtw_abs:
      return f(std::integral_constant<FastKind, FastKind::dtw_abs>{});
    case FastKind::dk_sq:
      return f(std::integral_constant<FastKind, FastKind::dk_sq>{});
    case FastKind::dk_abs:
      return f(std::integral_constant<FastKind, FastKind::dk_abs>{});
    case FastKind::twed:
      break;
  }
  return f(std::integral_constant<FastKind, FastKind::twed>{});
}

// The specialisation of the warp and long-pair kernels for these params, if any: dtw and dk
// without a band, and twed, on series of dimension 1. (The can_implement functions are
// host code, in elastic_engine.cpp.)
std::optional<FastKind> fast_kind(const DistanceParams& params, std::size_t dims);

// --- warp per pair --------------------------------------------------------------------
struct WarpDistance {
  // Rows per lane the kernel is built for; a job uses the smallest with 32*R >= n.
  static constexpr int rows_options[] = {1, 2, 4, 8, 16, 32, 48};
  static constexpr std::size_t max_rows = 32 * 48;
  static constexpr std::size_t max_rows_twed =
      32 * 16;  // twed keeps five values a row: more spills

  // A job whose register side has n samples.
  static bool can_implement(const DistanceParams& params, std::size_t dims, std::size_t n);
  // The smallest rows per lane that holds n (a job can_implement says yes to).
  static int rows_per_lane(std::size_t n);
  static constexpr std::size_t workspace_bytes() { return 0; }
  // One warp per job of jobs[0, count), all of `kind` and `rows_per_lane`: a = the job's a
  // (rows, registers), b streamed.
  static void run(FastKind kind, int rows_per_lane, const DeviceData& data, const DevJob* jobs,
                  std::size_t count, stream_t stream);
};

// --- one long pair --------------------------------------------------------------------
struct LongPairDistance {
  static constexpr int rows_per_lane = 8;  // a band is 32 * rows_per_lane rows

  // Any lengths, for the parameters the fast kernels specialise on.
  static bool can_implement(const DistanceParams& params, std::size_t dims) {
    return fast_kind(params, dims).has_value();
  }
  // Device workspace of one launch for a pair of n rows and m columns.
  static std::size_t workspace_bytes(std::size_t n, std::size_t m);
  // One job (its a as the rows) with `workspace` (workspace_bytes, 16-byte aligned). `job`
  // is the host copy of the job, `job_on_device` the same job in device memory.
  static void run(FastKind kind, const DeviceData& data, const DevJob& job,
                  const DevJob* job_on_device, void* workspace, stream_t stream);
};

// --- thread per job -------------------------------------------------------------------
struct GenericDistance {
  static constexpr bool can_implement() { return true; }  // any metric, dims, band, lengths
  // Device workspace of a launch of `jobs` jobs whose longest b has max_m samples.
  static constexpr std::size_t workspace_bytes(std::size_t jobs, std::size_t max_m) {
    return jobs * 3 * (max_m + 1) * sizeof(double);
  }
  // jobs[0, count), every job's m <= max_m; `workspace` of workspace_bytes(count, max_m).
  static void run(const DeviceData& data, const DevJob* jobs, std::size_t count, std::size_t max_m,
                  double* workspace, stream_t stream);
};

// --- softdtw's gradient, thread per job -------------------------------------------------
// Each job's gradient with respect to its a (n x dims doubles) goes to DeviceData::out from
// index job.out on. float64; the job's whole soft-DTW table in the workspace for the backward
// pass, interleaved across the jobs of the launch (cell (i, j) of job k at
// (i * (max_m + 2) + j) * count + k), then two rows of E.
struct SoftDtwGrad {
  // Device workspace of a launch of `jobs` jobs, none longer than max_n (a) and max_m (b).
  static constexpr std::size_t workspace_bytes(std::size_t jobs, std::size_t max_n,
                                               std::size_t max_m) {
    return jobs * ((max_n + 2) * (max_m + 2) + 2 * (max_m + 2)) * sizeof(double);
  }
  // jobs[0, count), softdtw params; `workspace` of workspace_bytes(count, max_n, max_m).
  static void run(const DeviceData& data, const DevJob* jobs, std::size_t count, std::size_t max_n,
                  std::size_t max_m, double* workspace, stream_t stream);
};

}  // namespace warpwatch::kernels::cuda::detail
