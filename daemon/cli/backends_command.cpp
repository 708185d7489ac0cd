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
  out << "cpu: available, " << kernels::cpu::simd_target() << ", " << std::thread::hardware_concurrency()
      << " hardware threads\n";
  out << "cuda: " << (cuda.device_count > 0 ? "device present, " : "unavailable, ") << cuda.detail
      << (cuda.compiled ? " (matching backend not implemented yet)" : "") << "\n";
  return 0;
}

}  // namespace warpwatch::cli
