#include "cuda/device_context.hpp"

#include <cstdint>
#include <limits>
#include <map>
#include <string>

namespace warpwatch::kernels::cuda {
namespace {

DeviceContext* make_context(int device, DeviceContext* (*construct)(int)) {
  int count = 0;
  WW_CUDA(cudaGetDeviceCount(&count));
  if (device < 0 || device >= count)
    throw CudaError(cudaErrorInvalidDevice, "CUDA device " + std::to_string(device) +
                                                " does not exist (this machine has " +
                                                std::to_string(count) + ")");
  WW_CUDA(cudaSetDevice(device));
  // StreamOrderedBuffer's pool keeps what is freed for the next allocations instead of
  // returning it to the driver at every synchronization (the default threshold, 0):
  // streams and patterns come and go in the thousands.
  int pools = 0;
  WW_CUDA(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device));
  if (!pools)
    throw CudaError(cudaErrorNotSupported,
                    "device " + std::to_string(device) +
                        " has no stream-ordered memory pools (cudaMallocAsync), which the "
                        "cuda backend's stream-mode state needs");
  cudaMemPool_t pool = nullptr;
  WW_CUDA(cudaDeviceGetDefaultMemPool(&pool, device));
  std::uint64_t keep = std::numeric_limits<std::uint64_t>::max();
  WW_CUDA(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
  return construct(device);  // never deleted: see the header
}

}  // namespace

DeviceContext& DeviceContext::get(int device) {
  static std::mutex made_mu;
  static std::map<int, DeviceContext*> made;
  DeviceContext* context = nullptr;
  {
    const std::lock_guard lock(made_mu);
    auto& slot = made[device];
    if (!slot) {
      try {
        slot = make_context(device, [](int d) { return new DeviceContext(d); });
      } catch (...) {
        made.erase(device);
        throw;
      }
    }
    context = slot;
  }
  context->make_current();
  return *context;
}

void DeviceContext::make_current() const {
  WW_CUDA(cudaSetDevice(device_));
}

DeviceContext::Lock::Lock(DeviceContext& context) : lock_(context.mu_) {
  context.make_current();
}

}  // namespace warpwatch::kernels::cuda
