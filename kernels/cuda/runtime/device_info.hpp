// Host-side questions about the CUDA devices; no CUDA types leak out of this header.
#pragma once

#include <string>

struct CUstream_st;  // cudaStream_t, without the CUDA headers

namespace warpwatch::kernels::cuda {

// Number of CUDA devices this process can use; on 0, `detail` says why (no driver,
// no device, ...), otherwise it names device 0. Never throws.
int usable_device_count(std::string& detail);

}  // namespace warpwatch::kernels::cuda

namespace warpwatch::kernels::cuda {

// Calibration of device 0, the GPU counterpart of the CPU bench's calibration loop:
// independent float32 operations per second over the whole device, timed with CUDA events.
struct FloatOpRates {
  double add_per_s = 0.0;         // a = a + b
  double add_min_per_s = 0.0;     // a = min(a + b, c): an add and a min, 2 ops a step
  double copy_bytes_per_s = 0.0;  // device memory read + written by a device-to-device copy
};
// Runs on `stream` (the device context's compute stream), about a second.
FloatOpRates measure_float_op_rates(CUstream_st* stream);

}  // namespace warpwatch::kernels::cuda
