// A parser of InfluxDB line protocol, one line at a time (the InfluxDB v2 reference,
// "Line protocol", and the grammar of github.com/influxdata/line-protocol):
//
//   measurement[,tag_key=tag_value...] field_key=field_value[,field_key=field_value...] [timestamp]
//
// Escapes: in the measurement `\,` and `\ `; in tag keys, tag values and field keys `\,`,
// `\=` and `\ `; in string field values `\"` and `\\`. A backslash before any other byte
// is that backslash. Field values: floats (`1`, `-1.5`, `.5`, `1e-3`; no `nan`, `inf` or
// leading `+`), integers `12i`, unsigned integers `12u`, strings in double quotes, booleans
// (`t`, `T`, `true`, `True`, `TRUE` and the same for false). The timestamp is an optional
// decimal int64 in the sender's precision. Sections are separated by runs of spaces;
// leading and trailing spaces, a trailing `\r`, blank lines and `#` comments are allowed.
// Pure: no I/O, no allocation beyond the Point's strings, never throws for bad input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace warpwatch::stream {

enum class FieldType { float_, integer, unsigned_, string, boolean };

struct LineField {
  std::string key;
  FieldType type = FieldType::float_;
  double number = 0.0;  // float, integer and unsigned (nearest double), boolean (0 or 1)
  std::string text;     // string: the value, unescaped
  bool numeric() const {
    return type == FieldType::float_ || type == FieldType::integer || type == FieldType::unsigned_;
  }
};

struct LineTag {
  std::string key, value;
};

// One point, names unescaped. A key written twice is kept twice; the find functions
// return the last, as InfluxDB keeps the last value of a duplicate field.
struct Point {
  std::string measurement;
  std::vector<LineTag> tags;
  std::vector<LineField> fields;  // at least one once parsed
  std::optional<std::int64_t> timestamp;

  const LineTag* find_tag(std::string_view key) const;
  const LineField* find_field(std::string_view key) const;
};

// Why a line is not line protocol: the 1-based byte column where parsing stopped and a
// fixed description (a string literal: describing an error allocates nothing).
struct LineSyntaxError {
  std::size_t column = 0;
  std::string_view what;
};

enum class LineKind { point, skip /* blank or a comment */, error };

// Parses `line` (without its `\n`) into `point`, or into `error` when it is not line
// protocol. `point` is reused: its strings keep their capacity from line to line.
LineKind parse_line(std::string_view line, Point& point, LineSyntaxError& error);

}  // namespace warpwatch::stream
