// Stream ids (docs/spec.md §1; docs/ingest.md §1): 1..255 bytes of UTF-8 without NUL,
// control characters (C0, DEL, C1), whitespace (Unicode's White_Space: ASCII's, U+0085,
// U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000), or the
// invisible and bidirectional format characters that make an id look like another
// (U+200B, U+2060, U+FEFF, U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warpwatch::stream {

inline constexpr std::size_t max_stream_id_bytes = 255;

// nullopt when `id` is a valid stream id, otherwise the reason it is not (for the
// rejection counter and the log line of docs/spec.md §6).
std::optional<std::string_view> invalid_stream_id_reason(std::string_view id);

// Untrusted text (an id, a topic, a piece of a payload) made safe for a log line: the
// characters a stream id may hold are kept as they are (so a valid id reads as itself),
// every other byte is written \xNN: controls (a terminal's escape sequences), whitespace,
// the invisible and bidirectional characters above, broken UTF-8, and the backslash and
// single quote (the result is unambiguous inside '...'). With `keep_space`, for free text
// (a line, an HTTP answer), the ASCII space is kept too. At most the first `max_bytes`
// bytes of `s` are written, then "..." when there were more.
std::string printable(std::string_view s, std::size_t max_bytes = max_stream_id_bytes,
                      bool keep_space = false);

}  // namespace warpwatch::stream
