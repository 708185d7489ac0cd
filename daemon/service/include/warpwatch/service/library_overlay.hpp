// Runtime changes of the pattern libraries, kept apart from the configuration's files: the
// overlay (docs/operations.md §4.1). The configured libraries come from the files; the
// overlay's additions, replacements, deletions and thresholds go on top of them, through
// the configuration loader itself (the YAML entry a change stands for is read with the
// file, so exactly the configuration's checks apply).
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "warpwatch/config/daemon_config.hpp"

namespace warpwatch::service {

// One pattern's change.
struct OverlayChange {
  enum class Kind { put, remove, threshold };
  Kind kind = Kind::put;
  // put: the pattern entry's keys as the API's body gives them (`values` as an array of
  // rows, `metric`, `mode`, `threshold`, ...: those of a YAML `patterns:` entry, no `id`).
  nlohmann::json entry = nlohmann::json::object();
  double threshold = 0;  // threshold: the configured pattern's new threshold
  friend bool operator==(const OverlayChange&, const OverlayChange&) = default;
};

// library -> pattern id -> its change. Ordered, so that the file and the merged
// configuration are the same for the same changes.
struct Overlay {
  std::map<std::string, std::map<std::string, OverlayChange>> libraries;
  bool empty() const;
  const OverlayChange* find(const std::string& library, const std::string& pattern) const;
  friend bool operator==(const Overlay&, const Overlay&) = default;
};

// <state_dir>/overlay/libraries.json
std::filesystem::path overlay_path(const std::string& state_dir);
// The overlay of `state_dir`; empty when state_dir is "" or holds none. A file that cannot
// be read or is not an overlay throws std::runtime_error naming it.
Overlay read_overlay(const std::string& state_dir);
// Written atomically (files::write_file_atomically); an empty overlay removes the file.
void write_overlay(const std::string& state_dir, const Overlay& overlay);
nlohmann::json to_json(const Overlay& overlay);
Overlay overlay_from_json(const nlohmann::json& j);  // std::runtime_error when it is none

// A change the configuration refuses: the library, the pattern and the field of the change
// that the loader's error points at (`values[3][0]`, `threshold`; "" for the change as a
// whole), and the loader's message without its location.
class OverlayError : public std::runtime_error {
 public:
  OverlayError(std::string library, std::string pattern, std::string field, std::string detail);
  std::string library, pattern, field, detail;
};

// The configuration of `text` (the file `path`'s) with `overlay` on top. The file alone is
// read first (its errors are ConfigErrors naming file:line:column); then the file with the
// overlay's entries in their libraries, through plugins::parse_daemon_config: an error of
// an entry of the overlay throws OverlayError naming its field. The warnings are the file's
// (still raised with the overlay) and the overlay's (naming the library, pattern and field).
// Changes of libraries or patterns the file no longer has are skipped, each with a warning.
config::DaemonConfig merge_overlay(const std::string& text, const std::string& path,
                                   const Overlay& overlay, config::ReadAs as = {});

// What warpwatchd runs: the file `path` with the overlay of its state directory
// (`state_dir`, or the file's state.dir when "") on top.
config::DaemonConfig load_with_overlay(const std::string& path, const std::string& state_dir = "");

// The state directory the file names (state.dir, resolved), "" when off.
std::string configured_state_dir(const std::string& path);

// A line per change, "shapes/spike: put (adds a pattern)", "shapes/blip: threshold 0.5",
// "shapes/dip: removed", against the files' libraries (check-config, overlay fold).
std::vector<std::string> describe_overlay(const Overlay& overlay,
                                          const std::vector<config::Library>& file_libraries);

// The configuration's text with the overlay folded into it (`warpwatch overlay fold`):
// patterns put through the overlay get their values from a CSV file beside the
// configuration (`<csv_dir>/<library>/<id>.csv`, `files` lists them with their contents),
// deletions are gone, thresholds set on their entries. The text is re-emitted from the
// parsed YAML (comments are not kept).
struct FoldedConfig {
  std::string text;
  std::map<std::filesystem::path, std::string> files;  // the pattern CSVs to write
};
FoldedConfig fold_overlay(const std::string& text, const std::string& path, const Overlay& overlay);

}  // namespace warpwatch::service
