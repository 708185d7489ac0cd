// `warpwatch backtest`: a whole configuration over recorded data, through the daemon's own
// Pipeline run offline (no socket, no sink called, no state), as fast as the backend goes.
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
#include "warpwatch/files/files.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/logging.hpp"

namespace warpwatch::cli {
namespace {

using backtest::Recording;

// The command as given, for the report.
std::string command_line(const BacktestCommand& cmd) {
  std::string line = "warpwatch backtest --config " + cmd.config_path;
  for (const std::string& input : cmd.inputs) line += " --input " + input;
  if (cmd.format != "auto") line += " --format " + cmd.format;
  if (cmd.backend) line += " --backend " + std::string(kernels::to_string(*cmd.backend));
  if (cmd.events_path != "-") line += " --events " + cmd.events_path;
  if (!cmd.table_path.empty()) line += " --table " + cmd.table_path;
  line += " --report " + cmd.report_path;
  return line;
}

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
  sub->add_option("--report", cmd.report_path,
                  "an HTML report: each stream's series with its events marked, the tables "
                  "(the samples are kept in memory for it)");
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
  std::vector<backtest::SeriesFeed> series;
  std::vector<Recording> line_files;
  if (cmd.inputs.empty()) {
    for (const config::IngestSource& entry : config.ingest) {
      const plugins::SourcePlugin& plugin = plugins::source_plugin(entry.kind);
      if (plugin.recorded) series.emplace_back(plugin.recorded(entry));
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
  for (const backtest::SeriesFeed& feed : series) backtest::check_fits(feed, config);

  // The outputs are written at the end, each whole (files::write_file_atomically), or not at
  // all: nothing half-written when a recording turns out bad.
  std::ostringstream events_text;
  backtest::CollectingSink sink(cmd.events_path == "-" ? out : events_text);
  backtest::ReportSamples drawn;

  const auto began = std::chrono::steady_clock::now();
  const double read_seconds = std::chrono::duration<double>(began - read_began).count();
  service::Pipeline pipeline(
      config, service::make_stream_logger("warpwatch backtest", err, false, spdlog::level::warn),
      {.offline = true,
       .sinks = {&sink},
       .on_samples = cmd.report_path.empty()
                         ? std::function<void(const stream::QueuedSamples&)>{}
                         : [&drawn](const stream::QueuedSamples& q) { drawn.add(q); }});
  stream::IngestHub& hub = pipeline.hub();
  const stream::SourceId source = hub.add_source("backtest", stream::Overflow::wait);
  std::uint64_t fed = 0;

  // Series: each stream's next batch_samples at a time, all streams a round, then matched
  // (a .npy recording's next part is read meanwhile: SeriesFeed).
  std::vector<std::size_t> offset(series.size(), 0);
  for (bool more = !series.empty(); more;) {
    more = false;
    for (std::size_t i = 0; i < series.size(); ++i) {
      if (offset[i] == series[i].length()) continue;
      const stream::Samples part = series[i].next(pipeline.batch_samples());
      hub.offer_samples(source, series[i].stream(), part);
      offset[i] += part.size();
      fed += part.size();
      if (offset[i] == series[i].length()) hub.end_stream(series[i].stream());  // as a replay ends
      more = more || offset[i] < series[i].length();
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
  for (const backtest::SeriesFeed& feed : series) spans[feed.stream()].origin = feed.origin();
  for (const Recording& r : line_files)
    for (auto& [id, span] : spans)
      if (span.origin.empty()) span.origin = r.path;
  const stream::RegistrySnapshot registry = pipeline.registry().snapshot();
  const backtest::TableInput table{pipeline.config(), sink.events(), spans, registry};
  if (registry.accepted_samples == 0)
    throw std::runtime_error("no sample of the recordings was accepted (" +
                             std::to_string(registry.rejected.total()) +
                             " rejected: see the lines above)");
  std::ostringstream summary;
  summary << registry.accepted_samples << " samples of " << fed << " fed in " << seconds << " s ("
          << static_cast<double>(registry.accepted_samples) / seconds << " samples/s) on the "
          << pipeline.backend_name() << " backend; " << sink.events().size() << " events";
  if (!cmd.report_path.empty())
    backtest::write_report(cmd.report_path, cmd.config_path, command_line(cmd), table, drawn,
                           summary.str());
  if (cmd.events_path != "-") files::write_file_atomically(cmd.events_path, events_text.str());
  if (cmd.table_path.empty()) {
    backtest::write_table(table, err);
  } else {
    std::ostringstream text;
    backtest::write_table(table, text);
    files::write_file_atomically(cmd.table_path, text.str());
  }
  err << "backtest: " << summary.str() << "; the recordings opened and checked in " << read_seconds
      << " s (.npy recordings are read part by part while matching)\n";
  return 0;
}

}  // namespace warpwatch::cli
