// softdtw's gradient (docs/spec.md §4.2) with respect to a, a thread per job in float64: the
// reference's recursions (reference::softdtw_grad: Cuturi & Blondel 2017, Algorithms 1 and 2)
// in its order of operations. The forward pass writes the whole table R with +inf around it
// (row n + 1, column m + 1) and outside the band; the backward pass keeps two rows of
// E = d value / d R and adds each cell's E times the local cost's derivative to the
// gradient row by row. A cell's neighbours along its row are carried in registers, so a
// cell loads one value of R forward and two of R and one of E backward. Everything lives in
// global scratch interleaved across the launch's jobs, so that a warp's threads, at the
// same cell when the lengths agree, touch one line.
#include <cuda_runtime.h>

#include "cuda/runtime/cuda_check.hpp"
#include "distance_launch.hpp"
#include "double_cells.cuh"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr int kThreads = 128;
constexpr unsigned kLocalDims = 8;  // a gradient row of up to this many dims in registers

// The job's cells in the interleaved scratch: (i, j) at (i * cols + j) * stride.
struct Table {
  double* base;
  std::size_t cols, stride;
  __device__ double& operator()(std::size_t i, std::size_t j) const {
    return base[(i * cols + j) * stride];
  }
};

__global__ void __launch_bounds__(kThreads)
    softdtw_grad_kernel(DeviceData d, const DevJob* __restrict__ jobs, unsigned count,
                        std::size_t max_n, std::size_t max_m, double* scratch) {
  const unsigned k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  const DevJob job = jobs[k];
  const DevParams p = d.params[job.params];
  const unsigned n = job.n, m = job.m, dims = d.dims;
  const float* av = d.values + job.a_off;
  const float* bv = d.values + job.b_off;
  const auto a_at = [&](unsigned i) { return av + static_cast<std::size_t>(i - 1) * dims; };
  const auto b_at = [&](unsigned j) { return bv + static_cast<std::size_t>(j - 1) * dims; };
  const double inf = inf_d();
  const std::size_t cols = max_m + 2;
  const Table r{scratch + k, cols, count};
  // Two rows of E after the tables: E(i + 1, .) and E(i, .).
  const Table e{scratch + (max_n + 2) * cols * count + k, cols, count};

  // Forward (docs/spec.md §4.2).
  for (unsigned j = 0; j <= m + 1; ++j) {
    r(0, j) = j == 0 ? 0.0 : inf;
    r(n + 1, j) = inf;
  }
  for (unsigned i = 1; i <= n; ++i) {
    const auto [lo, hi] = band_row(i, n, m, p.band);
    r(i, 0) = inf;
    double left = inf, diag = r(i - 1, 0);  // one load a cell: up, which is the next diag
    for (unsigned j = 1; j <= m; ++j) {
      const double up = r(i - 1, j);
      double v = inf;
      if (j >= lo && j <= hi && in_band(i, j, n, m, p.band))
        v = local_cost(a_at(i), b_at(j), dims, p.cost) + softmin(up, left, diag, p.gamma);
      r(i, j) = v;
      left = v;
      diag = up;
    }
    r(i, m + 1) = inf;
  }

  // Backward: E(n, m) = 1, E(i, j) = sum over the successors s of
  // E(s) exp((R(s) - c(s) - R(i, j)) / gamma); E = 0 beyond row n and column m and
  // wherever R is +inf (so that a pair without a path has the gradient 0).
  double* grad = d.out + job.out;
  for (std::size_t t = 0; t < static_cast<std::size_t>(n) * dims; ++t) grad[t] = 0.0;
  if (!(r(n, m) < inf)) return;
  unsigned next = 0, cur = 1;  // the rows of e holding E(i + 1, .) and E(i, .)
  for (unsigned j = 1; j <= m; ++j) e(next, j) = 0.0;  // row n + 1
  // E(s) exp((R(s) - c(s) - R(i, j)) / gamma) for a successor s = (si, sj) of (i, j).
  const auto term = [&](double e_s, double r_s, unsigned si, unsigned sj, double r_ij) {
    if (e_s == 0.0 || !(r_s < inf)) return 0.0;
    const double c = local_cost(a_at(si), b_at(sj), dims, p.cost);
    return e_s * exp((r_s - c - r_ij) / p.gamma);
  };
  double local[kLocalDims];
  for (unsigned i = n; i >= 1; --i) {
    const float* a_i = a_at(i);
    double* acc = dims <= kLocalDims ? local : grad + static_cast<std::size_t>(i - 1) * dims;
    for (unsigned c = 0; c < dims; ++c) acc[c] = 0.0;
    // The successors to the right come from the last column's loads (column m + 1: E = 0).
    double e_right = 0.0, e_down_right = 0.0, r_right = inf, r_down_right = inf;
    for (unsigned j = m; j >= 1; --j) {
      const double r_ij = r(i, j), r_down = r(i + 1, j), e_down = e(next, j);
      double e_ij = 0.0;
      if (r_ij < inf) {
        if (i == n && j == m)
          e_ij = 1.0;
        else
          e_ij = term(e_down, r_down, i + 1, j, r_ij) + term(e_right, r_right, i, j + 1, r_ij) +
                 term(e_down_right, r_down_right, i + 1, j + 1, r_ij);
      }
      e(cur, j) = e_ij;
      e_right = e_ij;
      e_down_right = e_down;
      r_right = r_ij;
      r_down_right = r_down;
      if (e_ij == 0.0) continue;
      const float* b_j = b_at(j);
      for (unsigned c = 0; c < dims; ++c) {
        const double diff = static_cast<double>(a_i[c]) - static_cast<double>(b_j[c]);
        const double dcost =
            p.cost == kCostSq ? 2.0 * diff : static_cast<double>((diff > 0.0) - (diff < 0.0));
        acc[c] += e_ij * dcost;
      }
    }
    if (acc == local)
      for (unsigned c = 0; c < dims; ++c) grad[static_cast<std::size_t>(i - 1) * dims + c] = acc[c];
    next ^= 1;
    cur ^= 1;
  }
}

}  // namespace

void SoftDtwGrad::run(const DeviceData& data, const DevJob* jobs, std::size_t count,
                      std::size_t max_n, std::size_t max_m, double* workspace, stream_t stream) {
  if (count == 0) return;
  const unsigned blocks = static_cast<unsigned>((count + kThreads - 1) / kThreads);
  softdtw_grad_kernel<<<blocks, kThreads, 0, stream>>>(data, jobs, static_cast<unsigned>(count),
                                                       max_n, max_m, workspace);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda::detail
