// Host-side questions about the CUDA devices; no CUDA types leak out of this header.
#pragma once

#include <string>

namespace warpwatch::kernels::cuda {

// Number of CUDA devices this process can use; on 0, `detail` says why (no driver,
// no device, ...), otherwise it names device 0. Never throws.
int usable_device_count(std::string& detail);

}  // namespace warpwatch::kernels::cuda
