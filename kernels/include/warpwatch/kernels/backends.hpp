// Which matching backends this build has and whether a CUDA device is usable.
// This is the only interface that knows whether CUDA was compiled in.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace warpwatch::kernels {

enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view s);  // "auto" -> automatic

struct CudaStatus {
  bool compiled = false;   // the CUDA backend is part of this build
  int device_count = 0;    // usable devices (0 when none or when not compiled)
  std::string detail;      // device name, or why none is usable
};

// Asks the CUDA runtime (when compiled in); never throws.
CudaStatus cuda_status();

}  // namespace warpwatch::kernels
