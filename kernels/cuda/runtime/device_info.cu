#include <cuda_runtime.h>

#include "device_info.hpp"

namespace warpwatch::kernels::cuda {

int usable_device_count(std::string& detail) {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) {
    detail = std::string("no usable CUDA device: ") + cudaGetErrorString(err);
    cudaGetLastError();  // clear the sticky error so later calls start clean
    return 0;
  }
  if (count == 0) {
    detail = "no CUDA device present";
    return 0;
  }
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess)
    detail = std::string(prop.name) + " (sm_" + std::to_string(prop.major) +
             std::to_string(prop.minor) + ")";
  return count;
}

}  // namespace warpwatch::kernels::cuda
