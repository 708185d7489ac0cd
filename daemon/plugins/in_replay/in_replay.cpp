#include "in_replay/in_replay.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <sstream>

#include "warpwatch/base/timestamps.hpp"
#include "warpwatch/config/series_file.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/plugins/recorded_input.hpp"
#include "warpwatch/stream/sources/replay_source.hpp"

namespace warpwatch::plugins::in_replay {
namespace {

using config::cat;
using config::ConfigError;
using config::in_quotes;
using config::OptionInfo;
using config::OptionTargets;
using config::OptionValue;
using OT = config::OptionType;

std::vector<OptionInfo> options() {
  return {
      {.name = "ingest[].replay",
       .type = OT::path,
       .help = "a series file (CSV, TSV, .npy; one series) replayed as one stream; `layout`, "
               "`time_column`, `value_columns`, `time_unit`, `labels` say how to read it, as "
               "`warpwatch search`'s flags do",
       .set = [](OptionTargets& t,
                 const OptionValue& v) { t.source_options<ReplayOptions>().file = v.text; }},
      {.name = "ingest[].stream",
       .type = OT::string,
       .help = "`replay` only, required there: the stream id the file's samples get",
       .min = 1,
       .set = [](OptionTargets& t,
                 const OptionValue& v) { t.source_options<ReplayOptions>().stream = v.text; }},
      {.name = "ingest[].rate_hz",
       .type = OT::number,
       .default_yaml = "0",
       .help = "`replay` only: samples sent per second; 0 = as fast as possible; sending the "
               "file may take at most 1e9 s",
       .min = 0,
       .max = 1e9,
       .set = [](OptionTargets& t,
                 const OptionValue& v) { t.source_options<ReplayOptions>().rate_hz = v.number; }},
      {.name = "ingest[].period_ms",
       .type = OT::number,
       .default_yaml = "1000",
       .help = "`replay` only: spacing of the replayed samples' timestamps, rounded to whole ns; "
               "the file's last timestamp must stay within int64 ns",
       .min = config::min_period_ms,
       .max = config::max_period_ms,
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().period_ns = config::period_ns(v.number);
           }},
      {.name = "ingest[].start",
       .type = OT::choice,
       .default_yaml = "file",
       .help = "`replay`: the samples' times: `file` as read (0, `period_ms`, ... or the time "
               "column's), `now` shifted so that the first sample is at the wall clock when the "
               "configuration is read (events and alerts then carry real times)",
       .choices = {"file", "now"},
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().start_now = v.text == "now";
           }},
      {.name = "ingest[].layout",
       .type = OT::choice,
       .default_yaml = "rows",
       .help = "`replay` only: `rows` = the file's series is a row; `columns` = the file is one "
               "series, a sample per row, a dimension per column (`--layout`)",
       .choices = {"rows", "columns"},
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().file_options.layout =
                 v.text == "rows" ? config::SeriesLayout::rows : config::SeriesLayout::columns;
           }},
      {.name = "ingest[].labels",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "`replay`, `rows` layout: the row's first field is a class label, not a value "
               "(`--labels yes`)",
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().file_options.label_column = v.boolean;
           }},
      {.name = "ingest[].time_column",
       .type = OT::integer,
       .help = "`replay`, `columns` layout: 0-based column of timestamps (numbers in "
               "`time_unit`, or YYYY-MM-DD HH:MM:SS[.fff]); the samples keep these times, "
               "`period_ms` is then not used (`--time-column`)",
       .min = 0,
       .max = 1 << 20,
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().file_options.time_column =
                 static_cast<std::size_t>(v.integer);
           }},
      {.name = "ingest[].value_columns",
       .type = OT::columns,
       .help = "`replay`, `columns` layout: the value columns, in the order wanted; unset = "
               "every column but `time_column` (`--value-columns`)",
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().file_options.value_columns.assign(v.numbers.begin(),
                                                                                 v.numbers.end());
           }},
      {.name = "ingest[].time_unit",
       .type = OT::choice,
       .default_yaml = "s",
       .help = "`replay`: unit of `time_column` (`--time-unit`)",
       .choices = {"s", "ms", "us", "ns"},
       .set =
           [](OptionTargets& t, const OptionValue& v) {
             t.source_options<ReplayOptions>().file_options.time_scale =
                 *config::time_unit_seconds(v.text);
           }},
  };
}

std::unique_ptr<config::PluginOptions> make_options() {
  return std::make_unique<ReplayOptions>();
}

// `start: now`: every time shifted by one amount so that the first is the wall clock now.
void shift_to_now(std::vector<std::int64_t>& times_ns, const std::string& file,
                  const config::SourceLocation& at) {
  const std::int64_t now = stream::wall_clock_ns();
  const std::int64_t first = times_ns.front();
  // Every shifted time must stay within int64 nanoseconds (times and `first` both are
  // within +-9.2e18, so the differences are computed in long double).
  const auto [lo, hi] = std::minmax_element(times_ns.begin(), times_ns.end());
  const long double top = static_cast<long double>(now) + (*hi - static_cast<long double>(first));
  const long double bottom =
      static_cast<long double>(now) + (*lo - static_cast<long double>(first));
  if (top > 9.2e18L || bottom < -9.2e18L)
    throw ConfigError(at, cat("replay file ", in_quotes(file),
                              ": with 'start: now' its times, shifted to start now, leave the "
                              "int64 nanosecond range"));
  for (std::int64_t& t : times_ns) t = now + (t - first);
}

// The file as samples, sample i at i * period: one series, whose last timestamp fits in int64
// nanoseconds.
std::shared_ptr<const stream::Samples> replay_samples(const ReplayOptions& src,
                                                      const config::SourceLocation& at) {
  std::vector<config::LoadedSeries> series;
  try {
    series = config::load_series_file(src.file, src.file_options);
  } catch (const ConfigError& e) {
    throw ConfigError(at, cat("cannot load replay file: ", e.what()));
  }
  if (series.size() != 1 || series.front().length() == 0)
    throw ConfigError(
        at, cat("replay file ", in_quotes(src.file), " holds ", std::to_string(series.size()),
                " series: a replay entry takes a file of one non-empty series"));
  const config::LoadedSeries& s = series.front();
  const std::size_t length = s.length();
  const auto last_index = static_cast<std::uint64_t>(length - 1);
  // The pacing's clock (steady_clock, int64 ns) must reach the last sample's time.
  if (src.rate_hz > 0 && static_cast<double>(last_index) / src.rate_hz > stream::max_replay_seconds)
    throw ConfigError(at, cat("replay file ", in_quotes(src.file), " has ", std::to_string(length),
                              " samples: at 'rate_hz' ", std::to_string(src.rate_hz),
                              " sending them would take more than 1e9 s"));
  std::shared_ptr<stream::Samples> samples;
  try {
    samples = series_samples(s, src.period_ns, src.file);
  } catch (const std::invalid_argument& e) {
    throw ConfigError(at, cat("replay ", e.what()));
  }
  if (src.start_now) shift_to_now(samples->times_ns, src.file, at);
  return samples;
}

// The stream is one the file may feed (declared, or auto-created), of the file's dims.
void check(config::PluginOptions& options, config::SourceCheck& check) {
  auto& src = static_cast<ReplayOptions&>(options);
  const config::DaemonConfig& config = check.config;
  const auto stream = check.keys.find("stream");
  if (stream == check.keys.end())
    throw ConfigError(check.where, "missing required key 'stream' in a 'replay' entry");
  config::check_stream_id(src.stream, stream->second.value);
  config::check_series_file_keys(check.keys, src.file_options);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(src.file, ec))
    throw ConfigError(check.at, cat("cannot read replay file ", in_quotes(src.file)));
  const auto declared =
      std::find_if(config.live.streams.begin(), config.live.streams.end(),
                   [&](const config::StreamDecl& s) { return s.def.id == src.stream; });
  if (declared == config.live.streams.end() && !config.live.auto_create_streams)
    throw ConfigError(stream->second.value,
                      cat("replay stream ", in_quotes(src.stream),
                          " is not declared in "
                          "'streams.declared' and 'streams.auto_create' is false"));
  src.samples = replay_samples(src, check.at);
  const std::size_t dims =
      declared == config.live.streams.end() ? config.live.auto_dims : declared->def.dims;
  if (src.samples->dims != dims)
    throw ConfigError(
        check.at,
        cat("replay file ", in_quotes(src.file), " has ", std::to_string(src.samples->dims),
            " values per sample, stream ", in_quotes(src.stream), " ", std::to_string(dims)));
}

MadeSource make(const config::IngestSource& entry, const SourceContext& context) {
  const auto& replay = entry.options_as<ReplayOptions>();
  WW_ASSERT(replay.samples, "a replay entry's samples are read with the configuration");
  return {
      std::make_unique<stream::ReplaySource>(
          stream::ReplaySourceOptions{replay.stream, *replay.samples, replay.rate_hz, replay.file},
          context.hub),
      std::nullopt};
}

RecordedInput recorded(const config::IngestSource& entry) {
  const auto& replay = entry.options_as<ReplayOptions>();
  WW_ASSERT(replay.samples, "a replay entry's samples are read with the configuration");
  return {replay.stream, replay.samples, replay.file};
}

// Numbers as people write them: 10, 0.5, 100 (not 10.000000).
std::string number(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

std::string describe(const config::IngestSource& entry) {
  const auto& r = entry.options_as<ReplayOptions>();
  return "replay " + r.file + " -> " + r.stream + " (" +
         (r.rate_hz > 0 ? number(r.rate_hz) + " Hz" : std::string("as fast as possible")) +
         ", period " + number(static_cast<double>(r.period_ns) / 1e6) + " ms)";
}

}  // namespace

const SourcePlugin plugin{
    .config = {.name = ReplayOptions::kind,
               .options = options,
               .make_options = make_options,
               .check = check},
    .make = make,
    .describe = describe,
    .finite = true,
    .recorded = recorded,
};

}  // namespace warpwatch::plugins::in_replay
