#include "cuda/device_context.hpp"

#include <cstdint>
#include <limits>

namespace warpwatch::kernels::cuda {

DeviceContext& DeviceContext::get() {
  static DeviceContext* const context = [] {
    WW_CUDA(cudaSetDevice(0));
    // StreamOrderedBuffer's pool keeps what is freed for the next allocations instead of
    // returning it to the driver at every synchronization (the default threshold, 0):
    // streams and patterns come and go in the thousands.
    int pools = 0;
    WW_CUDA(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0));
    if (!pools)
      throw CudaError(cudaErrorNotSupported,
                      "device 0 has no stream-ordered memory pools (cudaMallocAsync), which "
                      "the cuda backend's stream-mode state needs");
    cudaMemPool_t pool = nullptr;
    WW_CUDA(cudaDeviceGetDefaultMemPool(&pool, 0));
    std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
    WW_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    return new DeviceContext();  // never deleted: see the header
  }();
  return *context;
}

}  // namespace warpwatch::kernels::cuda
