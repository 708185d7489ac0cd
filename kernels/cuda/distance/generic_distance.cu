// Thread per job whole-series distances (docs/spec.md §4) for what the fast kernels do not take:
// ed, softdtw, dims > 1, a Sakoe-Chiba band, any lengths. float64, the cell formulas of the
// reference; one row of D (plus twed's g row and deletion costs) in global scratch,
// interleaved across the jobs of the launch (element j of job k at j * count + k) so that
// a warp's threads, all at the same j when the lengths agree, touch one line.
#include <cuda_runtime.h>

#include "common/measure_cells.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "distance_launch.hpp"
#include "double_cells.cuh"
#include "warpwatch/kernels/measures.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr int kThreads = 128;

// Row view of the interleaved scratch.
struct Strided {
  double* base;
  std::size_t stride;
  __device__ double& operator[](std::size_t j) const { return base[j * stride]; }
};

// ||x - y||_p, y null = the zero sample (docs/spec.md §4.3).
__device__ double pnorm_diff(const float* x, const float* y, unsigned dims, double p) {
  double s = 0.0;
  for (unsigned k = 0; k < dims; ++k) {
    const double diff = fabs(static_cast<double>(x[k]) - (y ? static_cast<double>(y[k]) : 0.0));
    s += p == 1.0 ? diff : p == 2.0 ? diff * diff : pow(diff, p);
  }
  return p == 1.0 ? s : p == 2.0 ? sqrt(s) : pow(s, 1.0 / p);
}

// dtw, dk and softdtw: the reference's table, one row at a time. With a band, each row
// visits a conservative column range (one column of slack either side for rounding) and
// decides each cell with the reference's own predicate, evaluated the same way in double.
__device__ double warping(const DeviceData& d, const DevJob& job, const DevParams& p, Strided row) {
  const unsigned n = job.n, m = job.m, dims = d.dims;
  const float* av = d.values + job.a_off;
  const float* bv = d.values + job.b_off;
  const double inf = inf_d();
  row[0] = 0.0;
  for (unsigned j = 1; j <= m; ++j) row[j] = inf;
  unsigned prev_lo = 1;
  for (unsigned i = 1; i <= n; ++i) {
    const auto [lo, hi] = band_row(i, n, m, p.band);
    // lo and hi never decrease with i: cells left of lo that the last row wrote become
    // +inf here, cells right of hi were never written.
    double diag = row[lo - 1];
    for (unsigned j = prev_lo - 1; j < lo; ++j) row[j] = inf;
    prev_lo = lo;
    double left = inf;
    const float* a_i = av + static_cast<std::size_t>(i - 1) * dims;
    for (unsigned j = lo; j <= hi; ++j) {
      const double up = row[j];
      double v = inf;
      if (in_band(i, j, n, m, p.band)) {
        const double c = local_cost(a_i, bv + static_cast<std::size_t>(j - 1) * dims, dims, p.cost);
        const double best = fmin(fmin(up, left), diag);
        const auto metric = static_cast<Metric>(p.metric);
        v = metric == Metric::dtw  ? c + best
            : metric == Metric::dk ? fmax(c, best)
                                   : c + softmin(up, left, diag, p.gamma);
      }
      row[j] = v;
      left = v;
      diag = up;
    }
  }
  return row[m];
}

// ed (docs/spec.md §4.0): the lock-step sum, in the reference's order (equal lengths: checked by
// the host before any job is made).
__device__ double lock_step(const DeviceData& d, const DevJob& job, const DevParams& p) {
  const float* av = d.values + job.a_off;
  const float* bv = d.values + job.b_off;
  double sum = 0.0;
  for (unsigned i = 0; i < job.n; ++i)
    sum += local_cost(av + static_cast<std::size_t>(i) * d.dims,
                      bv + static_cast<std::size_t>(i) * d.dims, d.dims, p.cost);
  return sum;
}

// twed (docs/spec.md §4.3) with g(i, j) = ||a_i - b_j|| + nu |ta_i - tb_j| kept for the next row,
// g(0, .) = g(., 0) = 0 so that cell (1, 1) leaves out the index-0 terms and the other
// cells of row 1 and column 1 are +inf through D anyway.
__device__ double twed(const DeviceData& d, const DevJob& job, const DevParams& p, Strided row,
                       Strided g, Strided del_b) {
  const unsigned n = job.n, m = job.m, dims = d.dims;
  const float* av = d.values + job.a_off;
  const float* bv = d.values + job.b_off;
  const float* at = job.a_toff >= 0 ? d.times + job.a_toff : nullptr;
  const float* bt = job.b_toff >= 0 ? d.times + job.b_toff : nullptr;
  const auto ta = [&](unsigned i) {
    return i == 0 ? 0.0 : at ? static_cast<double>(at[i - 1]) : i - 1.0;
  };
  const auto tb = [&](unsigned j) {
    return j == 0 ? 0.0 : bt ? static_cast<double>(bt[j - 1]) : j - 1.0;
  };
  const auto sample = [&](const float* v, unsigned i) {  // 1-based; 0 is the zero sample
    return i == 0 ? nullptr : v + static_cast<std::size_t>(i - 1) * dims;
  };
  const double inf = inf_d();
  for (unsigned j = 1; j <= m; ++j) {
    const double step = j == 1 ? pnorm_diff(sample(bv, 1), nullptr, dims, p.p)
                               : pnorm_diff(sample(bv, j), sample(bv, j - 1), dims, p.p);
    del_b[j] = step + p.nu * (tb(j) - tb(j - 1)) + p.lambda;
  }
  row[0] = 0.0;
  g[0] = 0.0;
  for (unsigned j = 1; j <= m; ++j) {
    row[j] = inf;
    g[j] = 0.0;
  }
  for (unsigned i = 1; i <= n; ++i) {
    const float* a_i = sample(av, i);
    const double step = i == 1 ? pnorm_diff(a_i, nullptr, dims, p.p)
                               : pnorm_diff(a_i, sample(av, i - 1), dims, p.p);
    const double del_a = step + p.nu * (ta(i) - ta(i - 1)) + p.lambda;
    double diag = row[0], gdiag = 0.0, left = inf;
    row[0] = inf;
    for (unsigned j = 1; j <= m; ++j) {
      const double up = row[j], gold = g[j];
      const double gij = pnorm_diff(a_i, sample(bv, j), dims, p.p) + p.nu * fabs(ta(i) - tb(j));
      const double match = (diag + gij) + gdiag;
      const double v = fmin(match, fmin(up + del_a, left + del_b[j]));
      row[j] = v;
      g[j] = gij;
      left = v;
      diag = up;
      gdiag = gold;
    }
  }
  return row[m];
}

// The shared cells (common/measure_cells.hpp) in float64: samples read from the job's
// series (1-based), the kept row in the interleaved scratch, the band the reference's
// predicate (in_band, as warping() decides it).
struct DeviceSamples {
  const float* values;
  unsigned dims;
  __device__ double operator()(std::size_t i, std::size_t k) const {
    return static_cast<double>(values[(i - 1) * dims + k]);
  }
};
struct StridedRow {
  Strided kept;
  __device__ double load(std::size_t j) const { return kept[j]; }
  __device__ void store(std::size_t j, double v) const { kept[j] = v; }
};
struct DeviceBand {
  unsigned n, m;
  double band;
  __device__ bool operator()(std::size_t i, std::size_t j) const {
    return in_band(static_cast<unsigned>(i), static_cast<unsigned>(j), n, m, band);
  }
};

template <class Cell>
__device__ double shared_cells(const Cell& cell, const DeviceData& d, const DevJob& job,
                               const DevParams& p, Strided row) {
  const cells::ScalarOps<double> ops;
  const DeviceSamples a{d.values + job.a_off, d.dims}, b{d.values + job.b_off, d.dims};
  StridedRow kept_row{row};
  const double value =
      p.band >= 0.0 ? cell.distance(ops, a, b, job.n, job.m, d.dims, kept_row,
                                    DeviceBand{job.n, job.m, p.band})
                    : cell.distance(ops, a, b, job.n, job.m, d.dims, kept_row, cells::NoBand{});
  return Cell::finish(value, job.n, job.m);
}

__global__ void __launch_bounds__(kThreads)
    generic_kernel(DeviceData d, const DevJob* __restrict__ jobs, unsigned count, std::size_t max_m,
                   double* scratch) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const DevJob job = jobs[k];
  const DevParams p = d.params[job.params];
  const std::size_t width = max_m + 1;
  const Strided row{scratch + k, count};
  double result = 0.0;
  switch (static_cast<Metric>(p.metric)) {
    case Metric::ed:
      result = lock_step(d, job, p);
      break;
    case Metric::twed: {
      const Strided g{scratch + width * count + k, count},
          del_b{scratch + 2 * width * count + k, count};
      result = twed(d, job, p, row, g, del_b);
      break;
    }
    case Metric::dtw:
    case Metric::dk:
    case Metric::softdtw:
      result = warping(d, job, p, row);
      break;
      WARPWATCH_CELL_MEASURE_CASES
      cells::with_cell(static_cast<Metric>(p.metric), p, p.cost == kCostSq,
                       [&](const auto& cell) { result = shared_cells(cell, d, job, p, row); });
      break;
  }
  d.out[job.out] = result;
}

}  // namespace

void GenericDistance::run(const DeviceData& data, const DevJob* jobs, std::size_t count,
                          std::size_t max_m, double* scratch, stream_t stream) {
  if (count == 0) return;
  const unsigned blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
  generic_kernel<<<blocks, kThreads, 0, stream>>>(data, jobs, static_cast<unsigned>(count), max_m,
                                                  scratch);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda::detail
