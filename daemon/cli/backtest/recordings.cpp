// A backtest's recordings: series files as replay entries read them, line-protocol files
// through the live influx source's decoder.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "backtest.hpp"
#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/config/config_reader.hpp"

namespace warpwatch::cli::backtest {
namespace {

using config::in_quotes;

const config::StreamDecl* declared(const config::DaemonConfig& config, const std::string& id) {
  const auto& streams = config.live.streams;
  const auto it = std::find_if(streams.begin(), streams.end(),
                               [&](const config::StreamDecl& s) { return s.def.id == id; });
  return it == streams.end() ? nullptr : &*it;
}

std::string declared_ids(const config::DaemonConfig& config) {
  std::string ids;
  for (const auto& s : config.live.streams) ids += (ids.empty() ? "" : ", ") + s.def.id;
  return ids.empty() ? "none" : ids;
}

}  // namespace

Recording parse_input(const std::string& argument, const std::string& format) {
  if (format != "auto" && format != "series" && format != "line-protocol")
    throw std::runtime_error("--format " + in_quotes(format) +
                             ": expected auto, series or line-protocol");
  Recording r;
  const auto eq = argument.find('=');
  r.path = eq == std::string::npos ? argument : argument.substr(eq + 1);
  const std::filesystem::path path(r.path);
  r.line_protocol = format == "line-protocol" || (format == "auto" && path.extension() == ".lp");
  if (eq != std::string::npos) {
    if (r.line_protocol)
      throw std::runtime_error("--input " + in_quotes(argument) +
                               ": a line-protocol file names its streams itself (the influx "
                               "entry's stream_template); give it without ID=");
    r.stream = argument.substr(0, eq);
  } else if (!r.line_protocol) {
    r.stream = path.stem().string();
  }
  return r;
}

void check_fits(const SeriesFeed& feed, const config::DaemonConfig& config) {
  const config::StreamDecl* decl = declared(config, feed.stream());
  if (!decl && !config.live.auto_create_streams)
    throw std::runtime_error(
        "recording " + in_quotes(feed.origin()) + ": stream " + in_quotes(feed.stream()) +
        " is not declared in 'streams.declared' (declared: " + declared_ids(config) +
        ") and 'streams.auto_create' is false; name it with --input ID=FILE");
  const std::size_t dims = decl ? decl->def.dims : config.live.auto_dims;
  if (feed.dims() != dims)
    throw std::runtime_error("recording " + in_quotes(feed.origin()) + " has " +
                             std::to_string(feed.dims()) + " values per sample, stream " +
                             in_quotes(feed.stream()) + " " + std::to_string(dims));
  if (feed.length() == 0)
    throw std::runtime_error("recording " + in_quotes(feed.origin()) + " holds no samples");
}

SeriesFeed::SeriesFeed(plugins::RecordedInput whole)
    : stream_(std::move(whole.stream)),
      origin_(std::move(whole.origin)),
      dims_(whole.samples->dims),
      length_(whole.samples->size()),
      whole_(std::move(whole.samples)) {}

SeriesFeed::SeriesFeed(std::unique_ptr<config::SeriesReader> reader, std::string stream,
                       std::int64_t period_ns, std::string origin)
    : stream_(std::move(stream)),
      origin_(std::move(origin)),
      dims_(reader->dims()),
      length_(reader->length()),
      reader_(std::move(reader)),
      period_ns_(period_ns) {}

SeriesFeed::~SeriesFeed() {
  if (ahead_.valid()) ahead_.wait();  // the reader outlives its last read
}
SeriesFeed::SeriesFeed(SeriesFeed&&) noexcept = default;
SeriesFeed& SeriesFeed::operator=(SeriesFeed&&) noexcept = default;

void SeriesFeed::read_ahead(std::size_t n) {
  const std::uint64_t first = handed_;
  ahead_n_ = n;
  // Not `this`: a feed may move while its part is read (the reader stays where it is).
  ahead_ = std::async(std::launch::async, [reader = reader_.get(), origin = origin_,
                                           period_ns = period_ns_, n, first] {
    config::LoadedSeries part;
    try {
      reader->next(n, part);
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot load recording " + in_quotes(origin) + ": " + e.what());
    }
    try {
      return std::move(*plugins::series_samples(part, period_ns, origin, first));
    } catch (const std::invalid_argument& e) {
      throw std::runtime_error(std::string("recording ") + e.what());
    }
  });
}

stream::Samples SeriesFeed::next(std::size_t n) {
  n = std::min(n, length_ - handed_);
  stream::Samples part;
  part.dims = dims_;
  if (n == 0) return part;
  if (whole_) {
    part.times_ns.assign(whole_->times_ns.begin() + static_cast<std::ptrdiff_t>(handed_),
                         whole_->times_ns.begin() + static_cast<std::ptrdiff_t>(handed_ + n));
    part.values.assign(whole_->values.begin() + static_cast<std::ptrdiff_t>(handed_ * dims_),
                       whole_->values.begin() + static_cast<std::ptrdiff_t>((handed_ + n) * dims_));
    handed_ += n;
    return part;
  }
  if (!ahead_.valid()) read_ahead(n);
  // Parts are read in the size asked first; a smaller ask (the last) takes what was read.
  part = ahead_.get();
  handed_ += part.size();
  if (handed_ < length_) read_ahead(ahead_n_);
  return part;
}

SeriesFeed load_series(const Recording& recording, const SeriesInputOptions& input,
                       const config::DaemonConfig& config, std::ostream& err) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(recording.path, ec))
    throw std::runtime_error("cannot read recording " + in_quotes(recording.path));
  if (std::filesystem::file_size(recording.path, ec) == 0)
    throw std::runtime_error("recording " + in_quotes(recording.path) + " holds no samples");
  const config::StreamDecl* decl = declared(config, recording.stream);
  const std::int64_t period_ns = decl ? decl->def.nominal_period_ns : config.live.auto_period_ns;
  if (config::lower_extension(recording.path) == ".npy") {  // read in parts
    std::unique_ptr<config::SeriesReader> reader;
    try {
      reader = std::make_unique<config::SeriesReader>(recording.path, series_file_options(input));
    } catch (const std::exception& e) {
      throw std::runtime_error("cannot load recording " + in_quotes(recording.path) + ": " +
                               e.what());
    }
    SeriesFeed feed(std::move(reader), recording.stream, period_ns, recording.path);
    check_fits(feed, config);
    return feed;
  }
  std::vector<config::LoadedSeries> series;
  try {
    series = load_series_for_cli(recording.path, input, err);
  } catch (const std::exception& e) {
    throw std::runtime_error("cannot load recording " + in_quotes(recording.path) + ": " +
                             e.what());
  }
  if (series.empty() || (series.size() == 1 && series.front().length() == 0))
    throw std::runtime_error("recording " + in_quotes(recording.path) + " holds no samples");
  if (series.size() != 1)
    throw std::runtime_error("recording " + in_quotes(recording.path) + " holds " +
                             std::to_string(series.size()) +
                             " series: a recording is one series (--layout columns reads a "
                             "sample per row)");
  plugins::RecordedInput whole{recording.stream, nullptr, recording.path};
  try {
    whole.samples = plugins::series_samples(series.front(), period_ns, recording.path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(std::string("recording ") + e.what());
  }
  SeriesFeed feed(std::move(whole));
  check_fits(feed, config);
  return feed;
}

LineFile read_line_protocol(const std::string& path, const plugins::LineInput& input,
                            stream::IngestHub& hub, stream::SourceId source,
                            const std::function<void()>& between_reads) {
  const std::size_t max_line_bytes = input.max_line_bytes;
  std::ifstream file(path, std::ios::binary);
  if (!file) throw std::runtime_error("cannot read recording " + in_quotes(path));
  stream::InfluxCounters counters;
  stream::InfluxLineDecoder decoder{stream::InfluxMapping(input.mapping), hub, source, counters,
                                    "backtest"};
  stream::LineFramer framer(max_line_bytes);
  std::vector<char> buffer(stream::influx_read_bytes);
  std::uint64_t line_no = 0;
  const auto on_line = [&](std::string_view line) { decoder.line(line, path, ++line_no); };
  while (file) {
    file.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    const auto n = static_cast<std::size_t>(file.gcount());
    if (n == 0) break;
    decoder.received_at(stream::wall_clock_ns());  // lines without a timestamp: read time
    framer.feed(std::string_view(buffer.data(), n), on_line, [&] {
      decoder.reject_line(stream::LineReject::line_too_long, path, ++line_no,
                          "a line longer than max_line_bytes (" + std::to_string(max_line_bytes) +
                              "), skipped to its end");
    });
    if (file.eof()) framer.finish(on_line);  // a file's last line needs no '\n'
    decoder.flush();
    between_reads();
  }
  if (file.bad()) throw std::runtime_error("cannot read recording " + in_quotes(path));
  LineFile out{counters.lines.load(), counters.samples.load(), 0};
  for (const auto& r : counters.rejected) out.rejected += r.load();
  if (out.lines == 0)
    throw std::runtime_error("recording " + in_quotes(path) + " holds no line of line protocol");
  return out;
}

}  // namespace warpwatch::cli::backtest
