// Every CUDA runtime call of the backend goes through check(): a failure becomes a
// CudaError naming the call, the file and line, and the runtime's own message, so that a
// caller (the daemon, a test) can report it or fall back, and nothing fails silently.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace warpwatch::kernels::cuda {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// Thrown when the device has too little free memory for a request.
class CudaOutOfMemory : public CudaError {
 public:
  using CudaError::CudaError;
};

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

inline void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

}  // namespace warpwatch::kernels::cuda

// WW_CUDA(cudaMemcpyAsync(...)); and, right after a kernel launch, WW_CUDA(cudaGetLastError());
#define WW_CUDA(call) ::warpwatch::kernels::cuda::check((call), #call, __FILE__, __LINE__)
