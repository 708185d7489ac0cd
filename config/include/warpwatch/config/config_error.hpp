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

// A setting that loads but cannot do all it seems to (docs/configuration.md §4, checks at
// load time): what check-config prints and the daemon logs, at start and on reload.
struct ConfigWarning {
  SourceLocation where;
  std::string message;
  // "file:line:column: warning: message", as compilers say it.
  std::string text() const;
};

// "file:line:column: message" (line and column left out when unknown).
std::string format_location(const SourceLocation& where);

}  // namespace warpwatch::config
