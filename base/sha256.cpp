#include "warpwatch/base/sha256.hpp"

#include <openssl/evp.h>

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

std::string sha256_hex(std::string_view bytes, std::size_t digest_bytes) {
  const auto digest = sha256(bytes);
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * digest_bytes);
  for (std::size_t i = 0; i < digest_bytes && i < digest.size(); ++i) {
    out.push_back(hex[digest[i] >> 4]);
    out.push_back(hex[digest[i] & 0xf]);
  }
  return out;
}

}  // namespace warpwatch::stream
