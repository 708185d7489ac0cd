#include "warpwatch/stream/decode/frame.hpp"

#include <bit>
#include <charconv>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "payload_parts.hpp"
#include "warpwatch/base/decimal.hpp"
#include "warpwatch/base/little_endian.hpp"
#include "warpwatch/base/stream_id.hpp"

namespace warpwatch::stream {
namespace {

constexpr std::array<std::uint8_t, 4> frame_magic = {0x57, 0x57, 0x46, 0x01};  // "WWF" v1
constexpr std::size_t header_bytes = 12;
constexpr std::uint8_t flag_explicit_timestamps = 0x01;

DecodeError malformed(std::string detail) {
  return DecodeError{RejectReason::malformed_frame, std::move(detail)};
}

std::variant<Decoded, DecodeError> decode_binary(std::span<const std::byte> p) {
  if (p.size() >= 4 && std::to_integer<std::uint8_t>(p[3]) != frame_magic[3]) {
    return malformed(cat({"unsupported frame version ", std::to_string(std::to_integer<int>(p[3])),
                          " (this reader knows 1)"}));
  }
  if (p.size() < header_bytes) {
    return malformed(
        cat({"short header: ", std::to_string(p.size()), " bytes, a frame header has 12"}));
  }
  const auto flags = std::to_integer<std::uint8_t>(p[4]);
  const auto reserved = std::to_integer<std::uint8_t>(p[5]);
  const auto dims = static_cast<std::size_t>(load_le(&p[6], 2));
  const auto count = static_cast<std::size_t>(load_le(&p[8], 4));
  // Unknown flags and a non-zero reserved byte are refused rather than ignored: a later
  // version that uses them must not be misread by this one.
  if ((flags & ~flag_explicit_timestamps) != 0) {
    return malformed(cat({"unknown flag bits in flags byte ", std::to_string(flags)}));
  }
  if (reserved != 0) {
    return malformed(cat({"reserved byte is ", std::to_string(reserved), ", must be 0"}));
  }
  if (dims < 1 || dims > max_dims) {
    return malformed(cat({"dims ", std::to_string(dims), " outside 1..64"}));
  }
  if (count < 1) return malformed("count 0: a frame carries at least one sample");

  const bool explicit_times = (flags & flag_explicit_timestamps) != 0;
  // count < 2^32 and dims <= 64: these sizes cannot overflow 64 bits.
  const std::uint64_t time_bytes = explicit_times ? 8 * std::uint64_t{count} : 16;
  const std::uint64_t expected = header_bytes + time_bytes + 4 * std::uint64_t{count} * dims;
  if (p.size() != expected) {
    return malformed(cat({"frame is ", std::to_string(p.size()), " bytes, its header announces ",
                          std::to_string(expected),
                          p.size() < expected ? " (truncated)" : " (trailing bytes)"}));
  }

  Decoded out;
  Samples& s = out.samples;
  s.dims = dims;
  s.times_ns.resize(count);
  const std::byte* at = p.data() + header_bytes;
  if (explicit_times) {
    for (std::size_t i = 0; i < count; ++i, at += 8)
      s.times_ns[i] = static_cast<std::int64_t>(load_le(at, 8));
  } else {
    const auto t0 = static_cast<std::int64_t>(load_le(at, 8));
    const auto period = static_cast<std::int64_t>(load_le(at + 8, 8));
    at += 16;
    if (period <= 0) return malformed(cat({"period_ns ", std::to_string(period), " must be > 0"}));
    std::int64_t span = 0, last = 0;
    if (__builtin_mul_overflow(period, static_cast<std::int64_t>(count - 1), &span) ||
        __builtin_add_overflow(t0, span, &last)) {
      return malformed("t0 + period_ns * (count - 1) overflows int64");
    }
    for (std::size_t i = 0; i < count; ++i)
      s.times_ns[i] = t0 + period * static_cast<std::int64_t>(i);
  }
  s.values.resize(count * dims);
  for (float& v : s.values) {
    v = std::bit_cast<float>(static_cast<std::uint32_t>(load_le(at, 4)));
    at += 4;
  }
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// A float32 from a decimal field: one too close to zero is its nearest float32 (1e-400 is
// 0), one beyond the float32 range is not a value (read_decimal(), as to_float32() for JSON).
bool parse_value(std::string_view f, float& v) {
  return read_decimal(f, v) == DecimalRead::ok;
}

// Why a line is bad; the description is built only when asked for (the first bad line
// of each reason in a payload), so that a payload of garbage costs little per line.
struct LineError {
  RejectReason reason = RejectReason::malformed_frame;
  enum class What { no_values, bad_timestamp, too_many_values, bad_value, wrong_count } what;
  std::string_view field;  // the line, or the offending field
  std::size_t count = 0, dims = 0;

  std::string describe() const {
    switch (what) {
      case What::no_values:
        return cat({"no values in ", quoted(field), " (expected t_ns,v1[,v2...])"});
      case What::bad_timestamp:
        return cat({"timestamp ", quoted(field), " is not a decimal int64"});
      case What::too_many_values:
        return "more than 64 values";
      case What::bad_value:
        return cat({"value ", quoted(field), " is not a float32"});
      case What::wrong_count:
        return cat({std::to_string(count), " values, expected ", std::to_string(dims)});
    }
    return "bad line";
  }
};

// Parses one non-blank line into `t` and `vals`; returns the error when it is bad.
std::optional<LineError> parse_line(std::string_view line, std::size_t dims, std::int64_t& t,
                                    std::array<float, max_dims>& vals, std::size_t& n_vals) {
  using What = LineError::What;
  std::size_t comma = line.find(',');
  const std::string_view t_field = trim(line.substr(0, comma));
  if (comma == std::string_view::npos) return LineError{.what = What::no_values, .field = line};
  auto [ptr, ec] = std::from_chars(t_field.data(), t_field.data() + t_field.size(), t);
  if (ec != std::errc{} || ptr != t_field.data() + t_field.size())
    return LineError{.what = What::bad_timestamp, .field = t_field};
  n_vals = 0;
  while (comma != std::string_view::npos) {
    const std::size_t start = comma + 1;
    comma = line.find(',', start);
    const std::string_view f =
        trim(line.substr(start, comma == std::string_view::npos ? comma : comma - start));
    if (n_vals == max_dims) return LineError{.what = What::too_many_values, .field = {}};
    if (!parse_value(f, vals[n_vals])) return LineError{.what = What::bad_value, .field = f};
    ++n_vals;
  }
  if (dims != 0 && n_vals != dims)
    return LineError{.reason = RejectReason::wrong_dims,
                     .what = What::wrong_count,
                     .field = {},
                     .count = n_vals,
                     .dims = dims};
  return std::nullopt;
}

Decoded decode_text(std::string_view text, std::size_t dims) {
  Decoded out;
  std::array<float, max_dims> vals{};
  std::size_t line_no = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line =
        trim(text.substr(pos, nl == std::string_view::npos ? nl : nl - pos));
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    if (line.empty()) continue;
    std::int64_t t = 0;
    std::size_t n = 0;
    if (auto err = parse_line(line, dims, t, vals, n)) {
      count_bad_part(out.line_errors, err->reason, [&] {
        return cat({"line ", std::to_string(line_no), ": ", err->describe()});
      });
      continue;
    }
    dims = n;  // the first good line fixes dims when the caller did not
    out.samples.times_ns.push_back(t);
    out.samples.values.insert(out.samples.values.end(), vals.begin(),
                              vals.begin() + static_cast<std::ptrdiff_t>(n));
  }
  out.samples.dims = dims;
  return out;
}

void check_sizes(const Samples& s) {
  if (s.values.size() != s.times_ns.size() * s.dims) {
    throw std::invalid_argument("samples: values.size() != times_ns.size() * dims");
  }
}

}  // namespace

std::string_view to_string(RejectReason reason) {
  switch (reason) {
    case RejectReason::malformed_frame:
      return "malformed_frame";
    case RejectReason::unknown_stream:
      return "unknown_stream";
    case RejectReason::wrong_dims:
      return "wrong_dims";
    case RejectReason::non_increasing_timestamp:
      return "non_increasing_timestamp";
    case RejectReason::non_finite_value:
      return "non_finite_value";
    case RejectReason::oversized_message:
      return "oversized_message";
    case RejectReason::invalid_stream_id:
      return "invalid_stream_id";
    case RejectReason::too_many_streams:
      return "too_many_streams";
    case RejectReason::wrong_part_count:
      return "wrong_part_count";
    case RejectReason::unknown_payload:
      return "unknown_payload";
    case RejectReason::empty_payload:
      return "empty_payload";
    case RejectReason::queue_full:
      return "queue_full";
    case RejectReason::unmapped_topic:
      return "unmapped_topic";
    case RejectReason::rate_limited:
      return "rate_limited";
    case RejectReason::missing_field:
      return "missing_field";
    case RejectReason::missing_tag:
      return "missing_tag";
    case RejectReason::non_numeric_field:
      return "non_numeric_field";
    case RejectReason::value_out_of_range:
      return "value_out_of_range";
    case RejectReason::timestamp_range:
      return "timestamp_range";
    case RejectReason::line_too_long:
      return "line_too_long";
    case RejectReason::incomplete_line:
      return "incomplete_line";
  }
  return "unknown_reason";  // not reached for a valid enumerator
}

std::string quoted(std::string_view s, std::size_t max_bytes) {
  return cat({"'", printable(s, max_bytes, /*keep_space=*/true), "'"});
}

bool is_binary_frame(std::span<const std::byte> payload) {
  const auto byte = [&](std::size_t i) { return std::to_integer<std::uint8_t>(payload[i]); };
  return payload.size() >= 3 && byte(0) == frame_magic[0] && byte(1) == frame_magic[1] &&
         byte(2) == frame_magic[2];
}

PayloadKind payload_kind(std::span<const std::byte> payload, PayloadFormat format) {
  switch (format) {
    case PayloadFormat::frame:
      return PayloadKind::frame;
    case PayloadFormat::text:
      return PayloadKind::text;
    case PayloadFormat::json:
      return PayloadKind::json;
    case PayloadFormat::frame_or_text:
      return is_binary_frame(payload) ? PayloadKind::frame : PayloadKind::text;
    case PayloadFormat::any:
      break;
  }
  if (is_binary_frame(payload)) return PayloadKind::frame;
  for (const std::byte b : payload) {
    const auto c = std::to_integer<char>(b);
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') continue;
    return c == '{' || c == '[' ? PayloadKind::json : PayloadKind::text;
  }
  return PayloadKind::text;  // empty or blank: no samples, whatever it was meant to be
}

std::variant<Decoded, DecodeError> decode_payload(std::span<const std::byte> payload,
                                                  std::size_t dims, PayloadFormat format) {
  const std::string_view text(reinterpret_cast<const char*>(payload.data()), payload.size());
  switch (payload_kind(payload, format)) {
    case PayloadKind::frame:
      if (!is_binary_frame(payload))
        return DecodeError{RejectReason::unknown_payload,
                           "not a binary frame (it does not start with \"WWF\"), and the "
                           "source takes frames only"};
      return decode_binary(payload);
    case PayloadKind::json:
      return decode_json(text, dims);
    case PayloadKind::text:
      break;
  }
  if (text.find('\0') != std::string_view::npos) {
    return DecodeError{RejectReason::unknown_payload,
                       format == PayloadFormat::text
                           ? "not text (it holds NUL bytes)"
                           : "not a binary frame (it does not start with \"WWF\") and not "
                             "text (it holds NUL bytes)"};
  }
  return decode_text(text, dims);
}

std::vector<std::byte> encode_frame(const Samples& s, bool explicit_timestamps) {
  check_sizes(s);
  const std::size_t count = s.size();
  if (s.dims < 1 || s.dims > max_dims)
    throw std::invalid_argument("encode_frame: dims outside 1..64");
  if (count < 1) throw std::invalid_argument("encode_frame: no samples");
  if (count > std::numeric_limits<std::uint32_t>::max()) {
    throw std::invalid_argument("encode_frame: more than 2^32-1 samples in one frame");
  }
  std::int64_t period = 1;
  if (!explicit_timestamps && count > 1) {
    if (__builtin_sub_overflow(s.times_ns[1], s.times_ns[0], &period) || period <= 0) {
      throw std::invalid_argument("encode_frame: timestamps do not increase");
    }
    for (std::size_t i = 2; i < count; ++i) {
      std::int64_t step = 0;
      if (__builtin_sub_overflow(s.times_ns[i], s.times_ns[i - 1], &step) || step != period) {
        throw std::invalid_argument("encode_frame: uneven timestamps need explicit_timestamps");
      }
    }
  }
  std::vector<std::byte> out;
  out.reserve(header_bytes + (explicit_timestamps ? 8 * count : 16) + 4 * s.values.size());
  for (std::uint8_t b : frame_magic) out.push_back(std::byte{b});
  out.push_back(std::byte{explicit_timestamps ? flag_explicit_timestamps : std::uint8_t{0}});
  out.push_back(std::byte{0});  // reserved
  store_le(out, s.dims, 2);
  store_le(out, count, 4);
  if (explicit_timestamps) {
    for (std::int64_t t : s.times_ns) store_le(out, static_cast<std::uint64_t>(t), 8);
  } else {
    store_le(out, static_cast<std::uint64_t>(s.times_ns[0]), 8);
    store_le(out, static_cast<std::uint64_t>(period), 8);
  }
  for (float v : s.values) store_le(out, std::bit_cast<std::uint32_t>(v), 4);
  return out;
}

std::string encode_text(const Samples& s) {
  check_sizes(s);
  std::string out;
  std::array<char, 32> buf{};  // an int64 needs 20 chars, a shortest float32 at most 15
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto r = std::to_chars(buf.data(), buf.data() + buf.size(), s.times_ns[i]);
    out.append(buf.data(), r.ptr);
    for (std::size_t k = 0; k < s.dims; ++k) {
      out.push_back(',');
      r = std::to_chars(buf.data(), buf.data() + buf.size(), s.values[i * s.dims + k]);
      out.append(buf.data(), r.ptr);
    }
    out.push_back('\n');
  }
  return out;
}

}  // namespace warpwatch::stream
