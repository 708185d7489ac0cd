// The payload of one ingest message `[stream id][payload]` (docs/ingest.md §1):
// a binary frame, text lines or (MQTT) JSON, decoded into samples. Also the reasons an
// input is rejected (docs/spec.md §6), because the decoder is the first to report them.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/stream/payload_format.hpp"

namespace warpwatch::stream {

// Why input was dropped. The snake_case names of to_string() are Prometheus label values
// and appear in log lines: renaming one is a breaking change.
enum class RejectReason {
  malformed_frame,           // a broken binary frame, a bad text line, bad JSON
  unknown_stream,            // an undeclared id while auto-creation is off
  wrong_dims,                // values per sample differ from the stream's dims
  non_increasing_timestamp,  // a sample not later than the last accepted one
  non_finite_value,          // a NaN or infinite component
  oversized_message,         // larger than the configured message limit
  invalid_stream_id,         // not 1..255 bytes of UTF-8 without NUL or whitespace
  too_many_streams,          // auto-creation would exceed its limit
  wrong_part_count,          // a ZeroMQ message of other than 2 frames [stream id][payload]
  unknown_payload,           // neither a binary frame ("WWF") nor text (it holds NUL bytes)
  empty_payload,             // a payload without samples (empty, or blank lines only)
  queue_full,                // a source that cannot push back overflowed the ingest queue
  unmapped_topic,            // an MQTT topic with fewer levels than the stream template uses
  rate_limited,              // samples over the stream's limits.max_stream_rate_hz
  // Line protocol (stream/decode/influx_lines.hpp, LineReject: the same names).
  missing_field,       // a configured field the line does not have
  missing_tag,         // the line lacks a tag that the stream id template names
  non_numeric_field,   // a configured field that is a string or a boolean
  value_out_of_range,  // a value beyond the float32 range
  timestamp_range,     // a timestamp beyond int64 nanoseconds at the configured precision
  line_too_long,       // a line longer than max_line_bytes
  incomplete_line,     // a line cut off before its '\n'
};

inline constexpr std::array<RejectReason, 21> all_reject_reasons = {
    RejectReason::malformed_frame,   RejectReason::unknown_stream,
    RejectReason::wrong_dims,        RejectReason::non_increasing_timestamp,
    RejectReason::non_finite_value,  RejectReason::oversized_message,
    RejectReason::invalid_stream_id, RejectReason::too_many_streams,
    RejectReason::wrong_part_count,  RejectReason::unknown_payload,
    RejectReason::empty_payload,     RejectReason::queue_full,
    RejectReason::unmapped_topic,    RejectReason::rate_limited,
    RejectReason::missing_field,     RejectReason::missing_tag,
    RejectReason::non_numeric_field, RejectReason::value_out_of_range,
    RejectReason::timestamp_range,   RejectReason::line_too_long,
    RejectReason::incomplete_line,
};

std::string_view to_string(RejectReason reason);

// A piece of untrusted input for a log line, in single quotes, escaped by printable()
// (stream_id.hpp: controls, whitespace, broken UTF-8 as \xNN) and cut after `max_bytes`
// bytes (then "...") so that one huge field cannot flood the log.
std::string quoted(std::string_view s, std::size_t max_bytes = 32);

// Decoded samples of one stream: sample i has timestamp times_ns[i] (ns since the Unix
// epoch) and the float32 components values[i*dims .. i*dims + dims - 1].
struct Samples {
  std::size_t dims = 0;
  std::vector<std::int64_t> times_ns;
  std::vector<float> values;  // row-major, times_ns.size() * dims entries

  std::size_t size() const { return times_ns.size(); }
  bool operator==(const Samples&) const = default;  // NaN != NaN, as floats compare
};

// One rejected input: a whole message, or one text line or JSON element (`detail` then
// starts with "line N: " or "element N: ", N counted from 1).
struct DecodeError {
  RejectReason reason = RejectReason::malformed_frame;
  std::string detail;
};

// What was dropped for one reason: how many, and a description of the first one (for the
// rate-limited log line, which is all that is logged of the rest).
struct Dropped {
  RejectReason reason = RejectReason::malformed_frame;
  std::uint64_t count = 0;
  std::string first;
};

// A decoded payload. Binary frames are all-or-nothing, so they never have line errors;
// a text or JSON payload keeps every good line (element) and counts the bad ones per
// reason here (one entry per reason that occurred, the first bad one described: a payload
// of garbage costs one counter update per reason, not one per line). NaN and infinite
// values are decoded as they are: the validator drops and counts them per sample.
struct Decoded {
  Samples samples;
  std::vector<Dropped> line_errors;
};

// Whether `payload` starts with "WWF", the magic of a binary frame.
bool is_binary_frame(std::span<const std::byte> payload);

// What decode_payload() reads `payload` as under `format`: frame_or_text and any take a
// payload that starts with "WWF" as a frame, any also takes one whose first byte other
// than a space, tab, CR or LF is '{' or '[' as JSON (text lines start with a timestamp).
enum class PayloadKind { frame, text, json };
PayloadKind payload_kind(std::span<const std::byte> payload, PayloadFormat format);

// Decodes a payload as payload_kind() says.
// - A frame is decoded whole or rejected whole (malformed_frame); under `format` frame, a
//   payload that does not start with "WWF" is rejected as unknown_payload.
// - Text that holds a NUL byte is rejected whole as unknown_payload (text never holds NUL;
//   under frame_or_text and any it is not a frame either: a damaged magic or another
//   format). Otherwise every line is judged on its own.
// - JSON that does not parse, or is neither an object nor an array, is rejected whole
//   (malformed_frame); otherwise every element is judged on its own (docs/ingest.md §5).
// `dims` (0 = unknown) is the dims that text lines and JSON elements must have, normally
// the stream's; when 0, the first good one sets it. Ones with another number of values are
// line errors with reason wrong_dims. A payload without samples (empty, blank lines only,
// an empty JSON array) decodes to empty Samples with dims `dims`.
std::variant<Decoded, DecodeError> decode_payload(
    std::span<const std::byte> payload, std::size_t dims = 0,
    PayloadFormat format = PayloadFormat::frame_or_text);

// Encodes a binary frame (version 1). With explicit_timestamps false the frame carries t0
// and a period, so the timestamps must be evenly spaced and strictly increasing (a single
// sample gets period 1 ns). Throws std::invalid_argument when `samples` cannot be encoded:
// no samples, dims outside 1..64, sizes that disagree, more than 2^32-1 samples, or
// uneven spacing without explicit timestamps.
std::vector<std::byte> encode_frame(const Samples& samples, bool explicit_timestamps);

// Encodes text lines "t_ns,v1,...,vd\n" with the shortest decimal form of each float,
// which decodes back to the same bits (NaN and infinities as "nan", "inf", "-inf").
// Throws std::invalid_argument when the sizes disagree.
std::string encode_text(const Samples& samples);

}  // namespace warpwatch::stream
