#include "warpwatch/stream/sources/influx_mapping.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include "warpwatch/base/stream_def.hpp"

namespace warpwatch::stream {
namespace {

[[noreturn]] void invalid(std::string_view what, std::string_view text) {
  std::string message(what);
  message.append(" in stream id template '");
  message.append(text);
  message.append("'");
  throw std::invalid_argument(message);
}

// The bytes a stream id may not hold (docs/spec.md §1): ASCII whitespace and NUL. A template's
// literal text with one of them could never give a valid id.
bool forbidden_in_id(char c) {
  return c == '\0' || c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

}  // namespace

std::string_view to_string(Precision precision) {
  return precision_names[static_cast<std::size_t>(precision)];
}

std::optional<Precision> parse_precision(std::string_view name) {
  for (std::size_t i = 0; i < std::size(precision_names); ++i)
    if (precision_names[i] == name) return static_cast<Precision>(i);
  return std::nullopt;
}

std::optional<std::int64_t> to_nanoseconds(std::int64_t t, Precision precision) {
  static constexpr std::int64_t factor[] = {1, 1'000, 1'000'000, 1'000'000'000};
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(t, factor[static_cast<std::size_t>(precision)], &ns))
    return std::nullopt;
  return ns;
}

StreamIdTemplate::StreamIdTemplate(std::string_view text) : text_(text) {
  using Kind = Part::Kind;
  for (std::size_t i = 0; i < text.size();) {
    if (text[i] == '}') invalid("a '}' without its '{'", text);
    if (text[i] != '{') {
      if (forbidden_in_id(text[i])) invalid("whitespace or NUL (not allowed in stream ids)", text);
      if (parts_.empty() || parts_.back().kind != Kind::literal)
        parts_.push_back({Kind::literal, {}});
      parts_.back().text.push_back(text[i++]);
      continue;
    }
    const std::size_t close = text.find('}', i);
    if (close == std::string_view::npos) invalid("a '{' without its '}'", text);
    const std::string_view name = text.substr(i + 1, close - i - 1);
    if (name == "measurement") {
      parts_.push_back({Kind::measurement, {}});
    } else if (name == "field") {
      parts_.push_back({Kind::field, {}});
      per_field_ = true;
    } else if (name.starts_with("tag:") && name.size() > 4 &&
               name.find('{') == std::string_view::npos) {
      parts_.push_back({Kind::tag, std::string(name.substr(4))});
    } else {
      std::string what = "unknown placeholder '{";
      what.append(name).append("}' (known: {measurement}, {field}, {tag:KEY})");
      invalid(what, text);
    }
    i = close + 1;
  }
  if (parts_.empty()) invalid("nothing", text);
}

std::optional<std::string_view> StreamIdTemplate::render(std::string_view measurement,
                                                         const TagLookup& tag,
                                                         std::string_view field,
                                                         std::string& out) const {
  out.clear();
  for (const Part& part : parts_) {
    switch (part.kind) {
      case Part::Kind::literal:
        out.append(part.text);
        break;
      case Part::Kind::measurement:
        out.append(measurement);
        break;
      case Part::Kind::field:
        out.append(field);
        break;
      case Part::Kind::tag: {
        const auto value = tag(part.text);
        if (!value) return part.text;
        out.append(*value);
        break;
      }
    }
  }
  return std::nullopt;
}

InfluxMapping::InfluxMapping(const InfluxMappingOptions& options)
    : stream_id(options.stream_template), fields(options.fields), precision(options.precision) {
  std::set<std::string_view> seen;
  for (const std::string& key : fields) {
    if (key.empty()) throw std::invalid_argument("an empty field key in 'fields'");
    if (!seen.insert(key).second)
      throw std::invalid_argument(
          std::string("field key '").append(key).append("' is listed twice in 'fields'"));
  }
  if (stream_id.per_field()) return;
  if (fields.empty())
    throw std::invalid_argument(
        "the stream id template has no {field}, so 'fields' must list the fields whose values "
        "make a sample, in order");
  if (fields.size() > max_dims)
    throw std::invalid_argument(std::string("'fields' lists ")
                                    .append(std::to_string(fields.size()))
                                    .append(" fields: a sample has at most 64 values"));
}

}  // namespace warpwatch::stream
