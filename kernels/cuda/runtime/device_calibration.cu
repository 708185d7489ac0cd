// The device's measured rate of simple float32 operations, behind the bench's ceiling for
// cuda rows: the nominal "SMs x FP32 lanes x clock" holds for add and multiply, but a DP
// cell also needs min, compare and select, which may issue at a lower rate.
#include <cuda_runtime.h>

#include <algorithm>

#include "cuda_check.hpp"
#include "device_info.hpp"
#include "device_memory.hpp"

namespace warpwatch::kernels::cuda {
namespace {

constexpr int chains = 8;    // independent dependency chains per thread
constexpr int steps = 4096;  // steps per chain
constexpr int threads = 256;

template <bool kMin>
__global__ void float_ops_kernel(float b, float c, float* out) {
  float a[chains];
#pragma unroll
  for (int k = 0; k < chains; ++k) a[k] = static_cast<float>(threadIdx.x + k);
  for (int s = 0; s < steps; ++s) {
#pragma unroll
    for (int k = 0; k < chains; ++k) a[k] = kMin ? fminf(a[k] + b, c) : a[k] + b;
  }
  float sum = 0.0f;
#pragma unroll
  for (int k = 0; k < chains; ++k) sum += a[k];
  out[blockIdx.x * blockDim.x + threadIdx.x] = sum;  // keeps the work from being removed
}

template <bool kMin>
double rate(int blocks, DeviceBuffer<float>& out, cudaStream_t stream) {
  Event start, stop;
  float_ops_kernel<kMin><<<blocks, threads, 0, stream>>>(1e-7f, 1e30f, out.data());  // warm-up
  WW_CUDA(cudaGetLastError());
  double best = 0.0;
  for (int run = 0; run < 3; ++run) {
    start.record(stream);
    float_ops_kernel<kMin><<<blocks, threads, 0, stream>>>(1e-7f, 1e30f, out.data());
    WW_CUDA(cudaGetLastError());
    stop.record(stream);
    stop.synchronize();
    const double ops = static_cast<double>(blocks) * threads * chains * steps * (kMin ? 2.0 : 1.0);
    best = std::max(best, ops / stop.seconds_since(start));
  }
  return best;
}

// Bytes read and written per second by a device-to-device copy of 256 MiB (beyond every
// cache): the memory bound of kernels that stream their state through.
double copy_rate(cudaStream_t stream) {
  constexpr std::size_t bytes = std::size_t{256} << 20;
  DeviceBuffer<char> from(bytes), to(bytes);
  Event start, stop;
  WW_CUDA(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  double best = 0.0;
  for (int run = 0; run < 3; ++run) {
    start.record(stream);
    WW_CUDA(cudaMemcpyAsync(to.data(), from.data(), bytes, cudaMemcpyDeviceToDevice, stream));
    stop.record(stream);
    stop.synchronize();
    best = std::max(best, 2.0 * static_cast<double>(bytes) / stop.seconds_since(start));
  }
  return best;
}

}  // namespace

FloatOpRates measure_float_op_rates(cudaStream_t stream) {
  int sms = 0;
  WW_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = sms * 16;  // enough resident warps to hide every latency
  DeviceBuffer<float> out(static_cast<std::size_t>(blocks) * threads);
  return {rate<false>(blocks, out, stream), rate<true>(blocks, out, stream), copy_rate(stream)};
}

}  // namespace warpwatch::kernels::cuda
