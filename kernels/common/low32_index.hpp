// Stream-mode start and end indices kept as the low 32 bits of the absolute sample index
// (4 bytes per cell instead of 8), compared with wrap-around arithmetic: exact while a
// match, or a live alignment path, spans fewer than 2^31 samples. Every backend that keeps
// them turns them back into absolute indices here.
#pragma once

#include <cstdint>

namespace warpwatch::kernels::common {

inline std::int32_t low32(std::uint64_t index) {
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(index));
}

// How far back `value` lies from `reference` (both low 32 bits), wrap-aware.
inline std::uint64_t samples_back(std::int32_t reference, std::int32_t value) {
  return static_cast<std::uint32_t>(reference) - static_cast<std::uint32_t>(value);
}

struct MatchSpan {
  std::uint64_t start, end;
};

// The absolute [start, end] of a match whose low-32-bit start and end are t_s and t_e,
// seen from the absolute index `current` (at or after its end).
inline MatchSpan unwrap_match(std::uint64_t current, std::int32_t t_s, std::int32_t t_e) {
  const std::uint64_t end = current - samples_back(low32(current), t_e);
  return {end - samples_back(t_e, t_s), end};
}

}  // namespace warpwatch::kernels::common
