// The two error tiers of warpwatch (faiss FaissAssert.h, libcudf error.hpp):
//
// 1. User and data errors throw documented types: std::invalid_argument for a bad call or
//    bad parameters (naming what is wrong), config::ConfigError for a bad configuration
//    (file:line:column), and the CUDA errors below. Bad input that arrives while running
//    (frames, samples) is never thrown: the stream layer counts and logs it (docs/spec.md §6).
// 2. Broken invariants (a bug in warpwatch, not in what it was given) are not thrown:
//    WW_ASSERT prints where and why and aborts, so the bug is seen (a core dump, a restart
//    by systemd) instead of being caught and carried on with. WW_DEBUG_ASSERT is the same
//    in debug builds only, for checks on hot paths.
//
// This header needs no CUDA headers, so code built without CUDA can catch the types.
#pragma once

#include <stdexcept>
#include <string>

namespace warpwatch::kernels {

// A CUDA runtime call failed. what() names the call, the file and line, the error's name
// and the runtime's message; code() is the cudaError_t value.
class CudaError : public std::runtime_error {
 public:
  CudaError(int code, const std::string& what) : std::runtime_error(what), code_(code) {}
  int code() const { return code_; }

 private:
  int code_;
};

// The device had too little free memory for a request. Nothing else is lost: the caller
// may retry with less.
class CudaOutOfMemory : public CudaError {
 public:
  using CudaError::CudaError;
};

// The device context is lost (a kernel fault, an uncorrectable ECC error, ...: the errors
// the CUDA runtime documents as "the process must be terminated and relaunched"). Every
// later CUDA call of this process fails too, and all device state (the stream-mode
// columns) is gone: warpwatchd exits with status 3 so that its service manager restarts
// it, rather than stay up and match nothing.
class DeviceLost : public CudaError {
 public:
  using CudaError::CudaError;
};

// Called by WW_ASSERT: prints "warpwatch: internal error at file:line: condition: message"
// to stderr and aborts.
[[noreturn]] void assertion_failed(const char* condition, const char* file, int line,
                                   const std::string& message);

}  // namespace warpwatch::kernels

#define WW_ASSERT(condition, message)                                                    \
  do {                                                                                   \
    if (!(condition))                                                                    \
      ::warpwatch::kernels::assertion_failed(#condition, __FILE__, __LINE__, (message)); \
  } while (0)

#ifdef NDEBUG
#define WW_DEBUG_ASSERT(condition, message) \
  do {                                      \
  } while (0)
#else
#define WW_DEBUG_ASSERT(condition, message) WW_ASSERT(condition, message)
#endif
