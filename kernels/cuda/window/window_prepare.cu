// Passes 1-3 of the window search (window_search_launch.hpp): moments, lower bounds, sort.
// A thread finds its input by a binary search of the inputs' first windows (or blocks).
// Double-precision arithmetic here is the cpu's, operation for operation (the project
// builds device code with --fmad=false, so nothing is contracted): the moments are
// common::WindowStats's and the bounds common::lb_kim's and lb_keogh_pattern's.
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include "cuda/runtime/cuda_check.hpp"
#include "window_input_of.cuh"
#include "window_search_launch.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr std::uint64_t kAnchor = kWindowAnchor;
constexpr int kThreads = 256;

struct Moments {
  double mean, m2, big;
};

// common::component_moments over w samples from x (dims 1).
__device__ Moments exact_moments(const float* x, std::uint32_t w) {
  Moments c{0.0, 0.0, 0.0};
  double sum = 0.0;
  for (std::uint32_t i = 0; i < w; ++i) {
    sum += x[i];
    c.big = fmax(c.big, fabs(static_cast<double>(x[i])));
  }
  c.mean = sum / static_cast<double>(w);
  for (std::uint32_t i = 0; i < w; ++i) {
    const double dev = x[i] - c.mean;
    c.m2 += dev * dev;
  }
  return c;
}

// common::znorm_scale.
__device__ double znorm_scale(double m2, std::uint32_t w) {
  const double sd = sqrt(fmax(m2, 0.0) / static_cast<double>(w));
  return sd < 1e-8 ? 0.0 : 1.0 / sd;
}

// Anchor block b of an input holds its window ends [A_b, A_{b+1}): A_0 = first_end, A_b =
// (first_end / kAnchor + b) * kAnchor after it. One thread a block, which starts from the
// anchor of A_b (WindowStats: the multiple of kAnchor at or below it, but not before the
// anchor floor) and slides like WindowStats::at does for increasing ends.
__global__ void moments_kernel(WindowInputs ins, double* mean_out, double* scale_out,
                               std::uint8_t* flat_out) {
  const std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= ins.blocks) return;
  const std::uint32_t p = input_of(ins.block_base, ins.count, g);
  const WindowSearchInput& in = ins.inputs[p];
  const std::uint64_t b = g - ins.block_base[p];
  const std::uint32_t first = ins.window_base[p];
  const std::uint64_t base = in.first_end / kAnchor;
  const std::uint64_t from = b == 0 ? in.first_end : (base + b) * kAnchor;
  const std::uint64_t last_end = in.first_end + static_cast<std::uint64_t>(in.windows - 1) * in.hop;
  const std::uint64_t to = min((base + b + 1) * kAnchor, last_end + 1);  // exclusive
  const std::uint64_t anchor = max(from - from % kAnchor, in.anchor_floor);
  const float* x = in.x - in.x_first;  // indexed by sample index (x_first <= every index read)
  const double n = static_cast<double>(in.w);
  Moments s{0.0, 0.0, 0.0};
  for (std::uint64_t end = anchor; end < to; ++end) {
    if (end == anchor) {
      s = exact_moments(x + (end + 1 - in.w), in.w);
    } else {  // WindowStats::slide, from end - 1 to end
      const double x_old = x[end - in.w], x_new = x[end];
      const double next = s.mean + (x_new - x_old) / n;
      s.m2 += (x_new - x_old) * ((x_new - next) + (x_old - s.mean));
      s.mean = next;
      s.big = fmax(s.big, fabs(x_new));
    }
    if (end < from || (end - in.first_end) % in.hop != 0) continue;
    const std::uint64_t i = first + (end - in.first_end) / in.hop;
    double mean = s.mean, m2 = s.m2;
    if (!(s.m2 > 1e-5 * s.big * s.big)) {  // not trusted: two passes over this window
      const Moments e = exact_moments(x + (end + 1 - in.w), in.w);
      mean = e.mean;
      m2 = e.m2;
    }
    const double scale = znorm_scale(m2, in.w);
    mean_out[i] = mean;
    scale_out[i] = scale;
    flat_out[i] = scale == 0.0 ? 1 : 0;
  }
}

// common::znormal.
__device__ __forceinline__ float znormal(float x, double mean, double scale) {
  return static_cast<float>((static_cast<double>(x) - mean) * scale);
}

__device__ __forceinline__ double cost_of(double d, bool sq) {
  return sq ? d * d : fabs(d);
}

// Distance of x to [lo, hi] (common::outside).
__device__ __forceinline__ double outside(double x, double lo, double hi) {
  return x > hi ? x - hi : (x < lo ? lo - x : 0.0);
}

// The largest float at or below d (a lower bound stays one once rounded).
__device__ __forceinline__ float round_down(double d) {
  return __double2float_rd(d);
}

constexpr int kCorner = 16;  // the corners' side (at most)

// The alignment of a kCorner-sided corner of the table, in double: `rows(i)` and
// `cols(j)` (0-based from the corner's outer cell) are the pattern's and the window's
// values, `inside(i, j)` the band. Returns the least accumulated cost over the corner's
// inner edge (its last row and last column): every path crosses that edge, and the costs
// it adds there are its own, so this is a lower bound of the path's cost within the corner.
template <typename Rows, typename Cols, typename Inside>
__device__ double corner_bound(int c, bool sq, bool dtw, const Rows& rows, const Cols& cols,
                               const Inside& inside) {
  const double inf = __longlong_as_double(0x7ff0000000000000ll);
  double col[kCorner];   // the window's values of the corner
  double prev[kCorner];  // the previous row of accumulated costs
#pragma unroll
  for (int j = 0; j < kCorner; ++j) {
    col[j] = j < c ? cols(j) : 0.0;
    prev[j] = inf;
  }
  double edge = inf;
  for (int i = 0; i < c; ++i) {
    const double a = rows(i);
    double left = inf, diag = i == 0 ? 0.0 : inf;  // the corner cell starts from 0
#pragma unroll
    for (int j = 0; j < kCorner; ++j) {
      if (j >= c) break;
      const double best = fmin(fmin(prev[j], left), diag);
      const double cost = cost_of(a - col[j], sq);
      const double d = inside(i, j) ? (dtw ? cost + best : fmax(cost, best)) : inf;
      diag = prev[j];
      prev[j] = d;
      left = d;
      if (i == c - 1 || j == c - 1) edge = fmin(edge, d);
    }
  }
  return edge;
}

__global__ void bounds_kernel(WindowInputs ins, float* keys, float* kim_out) {
  const std::uint32_t g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= ins.windows) return;
  const std::uint32_t p = input_of(ins.window_base, ins.count, g);
  const WindowSearchInput& in = ins.inputs[p];
  const std::uint32_t i = g - ins.window_base[p];
  const float inf = __int_as_float(0x7f800000);
  if (in.flat && in.flat[i]) {
    keys[g] = inf;
    kim_out[g] = inf;
    return;
  }
  const bool sq = in.kind == 0 || in.kind == 2, dtw = in.kind <= 1;
  const std::uint64_t end = in.first_end + static_cast<std::uint64_t>(i) * in.hop;
  const float* x = in.x + (end + 1 - in.w - in.x_first);
  const bool norm = in.mean != nullptr;
  const double mean = norm ? in.mean[i] : 0.0, scale = norm ? in.scale[i] : 0.0;
  const auto value = [&](std::uint32_t j) -> double {
    return norm ? znormal(x[j], mean, scale) : x[j];
  };
  // LB_Kim generalized to corners (UCR's LB_KimFL is a 3-cell version): every path starts
  // in the top-left corner and ends in the bottom-right one, and when the corners are
  // disjoint their costs add (dtw) or bound the maximum (dk). A side of 1: LB_Kim itself.
  const int side = static_cast<int>(
      min(min(in.n, in.w) / 2, static_cast<std::uint32_t>(min(in.corner, kCorner))));
  const int c = side < 1 ? 1 : side;
  const std::uint32_t n = in.n, w = in.w;
  const auto band = [&](std::uint32_t row, std::uint32_t column) {  // 1-based
    return in.band_lo == nullptr || (static_cast<std::int32_t>(column) >= in.band_lo[row] &&
                                     static_cast<std::int32_t>(column) <= in.band_hi[row]);
  };
  const double first = corner_bound(
      c, sq, dtw, [&](int r) { return static_cast<double>(in.q[r]); },
      [&](int j) { return value(static_cast<std::uint32_t>(j)); },
      [&](int r, int j) { return band(r + 1, j + 1); });
  const double last = corner_bound(
      c, sq, dtw, [&](int r) { return static_cast<double>(in.q[n - 1 - r]); },
      [&](int j) { return value(w - 1 - static_cast<std::uint32_t>(j)); },
      [&](int r, int j) { return band(n - r, w - j); });
  const double kim = side < 1 ? first : (dtw ? first + last : fmax(first, last));
  // LB_Keogh on the pattern's envelope, in column order.
  double keogh = 0.0;
  for (std::uint32_t j = 0; j < in.w; ++j) {
    const double cost = cost_of(outside(value(j), in.env_lo[j], in.env_hi[j]), sq);
    keogh = dtw ? keogh + cost : fmax(keogh, cost);
  }
  const float key = round_down(fmax(kim, keogh)), kim_key = round_down(kim);
  keys[g] = key;
  kim_out[g] = kim_key;
  // WindowQuery::prunes against the input's limit, by the stage that does it.
  const auto prunes = [&](float bound) {
    return static_cast<double>(bound) * (1.0 - in.margin) > static_cast<double>(in.limit);
  };
  if (in.pruned && prunes(key)) atomicAdd(&in.pruned[prunes(kim_key) ? 0 : 1], 1ull);
}

__global__ void iota_kernel(std::uint32_t* out, std::uint32_t count) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = i;
}

__global__ void skip_counts_kernel(WindowInputs ins, const float* kim, const std::uint8_t* aligned,
                                   float bound, unsigned long long* counts) {
  const std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  const WindowSearchInput& in = ins.inputs[0];  // the search's one input
  bool by_kim = false, by_keogh = false;
  const bool flat = i < in.windows && in.flat && in.flat[i];
  if (i < in.windows && !flat && !aligned[i]) {
    // WindowQuery::prunes
    by_kim = static_cast<double>(kim[i]) * (1.0 - in.margin) > static_cast<double>(bound);
    by_keogh = !by_kim;
  }
  const unsigned kims = __popc(__ballot_sync(0xffffffffu, by_kim));
  const unsigned keoghs = __popc(__ballot_sync(0xffffffffu, by_keogh));
  const unsigned flats = __popc(__ballot_sync(0xffffffffu, flat));
  if ((threadIdx.x & 31u) == 0) {
    if (kims) atomicAdd(&counts[0], static_cast<unsigned long long>(kims));
    if (keoghs) atomicAdd(&counts[1], static_cast<unsigned long long>(keoghs));
    if (flats) atomicAdd(&counts[2], static_cast<unsigned long long>(flats));
  }
}

unsigned grid_for(std::uint64_t threads) {
  return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
}

}  // namespace

void launch_window_moments(const WindowInputs& inputs, double* mean, double* scale,
                           std::uint8_t* flat, window_stream_t stream) {
  if (inputs.blocks == 0) return;
  moments_kernel<<<grid_for(inputs.blocks), kThreads, 0, stream>>>(inputs, mean, scale, flat);
  WW_CUDA(cudaGetLastError());
}

void launch_window_bounds(const WindowInputs& inputs, float* keys, float* kim,
                          window_stream_t stream) {
  if (inputs.windows == 0) return;
  bounds_kernel<<<grid_for(inputs.windows), kThreads, 0, stream>>>(inputs, keys, kim);
  WW_CUDA(cudaGetLastError());
}

std::size_t sort_window_bounds(void* temp, std::size_t temp_bytes, const float* keys,
                               float* sorted_keys, std::uint32_t* order, std::uint32_t* indices,
                               std::uint32_t windows, window_stream_t stream) {
  if (temp == nullptr) {
    std::size_t bytes = 0;
    WW_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, sorted_keys, indices, order,
                                            static_cast<int>(windows), 0, 32, stream));
    return bytes;
  }
  iota_kernel<<<grid_for(windows), kThreads, 0, stream>>>(indices, windows);
  WW_CUDA(cudaGetLastError());
  WW_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys, sorted_keys, indices, order,
                                          static_cast<int>(windows), 0, 32, stream));
  return temp_bytes;
}

void launch_window_skip_counts(const WindowInputs& inputs, const float* kim,
                               const std::uint8_t* aligned, float bound, unsigned long long* counts,
                               window_stream_t stream) {
  if (inputs.windows == 0) return;
  skip_counts_kernel<<<grid_for(inputs.windows), kThreads, 0, stream>>>(inputs, kim, aligned, bound,
                                                                        counts);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda::detail
