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

}  // namespace warpwatch::stream
