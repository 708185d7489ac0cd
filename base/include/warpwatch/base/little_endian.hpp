// Little-endian loads and stores, byte by byte, so that binary formats (ingest frames,
// checkpoints) do not depend on the host's byte order or on alignment (GCC turns these
// loops into single moves on x86 and ARM).
#pragma once

#include <cstddef>
#include <cstdint>

namespace warpwatch::stream {

inline std::uint64_t load_le(const std::byte* p, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i)
    v |= std::uint64_t{std::to_integer<std::uint8_t>(p[i])} << (8 * i);
  return v;
}

// Appends the low `n` bytes of `v` to a byte container (std::vector<std::byte>, std::string).
template <class Bytes>
void store_le(Bytes& out, std::uint64_t v, std::size_t n) {
  using Byte = typename Bytes::value_type;
  for (std::size_t i = 0; i < n; ++i) out.push_back(static_cast<Byte>((v >> (8 * i)) & 0xFF));
}

}  // namespace warpwatch::stream
