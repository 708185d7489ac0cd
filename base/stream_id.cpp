#include "warpwatch/base/stream_id.hpp"

#include <algorithm>
#include <cstdint>

namespace warpwatch::stream {
namespace {

// Decodes the UTF-8 sequence starting at s[i] into `cp`; returns its length, or 0 when it
// is not well formed (overlong forms, surrogates and code points above U+10FFFF are
// rejected).
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  const std::uint8_t b0 = byte(i);
  std::size_t len = 0;
  std::uint32_t min_cp = 0;
  if (b0 < 0x80) {
    cp = b0;
    return 1;
  }
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

// Unicode's White_Space property (PropList.txt): the ASCII ones, NEL, NBSP, the Ogham
// space mark, the typographic spaces, the line and paragraph separators, narrow NBSP, the
// medium mathematical space and the ideographic space.
bool is_white_space(std::uint32_t cp) {
  return (cp >= 0x09 && cp <= 0x0D) || cp == 0x20 || cp == 0x85 || cp == 0xA0 || cp == 0x1680 ||
         (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 || cp == 0x202F ||
         cp == 0x205F || cp == 0x3000;
}

// Controls (general category Cc): C0, DEL and C1.
bool is_control(std::uint32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F);
}

// Invisible characters that change how the text around them is shown without being seen:
// the zero-width space, the word joiner and U+FEFF (a byte order mark, or the deprecated
// zero-width no-break space), and the bidirectional marks, embeddings, overrides and
// isolates (an override can make an id display as another, as in "Trojan Source"). Not
// the zero-width joiner and non-joiner (U+200C, U+200D): some scripts and emoji need them
// to be spelled right.
bool is_invisible_format(std::uint32_t cp) {
  return cp == 0x200B || cp == 0x2060 || cp == 0xFEFF || cp == 0x061C || cp == 0x200E ||
         cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

// Why a well-formed code point may not be part of a stream id; nullopt when it may.
std::optional<std::string_view> forbidden(std::uint32_t cp) {
  if (cp == 0) return "NUL byte in stream id";
  if (is_white_space(cp)) return "whitespace in stream id";
  if (is_control(cp)) return "control character in stream id";
  if (is_invisible_format(cp))
    return "invisible or bidirectional format character (U+200B, U+2060, U+FEFF, U+061C, "
           "U+200E, U+200F, U+202A..U+202E, U+2066..U+2069) in stream id";
  return std::nullopt;
}

}  // namespace

std::optional<std::string_view> invalid_stream_id_reason(std::string_view id) {
  if (id.empty()) return "empty stream id";
  if (id.size() > max_stream_id_bytes) return "stream id longer than 255 bytes";
  for (std::size_t i = 0; i < id.size();) {
    std::uint32_t cp = 0;
    const std::size_t len = decode_utf8(id, i, cp);
    if (len == 0) return "stream id is not valid UTF-8";
    if (auto why = forbidden(cp)) return why;
    i += len;
  }
  return std::nullopt;
}

std::string printable(std::string_view s, std::size_t max_bytes, bool keep_space) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 3);
  const auto escape = [&](std::size_t i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out.append("\\x");
    out.push_back(hex[c >> 4]);
    out.push_back(hex[c & 0xF]);
  };
  std::size_t i = 0;
  while (i < s.size() && i < max_bytes) {
    std::uint32_t cp = 0;
    const std::size_t len = decode_utf8(s, i, cp);
    const bool allowed = (keep_space && cp == ' ') || !forbidden(cp);
    if (len == 0 || cp == '\\' || cp == '\'' || !allowed || i + len > max_bytes) {
      escape(i++);  // a bad byte alone: the next one may start a good sequence
      continue;
    }
    out.append(s.substr(i, len));
    i += len;
  }
  if (s.size() > max_bytes) out.append("...");
  return out;
}

}  // namespace warpwatch::stream
