#include "warpwatch/config/yaml_file.hpp"

#include <fstream>
#include <sstream>

namespace warpwatch::config {

std::string format_location(const SourceLocation& where) {
  std::string s = where.file;
  if (where.line > 0) {
    // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on ":" + std::string.
    s += ':';
    s += std::to_string(where.line);
    if (where.column > 0) {
      s += ':';
      s += std::to_string(where.column);
    }
  }
  return s;
}

ConfigError::ConfigError(SourceLocation where, const std::string& message)
    : std::runtime_error(format_location(where) + ": " + message), where_(std::move(where)) {}

SourceLocation location_of(const std::string& file, const YAML::Node& node) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

YAML::Node load_yaml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError({path, 0, 0}, "cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  try {
    return YAML::Load(text.str());
  } catch (const YAML::Exception& e) {
    const bool has_mark = !e.mark.is_null();
    throw ConfigError({path, has_mark ? e.mark.line + 1 : 0, has_mark ? e.mark.column + 1 : 0},
                      e.msg);
  }
}

}  // namespace warpwatch::config
