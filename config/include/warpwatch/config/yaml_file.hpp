// Reading a YAML file with yaml-cpp, turning its errors into ConfigError, within the limits
// of a configuration file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "warpwatch/config/config_error.hpp"

namespace warpwatch::config {

// The limits of a configuration file (docs/configuration.md §2), fixed:
// they guard the reading of the file, so the file cannot set them. A larger file is refused
// unparsed; aliases (`*name`) may add at most max_alias_nodes nodes to what the file spells
// out (an alias adds every node of what it names, its aliases expanded), so that a "billion
// laughs" of a few KB is refused at the alias that crosses the limit instead of costing
// seconds and gigabytes to whoever reads the tree.
inline constexpr std::size_t max_config_bytes = std::size_t{16} << 20;
inline constexpr std::uint64_t max_alias_nodes = 100'000;

// The file's bytes, at most max_config_bytes (ConfigError naming the file otherwise, and
// where the limit was crossed); ConfigError when it cannot be opened or read.
std::string read_config_text(const std::string& path);

// Parses the first document of `text` (named `file` in errors); a syntax error, an alias
// beyond max_alias_nodes or a recursive alias throws ConfigError naming file:line:column.
YAML::Node parse_yaml(const std::string& text, const std::string& file);

// read_config_text, then parse_yaml.
YAML::Node load_yaml_file(const std::string& path);

// Where `node` stands in `file` (yaml-cpp marks are 0-based; ours are 1-based).
SourceLocation location_of(const std::string& file, const YAML::Node& node);

}  // namespace warpwatch::config
