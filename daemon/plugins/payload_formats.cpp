#include "warpwatch/plugins/payload_formats.hpp"

namespace warpwatch::plugins {

std::vector<std::string_view> payload_format_names() {
  std::vector<std::string_view> names;
  for (const auto& [name, format] : payload_formats) names.push_back(name);
  return names;
}

std::optional<stream::PayloadFormat> parse_payload_format(std::string_view name) {
  for (const auto& [format_name, format] : payload_formats)
    if (format_name == name) return format;
  return std::nullopt;
}

std::string_view payload_format_name(stream::PayloadFormat format) {
  for (const auto& [name, f] : payload_formats)
    if (f == format) return name;
  return "?";
}

}  // namespace warpwatch::plugins
