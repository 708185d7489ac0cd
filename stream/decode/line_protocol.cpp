#include "warpwatch/stream/decode/line_protocol.hpp"

#include <charconv>
#include <system_error>

#include "warpwatch/base/decimal.hpp"

namespace warpwatch::stream {
namespace {

bool is_control(char c) {
  const auto u = static_cast<unsigned char>(c);
  return u < 0x20 || u == 0x7F;
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// Where a line is read, and the error that stops it.
class Reader {
 public:
  Reader(std::string_view line, LineSyntaxError& error) : s_(line), error_(error) {}

  bool at_end() const { return pos_ >= s_.size(); }
  char peek() const { return s_[pos_]; }
  void skip() { ++pos_; }
  void skip_spaces() {
    while (!at_end() && peek() == ' ') ++pos_;
  }
  bool fail(std::string_view what) {
    error_ = {pos_ + 1, what};
    return false;
  }

  // A measurement (`measurement` true) or a key or tag value, unescaped into `out`, up to
  // the first unescaped ',' or ' ' (or '=' outside the measurement), which is left unread.
  bool name(bool measurement, std::string& out) {
    out.clear();
    const auto ends = [&](char c) { return c == ',' || c == ' ' || (!measurement && c == '='); };
    while (!at_end()) {
      const char c = peek();
      if (c == '\\' && pos_ + 1 < s_.size() && ends(s_[pos_ + 1])) {
        out.push_back(s_[pos_ + 1]);
        pos_ += 2;
        continue;
      }
      if (ends(c)) break;
      if (is_control(c))
        return fail("a control character in a name (escape nothing but , = and space)");
      out.push_back(c);
      ++pos_;
    }
    return true;
  }

  // A string field value after its opening quote, unescaped, and its closing quote.
  bool string_value(std::string& out) {
    out.clear();
    while (!at_end()) {
      const char c = peek();
      if (c == '\\' && pos_ + 1 < s_.size() && (s_[pos_ + 1] == '"' || s_[pos_ + 1] == '\\')) {
        out.push_back(s_[pos_ + 1]);
        pos_ += 2;
        continue;
      }
      ++pos_;
      if (c == '"') return true;
      out.push_back(c);
    }
    return fail("a string field value without its closing quote");
  }

  // The bytes up to the next ',' or ' ' (a field value that is not a string, a timestamp).
  std::string_view token() {
    const std::size_t from = pos_;
    while (!at_end() && peek() != ',' && peek() != ' ') ++pos_;
    return s_.substr(from, pos_ - from);
  }
  // Moves the error's column back to where `token` began.
  bool fail_at(std::string_view token, std::string_view what) {
    error_ = {static_cast<std::size_t>(token.data() - s_.data()) + 1, what};
    return false;
  }

 private:
  std::string_view s_;
  std::size_t pos_ = 0;
  LineSyntaxError& error_;
};

// The float grammar: [-] (digits [. [digits]] | . digits) [(e|E) [+|-] digits].
bool float_syntax(std::string_view t) {
  std::size_t i = t[0] == '-' ? 1 : 0;
  std::size_t digits = 0;
  for (; i < t.size() && is_digit(t[i]); ++i) ++digits;
  if (i < t.size() && t[i] == '.')
    for (++i; i < t.size() && is_digit(t[i]); ++i) ++digits;
  if (digits == 0) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    std::size_t exponent_digits = 0;
    for (; i < t.size() && is_digit(t[i]); ++i) ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == t.size();
}

template <typename Int>
std::errc parse_integer(std::string_view digits, Int& v) {
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc{} && end != digits.data() + digits.size()) return std::errc::invalid_argument;
  return ec;
}

bool field_value(Reader& in, LineField& field) {
  field.text.clear();
  if (in.peek() == '"') {
    in.skip();
    field.type = FieldType::string;
    field.number = 0.0;
    return in.string_value(field.text);
  }
  const std::string_view t = in.token();
  if (t.empty()) return in.fail("a field without a value");
  field.number = 0.0;
  const char first = t[0];
  if (first == 't' || first == 'T' || first == 'f' || first == 'F') {
    field.type = FieldType::boolean;
    if (t == "t" || t == "T" || t == "true" || t == "True" || t == "TRUE") {
      field.number = 1.0;
      return true;
    }
    if (t == "f" || t == "F" || t == "false" || t == "False" || t == "FALSE") return true;
    return in.fail_at(t, "not a field value (a boolean is t, true, f, false, ...)");
  }
  if (first != '-' && first != '.' && !is_digit(first))
    return in.fail_at(t, "not a field value (a number, a \"string\" or a boolean)");
  const char suffix = t.back();
  if (suffix == 'i') {
    field.type = FieldType::integer;
    std::int64_t v = 0;
    const std::errc ec = parse_integer(t.substr(0, t.size() - 1), v);
    if (ec == std::errc::result_out_of_range) return in.fail_at(t, "an integer field beyond int64");
    if (ec != std::errc{}) return in.fail_at(t, "a malformed integer field (digits, then i)");
    field.number = static_cast<double>(v);
    return true;
  }
  if (suffix == 'u') {
    field.type = FieldType::unsigned_;
    std::uint64_t v = 0;
    const std::errc ec =
        first == '-' ? std::errc::invalid_argument : parse_integer(t.substr(0, t.size() - 1), v);
    if (ec == std::errc::result_out_of_range)
      return in.fail_at(t, "an unsigned field beyond uint64");
    if (ec != std::errc{}) return in.fail_at(t, "a malformed unsigned field (digits, then u)");
    field.number = static_cast<double>(v);
    return true;
  }
  field.type = FieldType::float_;
  if (!float_syntax(t)) return in.fail_at(t, "a malformed float field");
  // Too close to zero: zero, as InfluxDB reads it (read_decimal's rule).
  switch (read_decimal(t, field.number)) {
    case DecimalRead::ok:
      return true;
    case DecimalRead::overflow:
      return in.fail_at(t, "a float field beyond the float64 range");
    case DecimalRead::malformed:
      break;
  }
  return in.fail_at(t, "a malformed float field");
}

// Reuses the element at `n` when the vector has one (its strings keep their capacity).
template <typename T>
T& slot(std::vector<T>& v, std::size_t n) {
  if (n == v.size()) v.emplace_back();
  return v[n];
}

bool parse_point(Reader& in, Point& p) {
  if (!in.name(true, p.measurement)) return false;
  if (p.measurement.empty()) return in.fail("a line without a measurement");
  std::size_t tags = 0;
  while (!in.at_end() && in.peek() == ',') {
    in.skip();
    LineTag& tag = slot(p.tags, tags);
    if (!in.name(false, tag.key)) return false;
    if (tag.key.empty()) return in.fail("a tag without a key");
    if (in.at_end() || in.peek() != '=') return in.fail("a tag key without '=' and a value");
    in.skip();
    if (!in.name(false, tag.value)) return false;
    if (tag.value.empty()) return in.fail("a tag without a value");
    if (!in.at_end() && in.peek() == '=') return in.fail("an unescaped '=' in a tag value");
    ++tags;
  }
  p.tags.resize(tags);
  if (in.at_end()) return in.fail("a line without fields (they follow a space)");
  in.skip_spaces();
  if (in.at_end()) return in.fail("a line without fields (they follow a space)");
  std::size_t fields = 0;
  for (;;) {
    LineField& field = slot(p.fields, fields);
    if (!in.name(false, field.key)) return false;
    if (field.key.empty()) return in.fail("a field without a key");
    if (in.at_end() || in.peek() != '=') return in.fail("a field key without '=' and a value");
    in.skip();
    if (in.at_end()) return in.fail("a field without a value");
    if (!field_value(in, field)) return false;
    ++fields;
    if (in.at_end() || in.peek() == ' ') break;
    if (in.peek() != ',') return in.fail("unexpected text after a field value");
    in.skip();
  }
  p.fields.resize(fields);
  in.skip_spaces();
  p.timestamp.reset();
  if (in.at_end()) return true;
  const std::string_view t = in.token();
  std::int64_t ts = 0;
  const std::errc ec = t.empty() ? std::errc::invalid_argument : parse_integer(t, ts);
  if (ec == std::errc::result_out_of_range) return in.fail_at(t, "a timestamp beyond int64");
  if (ec != std::errc{}) return in.fail_at(t, "a timestamp that is not a decimal integer");
  p.timestamp = ts;
  in.skip_spaces();
  if (!in.at_end()) return in.fail("unexpected text after the timestamp");
  return true;
}

}  // namespace

const LineTag* Point::find_tag(std::string_view key) const {
  for (auto it = tags.rbegin(); it != tags.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

const LineField* Point::find_field(std::string_view key) const {
  for (auto it = fields.rbegin(); it != fields.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

LineKind parse_line(std::string_view line, Point& point, LineSyntaxError& error) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  Reader in(line, error);
  in.skip_spaces();
  if (in.at_end() || in.peek() == '#') return LineKind::skip;
  return parse_point(in, point) ? LineKind::point : LineKind::error;
}

}  // namespace warpwatch::stream
