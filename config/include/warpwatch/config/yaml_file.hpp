// Reading a YAML file with yaml-cpp, turning its errors into ConfigError.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>

#include "warpwatch/config/config_error.hpp"

namespace warpwatch::config {

// Parses the whole file; a missing file or a syntax error throws ConfigError naming
// file:line:column.
YAML::Node load_yaml_file(const std::string& path);

// Where `node` stands in `file` (yaml-cpp marks are 0-based; ours are 1-based).
SourceLocation location_of(const std::string& file, const YAML::Node& node);

}  // namespace warpwatch::config
