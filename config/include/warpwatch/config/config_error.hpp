// A configuration or input-file error that names where it is: file:line:column.
#pragma once

#include <stdexcept>
#include <string>

namespace warpwatch::config {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
};

class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, const std::string& message);
  const SourceLocation& where() const { return where_; }

 private:
  SourceLocation where_;
};

// "file:line:column: message" (line and column left out when unknown).
std::string format_location(const SourceLocation& where);

}  // namespace warpwatch::config
