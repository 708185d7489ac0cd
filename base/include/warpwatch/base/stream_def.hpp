// A stream's identity (docs/spec.md §1), defined here once. The registry creates one shared
// StreamDef per stream it admits (declared or auto-created); the batches it hands out,
// the Matcher's streams, the matches and the alert rules hold that same object
// (StreamRef), so an id, a dimension or a period is never copied into a look-alike struct.
// A stream whose declaration changes on reload gets a new StreamDef: holders of the old
// one see that it is not the registry's any more.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

namespace warpwatch::stream {

inline constexpr std::size_t max_dims = 64;  // docs/spec.md §1: 1 <= d <= 64

struct StreamDef {
  std::string id;        // docs/spec.md §1: 1..255 bytes of UTF-8 (stream_id.hpp)
  std::size_t dims = 1;  // values per sample, 1..64
  std::int64_t nominal_period_ns = 1'000'000'000;  // spacing of patterns given without times

  friend bool operator==(const StreamDef&, const StreamDef&) = default;
};

using StreamRef = std::shared_ptr<const StreamDef>;

inline StreamRef make_stream(StreamDef def) {
  return std::make_shared<const StreamDef>(std::move(def));
}

// Hashes stream ids for unordered maps looked up by std::string_view (with
// std::equal_to<>): the per-message lookups of ingest stay O(1) however many streams
// are declared.
struct StreamIdHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view id) const noexcept {
    return std::hash<std::string_view>{}(id);
  }
};

}  // namespace warpwatch::stream
