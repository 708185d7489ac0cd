// The overlay of runtime library changes, and the configuration it makes with the files.
//
// The merged configuration is read by the loader itself: the file's YAML, its libraries
// re-emitted with the overlay's entries in place (a pattern put through the overlay is a
// `patterns:` entry, a threshold sets the entry's `threshold`, a deletion drops the entry),
// then plugins::parse_daemon_config. The overlay's entries are written a scalar to a line,
// and each line remembers which change and field it stands for, so that the loader's
// file:line:column becomes `values[3][0]` of pattern 'spike' in library 'shapes'.
#include "warpwatch/service/library_overlay.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <optional>
#include <set>
#include <sstream>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/yaml_file.hpp"
#include "warpwatch/files/files.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace warpwatch::service {
namespace {

using config::cat;
using config::in_quotes;
using nlohmann::json;

constexpr const char* overlay_format = "warpwatch library overlay 1";

// What a line of the merged text stands for in the overlay.
struct Field {
  std::string library, pattern, field;
};

// The merged text, a line at a time, each with the overlay's field it writes (if any). A
// list item's line also knows its list: a block sequence starts at its first item's `-`,
// so that the loader's error about the list (too few samples, the dims) points there.
class Text {
 public:
  void add(std::string line, std::optional<Field> field = {}, int dash_column = 0,
           std::optional<Field> list = {}) {
    lines_.push_back(std::move(line));
    info_.push_back({std::move(field), dash_column, std::move(list)});
  }
  void add_block(const std::string& text) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) add(line);
  }
  std::string joined() const {
    std::string out;
    for (const auto& line : lines_) (out += line) += '\n';
    return out;
  }
  // The field written at 1-based `line` and `column`; null for the file's own lines.
  const Field* at(int line, int column) const {
    if (line < 1 || static_cast<std::size_t>(line) > info_.size()) return nullptr;
    const Info& info = info_[static_cast<std::size_t>(line) - 1];
    if (info.list && column == info.dash_column) return &*info.list;
    return info.field ? &*info.field : nullptr;
  }

 private:
  struct Info {
    std::optional<Field> field;
    int dash_column = 0;  // 1-based column of a list item's `-`; 0: not an item
    std::optional<Field> list;
  };
  std::vector<std::string> lines_;
  std::vector<Info> info_;
};

// A warning about a file as a whole (no line: the merged text's lines are not the file's).
config::ConfigWarning warning_in(const std::string& file, const std::string& message) {
  config::ConfigWarning w;
  w.where.file = file;
  w.message = message;
  return w;
}

std::string flow(const YAML::Node& node) {
  YAML::Emitter e;
  e.SetMapFormat(YAML::Flow);
  e.SetSeqFormat(YAML::Flow);
  e << node;
  return e.c_str();
}

// A JSON scalar as YAML reads it back the same: numbers as JSON writes them, the
// non-finite ones as YAML's .inf and .nan, strings double-quoted (JSON's escapes are YAML's).
std::string scalar(const json& v) {
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::isnan(d)) return ".nan";
    if (std::isinf(d)) return d > 0 ? ".inf" : "-.inf";
  }
  return v.dump();
}

std::string key_text(const std::string& key) {
  const bool plain = !key.empty() && key.find_first_not_of(
                                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                         "0123456789_.") == std::string::npos;
  return plain ? key : json(key).dump();
}

std::string indent(std::size_t n) {
  return std::string(n, ' ');
}

// `value` under `key` (or as an item of the list `list` when `key` is null), a scalar to a
// line, each line naming its field (`values[3][0]`).
void emit(Text& text, const json& value, std::size_t depth, const std::string* key,
          const Field& field, const Field* list = nullptr) {
  const std::string head = key ? indent(depth) + key_text(*key) + ":" : indent(depth) + "-";
  const int dash = key ? 0 : static_cast<int>(depth) + 1;
  const std::optional<Field> in_list = list ? std::optional<Field>(*list) : std::nullopt;
  if (!value.is_structured() || value.empty()) {
    text.add(head + " " + (value.is_structured() ? value.dump() : scalar(value)), field, dash,
             in_list);
    return;
  }
  text.add(head, field, dash, in_list);
  std::size_t i = 0;
  for (auto it = value.begin(); it != value.end(); ++it, ++i) {
    Field child = field;
    if (value.is_object()) {
      if (!child.field.empty()) child.field += '.';
      child.field += it.key();
      emit(text, *it, depth + 2, &it.key(), child);
    } else {
      child.field += cat("[", std::to_string(i), "]");
      emit(text, *it, depth + 2, nullptr, child, &field);
    }
  }
}

std::string scalar_text(const YAML::Node& node) {
  return node && node.IsScalar() ? node.Scalar() : std::string();
}

// A pattern put through the overlay, as its `patterns:` entry: `entry` may be rewritten
// (fold: the values to a file).
using EntryOf =
    std::function<json(const std::string& library, const std::string& id, const json& entry)>;

// The file's YAML with the overlay's changes in its libraries. `file` is the file alone.
Text build(const YAML::Node& root, const config::DaemonConfig& file, const Overlay& overlay,
           const EntryOf& entry_of, std::vector<config::ConfigWarning>& skipped,
           const std::string& overlay_name) {
  Text text;
  YAML::Node rest = YAML::Clone(root);
  rest.remove("libraries");
  if (rest.size() > 0) {
    YAML::Emitter e;
    e << rest;
    text.add_block(e.c_str());
  }
  const auto skip = [&](const std::string& why) {
    skipped.push_back(warning_in(overlay_name, cat(why, ": the change is skipped")));
  };
  std::set<std::string> seen_libraries;
  const YAML::Node libraries = root["libraries"];
  if (libraries && libraries.IsSequence() && libraries.size() > 0) text.add("libraries:");
  for (const YAML::Node& library : libraries&& libraries.IsSequence() ? libraries : YAML::Node()) {
    const std::string name = scalar_text(library["name"]);
    const auto changes = overlay.libraries.find(name);
    if (changes == overlay.libraries.end() || !library.IsMap()) {
      text.add(cat("  - ", flow(library)));
      continue;
    }
    seen_libraries.insert(name);
    const Field whole{name, "", ""};
    text.add("  -", whole);
    for (const auto& kv : library) {
      const std::string key = kv.first.Scalar();
      if (key != "patterns") text.add(indent(4) + key_text(key) + ": " + flow(kv.second), whole);
    }
    text.add("    patterns:", whole);
    std::set<std::string> entry_ids;
    const config::Library* configured = nullptr;
    for (const auto& lib : file.live.libraries)
      if (lib.name == name) configured = &lib;
    for (const YAML::Node& entry : library["patterns"] ? library["patterns"] : YAML::Node()) {
      const std::string id = scalar_text(entry["id"]);
      entry_ids.insert(id);
      const auto change = changes->second.find(id);
      if (change == changes->second.end() || !entry.IsMap()) {
        text.add(cat("      - ", flow(entry)));
        continue;
      }
      if (change->second.kind != OverlayChange::Kind::threshold) continue;  // dropped or put
      const Field at{name, id, ""};
      text.add("      -", at);
      for (const auto& kv : entry)
        if (kv.first.Scalar() != "threshold")
          text.add(indent(8) + key_text(kv.first.Scalar()) + ": " + flow(kv.second), at);
      text.add(indent(8) + "threshold: " + scalar(change->second.threshold),
               Field{name, id, "threshold"});
    }
    for (const auto& [id, change] : changes->second) {
      if (!entry_ids.count(id)) {
        const bool in_file =
            configured && std::any_of(configured->patterns.begin(), configured->patterns.end(),
                                      [&](const auto& p) { return p.id == id; });
        if (in_file)  // one series of a file entry of several (`id:row`)
          throw OverlayError(name, id, "",
                             cat("pattern ", in_quotes(id),
                                 " is one series of a file entry of several in the "
                                 "configuration file: change that entry in the file"));
        if (change.kind != OverlayChange::Kind::put) {
          skip(cat("library ", in_quotes(name), " has no pattern ", in_quotes(id), " any more"));
          continue;
        }
      }
      if (change.kind != OverlayChange::Kind::put) continue;  // done with the file's entry
      const Field at{name, id, ""};
      text.add("      -", at);
      const std::string id_key = "id";
      emit(text, json(id), 8, &id_key, at);
      const json entry = entry_of(name, id, change.entry);
      for (auto it = entry.begin(); it != entry.end(); ++it)
        emit(text, it.value(), 8, &it.key(), Field{name, id, it.key()});
    }
  }
  for (const auto& [name, changes] : overlay.libraries)
    if (!seen_libraries.count(name))
      skip(cat("the configuration has no library ", in_quotes(name), " any more"));
  return text;
}

// The loader's message without its location (a line of the merged text, not the file's).
std::string without_location(const config::ConfigError& e) {
  const std::string prefix = config::format_location(e.where()) + ": ";
  const std::string what = e.what();
  return what.rfind(prefix, 0) == 0 ? what.substr(prefix.size()) : what;
}

std::string describe(const Field& f) {
  std::string s = cat("library ", in_quotes(f.library));
  if (!f.pattern.empty()) s += cat(" pattern ", in_quotes(f.pattern));
  if (!f.field.empty()) s += cat(" field ", in_quotes(f.field));
  return s;
}

json entry_as_is(const std::string&, const std::string&, const json& entry) {
  return entry;
}

}  // namespace

bool Overlay::empty() const {
  for (const auto& [name, changes] : libraries)
    if (!changes.empty()) return false;
  return true;
}

const OverlayChange* Overlay::find(const std::string& library, const std::string& pattern) const {
  const auto lib = libraries.find(library);
  if (lib == libraries.end()) return nullptr;
  const auto it = lib->second.find(pattern);
  return it == lib->second.end() ? nullptr : &it->second;
}

OverlayError::OverlayError(std::string library_, std::string pattern_, std::string field_,
                           std::string detail_)
    : std::runtime_error(field_.empty() && library_.empty()
                             ? detail_
                             : describe({library_, pattern_, field_}) + ": " + detail_),
      library(std::move(library_)),
      pattern(std::move(pattern_)),
      field(std::move(field_)),
      detail(std::move(detail_)) {}

std::filesystem::path overlay_path(const std::string& state_dir) {
  return std::filesystem::path(state_dir) / "overlay" / "libraries.json";
}

json to_json(const Overlay& overlay) {
  json libraries = json::object();
  for (const auto& [name, changes] : overlay.libraries) {
    if (changes.empty()) continue;
    json patterns = json::object();
    for (const auto& [id, change] : changes) switch (change.kind) {
        case OverlayChange::Kind::put:
          patterns[id] = {{"put", change.entry}};
          break;
        case OverlayChange::Kind::remove:
          patterns[id] = {{"remove", true}};
          break;
        case OverlayChange::Kind::threshold:
          patterns[id] = {{"threshold", change.threshold}};
          break;
      }
    libraries[name] = std::move(patterns);
  }
  return {{"format", overlay_format}, {"libraries", std::move(libraries)}};
}

Overlay overlay_from_json(const json& j) {
  if (!j.is_object() || j.value("format", "") != overlay_format || !j.contains("libraries") ||
      !j.at("libraries").is_object())
    throw std::runtime_error(cat("not a library overlay (\"format\": \"", overlay_format, "\")"));
  Overlay overlay;
  for (const auto& [name, patterns] : j.at("libraries").items()) {
    if (!patterns.is_object())
      throw std::runtime_error(cat("library ", in_quotes(name), ": not an object"));
    for (const auto& [id, c] : patterns.items()) {
      OverlayChange change;
      if (c.contains("put") && c.at("put").is_object()) {
        change.entry = c.at("put");
      } else if (c.contains("remove")) {
        change.kind = OverlayChange::Kind::remove;
      } else if (c.contains("threshold") && c.at("threshold").is_number()) {
        change.kind = OverlayChange::Kind::threshold;
        change.threshold = c.at("threshold").get<double>();
      } else {
        throw std::runtime_error(cat("library ", in_quotes(name), " pattern ", in_quotes(id),
                                     ": none of put, remove, threshold"));
      }
      overlay.libraries[name][id] = std::move(change);
    }
  }
  return overlay;
}

Overlay read_overlay(const std::string& state_dir) {
  if (state_dir.empty()) return {};
  const std::filesystem::path path = overlay_path(state_dir);
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return {};
  try {
    return overlay_from_json(json::parse(files::read_whole_file(path)));
  } catch (const std::exception& e) {
    throw std::runtime_error(cat(path.string(), ": ", e.what()));
  }
}

void write_overlay(const std::string& state_dir, const Overlay& overlay) {
  const std::filesystem::path path = overlay_path(state_dir);
  if (overlay.empty()) {
    std::filesystem::remove(path);
    return;
  }
  std::filesystem::create_directories(path.parent_path());
  files::write_file_atomically(path, to_json(overlay).dump(2) + "\n");
}

config::DaemonConfig merge_overlay(const std::string& text, const std::string& path,
                                   const Overlay& overlay, config::ReadAs as) {
  config::DaemonConfig file = plugins::parse_daemon_config(text, path, as);
  if (overlay.empty()) return file;
  const std::string overlay_name =
      file.state_dir.empty() ? "overlay" : overlay_path(file.state_dir).string();
  std::vector<config::ConfigWarning> skipped;
  const Text merged_text =
      build(config::parse_yaml(text, path), file, overlay, entry_as_is, skipped, overlay_name);
  config::DaemonConfig merged;
  try {
    merged = plugins::parse_daemon_config(merged_text.joined(), path, as);
  } catch (const config::ConfigError& e) {
    if (const Field* f = merged_text.at(e.where().line, e.where().column))
      throw OverlayError(f->library, f->pattern, f->field, without_location(e));
    throw OverlayError("", "", "",
                       cat("the configuration with the overlay: ", without_location(e)));
  }
  std::vector<config::ConfigWarning> warnings = std::move(skipped);
  for (const config::ConfigWarning& w : merged.warnings) {
    if (const Field* f = merged_text.at(w.where.line, w.where.column)) {
      warnings.push_back(warning_in(overlay_name, cat(describe(*f), ": ", w.message)));
      continue;
    }
    const auto same = std::find_if(file.warnings.begin(), file.warnings.end(),
                                   [&](const auto& fw) { return fw.message == w.message; });
    warnings.push_back(same != file.warnings.end() ? *same : warning_in(path, w.message));
  }
  merged.warnings = std::move(warnings);
  return merged;
}

std::vector<std::string> describe_overlay(const Overlay& overlay,
                                          const std::vector<config::Library>& file_libraries) {
  std::vector<std::string> lines;
  for (const auto& [name, changes] : overlay.libraries)
    for (const auto& [id, change] : changes) {
      bool in_files = false;
      for (const auto& lib : file_libraries)
        for (const auto& p : lib.patterns) in_files |= lib.name == name && p.id == id;
      std::string line = cat(name, "/", id, ": ");
      switch (change.kind) {
        case OverlayChange::Kind::put:
          line += in_files ? "put (replaces the files' pattern)" : "put (adds a pattern)";
          break;
        case OverlayChange::Kind::remove:
          line += "removed";
          break;
        case OverlayChange::Kind::threshold:
          line += cat("threshold ", json(change.threshold).dump());
          break;
      }
      lines.push_back(std::move(line));
    }
  return lines;
}

std::string configured_state_dir(const std::string& path) {
  return plugins::load_daemon_config(path).state_dir;
}

config::DaemonConfig load_with_overlay(const std::string& path, const std::string& state_dir) {
  const std::string text = config::read_config_text(path);
  const std::string dir =
      state_dir.empty() ? plugins::parse_daemon_config(text, path).state_dir : state_dir;
  return merge_overlay(text, path, read_overlay(dir));
}

FoldedConfig fold_overlay(const std::string& text, const std::string& path,
                          const Overlay& overlay) {
  const config::DaemonConfig file = plugins::parse_daemon_config(text, path);
  FoldedConfig folded;
  const std::filesystem::path base = std::filesystem::absolute(path).parent_path();
  const auto file_name = [](const std::string& name) {
    std::string s = name;
    for (char& c : s)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.') c = '_';
    return s;
  };
  // Inline values go to `patterns/<library>/<id>.csv` (a sample a line, a column a
  // dimension: `layout: columns`); a pattern with `times` keeps them inline.
  const EntryOf to_file = [&](const std::string& library, const std::string& id,
                              const json& entry) {
    if (!entry.contains("values") || !entry.at("values").is_array() || entry.contains("times"))
      return entry;
    std::string csv;
    for (const json& sample : entry.at("values")) {
      if (sample.is_array()) {
        std::string row;
        for (const json& v : sample) (row += row.empty() ? "" : ",") += scalar(v);
        csv += row;
      } else {
        csv += scalar(sample);
      }
      csv += '\n';
    }
    const std::string relative = cat("patterns/", file_name(library), "/", file_name(id), ".csv");
    folded.files[base / relative] = csv;
    json out = entry;
    out.erase("values");
    out["file"] = relative;
    out["layout"] = "columns";
    return out;
  };
  std::vector<config::ConfigWarning> skipped;
  folded.text =
      build(config::parse_yaml(text, path), file, overlay, to_file, skipped, "overlay").joined();
  return folded;
}

}  // namespace warpwatch::service
