// The kinds of `sinks:` entries. The configuration names none of them: each is declared by
// its plugin (daemon/plugins/out_<kind>/, docs/architecture.md §3.1) with its option rows,
// the struct they fill and the checks that span its keys, and registered
// (plugins::register_builtin_plugins) before the first file is read, as the ingest kinds are
// (source_kinds.hpp). What every sink has (`name`, `rules`, `queue`, the retries: SinkOptions)
// is the configuration's own rows (options_sinks.cpp), read into every entry.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/options.hpp"

namespace warpwatch::config {

// What a kind's check is handed: the entry's keys (as read_section returns them).
struct SinkCheck {
  const PresentKeys& keys;
  const SourceLocation& where;  // the entry
  const SourceLocation& at;     // the value of its kind key (`webhook: <here>`)
  const ReadContext& ctx;
};

struct SinkKind {
  // The entry's kind key, e.g. "webhook": an entry holds exactly one kind key.
  std::string_view name;
  // Its option rows, named "sinks[].<key>", the kind key first. Those directly under
  // "sinks[]" besides the kind key belong to this kind only (written in an entry of another
  // kind: "'hmac_secret_file' applies to 'webhook' entries only"); a row several kinds share
  // (the HTTP sinks' `headers`) is the same row in each one's list, and belongs to them all
  // ("applies to 'alertmanager' and 'webhook' entries only").
  std::vector<OptionInfo> (*options)() = nullptr;
  // Its options struct, as the rows' setters fill it (OptionTargets::sink_options).
  std::unique_ptr<PluginOptions> (*make_options)() = nullptr;
  // What spans its keys, and files read with the configuration; throws ConfigError.
  void (*check)(PluginOptions& options, const SinkCheck& check) = nullptr;
  // The sink's name when `name` is unset (in /metrics and the log), e.g. "webhook host:port".
  std::string (*default_name)(const PluginOptions& options) = nullptr;
  // What a sink of this kind needs of the rest of the file (an Alertmanager: rule labels it
  // accepts), checked once when the file has one; null: nothing.
  void (*check_file)(const PresentKeys& top, const ReadContext& ctx) = nullptr;
};

// Adds a kind, after those registered before (the reference's order and the order
// "needs one of" lists them in). A name registered twice, or a kind registered after the
// option table was first built, is a bug (WW_ASSERT).
void register_sink_kind(const SinkKind& kind);
std::span<const SinkKind> sink_kinds();
const SinkKind* find_sink_kind(std::string_view name);

}  // namespace warpwatch::config
