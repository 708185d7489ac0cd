// The plugins, by name (docs/architecture.md §3.1): the one list of the ingest kinds and the
// one list of the sink kinds (registry.cpp). Adding a kind is its folder plus its line there.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/sink_plugin.hpp"
#include "warpwatch/plugins/source_plugin.hpp"

namespace warpwatch::plugins {

// Every source plugin, in the order of the configuration reference.
std::span<const SourcePlugin* const> source_plugins();
// The plugin of an entry's kind; an unknown kind is a bug (WW_ASSERT): the configuration
// reads only registered ones.
const SourcePlugin& source_plugin(std::string_view kind);

// Every sink plugin, in the order of the configuration reference.
std::span<const SinkPlugin* const> sink_plugins();
// The plugin of a sink entry's kind; an unknown kind is a bug (WW_ASSERT).
const SinkPlugin& sink_plugin(std::string_view kind);

// Hands every plugin's option rows and checks to the configuration (config::
// register_source_kind, register_sink_kind), once: before the first file is read or the option
// table used. load_daemon_config and parse_daemon_config below do it.
void register_builtin_plugins();

// config::load_daemon_config and parse_daemon_config with the plugins registered: what the
// daemon, the CLI and the tests read configurations with.
config::DaemonConfig load_daemon_config(const std::string& path, config::ReadAs as = {});
config::DaemonConfig parse_daemon_config(const std::string& text, const std::string& path,
                                         config::ReadAs as = {});

}  // namespace warpwatch::plugins
