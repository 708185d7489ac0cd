// Every CUDA runtime call of the backend goes through check() (WW_CUDA): a failure becomes
// one of the public error types of warpwatch/kernels/errors.hpp, naming the call, the file
// and line, and the runtime's own message, so that a caller (the daemon, a test) can
// report it or act on it, and nothing fails silently. (libcudf utilities/error.hpp.)
#pragma once

#include <cuda_runtime_api.h>

#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda {

// Throws CudaOutOfMemory for an allocation failure, DeviceLost for the errors after which
// the context is unusable, CudaError for the rest.
[[noreturn]] void throw_cuda_error(cudaError_t code, const char* call, const char* file, int line);

// Whether `code` leaves the process's CUDA context unusable (the runtime documents these
// as "the process must be terminated and relaunched").
bool is_device_lost(cudaError_t code);

inline void check(cudaError_t code, const char* call, const char* file, int line) {
  if (code != cudaSuccess) throw_cuda_error(code, call, file, line);
}

}  // namespace warpwatch::kernels::cuda

// WW_CUDA(cudaMemcpyAsync(...)); and, right after a kernel launch, WW_CUDA(cudaGetLastError());
#define WW_CUDA(call) ::warpwatch::kernels::cuda::check((call), #call, __FILE__, __LINE__)
