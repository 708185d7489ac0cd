// The Matcher's window mode with ed (window_search_launch.hpp, launch_window_ed): a thread
// a window. Neighbouring threads take neighbouring windows, so at each step j a warp reads
// neighbouring samples (one or two cache lines) and the pattern's value j (a broadcast).
// The window's values are those the other passes compare (common::znormal of the moments
// pass's mean and 1/std, rounded to float32); the costs are summed in double, in sample
// order, like the reference (float32 rounding of the sum only at the end).
#include <cuda_runtime.h>

#include "cuda/runtime/cuda_check.hpp"
#include "window_input_of.cuh"
#include "window_search_launch.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr int kThreads = 256;
constexpr std::uint32_t kCheckEvery = 64;  // samples between two abandoning tests

__global__ void ed_kernel(WindowInputs ins, std::uint32_t begin, std::uint32_t end) {
  const std::uint32_t g = begin + blockIdx.x * blockDim.x + threadIdx.x;
  if (g >= end) return;
  const std::uint32_t p = input_of(ins.window_base, ins.count, g);
  const WindowSearchInput& in = ins.inputs[p];
  const std::uint32_t i = g - ins.window_base[p];
  const float inf = __int_as_float(0x7f800000);
  if (in.flat && in.flat[i]) {
    in.distances[i] = inf;
    return;
  }
  const bool sq = in.kind == kWindowEdSq, norm = in.mean != nullptr;
  const std::uint64_t last = in.first_end + static_cast<std::uint64_t>(i) * in.hop;
  const float* x = in.x + (last + 1 - in.w - in.x_first);
  const double mean = norm ? in.mean[i] : 0.0, scale = norm ? in.scale[i] : 0.0;
  // Over this, the sum's float cannot be at or under the limit (rounding is monotone).
  const double over = static_cast<double>(nextafterf(in.limit, inf));
  double sum = 0.0;
  for (std::uint32_t j = 0; j < in.n; ++j) {
    const float v = norm ? static_cast<float>((static_cast<double>(x[j]) - mean) * scale) : x[j];
    const double d = static_cast<double>(in.q[j]) - static_cast<double>(v);
    sum += sq ? d * d : fabs(d);
    if ((j + 1) % kCheckEvery == 0 && sum > over) {
      in.distances[i] = inf;
      if (in.pruned) atomicAdd(&in.pruned[2], 1ull);
      return;
    }
  }
  in.distances[i] = static_cast<float>(sum);
}

}  // namespace

void launch_window_ed(const WindowInputs& inputs, std::uint32_t begin, std::uint32_t end,
                      window_stream_t stream) {
  if (end <= begin) return;
  const unsigned blocks = (end - begin + kThreads - 1) / kThreads;
  ed_kernel<<<blocks, kThreads, 0, stream>>>(inputs, begin, end);
  WW_CUDA(cudaGetLastError());
}

}  // namespace warpwatch::kernels::cuda::detail
