// warpwatchd: configuration, signals and the scheduler loop around the Pipeline.
// Signal handlers only set flags (fluent-bit's habit); the loop acts on them.
#include "warpwatch/daemon/daemon.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <csignal>
#include <ctime>
#include <iomanip>
#include <ostream>
#include <string>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/daemon/pipeline.hpp"

namespace warpwatch::daemon {
namespace {

volatile std::sig_atomic_t stop_signal = 0;
volatile std::sig_atomic_t reload_signal = 0;

extern "C" void on_stop(int signal) { stop_signal = signal; }
extern "C" void on_reload(int) { reload_signal = 1; }

}  // namespace

int run_daemon(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"warpwatchd: streaming elastic pattern matching daemon"};
  std::string config_path = "/etc/warpwatch/warpwatch.yaml";
  bool exit_when_replayed = false;
  app.add_option("-c,--config", config_path, "configuration file (YAML)")->capture_default_str();
  app.add_flag("--exit-when-replayed", exit_when_replayed,
               "stop (draining, as on SIGTERM) once every replay source has sent its file");
  app.set_version_flag("--version", WARPWATCH_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  const auto log = [&err](const std::string& line) { err << "warpwatchd: " << line << std::endl; };
  std::unique_ptr<Pipeline> pipeline;
  try {
    pipeline = std::make_unique<Pipeline>(config::load_daemon_config(config_path), log);
  } catch (const std::exception& e) {
    log(e.what());
    return 1;
  }
  stop_signal = 0;
  reload_signal = 0;
  std::signal(SIGTERM, on_stop);
  std::signal(SIGINT, on_stop);
  std::signal(SIGHUP, on_reload);
  log("running: backend " + pipeline->backend_name() + ", publishing on " + pipeline->publish_endpoint());
  pipeline->start();
  try {
    while (!stop_signal && !(exit_when_replayed && pipeline->replays_done())) {
      pipeline->step();
      if (reload_signal) {
        reload_signal = 0;
        pipeline->reload(config_path);
      }
    }
    log(stop_signal ? "stopping on signal " + std::to_string(stop_signal) + ": draining"
                    : "every replay source is done: draining");
    const PipelineSummary s = pipeline->shutdown();
    log("stopped: " + std::to_string(s.samples) + " samples in " + std::to_string(s.batches) +
        " batches, " + std::to_string(s.matches) + " matches, " + std::to_string(s.events) +
        " events (" + std::to_string(s.published) + " published, " + std::to_string(s.dropped) +
        " dropped), " + std::to_string(s.rejected) + " rejected inputs");
  } catch (const std::exception& e) {
    log(std::string("fatal: ") + e.what());
    return 1;
  }
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  return 0;
}

}  // namespace warpwatch::daemon
