// Stream ids (SPEC.md 1): UTF-8, 1..255 bytes, no NUL, no whitespace.
#pragma once

#include <optional>
#include <string_view>

namespace warpwatch::stream {

inline constexpr std::size_t max_stream_id_bytes = 255;

// nullopt when `id` is a valid stream id, otherwise the reason it is not (for the
// rejection counter and the log line of SPEC.md 6).
std::optional<std::string_view> invalid_stream_id_reason(std::string_view id);

}  // namespace warpwatch::stream
