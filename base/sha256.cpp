#include "warpwatch/base/sha256.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <stdexcept>

namespace warpwatch::stream {

std::array<std::uint8_t, 32> sha256(std::string_view bytes) {
  std::array<std::uint8_t, 32> digest{};
  unsigned int size = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &size, EVP_sha256(), nullptr) != 1 ||
      size != digest.size())
    throw std::runtime_error("OpenSSL: SHA-256 failed");
  return digest;
}

std::string to_hex(std::span<const std::uint8_t> bytes) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (const std::uint8_t b : bytes) {
    out += hex[b >> 4];
    out += hex[b & 0x0f];
  }
  return out;
}

std::string sha256_hex(std::string_view bytes, std::size_t digest_bytes) {
  const auto digest = sha256(bytes);
  return to_hex(
      std::span<const std::uint8_t>(digest.data(), std::min(digest_bytes, digest.size())));
}

bool equal_in_constant_time(const std::array<std::uint8_t, 32>& a,
                            const std::array<std::uint8_t, 32>& b) {
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace warpwatch::stream
