// device_properties() (cuda.hpp): what the benchmark's ceiling column needs. CUDA 13 dropped
// the clock fields of cudaDeviceProp, so clocks and the bus come from attributes.
#include <cuda_runtime_api.h>

#include "cuda_check.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cuda.hpp"

namespace warpwatch::kernels::cuda {

DeviceProperties device_properties() {
  int device = 0;
  WW_CUDA(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  WW_CUDA(cudaGetDeviceProperties(&prop, device));
  const auto attribute = [device](cudaDeviceAttr what) {
    int v = 0;
    WW_CUDA(cudaDeviceGetAttribute(&v, what, device));
    return v;
  };
  DeviceProperties p;
  p.name = prop.name;
  p.sm_count = attribute(cudaDevAttrMultiProcessorCount);
  p.clock_khz = attribute(cudaDevAttrClockRate);
  p.fp32_lanes_per_sm = fp32_lanes_per_sm(prop.major, prop.minor);
  const double memory_khz = attribute(cudaDevAttrMemoryClockRate);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth);
  p.memory_bytes_per_s = memory_khz * 1e3 * 2.0 * bus_bits / 8.0;  // double data rate
  p.memory_bytes = prop.totalGlobalMem;
  return p;
}

}  // namespace warpwatch::kernels::cuda
