#include "cuda_check.hpp"

namespace warpwatch::kernels::cuda {

void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line) {
  // Clear a non-sticky error so that the next call starts clean; a sticky one (a kernel
  // fault) stays, and every later call reports it too.
  cudaGetLastError();
  std::string what = std::string("CUDA error ") + cudaGetErrorName(code) + " (" +
                     cudaGetErrorString(code) + ") in " + call + " at " + file + ":" +
                     std::to_string(line);
  if (code == cudaErrorMemoryAllocation) throw CudaOutOfMemory(code, what);
  throw CudaError(code, what);
}

}  // namespace warpwatch::kernels::cuda
