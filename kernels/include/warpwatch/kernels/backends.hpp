// Which matching backends this build has and whether a CUDA device is usable.
// This is the only interface that knows whether CUDA was compiled in.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels {

enum class Backend { reference, cpu, cuda, automatic };

std::string_view to_string(Backend b);
std::optional<Backend> parse_backend(std::string_view s);  // "auto" -> automatic

struct CudaStatus {
  bool compiled = false;  // the CUDA backend is part of this build
  int device_count = 0;   // usable devices (0 when none or when not compiled)
  std::string detail;     // device name, or why none is usable
  // Device 0, when usable: what the benchmark's ceiling column is computed from.
  int sm_count = 0;
  int clock_khz = 0;              // SM clock
  int fp32_lanes_per_sm = 0;      // FP32 lanes per SM
  double memory_bytes_per_s = 0;  // peak DRAM bandwidth
  std::size_t memory_bytes = 0;   // total device memory
};

// Asks the CUDA runtime (when compiled in); never throws.
CudaStatus cuda_status();

// FP32 lanes an SM of compute capability major.minor has: its results of 32-bit float add,
// multiply or multiply-add per clock (the CUDA programming guide's throughput table; the
// bench's nominal ceiling is SMs x this x clock). 128 for capabilities newer than the table.
int fp32_lanes_per_sm(int major, int minor);

// Measured on device 0 (about a second): independent float32 adds per second, adds
// interleaved with mins (2 ops a step) per second, and the bytes a device-to-device copy
// reads and writes per second. nullopt without a usable device.
struct CudaFloatOpRates {
  double add_per_s = 0.0;
  double add_min_per_s = 0.0;
  double copy_bytes_per_s = 0.0;
};
std::optional<CudaFloatOpRates> cuda_float_op_rates();

// Device-side times of one call, measured with CUDA events (cuda backend only).
struct DeviceTimings {
  double kernel_seconds = 0.0;   // the kernels alone
  double copy_seconds = 0.0;     // host <-> device copies
  std::size_t device_bytes = 0;  // device memory the call used at its peak
};

struct BackendOptions {
  unsigned cpu_threads = 0;          // cpu backend: worker threads, 0 = one per hardware thread
  DeviceTimings* timings = nullptr;  // cuda backend: filled by distance_matrix when set
};

// The backend `requested` resolves to: `automatic` is cuda when a device is usable, else
// cpu; `why` (optional) receives one line saying what was chosen and why (for the log:
// "backend auto: no usable CUDA device (...): using the cpu backend (AVX2)").
Backend resolve_backend(Backend requested, std::string* why = nullptr);

// A Matcher of the given backend (resolved as above). Throws std::runtime_error when the
// backend cannot be had (not compiled in, no device, not implemented).
std::unique_ptr<Matcher> make_matcher(Backend backend, const BackendOptions& options = {});

// The pairwise distance matrix on the given backend (resolved as above):
// out[i * b.size() + j] = distance(a[i], b[j]).
void distance_matrix(Backend backend, std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out,
                     const BackendOptions& options = {});

}  // namespace warpwatch::kernels
