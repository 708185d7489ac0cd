#include "warpwatch/base/decimal.hpp"

#include <charconv>
#include <system_error>

namespace warpwatch::stream {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// For a decimal token that from_chars matched whole and found out of range: whether it is
// too large (its most significant digit's decimal exponent is positive) rather than too
// close to zero. Out of range, a float's or double's decimal exponent is beyond +-37.
bool overflows(std::string_view token) {
  std::size_t i = token[0] == '-' ? 1 : 0;
  long long magnitude = 0;
  bool nonzero = false;
  for (; i < token.size() && is_digit(token[i]); ++i) {
    if (nonzero)
      ++magnitude;
    else if (token[i] != '0')
      nonzero = true;
  }
  if (i < token.size() && token[i] == '.') {
    long long place = 0;
    for (++i; i < token.size() && is_digit(token[i]); ++i) {
      --place;
      if (!nonzero && token[i] != '0') {
        nonzero = true;
        magnitude = place;
      }
    }
  }
  if (!nonzero) return false;
  long long exponent = 0;
  if (i + 1 < token.size()) {  // e or E, then the exponent from_chars has matched
    const bool negative = token[++i] == '-';
    if (token[i] == '-' || token[i] == '+') ++i;
    for (; i < token.size() && is_digit(token[i]) && exponent < 1'000'000'000; ++i)
      exponent = exponent * 10 + (token[i] - '0');
    if (negative) exponent = -exponent;
  }
  return magnitude + exponent > 0;
}

template <typename T>
DecimalRead read(std::string_view text, T& v) {
  const char* end = text.data() + text.size();
  T value{};
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ptr != end || text.empty()) return DecimalRead::malformed;
  if (ec == std::errc::result_out_of_range) {
    if (overflows(text)) return DecimalRead::overflow;
    v = text[0] == '-' ? -T{0} : T{0};
    return DecimalRead::ok;
  }
  if (ec != std::errc{}) return DecimalRead::malformed;
  v = value;
  return DecimalRead::ok;
}

}  // namespace

DecimalRead read_decimal(std::string_view text, float& v) {
  return read(text, v);
}

DecimalRead read_decimal(std::string_view text, double& v) {
  return read(text, v);
}

}  // namespace warpwatch::stream
