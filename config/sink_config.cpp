// read_sinks: the `sinks:` list through the option table, then what spans an entry's keys
// (one kind, the keys of other kinds, the kind's own check: its plugin's, sink_kinds.hpp;
// the retries' bounds every sink has) and the whole file (unique names, what a kind needs of
// the rest of the file).
#include <algorithm>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/sink_kinds.hpp"

namespace warpwatch::config {

std::vector<SinkConfig> read_sinks(const PresentKeys& top, const ReadContext& ctx) {
  std::vector<std::string_view> kinds;
  std::vector<std::pair<std::string_view, std::string_view>> owners;  // (key, kind)
  for (const SinkKind& kind : sink_kinds()) {
    kinds.push_back(kind.name);
    for (const OptionInfo& option : kind.options()) {
      const std::string_view key = option.name.substr(std::string_view("sinks[].").size());
      if (key != kind.name && key.find('.') == std::string_view::npos)
        owners.emplace_back(key, kind.name);
    }
  }
  std::vector<SinkConfig> sinks;
  UniqueNames names("sink name");
  read_list(
      top, ctx, "sinks", &OptionTargets::sink, [&](SinkEntry& entry, const PresentKeys& keys) {
        const std::string_view kind_key =
            entry_kind(keys, kinds, "a sink entry", "kind", entry.where);
        check_kind_keys(keys, kind_key, owners);
        const SinkKind& kind = *find_sink_kind(kind_key);
        std::unique_ptr<PluginOptions>& options = entry.options[std::string(kind_key)];
        if (!options) options = kind.make_options();
        kind.check(*options, {keys, entry.where, keys.find(kind_key)->second.value, ctx});
        SinkOptions& sink = entry.sink;
        if (sink.backoff > sink.max_backoff)
          throw ConfigError(value_at(keys, "backoff_ms", entry.where),
                            cat("'backoff_ms' (", std::to_string(sink.backoff.count()),
                                ") is larger than 'max_backoff_ms' (",
                                std::to_string(sink.max_backoff.count()), ")"));
        if (sink.name.empty()) sink.name = kind.default_name(*options);
        const auto name = keys.find("name");
        names.add(sink.name, name == keys.end() ? entry.where : name->second.value);
        sinks.push_back({std::string(kind_key), std::move(sink), std::move(options), entry.where});
      });
  for (const SinkKind& kind : sink_kinds()) {
    const bool present = std::any_of(sinks.begin(), sinks.end(),
                                     [&](const SinkConfig& s) { return s.kind == kind.name; });
    if (present && kind.check_file) kind.check_file(top, ctx);
  }
  return sinks;
}

}  // namespace warpwatch::config
