// Internal to warpwatch_stream: what the text-line decoder (frame.cpp) and the JSON
// decoder (json_payload.cpp) share, so that both judge the parts of a payload alike.
#pragma once

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::stream {

// Concatenation by appending: GCC 12 warns falsely (-Wrestrict) on `"x" + std::string`.
inline std::string cat(std::initializer_list<std::string_view> parts) {
  std::string out;
  for (std::string_view p : parts) out.append(p);
  return out;
}

// Counts one bad part of a payload (a text line, a JSON element) under `reason`: one entry
// of `errors` per reason, describing the first such part. describe() is called for that
// one only, so that a payload of garbage costs little per part.
template <class Describe>
void count_bad_part(std::vector<Dropped>& errors, RejectReason reason, Describe&& describe) {
  auto it = std::find_if(errors.begin(), errors.end(),
                         [&](const Dropped& d) { return d.reason == reason; });
  if (it == errors.end()) it = errors.insert(errors.end(), {reason, 0, describe()});
  ++it->count;
}

// A value as a float32 sample component: one too small for a float32 becomes its nearest
// float32 (possibly 0); one too large is refused (false), not made infinite: an infinity is
// what a sensor sent, an overflow is bad input.
inline bool to_float32(double d, float& v) {
  if (!(std::fabs(d) <= std::numeric_limits<float>::max())) return false;
  v = static_cast<float>(d);
  return true;
}

// A JSON payload (json_payload.cpp; decode_payload() documents the rules).
std::variant<Decoded, DecodeError> decode_json(std::string_view text, std::size_t dims);

}  // namespace warpwatch::stream
