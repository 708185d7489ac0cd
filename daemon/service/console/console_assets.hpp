// The console's static files, embedded in warpwatchd at configure time
// (embed_assets.cmake writes their definition).
#pragma once

#include <span>
#include <string_view>

namespace warpwatch::service::console {

struct Asset {
  std::string_view path;          // served at: "/", "/app.js", ...
  std::string_view content_type;  // "text/html; charset=utf-8", ...
  std::string_view bytes;
  std::string_view etag;  // "\"<16 hex digits of the file's SHA-256>\""
};

// Every file, "/" (index.html) first.
std::span<const Asset> assets();

}  // namespace warpwatch::service::console
