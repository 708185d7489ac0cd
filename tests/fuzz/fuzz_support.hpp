// What the fuzz targets share: the oracle's check. A failed check prints what failed and
// aborts, so that libFuzzer keeps the input as a finding and the replay test
// (replay_main.cpp) fails on it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#define WARPWATCH_FUZZ_CHECK(condition, what)                                                  \
  do {                                                                                         \
    if (!(condition)) {                                                                        \
      std::fprintf(stderr, "fuzz oracle failed at %s:%d: %s (%s)\n", __FILE__, __LINE__, what, \
                   #condition);                                                                \
      std::abort();                                                                            \
    }                                                                                          \
  } while (false)

namespace warpwatch::fuzz {

// The fuzzer's bytes, read front to back as the fields of a target's input format; a read
// past the end gives what is left (zeros, a shorter string), so that every input is one.
struct Input {
  std::span<const std::uint8_t> bytes;

  bool empty() const { return bytes.empty(); }
  std::uint8_t u8() {
    if (bytes.empty()) return 0;
    const std::uint8_t b = bytes[0];
    bytes = bytes.subspan(1);
    return b;
  }
  std::size_t u16() { return u8() | (std::size_t{u8()} << 8); }
  std::string_view take(std::size_t n) {
    n = std::min(n, bytes.size());
    const std::string_view s(reinterpret_cast<const char*>(bytes.data()), n);
    bytes = bytes.subspan(n);
    return s;
  }
  std::string_view rest() { return take(bytes.size()); }
};

// Whether `s` holds nothing a terminal would act on: no C0 control or DEL byte, no C1
// control (U+0080..U+009F, in UTF-8 C2 80..C2 9F), no bidirectional override or isolate
// (U+202A..U+202E, U+2066..U+2069). What is logged of a peer's input must pass.
inline bool terminal_safe(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7F) return false;
    const auto next = [&](std::size_t k) {
      return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0;
    };
    if (c == 0xC2 && next(1) >= 0x80 && next(1) <= 0x9F) return false;
    if (c == 0xE2 && next(1) == 0x80 && next(2) >= 0xAA && next(2) <= 0xAE) return false;
    if (c == 0xE2 && next(1) == 0x81 && next(2) >= 0xA6 && next(2) <= 0xA9) return false;
  }
  return true;
}

}  // namespace warpwatch::fuzz
