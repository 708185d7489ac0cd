// SPRING's state of one stream-mode pair (SPEC.md 3.1) in the form every backend can read
// and write: what moves when `auto` runs a batch on another backend than the last one
// (switching_matcher.hpp). Indices are the low 32 bits of absolute sample indices
// (low32_index.hpp), as the cpu and cuda backends keep them; the reference's 64-bit ones
// are unwrapped against the stream's next index.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

namespace warpwatch::kernels::common {

struct SpringLaneState {
  std::vector<float> d;                                  // D(t, 1..m) of the last column
  std::vector<std::int32_t> s;                           // S(t, 1..m): start indices, low 32 bits
  float d_min = std::numeric_limits<float>::infinity();  // pending candidate (inf: none)
  std::int32_t t_s = 0, t_e = 0;                         // its start and end, low 32 bits
};

}  // namespace warpwatch::kernels::common
