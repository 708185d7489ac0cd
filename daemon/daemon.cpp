#include "warpwatch/daemon/daemon.hpp"

#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

#include "warpwatch/config/yaml_file.hpp"

namespace warpwatch::daemon {

int run_daemon(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"warpwatchd: streaming elastic pattern matching daemon"};
  std::string config_path = "/etc/warpwatch/warpwatch.yaml";
  app.add_option("-c,--config", config_path, "configuration file (YAML)")->capture_default_str();
  app.set_version_flag("--version", WARPWATCH_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  try {
    config::load_yaml_file(config_path);
  } catch (const config::ConfigError& e) {
    err << "warpwatchd: " << e.what() << "\n";
    return 1;
  }
  err << "warpwatchd: the ingest/match/publish pipeline is not implemented yet\n";
  return 2;
}

}  // namespace warpwatch::daemon
