// `warpwatch backends`: the matching backends of this build and whether each can run here.
#include <ostream>
#include <thread>

#include "commands.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::cli {

int run_backends(std::ostream& out) {
  const kernels::CudaStatus cuda = kernels::cuda_status();
  out << "reference: available (scalar, the oracle)\n";
  out << "cpu: available, " << kernels::cpu::simd_target() << ", "
      << std::thread::hardware_concurrency() << " hardware threads\n";
  out << "cuda: ";
  if (cuda.device_count > 0)
    out << "available, " << cuda.detail << ", " << cuda.device_count << " device"
        << (cuda.device_count > 1 ? "s" : "");
  else
    out << "unavailable: " << cuda.detail;
  out << "\n";
  return 0;
}

}  // namespace warpwatch::cli
