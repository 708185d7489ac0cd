// warpwatchd: configuration, signals and the scheduler loop around the Pipeline.
// Signal handlers only set flags (fluent-bit's habit); the loop acts on them.
#include "warpwatch/service/daemon.hpp"

#include <CLI/CLI.hpp>

#include <chrono>
#include <csignal>
#include <ostream>
#include <string>

#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/library_editor.hpp"
#include "warpwatch/service/library_overlay.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/service/service_notifier.hpp"

namespace warpwatch::service {
namespace {

constexpr std::chrono::seconds status_interval{10};

volatile std::sig_atomic_t stop_signal = 0;
volatile std::sig_atomic_t reload_signal = 0;

extern "C" void on_stop(int signal) {
  stop_signal = signal;
}
extern "C" void on_reload(int) {
  reload_signal = 1;
}

// systemctl status shows the last STATUS= line: what the daemon is doing, in one line.
std::string status_line(const Pipeline& pipeline) {
  const PipelineStats s = pipeline.stats();
  return "running: backend " + pipeline.backend_name() + ", " + std::to_string(s.streams) +
         " streams, " + std::to_string(s.patterns) + " patterns, " + std::to_string(s.samples) +
         " samples matched, " + std::to_string(s.events) + " events";
}

// config::LogLevel follows spdlog's level order, trace to off.
static_assert(static_cast<int>(config::LogLevel::trace) == spdlog::level::trace &&
              static_cast<int>(config::LogLevel::warning) == spdlog::level::warn &&
              static_cast<int>(config::LogLevel::off) == spdlog::level::off);

// The configuration's level unless --log-level pinned one.
void apply_log_level(const Logger& log, std::optional<config::LogLevel> pinned,
                     config::LogLevel configured) {
  log->set_level(static_cast<spdlog::level::level_enum>(pinned.value_or(configured)));
}

}  // namespace

int exit_status_for(const std::exception& error) {
  return dynamic_cast<const kernels::DeviceLost*>(&error) ? exit_device_lost : exit_failure;
}

int run_daemon(int argc, const char* const* argv, std::ostream& out, std::ostream& err) {
  CLI::App app{"warpwatchd: streaming elastic pattern matching daemon"};
  std::string config_path = "/etc/warpwatch/warpwatch.yaml";
  std::string log_level_name;
  bool exit_when_replayed = false;
  app.add_option("-c,--config", config_path, "configuration file (YAML)")->capture_default_str();
  app.add_option("--log-level", log_level_name, "overrides the configuration's log.level")
      ->check(CLI::IsMember(std::vector<std::string>(std::begin(config::log_level_names),
                                                     std::end(config::log_level_names))));
  app.add_flag("--exit-when-replayed", exit_when_replayed,
               "stop (draining, as on SIGTERM) once every replay source has sent its file");
  app.set_version_flag("--version", WARPWATCH_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e, out, err);
  }
  const Logger log = make_stream_logger("warpwatchd", err, stderr_is_journal());
  const std::optional<config::LogLevel> log_level =
      config::parse_log_level(log_level_name);  // CLI11 checked it
  apply_log_level(log, log_level, config::LiveConfig{}.log_level);
  ServiceNotifier systemd(log);
  std::unique_ptr<Pipeline> pipeline;
  std::shared_ptr<LibraryEditor> editor;  // the runtime changes of libraries
  try {
    // The file with the runtime changes of its libraries on top (the overlay of state.dir).
    config::DaemonConfig config = load_with_overlay(config_path);
    config::check_cuda_devices(config);
    apply_log_level(log, log_level, config.live.log_level);
    pipeline = std::make_unique<Pipeline>(std::move(config), log);
    editor = std::make_shared<LibraryEditor>(*pipeline, config_path, log);
    pipeline->set_library_editor(editor);  // the API's /api/v1/libraries routes
  } catch (const std::exception& e) {
    log->critical("{}", e.what());
    systemd.status(std::string("failed to start: ") + e.what());
    return exit_status_for(e);
  }
  stop_signal = 0;
  reload_signal = 0;
  std::signal(SIGTERM, on_stop);
  std::signal(SIGINT, on_stop);
  std::signal(SIGHUP, on_reload);
  log->info("running: backend {}, publishing on {}", pipeline->backend_name(),
            pipeline->publish_endpoint());
  pipeline->start();
  // Every socket is bound and the configuration loaded: systemd may start what depends on us.
  systemd.ready(status_line(*pipeline));
  try {
    auto next_status = std::chrono::steady_clock::now() + status_interval;
    while (!stop_signal && !(exit_when_replayed && pipeline->replays_done())) {
      pipeline->step();
      systemd.watchdog_tick();
      if (reload_signal) {
        reload_signal = 0;
        systemd.reloading();
        const bool applied = editor->reload();  // the file, the overlay kept on top
        apply_log_level(log, log_level, pipeline->config().live.log_level);
        systemd.ready(status_line(*pipeline) +
                      (applied ? "" : " (last reload refused: see the log)"));
      } else if (std::chrono::steady_clock::now() >= next_status) {
        systemd.status(status_line(*pipeline));
        next_status = std::chrono::steady_clock::now() + status_interval;
      }
    }
    if (stop_signal)
      log->info("stopping on signal {}: draining", static_cast<int>(stop_signal));
    else
      log->info("every replay source is done: draining");
    systemd.stopping("draining");
    const PipelineSummary s = pipeline->shutdown();
    log->info(
        "stopped: {} samples in {} batches, {} matches, {} events ({} published, {} dropped), {} "
        "rejected inputs, {} accepted samples not matched within the grace",
        s.samples, s.batches, s.matches, s.events, s.published, s.dropped, s.rejected, s.unmatched);
  } catch (const kernels::DeviceLost& e) {
    log->critical(
        "the CUDA device is lost: {}; exiting with status {} without draining (the device's "
        "matching "
        "state is gone), for the service manager to restart warpwatchd",
        e.what(), exit_device_lost);
    systemd.status(std::string("CUDA device lost: ") + e.what());
    pipeline->abandon();
    return exit_status_for(e);
  } catch (const std::exception& e) {
    log->critical("fatal: {}", e.what());
    // Nothing more is matched, checkpointed or committed: a batch that failed half done
    // (the matches of a shard that finished are gone) must not become the saved state, so
    // that a restart replays from the last good checkpoint or cut.
    pipeline->abandon();
    return exit_status_for(e);
  }
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGHUP, SIG_DFL);
  return 0;
}

}  // namespace warpwatch::service
