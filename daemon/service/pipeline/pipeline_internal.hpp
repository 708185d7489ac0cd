// Helpers shared by the Pipeline's source files (pipeline.cpp, pipeline_reload.cpp).
#pragma once

#include <vector>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/stream/registry.hpp"

namespace warpwatch::service {

// The configuration's declared streams and admission options, as the registry takes them.
std::vector<stream::StreamDef> declared_streams(const config::DaemonConfig& c);
stream::RegistryOptions registry_options(const config::DaemonConfig& c);

// The configuration's warnings (docs/configuration.md §4), a line each as
// "file:line:column: message": at start and on reload.
void log_config_warnings(const Logger& log, const config::DaemonConfig& c);

}  // namespace warpwatch::service
