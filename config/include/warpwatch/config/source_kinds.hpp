// The kinds of `ingest:` entries. The configuration names none of them: each is declared by
// its plugin (daemon/plugins/in_<kind>/, docs/architecture.md §3.1) with its option rows, the
// struct they fill and the checks that span its keys, and registered
// (plugins::register_builtin_plugins) before the first file is read. The option table
// (options.hpp) takes the rows of every kind registered, in the order registered.
#pragma once

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/options.hpp"

namespace warpwatch::config {

// What a kind's check is handed: the entry's keys (as read_section returns them) and the
// rest of the file that is read already (streams, curve, publish).
class SourceCheck {
 public:
  SourceCheck(const PresentKeys& keys, const SourceLocation& where, const SourceLocation& at,
              const DaemonConfig& config, const ReadContext& ctx,
              std::map<std::string, UniqueNames, std::less<>>& unique)
      : keys(keys), where(where), at(at), config(config), ctx(ctx), unique_(unique) {}

  const PresentKeys& keys;
  const SourceLocation& where;  // the entry
  const SourceLocation& at;     // the value of its kind key (`pull: <here>`)
  const DaemonConfig& config;   // streams, libraries, rules, sinks, curve: read already
  const ReadContext& ctx;

  // Names that must be unique across the file's entries ("pull endpoint": two sockets cannot
  // bind one endpoint), one set per `what`.
  UniqueNames& unique(std::string_view what) {
    const auto it = unique_.find(what);
    if (it != unique_.end()) return it->second;
    return unique_.emplace(std::string(what), UniqueNames(std::string(what))).first->second;
  }

 private:
  std::map<std::string, UniqueNames, std::less<>>& unique_;
};

struct SourceKind {
  // The entry's kind key, e.g. "pull": an entry holds exactly one kind key.
  std::string_view name;
  // Its option rows, named "ingest[].<key>" (the kind key first); those directly under
  // "ingest[]" besides the kind key belong to this kind only (written in an entry of
  // another kind: "'topic' applies to 'sub' entries only").
  std::vector<OptionInfo> (*options)() = nullptr;
  // Its options struct, as the rows' setters fill it (OptionTargets::source_options).
  std::unique_ptr<PluginOptions> (*make_options)() = nullptr;
  // What spans its keys, and files read with the configuration; throws ConfigError.
  void (*check)(PluginOptions& options, SourceCheck& check) = nullptr;
  // Memory its sources hold besides the queues, checked against limits.memory_budget_bytes,
  // and its name in that message; null: none.
  std::size_t (*buffer_bytes)(const PluginOptions& options) = nullptr;
  std::string_view buffer_name{};
};

// Adds a kind, after those registered before (the reference's order and the order
// "needs one of" lists them in). A name registered twice, or a kind registered after the
// option table was first built, is a bug (WW_ASSERT).
void register_source_kind(const SourceKind& kind);
std::span<const SourceKind> source_kinds();
const SourceKind* find_source_kind(std::string_view name);

}  // namespace warpwatch::config
