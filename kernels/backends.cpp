// The backend factory: the one place with `#if WARPWATCH_HAVE_CUDA` (DESIGN.md).
#include "warpwatch/kernels/backends.hpp"

#if WARPWATCH_HAVE_CUDA
#include "cuda/device_info.hpp"
#endif

namespace warpwatch::kernels {

std::string_view to_string(Backend b) {
  switch (b) {
    case Backend::reference: return "reference";
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::automatic: return "auto";
  }
  return "?";
}

std::optional<Backend> parse_backend(std::string_view s) {
  for (Backend b : {Backend::reference, Backend::cpu, Backend::cuda, Backend::automatic})
    if (to_string(b) == s) return b;
  return std::nullopt;
}

CudaStatus cuda_status() {
  CudaStatus status;
#if WARPWATCH_HAVE_CUDA
  status.compiled = true;
  status.device_count = cuda::usable_device_count(status.detail);
#else
  status.detail = "this build has no CUDA backend (configured with WARPWATCH_CUDA=OFF or no nvcc)";
#endif
  return status;
}

}  // namespace warpwatch::kernels
