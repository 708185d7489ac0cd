#include "cuda/runtime/cuda_check.hpp"

#include <string>

namespace warpwatch::kernels::cuda {

bool is_device_lost(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorECCUncorrectable:
    case cudaErrorContained:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorMpsClientTerminated:
    case cudaErrorExternalDevice:
      return true;
    default:
      return false;
  }
}

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Clear a non-sticky error so that the next call starts clean; a sticky one (a kernel
  // fault) stays, and every later call reports it too.
  cudaGetLastError();
  const std::string what = std::string("CUDA error ") + cudaGetErrorName(code) + " (" +
                           cudaGetErrorString(code) + ") in " + call + " at " + file + ":" +
                           std::to_string(line);
  const int c = static_cast<int>(code);
  if (code == cudaErrorMemoryAllocation) throw CudaOutOfMemory(c, what);
  if (is_device_lost(code)) throw DeviceLost(c, what + ": the device context is lost");
  throw CudaError(c, what);
}

}  // namespace warpwatch::kernels::cuda
