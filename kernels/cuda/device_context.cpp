#include "cuda/device_context.hpp"

namespace warpwatch::kernels::cuda {

DeviceContext& DeviceContext::get() {
  static DeviceContext* const context = [] {
    WW_CUDA(cudaSetDevice(0));
    return new DeviceContext();  // never deleted: see the header
  }();
  return *context;
}

}  // namespace warpwatch::kernels::cuda
