// `warpwatch backtest` (docs/cli.md §12): this room's shared parts. The verb runs the
// daemon's own Pipeline offline (service::PipelineOptions): no socket, no sink called, events
// caught by an in-process EventSink.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <iosfwd>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "options.hpp"
#include "warpwatch/alerting/event.hpp"
#include "warpwatch/alerting/event_sink.hpp"
#include "warpwatch/config/daemon_config.hpp"
#include "warpwatch/config/series_file.hpp"
#include "warpwatch/plugins/recorded_input.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/stream/decode/influx_lines.hpp"

namespace warpwatch::cli::backtest {

// One --input: a series file fed as one stream, or a line-protocol file mapped to streams.
struct Recording {
  std::string path;
  std::string stream;  // series: ID of ID=FILE, else the file's stem; line protocol: ""
  bool line_protocol = false;
};
// "ID=FILE" or "FILE"; line protocol when `format` is "line-protocol", or it is "auto" and the
// file ends in .lp. Throws std::runtime_error on an unknown format.
Recording parse_input(const std::string& argument, const std::string& format);

// A series recording fed a round at a time. A .npy file is read in parts
// (config::SeriesReader: memory holds a round or two, not the file), the part after the one
// handed out read on another thread meanwhile, so that reading overlaps matching; other
// files, and a configuration's replay entries, are read whole first and handed out in parts.
// Sample i at i * the stream's period (declared, or streams.auto_period) unless the file has
// times.
class SeriesFeed {
 public:
  // A replay entry's samples, as its plugin read them.
  explicit SeriesFeed(plugins::RecordedInput whole);
  // A .npy file, its header read and checked (the first next() begins its reads).
  SeriesFeed(std::unique_ptr<config::SeriesReader> reader, std::string stream,
             std::int64_t period_ns, std::string origin);
  ~SeriesFeed();
  SeriesFeed(SeriesFeed&&) noexcept;
  SeriesFeed& operator=(SeriesFeed&&) noexcept;

  const std::string& stream() const { return stream_; }
  const std::string& origin() const { return origin_; }
  std::size_t dims() const { return dims_; }
  std::size_t length() const { return length_; }
  // The next `n` samples, fewer at the end (empty once all were handed out); a .npy part
  // read ahead keeps the size asked the time before, so an ask that changes size takes
  // effect one part later. A part that turns out bad (a truncated file, a value out of
  // range) throws std::runtime_error naming the file.
  stream::Samples next(std::size_t n);

 private:
  void read_ahead(std::size_t n);
  std::string stream_, origin_;
  std::size_t dims_ = 1, length_ = 0, handed_ = 0;
  std::shared_ptr<const stream::Samples> whole_;  // read whole
  std::unique_ptr<config::SeriesReader> reader_;  // read in parts
  std::int64_t period_ns_ = 0;
  std::future<stream::Samples> ahead_;  // the part after the last handed out
  std::size_t ahead_n_ = 0;
};

// A series recording checked against the configuration: the stream declared (or auto-created),
// the file's dims the stream's, not empty. Throws std::runtime_error naming the file.
SeriesFeed load_series(const Recording& recording, const SeriesInputOptions& input,
                       const config::DaemonConfig& config, std::ostream& err);
// The same checks for a configuration's own replay entry, or any feed.
void check_fits(const SeriesFeed& feed, const config::DaemonConfig& config);

// A line-protocol file through the live influx source's decoder (stream/decode/influx_lines),
// read in the source's read size: every sample into the hub, every bad line counted and
// logged as the daemon does. `between_reads` runs after each read's samples are queued (the
// caller matches them). Returns the lines read; throws std::runtime_error naming the file when
// it cannot be read or holds no line.
struct LineFile {
  std::uint64_t lines = 0, samples = 0, rejected = 0;
};
LineFile read_line_protocol(const std::string& path, const plugins::LineInput& input,
                            stream::IngestHub& hub, stream::SourceId source,
                            const std::function<void()>& between_reads);

// The events a backtest saw: written as JSON lines (the publisher's payload) and kept for the
// table and the report.
class CollectingSink final : public alerting::EventSink {
 public:
  explicit CollectingSink(std::ostream& out) : out_(out) {}
  void offer(std::span<const alerting::SharedEvent> events) override;
  void stop(std::chrono::steady_clock::time_point) override {}
  const std::vector<alerting::SharedEvent>& events() const { return events_; }

 private:
  std::ostream& out_;
  std::vector<alerting::SharedEvent> events_;
};

// Per stream: what was fed and accepted, its stream-time span.
struct StreamSpan {
  std::uint64_t samples = 0;  // accepted
  std::int64_t first_ns = 0, last_ns = 0;
  std::string origin;  // the recording
};

// The table (stderr or --table): per rule its events, events per hour of the recordings of
// the streams it selects, the alerts each alert sink of `sinks:` would have sent (the events
// its `rules:` select); per stream its samples, span, events and rejections.
struct TableInput {
  const config::DaemonConfig& config;
  const std::vector<alerting::SharedEvent>& events;
  const std::map<std::string, StreamSpan>& streams;
  const stream::RegistrySnapshot& registry;
};
// The hours of recording: the sum over streams of their spans (last - first sample time).
double recording_hours(const std::map<std::string, StreamSpan>& streams);
std::vector<std::vector<std::string>> rule_rows(const TableInput& in,
                                                std::vector<std::string>& header);
std::vector<std::vector<std::string>> stream_rows(const TableInput& in,
                                                  std::vector<std::string>& header);
void write_table(const TableInput& in, std::ostream& out);

// --report: the samples as the Pipeline matched them (PipelineOptions::on_samples), kept in
// memory, per stream.
class ReportSamples {
 public:
  struct Kept {
    std::size_t dims = 1;
    std::vector<std::int64_t> times_ns;
    std::vector<float> values;
  };
  void add(const stream::QueuedSamples& samples);
  std::map<std::string, Kept> streams;
};
// The HTML page (daemon/report/, written all or nothing), titled with the configuration's
// path: the command, `summary`, the tables,
// each stream's series (thinned) with each event a span labelled with its pattern and rule.
// Throws naming `path` when it cannot be written.
void write_report(const std::string& path, const std::string& config_path,
                  const std::string& command, const TableInput& in, const ReportSamples& samples,
                  const std::string& summary);

}  // namespace warpwatch::cli::backtest
