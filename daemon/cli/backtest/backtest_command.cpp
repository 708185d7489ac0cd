// `warpwatch backtest`: a whole configuration over recorded data, through the daemon's own
// Pipeline run offline (no socket, no sink called, no state), as fast as the backend goes.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "backtest.hpp"
#include "commands.hpp"
#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/logging.hpp"

namespace warpwatch::cli {
namespace {

using backtest::Recording;

// An output written whole or not at all: a temporary file beside it, renamed by commit().
class AtomicOutput {
 public:
  explicit AtomicOutput(std::string path)
      : path_(std::move(path)), temp_(path_ + ".tmp." + std::to_string(::getpid())) {
    file_.open(temp_, std::ios::binary | std::ios::trunc);
    if (!file_) throw std::runtime_error("cannot write " + config::in_quotes(path_));
  }
  ~AtomicOutput() {
    if (committed_) return;
    file_.close();
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;
  std::ostream& stream() { return file_; }
  void commit() {
    file_.close();
    if (!file_) throw std::runtime_error("cannot write " + config::in_quotes(path_));
    std::filesystem::rename(temp_, path_);
    committed_ = true;
  }

 private:
  std::string path_, temp_;
  std::ofstream file_;
  bool committed_ = false;
};

// The configuration's first entry whose kind maps line protocol (an influx entry).
std::optional<plugins::LineInput> line_input_of(const config::DaemonConfig& config) {
  for (const config::IngestSource& entry : config.ingest) {
    const plugins::SourcePlugin& plugin = plugins::source_plugin(entry.kind);
    if (plugin.line_input) return plugin.line_input(entry);
  }
  return std::nullopt;
}

}  // namespace

CLI::App* add_backtest_command(CLI::App& app, BacktestCommand& cmd) {
  auto* sub = app.add_subcommand(
      "backtest",
      "run a configuration's libraries and rules over recorded data, as the daemon would, as "
      "fast as the backend goes: events as JSON lines, a per-rule table");
  sub->add_option("--config", cmd.config_path, "the daemon's configuration file")->required();
  sub->add_option("--input", cmd.inputs,
                  "a recording: ID=FILE or FILE (the stream is its stem); a .lp file is InfluxDB "
                  "line protocol, mapped as the configuration's influx entry maps it; none: the "
                  "configuration's replay entries");
  sub->add_option("--format", cmd.format,
                  "recordings' format: auto (.lp: line protocol), series "
                  "or line-protocol")
      ->capture_default_str();
  add_series_input_options(*sub, cmd.input);
  sub->add_option("--events", cmd.events_path, "write the events here (JSON lines); - = stdout")
      ->capture_default_str();
  sub->add_option("--table", cmd.table_path, "write the table here instead of stderr");
  sub->add_option_function<std::string>(
      "--backend",
      [&cmd](const std::string& name) {
        const auto backend = kernels::parse_backend(name);
        if (!backend) throw CLI::ValidationError("--backend", "unknown backend " + name);
        cmd.backend = *backend;
      },
      "the configuration's backend instead (reference, cpu, cuda, auto)");
  return sub;
}

int run_backtest(const BacktestCommand& cmd, std::ostream& out, std::ostream& err) {
  plugins::register_builtin_plugins();
  config::DaemonConfig config;
  try {
    config = plugins::load_daemon_config(cmd.config_path);
  } catch (const config::ConfigError& e) {
    err << e.what() << "\n";  // file:line:column: message, as check-config says it
    return 1;
  }
  if (cmd.backend) config.backend = *cmd.backend;

  const auto read_began = std::chrono::steady_clock::now();
  // Every recording read and checked before anything is matched or written.
  std::vector<plugins::RecordedInput> series;
  std::vector<Recording> line_files;
  if (cmd.inputs.empty()) {
    for (const config::IngestSource& entry : config.ingest) {
      const plugins::SourcePlugin& plugin = plugins::source_plugin(entry.kind);
      if (plugin.recorded) series.push_back(plugin.recorded(entry));
    }
    if (series.empty())
      throw std::runtime_error(
          "no recording: give --input, or a configuration with 'replay' "
          "entries");
  }
  for (const std::string& argument : cmd.inputs) {
    Recording recording = backtest::parse_input(argument, cmd.format);
    if (recording.line_protocol)
      line_files.push_back(std::move(recording));
    else
      series.push_back(backtest::load_series(recording, cmd.input, config, err));
  }
  std::optional<plugins::LineInput> line_input;
  if (!line_files.empty()) {
    line_input = line_input_of(config);
    if (!line_input)
      throw std::runtime_error("recording " + config::in_quotes(line_files.front().path) +
                               " is line protocol, but the configuration has no 'influx' entry "
                               "to map its lines to streams (stream_template, fields, precision)");
    for (const Recording& r : line_files) {
      std::error_code ec;
      if (!std::filesystem::is_regular_file(r.path, ec))
        throw std::runtime_error("cannot read recording " + config::in_quotes(r.path));
    }
  }
  for (const plugins::RecordedInput& input : series) backtest::check_fits(input, config);

  std::optional<AtomicOutput> events_file, table_file;
  if (cmd.events_path != "-") events_file.emplace(cmd.events_path);
  if (!cmd.table_path.empty()) table_file.emplace(cmd.table_path);
  backtest::CollectingSink sink(events_file ? events_file->stream() : out);

  const auto began = std::chrono::steady_clock::now();
  const double read_seconds = std::chrono::duration<double>(began - read_began).count();
  service::Pipeline pipeline(
      config, service::make_stream_logger("warpwatch backtest", err, false, spdlog::level::warn),
      {.offline = true, .sinks = {&sink}});
  stream::IngestHub& hub = pipeline.hub();
  const stream::SourceId source = hub.add_source("backtest", stream::Overflow::wait);
  std::uint64_t fed = 0;

  // Series: each stream's next batch_samples at a time, all streams a round, then matched.
  std::vector<std::size_t> offset(series.size(), 0);
  for (bool more = !series.empty(); more;) {
    more = false;
    for (std::size_t i = 0; i < series.size(); ++i) {
      const stream::Samples& all = *series[i].samples;
      const std::size_t n = std::min(pipeline.batch_samples(), all.size() - offset[i]);
      if (n == 0) continue;
      stream::Samples part;
      part.dims = all.dims;
      part.times_ns.assign(all.times_ns.begin() + static_cast<std::ptrdiff_t>(offset[i]),
                           all.times_ns.begin() + static_cast<std::ptrdiff_t>(offset[i] + n));
      part.values.assign(
          all.values.begin() + static_cast<std::ptrdiff_t>(offset[i] * all.dims),
          all.values.begin() + static_cast<std::ptrdiff_t>((offset[i] + n) * all.dims));
      hub.offer_samples(source, series[i].stream, part);
      offset[i] += n;
      fed += n;
      if (offset[i] == all.size()) hub.end_stream(series[i].stream);  // as a replay ends
      more = more || offset[i] < all.size();
    }
    pipeline.run_queued();
  }
  // Line protocol: read as the live source reads a connection, matched between reads once a
  // round's worth waits.
  for (const Recording& r : line_files) {
    const auto read = backtest::read_line_protocol(r.path, *line_input, hub, source, [&] {
      if (hub.queued_samples() >= pipeline.batch_samples()) pipeline.run_queued();
    });
    fed += read.samples;
    pipeline.run_queued();
  }
  pipeline.shutdown();  // the pending candidates of the streams that never ended reported
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();

  std::map<std::string, backtest::StreamSpan> spans;
  for (const auto& [id, span] : pipeline.matched_spans())
    spans[id] = {span.samples, span.first_ns, span.last_ns, ""};
  for (const plugins::RecordedInput& input : series) spans[input.stream].origin = input.origin;
  for (const Recording& r : line_files)
    for (auto& [id, span] : spans)
      if (span.origin.empty()) span.origin = r.path;
  const stream::RegistrySnapshot registry = pipeline.registry().snapshot();
  const backtest::TableInput table{pipeline.config(), sink.events(), spans, registry};
  if (registry.accepted_samples == 0)
    throw std::runtime_error("no sample of the recordings was accepted (" +
                             std::to_string(registry.rejected.total()) +
                             " rejected: see the lines above)");
  backtest::write_table(table, table_file ? table_file->stream() : err);
  if (events_file) events_file->commit();
  if (table_file) table_file->commit();
  err << "backtest: " << registry.accepted_samples << " samples of " << fed << " fed in " << seconds
      << " s (" << static_cast<double>(registry.accepted_samples) / seconds << " samples/s) on the "
      << pipeline.backend_name() << " backend; " << sink.events().size()
      << " events; the series recordings read in " << read_seconds << " s\n";
  return 0;
}

}  // namespace warpwatch::cli
