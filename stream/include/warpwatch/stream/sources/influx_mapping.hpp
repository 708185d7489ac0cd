// How InfluxDB line protocol becomes warpwatch samples (docs/ingest.md §7): a stream id template
// over the measurement, tags and field key; the field keys that become a sample's values; the
// precision of the lines' timestamps. In the stream core because the configuration checks a
// mapping, with the file's location, before the daemon starts; the parser and the source that apply
// it live in warpwatch_stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpwatch::stream {

// The unit of the timestamps written in the lines (Telegraf's socket_writer and the
// InfluxDB clients write nanoseconds unless told otherwise).
enum class Precision { ns, us, ms, s };
inline constexpr std::string_view precision_names[] = {"ns", "us", "ms", "s"};

std::string_view to_string(Precision precision);
std::optional<Precision> parse_precision(std::string_view name);
// `t` in nanoseconds since the epoch; nullopt when that is beyond int64.
std::optional<std::int64_t> to_nanoseconds(std::int64_t t, Precision precision);

// A stream id built from a line: literal text and the placeholders `{measurement}`,
// `{field}` and `{tag:KEY}` (braces stand for placeholders only). With `{field}` every
// field of a line is a sample of its own stream (1 value); without it a line is one sample
// of the configured fields' values.
class StreamIdTemplate {
 public:
  // Throws std::invalid_argument saying what is wrong: an unknown placeholder, an unclosed
  // or stray brace, literal text with whitespace or NUL, or neither a placeholder nor text.
  explicit StreamIdTemplate(std::string_view text);

  bool per_field() const { return per_field_; }
  const std::string& text() const { return text_; }

  // The tag a placeholder names, or nullopt when the line has none such.
  using TagLookup = std::function<std::optional<std::string_view>(std::string_view key)>;
  // Writes the id into `out` (replacing it). Returns the key of the first `{tag:KEY}` the
  // line does not have, leaving `out` unspecified; nullopt when the id was built.
  std::optional<std::string_view> render(std::string_view measurement, const TagLookup& tag,
                                         std::string_view field, std::string& out) const;

 private:
  struct Part {
    enum class Kind { literal, measurement, field, tag } kind;
    std::string text;  // the literal, or the tag's key
  };
  std::string text_;
  std::vector<Part> parts_;
  bool per_field_ = false;
};

// What a line-protocol source holds in memory at most: one read buffer (a TCP read's most
// bytes; the largest UDP datagram, 65,507 bytes, fits) and an unfinished line per TCP
// connection (one for UDP: a datagram's lines are finished with it). The configuration
// counts it in the memory budget.
inline constexpr std::size_t influx_read_bytes = 64 << 10;
constexpr std::size_t influx_buffer_bytes(bool tcp, std::size_t max_connections,
                                          std::size_t max_line_bytes) {
  return influx_read_bytes + (tcp ? max_connections : 1) * max_line_bytes;
}

struct InfluxMappingOptions {
  std::string stream_template = "{measurement}.{field}";
  // With `{field}` in the template: the fields that become samples, none = every numeric
  // field. Without: required, the sample's values in this order (1 to 64 distinct keys).
  std::vector<std::string> fields;
  Precision precision = Precision::ns;

  bool operator==(const InfluxMappingOptions&) const = default;
};

// A checked mapping. Throws std::invalid_argument (template errors as above; without
// `{field}`: no fields, more than 64, an empty or repeated key; with it: an empty or
// repeated key).
struct InfluxMapping {
  explicit InfluxMapping(const InfluxMappingOptions& options);

  StreamIdTemplate stream_id;
  std::vector<std::string> fields;
  Precision precision;
  // Values per sample: 1 per field, or the configured fields' count.
  std::size_t dims() const { return stream_id.per_field() ? 1 : fields.size(); }
};

}  // namespace warpwatch::stream
