// Host side of window_search_launch.hpp's WindowInputs: the inputs numbered back to back
// (their windows, and the moments pass's anchor blocks) and copied to the device.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "cuda/window/window_search_launch.hpp"

namespace warpwatch::kernels::cuda::detail {

// The largest float at or below d: a distance (float) is <= d exactly when it is <= this.
inline float float_at_or_below(double d) {
  if (std::isinf(d)) return std::numeric_limits<float>::infinity();
  float f = static_cast<float>(d);
  if (static_cast<double>(f) > d) f = std::nextafter(f, -std::numeric_limits<float>::infinity());
  return f;
}

// window_base[p] / block_base[p]: the first window / anchor block of input p; count + 1
// entries each, the last one the total.
struct WindowInputTables {
  std::vector<std::uint32_t> window_base, block_base;

  // Throws std::invalid_argument past 2^31 windows or blocks (the kernels' numbering).
  void build(std::span<const WindowSearchInput> inputs);
  std::uint32_t windows() const { return window_base.back(); }
  std::uint32_t blocks() const { return block_base.back(); }
};

// Copies the inputs to `inputs_dev` and the tables to `tables_dev` (2 * (count + 1)
// entries) on `stream`; returns what the launches take. The host memory may go once this
// returns (the copies are from pageable memory).
WindowInputs upload_window_inputs(std::span<const WindowSearchInput> inputs,
                                  const WindowInputTables& tables, WindowSearchInput* inputs_dev,
                                  std::uint32_t* tables_dev, window_stream_t stream);

}  // namespace warpwatch::kernels::cuda::detail
