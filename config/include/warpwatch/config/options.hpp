// The option table of warpwatchd's YAML configuration: every option is declared once
// (name, type, default, help, validation, and the setter that stores it), in the manner
// of fluent-bit's config_map. That one table drives parsing, validation, the defaults,
// and the configuration reference in docs/configuration.md §3
// (options_reference_markdown()).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/pattern_library.hpp"

namespace warpwatch::config {

enum class OptionType {
  string,       // a scalar, kept as text
  path,         // a file name; relative ones resolve against the config file's folder
  endpoint,     // a ZeroMQ endpoint: tcp://host:port, ipc://path or inproc://name
  listen,       // host:port for an HTTP listener, or "" (off)
  url,          // an http:// URL (parse_http_url)
  socket,       // tcp://host:port or udp://host:port: a socket the daemon binds
  boolean,      // true | false (also yes/no, on/off)
  integer,      // a decimal integer, checked against min/max
  number,       // a finite number, checked against min/max
  choice,       // one of `choices`
  string_list,  // a list of strings, or one string meaning a list of one
  string_map,   // a map of string keys to string values
  number_list,  // a list of numbers
  samples,      // a list of numbers (1 dimension) or of equally long lists of numbers
  devices,      // `all` (numbers empty) or a list of device indices (integers 0..1023, each once)
  columns,      // a non-empty list of 0-based column indices (integers 0..1048576, each once)
  section,      // a map of further options (the options named "<name>.<key>")
  list,         // a list of maps (the options named "<name>[].<key>"), read by its owner
};

std::string_view to_string(OptionType type);

// An `ingest:` entry while it is read. The rows of every kind are read (so that a key of
// another kind is refused as such, not as unknown), each kind's into its own struct; the
// entry's kind key then picks one (read_ingest).
struct IngestEntry {
  std::map<std::string, std::unique_ptr<PluginOptions>, std::less<>> options;  // by kind
  SourceLocation where;
};

// A `sinks:` entry while it is read: what every sink has (SinkOptions), and, as for an
// ingest entry, the rows of every kind, each kind's into its own struct; the entry's kind
// key then picks one (read_sinks).
struct SinkEntry {
  SinkOptions sink;
  std::map<std::string, std::unique_ptr<PluginOptions>, std::less<>> options;  // by kind
  SourceLocation where;

  // Every registered kind's struct, made where missing (options.cpp): what a row several
  // kinds share fills (OptionTargets::sink_parts).
  std::vector<PluginOptions*> every_kind();
};

// Where one option's value goes. The reader points each member at the object being
// filled (the list entry, the library's defaults, a pattern) before reading its keys.
struct OptionTargets {
  DaemonConfig* config = nullptr;
  IngestEntry* ingest = nullptr;
  StreamDecl* stream = nullptr;
  Library* library = nullptr;
  PatternParams* params = nullptr;  // libraries[].defaults, or one pattern's overrides
  PatternSource* pattern = nullptr;
  Rule* rule = nullptr;
  SinkEntry* sink = nullptr;

  // The entry's struct of the kind `Options::kind` (made at its first option): what an
  // ingest plugin's setters fill.
  template <class Options>
  Options& source_options() {
    auto& slot = ingest->options[std::string(Options::kind)];
    if (!slot) slot = std::make_unique<Options>();
    return static_cast<Options&>(*slot);
  }

  // The sink entry's struct of the kind `Options::kind`: what a sink plugin's setters fill.
  template <class Options>
  Options& sink_options() {
    auto& slot = sink->options[std::string(Options::kind)];
    if (!slot) slot = std::make_unique<Options>();
    return static_cast<Options&>(*slot);
  }

  // `set` on every kind's struct of the sink entry that derives from `Part` (a part several
  // kinds share, e.g. the HTTP sinks' `headers`): the setter of a shared row, whose entry's
  // kind is known only once all its keys are read.
  template <class Part, class Set>
  void sink_parts(Set set) {
    for (PluginOptions* options : sink->every_kind())
      if (auto* part = dynamic_cast<Part*>(options)) set(*part);
  }
};

// A value after conversion and checking: the member that its option's type names is set.
struct OptionValue {
  bool boolean = false;
  std::int64_t integer = 0;
  double number = 0.0;
  std::string text;  // string, path (resolved), endpoint, listen, url, choice
  std::vector<std::string> texts;
  std::map<std::string, std::string> text_map;
  std::vector<double> numbers;
  std::vector<std::vector<double>> rows;  // samples: one row per sample, dims entries each
};

using OptionSetter = void (*)(OptionTargets&, const OptionValue&);

struct OptionInfo {
  // Dotted path from the top of the file; "[]" stands for "each entry of this list".
  std::string_view name{};
  OptionType type{};
  // The default as YAML text, read and checked like a value from the file; "" = none
  // (the option is left unset unless `required`).
  std::string_view default_yaml{};
  bool required = false;
  std::string_view help{};
  // integer, number: inclusive bounds (min exclusive when min_exclusive); string: min
  // is the shortest length allowed.
  std::optional<double> min{}, max{};
  bool min_exclusive = false;
  std::vector<std::string_view> choices{};
  // The "allowed" column when the table's bounds do not say it all (checks done elsewhere).
  std::string_view allowed{};
  OptionSetter set = nullptr;  // sections and lists have none
};

// The whole table, in the order of the reference.
std::span<const OptionInfo> option_table();

// The table entry named `name`, or nullptr.
const OptionInfo* find_option(std::string_view name);

// The options directly under `parent` ("" = the top level, "scheduler", "ingest[]"),
// in table order.
std::vector<const OptionInfo*> child_options(std::string_view parent);

// The last component of an option name: "tick_ms" for "scheduler.tick_ms".
std::string_view leaf_name(std::string_view name);

// What the reference's "allowed" column says: the choices, the range, the format.
std::string allowed_values_text(const OptionInfo& option);

// docs/configuration.md §3: a markdown table generated from option_table().
// A test checks that docs/configuration.md contains it verbatim; `warpwatch check-config
// --reference` prints it.
std::string options_reference_markdown();

}  // namespace warpwatch::config
