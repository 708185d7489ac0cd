// Device side of WindowInputs (window_search_launch.hpp): which input holds an item.
#pragma once

#include <cstdint>

namespace warpwatch::kernels::cuda::detail {

// The input holding item i of a numbering `base` (window_base or block_base): the last p
// with base[p] <= i (base[0] = 0, ascending, count + 1 entries).
__device__ __forceinline__ std::uint32_t input_of(const std::uint32_t* base, std::uint32_t count,
                                                  std::uint32_t i) {
  std::uint32_t lo = 0, hi = count;  // base[lo] <= i < base[hi]
  while (hi - lo > 1) {
    const std::uint32_t mid = (lo + hi) / 2;
    if (base[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace warpwatch::kernels::cuda::detail
