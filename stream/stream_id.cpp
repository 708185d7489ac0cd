#include "warpwatch/stream/stream_id.hpp"

#include <cstdint>

namespace warpwatch::stream {
namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is not well formed
// (overlong forms, surrogates and code points above U+10FFFF are rejected).
std::size_t utf8_sequence_length(std::string_view s, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t b0 = byte(i);
  std::size_t len = 0;
  std::uint32_t cp = 0, min_cp = 0;
  if (b0 < 0x80) return 1;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2;
    cp = b0 & 0x1F;
    min_cp = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3;
    cp = b0 & 0x0F;
    min_cp = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4;
    cp = b0 & 0x07;
    min_cp = 0x10000;
  } else
    return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3F);
  }
  if (cp < min_cp || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return len;
}

bool is_ascii_whitespace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

std::optional<std::string_view> invalid_stream_id_reason(std::string_view id) {
  if (id.empty()) return "empty stream id";
  if (id.size() > max_stream_id_bytes) return "stream id longer than 255 bytes";
  for (std::size_t i = 0; i < id.size();) {
    if (id[i] == '\0') return "NUL byte in stream id";
    if (is_ascii_whitespace(id[i])) return "whitespace in stream id";
    const std::size_t len = utf8_sequence_length(id, i);
    if (len == 0) return "stream id is not valid UTF-8";
    i += len;
  }
  return std::nullopt;
}

}  // namespace warpwatch::stream
