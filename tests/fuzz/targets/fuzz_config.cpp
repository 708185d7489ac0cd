// Fuzz target: the YAML configuration (config/), from bytes to a running daemon.
//
// The input is one configuration, or two separated by the first NUL byte: A, then B.
// Oracle:
// - parse_daemon_config (what load_daemon_config does with the file's text) on A either
//   throws ConfigError naming the file with a line and column, or returns a configuration;
//   any other exception, or a crash, is a finding.
// - An accepted A starts a daemon in-process (a service::Pipeline, built and stepped once;
//   its sources started for some inputs) when it is small enough (below), and survives two
//   reloads from files: with A itself, which must apply (a configuration that validates
//   must apply), then with B, which must apply exactly when parse_daemon_config accepts B,
//   and otherwise be refused and counted in reloads_refused, the running configuration
//   kept. Neither may throw.
//
// Where the daemon starts, the configuration is rewritten so that starting depends on
// nothing outside the process, and so that each start is cheap (the rest is as the file
// says): every ZeroMQ endpoint becomes inproc:// (each Pipeline has a ZeroMQ context of its
// own, so names never clash), influx sockets bind 127.0.0.1:0 over the same transport, MQTT
// brokers and alert sinks point at 127.0.0.1 port 1 (nothing listens: connections fail
// and are retried, as with a broker that is down), replays run unpaced (rate_hz 0: a paced
// replay's sleep holds up stop() for up to 1 / rate_hz s), metrics.listen is off, the
// events file lies in the work folder, the backend is cpu with one thread (cuda and auto
// need a device this build lacks), the tick is 1 ms and the drain grace 0.
//
// Files: the configuration is read as <work>/fuzz.yaml, where <work> is a fresh folder
// holding the repository's example data (config/examples: data/, demo/, patterns/, linked)
// and two small secret files (`pw`, `hook.key`), so that the seeds' relative paths resolve.
//
// Cost: starting a daemon takes threads and sockets; it is done only for configurations
// of at most kStartBytes bytes with at most kStartItems ingest entries, declared streams,
// patterns and sinks each (the rest is parsed only), which the seeds and most mutations are.
// Every such configuration gets its Pipeline built (every socket bound, the matcher, rules,
// publisher and sinks up), a scheduler round and the reloads; the ingest sources' threads
// are started for one input in kStartSourcesEvery only (chosen by a hash of the input, so
// that a replay does what the run did), since stopping a ZeroMQ source waits for its
// 100 ms poll, which would cut the executions per second tenfold.
#include <spdlog/sinks/null_sink.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "fuzz_support.hpp"
#include "in_influx/in_influx.hpp"
#include "in_mqtt/in_mqtt.hpp"
#include "in_pull/in_pull.hpp"
#include "in_replay/in_replay.hpp"
#include "in_sub/in_sub.hpp"
#include "out_alertmanager/out_alertmanager.hpp"
#include "out_webhook/out_webhook.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

namespace fs = std::filesystem;
using warpwatch::config::ConfigError;
using warpwatch::config::DaemonConfig;

constexpr std::size_t kStartBytes = 8192;
constexpr std::size_t kStartItems = 16;
constexpr std::size_t kStartSourcesEvery = 8;

const fs::path& work_dir() {
  static const fs::path dir = [] {
    std::string name = (fs::temp_directory_path() / "warpwatch-fuzz-config-XXXXXX").string();
    WARPWATCH_FUZZ_CHECK(::mkdtemp(name.data()) != nullptr, "a work folder");
    const fs::path examples = fs::path(WARPWATCH_SOURCE_DIR) / "config" / "examples";
    for (const char* folder : {"data", "demo", "patterns"})
      fs::create_directory_symlink(examples / folder, fs::path(name) / folder);
    std::ofstream(fs::path(name) / "pw") << "secret\n";
    std::ofstream(fs::path(name) / "hook.key") << "key\n";
    return fs::path(name);
  }();
  return dir;
}

std::string write_config(const std::string& name, const std::string& text) {
  const fs::path path = work_dir() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  return path.string();
}

// The configuration, or nullopt when it is refused, which must be a located ConfigError.
std::optional<DaemonConfig> parse(const std::string& text, const std::string& path) {
  try {
    return warpwatch::plugins::parse_daemon_config(text, path);
  } catch (const ConfigError& e) {
    WARPWATCH_FUZZ_CHECK(e.where().file == path, "a ConfigError names the file");
    WARPWATCH_FUZZ_CHECK(e.where().line >= 1 && e.where().column >= 1,
                         "a ConfigError names a line and a column");
    return std::nullopt;
  }
}

bool cheap_to_start(const std::string& text, const DaemonConfig& c) {
  std::size_t patterns = 0;
  for (const auto& library : c.live.libraries) patterns += library.patterns.size();
  return text.size() <= kStartBytes && c.ingest.size() <= kStartItems &&
         c.live.streams.size() <= kStartItems && patterns <= kStartItems &&
         c.sinks.size() <= kStartItems;
}

// What the daemon needs outside the process, replaced (see the top of this file).
void make_local(DaemonConfig& c) {
  namespace plugins = warpwatch::plugins;
  c.publish_endpoint = "inproc://fuzz-publish";
  for (std::size_t i = 0; i < c.ingest.size(); ++i) {
    auto& source = c.ingest[i];
    const std::string local = "inproc://fuzz-ingest-" + std::to_string(i);
    if (source.kind == "pull") {
      auto o = source.options_as<plugins::in_pull::PullOptions>();
      o.endpoint = local;
      source = plugins::source_entry(o, source.where);
    }
    if (source.kind == "sub") {
      auto o = source.options_as<plugins::in_sub::SubOptions>();
      o.endpoint = local;
      source = plugins::source_entry(o, source.where);
    }
    if (source.kind == "influx") {
      auto o = source.options_as<plugins::in_influx::InfluxOptions>();
      o.endpoint = o.endpoint.starts_with("udp://") ? "udp://127.0.0.1:0" : "tcp://127.0.0.1:0";
      source = plugins::source_entry(o, source.where);
    }
    // A paced replay sleeps between samples, and stop() waits for the sleep to end (up
    // to 1 / rate_hz seconds): as fast as possible instead.
    if (source.kind == "replay") {
      auto o = source.options_as<plugins::in_replay::ReplayOptions>();
      o.rate_hz = 0;
      source = plugins::source_entry(o, source.where);
    }
    if (source.kind == "mqtt") {
      auto o = source.options_as<plugins::in_mqtt::MqttOptions>();
      o.mqtt.host = "127.0.0.1";
      o.mqtt.port = 1;
      source = plugins::source_entry(o, source.where);
    }
  }
  for (auto& sink : c.sinks) {
    if (sink.kind == "alertmanager") {
      auto o = sink.options_as<plugins::out_alertmanager::AlertmanagerOptions>();
      o.url.host = "127.0.0.1";
      o.url.port = 1;
      sink = plugins::sink_entry(o, sink.sink, sink.where);
    }
    if (sink.kind == "webhook") {
      auto o = sink.options_as<plugins::out_webhook::WebhookOptions>();
      o.url.host = "127.0.0.1";
      o.url.port = 1;
      sink = plugins::sink_entry(o, sink.sink, sink.where);
    }
  }
  c.http.listen.clear();
  if (c.events_file) c.events_file = (work_dir() / "events.jsonl").string();
  c.backend = warpwatch::kernels::Backend::cpu;
  c.cpu_threads = 1;
  c.tick = std::chrono::milliseconds(1);
  c.drain_grace = std::chrono::milliseconds(0);
}

warpwatch::service::Logger quiet_logger() {
  static const auto log = [] {
    auto l =
        std::make_shared<spdlog::logger>("fuzz", std::make_shared<spdlog::sinks::null_sink_mt>());
    l->set_level(spdlog::level::off);
    return l;
  }();
  return log;
}

void start_and_reload(DaemonConfig config, const std::string& a, const std::string& path_a,
                      const std::string& b) {
  make_local(config);
  // The sources' threads of one input in kStartSourcesEvery (by a hash of it, so that a
  // replay does what the run did): stopping a ZeroMQ source waits for its poll (100 ms).
  const bool sources = std::hash<std::string>{}(a) % kStartSourcesEvery == 0;
  warpwatch::service::Pipeline pipeline(std::move(config), quiet_logger());
  if (sources) pipeline.start();
  pipeline.step();
  WARPWATCH_FUZZ_CHECK(pipeline.reload(path_a), "a reload with the running file applies");
  const std::string path_b = write_config("fuzz-b.yaml", b);
  const bool b_valid = parse(b, path_b).has_value();
  const auto before = pipeline.stats();
  const std::size_t streams = pipeline.config().live.streams.size();
  const bool applied = pipeline.reload(path_b);
  const auto after = pipeline.stats();
  WARPWATCH_FUZZ_CHECK(applied == b_valid, "a reload applies exactly what validates");
  WARPWATCH_FUZZ_CHECK(after.reloads == before.reloads + (applied ? 1 : 0), "applied, counted");
  WARPWATCH_FUZZ_CHECK(after.reloads_refused == before.reloads_refused + (applied ? 0 : 1),
                       "refused, counted");
  if (!applied)
    WARPWATCH_FUZZ_CHECK(pipeline.config().live.streams.size() == streams,
                         "a refused reload keeps the running streams");
  pipeline.step();
  pipeline.shutdown();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const std::size_t nul = input.find('\0');
  const std::string a = input.substr(0, nul);
  const std::string b = nul == std::string::npos ? a : input.substr(nul + 1);
  const std::string path_a = write_config("fuzz.yaml", a);
  std::optional<DaemonConfig> config = parse(a, path_a);
  if (config && cheap_to_start(a, *config)) start_and_reload(std::move(*config), a, path_a, b);
  return 0;
}
