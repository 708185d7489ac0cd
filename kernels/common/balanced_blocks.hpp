// Consecutive items in blocks of about equal weight: the rows of a distance matrix over
// several devices (one block a device).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpwatch::kernels::common {

// `parts` + 1 boundaries (first 0, last n, non-decreasing): block k is items [b[k], b[k+1]).
// Item i goes to the block its weight's midpoint falls in, so blocks differ by at most about
// one item's weight; blocks may be empty (fewer items than parts).
template <typename Weight>
std::vector<std::size_t> balanced_blocks(std::size_t n, std::size_t parts, Weight weight) {
  std::vector<std::size_t> bounds(parts + 1, n);
  bounds[0] = 0;
  if (parts == 0) return bounds;
  long double total = 0;
  for (std::size_t i = 0; i < n; ++i) total += static_cast<long double>(weight(i));
  long double before = 0;
  std::size_t block = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto w = static_cast<long double>(weight(i));
    const long double mid = total > 0 ? (before + w / 2) / total : (i + 0.5L) / n;
    const auto want = std::min(parts - 1, static_cast<std::size_t>(mid * parts));
    while (block < want) bounds[++block] = i;
    before += w;
  }
  return bounds;
}

}  // namespace warpwatch::kernels::common
