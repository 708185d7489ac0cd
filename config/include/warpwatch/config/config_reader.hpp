// Reading YAML maps through the option table, and the readers of the configuration's lists
// (one per file: daemon_config.cpp, pattern_library.cpp, sink_config.cpp). Public for the
// plugins (daemon/plugins/), whose entries' checks (config::SourceKind) read their keys
// with it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::config {

struct ReadContext {
  std::string file;                // the configuration file, as errors name it
  std::filesystem::path base_dir;  // relative paths in the file resolve against it
};

SourceLocation where_is(const ReadContext& ctx, const YAML::Node& node);

// The parts of the option table, in reference order (option_table() joins them): the
// daemon's own options (options.cpp), the alert sinks (options_sinks.cpp: the `sinks` list,
// the registered sink kinds' rows, the rows every sink has), then libraries and rules
// (options_matching.cpp).
std::vector<OptionInfo> daemon_options();
std::vector<OptionInfo> sink_options();
std::vector<OptionInfo> matching_options();

// Message text, appended piece by piece: GCC 12 warns falsely (-Wrestrict) on
// "literal" + std::string.
template <class... Parts>
std::string cat(const Parts&... parts) {
  std::string s;
  ((s += parts), ...);
  return s;
}

// The enum a `choice` option's text names: the table has checked the text against its
// choices already, so a name without an enum value is a bug in the table (WW_ASSERT).
template <typename E>
E chosen(std::optional<E> value, std::string_view text) {
  WW_ASSERT(value.has_value(), cat("option table choice '", text, "' has no value"));
  return *value;
}

// 'text', as messages quote names and values.
std::string in_quotes(std::string_view text);

// A key that was present (with a non-null value) in a map read by read_section.
struct PresentKey {
  SourceLocation key;    // where the key is written
  SourceLocation value;  // where its value starts
  YAML::Node node;       // the value
};
// By path relative to the section read: "tick_ms", "defaults.metric".
using PresentKeys = std::map<std::string, PresentKey, std::less<>>;

// Reads the YAML map `node` whose options are the table's children of `path` ("" = the
// top level, "scheduler", "ingest[]"). Rejects a non-map, duplicate keys and unknown
// keys (suggesting a near miss); converts and checks every present value and stores it
// through its option's setter into `targets`; stores the defaults of absent options;
// fails on absent required ones (at `where`, the map's own location); recurses into
// sections. Lists are checked to be sequences and left to the caller.
// `overrides`: another table path whose children are accepted too, without defaults
// (a pattern entry accepts the keys of its library's `defaults`).
// A null `node` (the key absent, or written without a value) reads as an empty map.
PresentKeys read_section(const YAML::Node& node, const SourceLocation& where, std::string_view path,
                         OptionTargets& targets, const ReadContext& ctx,
                         std::string_view overrides = {});

// The entries of a list option read by read_section (empty when absent).
std::vector<YAML::Node> list_entries(const PresentKeys& keys, std::string_view name);

// Reads each entry of the list option `name` ("ingest", "rules", "streams.declared") into a
// fresh Item, located at the entry, through the table's "<name>[]" options (`target` says
// which OptionTargets member points the setters at it), and hands it with its keys to
// keep(item, keys), which checks what spans keys and stores it.
template <typename Item, typename Keep>
void read_list(const PresentKeys& keys, const ReadContext& ctx, std::string_view name,
               Item* OptionTargets::*target, Keep keep) {
  for (const YAML::Node& entry : list_entries(keys, name)) {
    Item item;
    item.where = where_is(ctx, entry);
    OptionTargets targets;
    targets.*target = &item;
    const PresentKeys item_keys = read_section(entry, item.where, cat(name, "[]"), targets, ctx);
    keep(item, item_keys);
  }
}

// The one key of `kinds` that a list entry holds, e.g. "pull" of an ingest entry's "pull",
// "sub", "replay": throws at the second one when it holds two ("an ingest entry has one
// source: 'pull' and 'sub' need two entries"), at `where` when it holds none. `entry` and
// `what` name them in the messages ("an ingest entry", "source").
std::string_view entry_kind(const PresentKeys& keys, const std::vector<std::string_view>& kinds,
                            std::string_view entry, std::string_view what,
                            const SourceLocation& where);

// Keys that belong to some kinds of entry only, as (key, kind) pairs (a key several kinds share
// once per kind): throws at such a key in an entry of another kind ("'topic' applies to 'sub'
// entries only", "'headers' applies to 'alertmanager' and 'webhook' entries only").
void check_kind_keys(const PresentKeys& keys, std::string_view kind,
                     const std::vector<std::pair<std::string_view, std::string_view>>& owners);

// The keys that say how a series file is read (`layout`, `labels`, `time_column`,
// `value_columns`; a pattern entry, a replay entry) fit together: throws at the key that
// needs another layout ("'time_column' needs 'layout: columns'").
void check_series_file_keys(const PresentKeys& keys, const SeriesFileOptions& options);

// A `kafka` ingest entry or sink (the section `kafka` of `keys`): its `required` keys are
// there, and `properties` are librdkafka's and none warpwatch sets itself.
void check_kafka_keys(const PresentKeys& keys, std::initializer_list<const char*> required,
                      const std::map<std::string, std::string>& properties);

// The value location of `key` in a list entry's keys (`otherwise` when absent).
const SourceLocation& value_at(const PresentKeys& keys, std::string_view key,
                               const SourceLocation& otherwise);

// docs/spec.md §1, checked by the same function that checks ids arriving on the wire:
// ConfigError at `where` for an id that is not one.
void check_stream_id(const std::string& id, const SourceLocation& where);

// Periods are kept in whole nanoseconds, so the range in ms is what converts to 1 ns ..
// 1e15 ns (11.6 days): a shorter one would round to 0, and the bound keeps products such as
// a replay's i * period, or a pattern's times at the period, far from int64's end.
inline constexpr double min_period_ms = 1e-6;
inline constexpr double max_period_ms = 1e9;
// A period option's ns, after the table checked the ms against the bounds above (a value
// outside them is a bug of the table, not of the file).
std::int64_t period_ns(double ms);

// tcp://host:* (or :0) binds a port of the system's choosing, a different one each time: two
// such entries never bind the same address.
bool binds_any_port(std::string_view endpoint);

// Checks "is a duplicate" for ids, names: throws at `where` naming the first one.
class UniqueNames {
 public:
  UniqueNames() = default;
  explicit UniqueNames(std::string what) : what_(std::move(what)) {}
  void add(const std::string& name, const SourceLocation& where);

 private:
  std::string what_;
  std::map<std::string, SourceLocation, std::less<>> seen_;
};

// The closest of `candidates` to `word` when it is a plausible typo, else "".
std::string near_miss(std::string_view word, const std::vector<std::string_view>& candidates);

// `sinks:`. Each entry has one kind of those registered (sink_kinds.hpp) and only the keys of
// its kind, which its plugin checks; `backoff_ms` is at most `max_backoff_ms`; names are
// unique (unset: the kind's default, "<kind> host:port"). A kind's check of the rest of the
// file (an Alertmanager's: the rules' label names) runs once when the file has one.
std::vector<SinkConfig> read_sinks(const PresentKeys& top, const ReadContext& ctx);

// Which dims a stream can have, and the words to say so in a message.
struct StreamDims {
  std::set<std::size_t> any;       // declared or auto-created
  std::set<std::size_t> declared;  // of the declared streams
  std::string text;  // "declared streams have dims 1, 3; 'streams.auto_create' is false"
};

// `libraries:`. Every pattern is read (files resolved, loaded), checked (ids unique across
// libraries, m >= 2, dims in `dims.any`, parameters by kernels::validate, then the checks at
// load time below) and gets its library's defaults with its own overrides. A library whose
// patterns take more than `max_library_bytes` (kernels::pattern_memory_bytes) is refused at
// its entry.
std::vector<Library> read_libraries(const PresentKeys& top, const ReadContext& ctx,
                                    const StreamDims& dims, std::size_t max_library_bytes,
                                    std::vector<ConfigWarning>& warnings);

// --- The checks at load time (config_checks.cpp; docs/configuration.md §4): settings that
// cannot do anything. An error throws ConfigError at the setting, a warning is appended to
// `warnings` with its location.

// Why the setting `key` (a key of a library's `defaults`; `warpwatch search` may ask with
// the name of a flag it was given, without `--`) does nothing for a pattern of parameters
// `p`, and whether that is an error: a parameter of window mode in stream mode is (nothing
// makes it read), one of another measure a warning (a library's `defaults` may serve
// several measures; twed's `band` was accepted before it was known to be ignored). nullopt
// when the pattern reads it.
struct UnreadSetting {
  bool error;
  std::string why;  // "'band' does nothing in stream mode (...): it applies to mode window"
};
std::optional<UnreadSetting> unread_setting(std::string_view key, const kernels::MatchParams& p);
// Why `p.threshold` is outside the distances `p`'s measure can give (docs/configuration.md §4:
// below, no match ever qualifies); nullopt when it is within them.
std::optional<std::string> threshold_problem(const kernels::MatchParams& p);

// A pattern entry as read: its id, its parameters (its library's defaults with its own keys
// over them) and the keys it sets itself.
struct PatternEntry {
  std::string id;
  kernels::MatchParams params;
  PresentKeys keys;
};
// The entry's threshold within its measure's range of distances (at the threshold, its own
// or its library's), and the keys it sets that its mode or its measure does not read.
void check_pattern_entry(const PatternEntry& entry, const PresentKeys& library_keys,
                         std::vector<ConfigWarning>& warnings);
// A library: patterns at all, the keys of its `defaults` that none of its patterns reads, its
// patterns' dims against the declared streams'.
void check_library(const Library& library, const std::vector<PatternEntry>& entries,
                   const PresentKeys& library_keys, const StreamDims& dims,
                   std::vector<ConfigWarning>& warnings);
// A rule of the file (`keys`: its entry's) against the streams, patterns and libraries of
// `live`: every glob it writes selects something, it selects a pattern, its threshold can pass.
void check_rule(const Rule& rule, const PresentKeys& keys, const LiveConfig& live,
                const ReadContext& ctx, std::vector<ConfigWarning>& warnings);
// The patterns that no rule of `live` selects.
void check_unselected_patterns(const LiveConfig& live, std::vector<ConfigWarning>& warnings);

// `http:` after the table read it (http_config.cpp): the alias metrics.listen, the rule that a
// listener beyond loopback needs tokens, the tokens file, TLS's two files, the external URL.
void read_http(const PresentKeys& top, const std::string& file, HttpConfig& http);

}  // namespace warpwatch::config
