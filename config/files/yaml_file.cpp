#include "warpwatch/config/yaml_file.hpp"

#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <limits>
#include <sstream>

namespace warpwatch::config {
namespace {

// yaml-cpp marks are 0-based; ours are 1-based.
SourceLocation location_at(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return {file, 0, 0};
  return {file, mark.line + 1, mark.column + 1};
}

// Counts, while the parser reads the first document, the nodes that its aliases add: an
// alias stands for every node of what it names (aliases in there included), which yaml-cpp
// shares in its tree but every reader of the tree visits again. Throws ConfigError at the
// alias that crosses max_alias_nodes, and at an alias inside the node it names (a
// recursive structure, which a reader of the tree would follow forever).
class AliasBudget : public YAML::EventHandler {
 public:
  explicit AliasBudget(const std::string& file) : file_(file) {}

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { leaf(anchor); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    const std::uint64_t size = anchor < sizes_.size() ? sizes_[anchor] : 0;
    if (size == open)
      throw ConfigError(location_at(file_, mark),
                        "an alias inside the node its anchor names (a recursive structure) "
                        "is not supported");
    added_ += size;
    nodes_ += size;
    if (added_ > max_alias_nodes)
      throw ConfigError(location_at(file_, mark), "aliases expand the document by more than " +
                                                      std::to_string(max_alias_nodes) +
                                                      " nodes (the limit of a configuration file)");
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    begin(anchor);
  }
  void OnSequenceEnd() override { end(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    begin(anchor);
  }
  void OnMapEnd() override { end(); }

 private:
  static constexpr std::uint64_t open = std::numeric_limits<std::uint64_t>::max();

  void set_size(YAML::anchor_t anchor, std::uint64_t size) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= sizes_.size()) sizes_.resize(anchor + 1, 0);
    sizes_[anchor] = size;
  }
  void leaf(YAML::anchor_t anchor) {
    ++nodes_;
    set_size(anchor, 1);
  }
  void begin(YAML::anchor_t anchor) {
    set_size(anchor, open);
    collections_.emplace_back(anchor, nodes_);
    ++nodes_;
  }
  void end() {
    const auto [anchor, first] = collections_.back();
    collections_.pop_back();
    set_size(anchor, nodes_ - first);
  }

  const std::string& file_;
  std::vector<std::uint64_t> sizes_;  // by anchor id: nodes of the anchored node, or `open`
  std::vector<std::pair<YAML::anchor_t, std::uint64_t>> collections_;  // open ones: anchor,
                                                                       // nodes_ at their start
  std::uint64_t nodes_ = 0;  // nodes so far, aliases expanded
  std::uint64_t added_ = 0;  // of them, added by aliases
};

ConfigError yaml_error(const std::string& file, const YAML::Exception& e) {
  return ConfigError(location_at(file, e.mark), e.msg);
}

}  // namespace

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

std::string ConfigWarning::text() const {
  return format_location(where) + ": warning: " + message;
}

SourceLocation location_of(const std::string& file, const YAML::Node& node) {
  return location_at(file, node.Mark());
}

std::string read_config_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "cannot open file");
  // Up to one byte more than allowed, to tell a file at the limit from a larger one:
  // bounded, so that a device or a pipe named as the file is not read forever; in chunks,
  // so that a small file costs what it holds.
  std::string text;
  std::array<char, 64 << 10> chunk{};
  while (text.size() <= max_config_bytes && in) {
    const std::size_t want = std::min(chunk.size(), max_config_bytes + 1 - text.size());
    in.read(chunk.data(), static_cast<std::streamsize>(want));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw ConfigError({path, 0, 0}, "cannot read file");
  if (text.size() > max_config_bytes) {
    // Where the first byte past the limit stands.
    const auto line_begin = text.find_last_of('\n', max_config_bytes - 1);
    const auto lines = std::count(text.begin(), text.begin() + max_config_bytes, '\n');
    const std::size_t column =
        max_config_bytes - (line_begin == std::string::npos ? 0 : line_begin + 1);
    throw ConfigError({path, static_cast<int>(lines) + 1, static_cast<int>(column) + 1},
                      "the file is larger than " + std::to_string(max_config_bytes) +
                          " bytes (the limit of a configuration file)");
  }
  return text;
}

YAML::Node parse_yaml(const std::string& text, const std::string& file) {
  try {
    {
      // First the events, to refuse what the aliases would expand to before a tree exists.
      std::istringstream in(text);
      YAML::Parser parser(in);
      AliasBudget budget(file);
      parser.HandleNextDocument(budget);
    }
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw yaml_error(file, e);
  }
}

YAML::Node load_yaml_file(const std::string& path) {
  return parse_yaml(read_config_text(path), path);
}

}  // namespace warpwatch::config
