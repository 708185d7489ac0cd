// The CUDA backend (built when CMake finds nvcc; see backends.hpp for whether a device is
// usable at run time). All matching state lives on the device between batches.
//
// Stream mode (dtw, dk) is bit-identical to the reference (docs/spec.md §3.1): device code is
// compiled without fused multiply-add (--fmad=false) and every cell does the reference's
// float32 operations in its order. Window mode and whole-series distances run in float32
// (softdtw in float64) within 1e-5 relative of the float64 reference.
//
// Every failing CUDA call throws one of the types of warpwatch/kernels/errors.hpp:
// CudaOutOfMemory, DeviceLost (the context is unusable: restart the process) or CudaError,
// naming the call and the runtime's message.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::kernels::cuda {

struct Options {
  // Window mode with dtw and dk (one dimension, patterns of at most 1,536 samples): skip the
  // windows whose lower bound is over the threshold and abandon alignments that cannot come
  // under it (window/window_pairs.hpp). False: every window aligned in full by the same
  // passes (the events are the same; for tests and measurements).
  bool window_pruning = true;
  // The CUDA device (an index of cudaGetDeviceCount's) whose context the matcher works on.
  int device = 0;
};

// Throws CudaError when no device is usable.
std::unique_ptr<Matcher> make_matcher(const Options& options = {});

// out[i * b.size() + j] = distance(a[i], b[j]) on `device`. `timings` (optional) receives
// the device time of the kernels alone and of the copies, measured with CUDA events.
void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out,
                     DeviceTimings* timings = nullptr, int device = 0);
// The same over several devices: A's rows in blocks of about equal cells, a block a device,
// each on a host thread of its own (twed's times after the whole matrix's origin: the
// results of one device); `timings` gets the slowest device's times and every device's
// bytes.
void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out, DeviceTimings* timings,
                     std::span<const int> devices);

// softdtw's gradient with respect to each series of A for every pair (backends.hpp's
// softdtw_grad_matrix; the layout of `out` is described there), in float64, a device thread
// a pair: the forward pass keeps the pair's whole soft-DTW table ((n + 2) x (m + 2) doubles)
// in device scratch for the backward pass; the pairs go in launches whose scratch fits half
// the free device memory (at least one pair a launch), freed when the call returns.
// `timings` as for distance_matrix.
void softdtw_grad_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                         const DistanceParams& params, std::span<double> out,
                         DeviceTimings* timings = nullptr);

// docs/spec.md §3.2's top K windows (top_windows.hpp) on the device: dtw and dk, series of one
// dimension, patterns of at most 1,536 samples (others throw std::invalid_argument naming
// the limit). Sliding moments, the LB_Kim / LB_Keogh cascade, the windows aligned in the
// order of their bounds and abandoned against the K-th best so far (window/window_search.cpp).
// Distances in float32 within 1e-5 of the reference's. The measures without window bounds
// (measures.hpp: softdtw, twed, msm, erp, lcss; any dims and lengths) have no cascade: every
// window is aligned on the generic kernel (float64) and the K selected on the host. ed is
// refused. `timings` (optional): the device time
// from the upload's end to the search's end (kernel_seconds, the host's decisions between
// rounds included) and of the upload.
std::vector<TopWindow> top_windows(const TopWindowsRequest& request,
                                   DeviceTimings* timings = nullptr);

// What the benchmark's ceiling column needs to know about device 0.
struct DeviceProperties {
  std::string name;
  int sm_count = 0;
  int clock_khz = 0;              // boost clock of the SMs
  int fp32_lanes_per_sm = 128;    // FP32 lanes per SM (backends.hpp: fp32_lanes_per_sm)
  double memory_bytes_per_s = 0;  // peak DRAM bandwidth
  std::size_t memory_bytes = 0;   // total device memory
};
DeviceProperties device_properties();

}  // namespace warpwatch::kernels::cuda
