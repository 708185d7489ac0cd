// SHA-256 (OpenSSL) of a byte string: the digest behind the ids that must be equal across
// builds and hosts (a pattern's fingerprint in checkpoints, an event's id for deduplication).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace warpwatch::stream {

// Throws std::runtime_error when OpenSSL fails.
std::array<std::uint8_t, 32> sha256(std::string_view bytes);
// The first `digest_bytes` (at most 32) of the digest as lower-case hex digits, two a byte.
std::string sha256_hex(std::string_view bytes, std::size_t digest_bytes = 32);

// Bytes as lower-case hex, two digits a byte.
std::string to_hex(std::span<const std::uint8_t> bytes);

// Whether two digests are equal, in a time that does not depend on where they differ
// (OpenSSL's CRYPTO_memcmp): for secrets (the HTTP API's bearer tokens).
bool equal_in_constant_time(const std::array<std::uint8_t, 32>& a,
                            const std::array<std::uint8_t, 32>& b);

}  // namespace warpwatch::stream
