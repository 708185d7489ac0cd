// `warpwatch cut`: samples [from, to) of a recording written as a pattern file (CSV or .npy),
// laid out so that the input options that cut it read it back.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.hpp"
#include "warpwatch/config/array_writer.hpp"

namespace warpwatch::cli {
namespace {

// The series to cut from: the only one, or --series K of several.
const config::LoadedSeries& pick_series(const std::vector<config::LoadedSeries>& series,
                                        const CutCommand& cmd) {
  if (cmd.series) {
    if (*cmd.series >= series.size())
      throw std::runtime_error("--series " + std::to_string(*cmd.series) + " is out of range: " +
                               cmd.file + " holds " + std::to_string(series.size()) + " series");
    return series[*cmd.series];
  }
  if (series.size() > 1)
    throw std::runtime_error(cmd.file + " holds " + std::to_string(series.size()) +
                             " series (one per row): pick one with --series K (0-based), or "
                             "read the file as one series with --layout columns");
  return series.front();
}

// A --from-time/--to-time value in seconds, as the time column's values are.
double time_value(const std::string& flag, const std::string& text, double scale) {
  const auto t = config::parse_time_text(text, scale);
  if (!t)
    throw std::runtime_error(flag + " '" + text +
                             "' is not a number (in --time-unit) or a YYYY-MM-DD HH:MM:SS time");
  return *t;
}

// [begin, end) in sample indices, from --from/--to or --from-time/--to-time.
std::pair<std::size_t, std::size_t> sample_range(const config::LoadedSeries& s,
                                                 const CutCommand& cmd, double scale) {
  const std::size_t n = s.length();
  std::size_t begin = cmd.from.value_or(0), end = cmd.to.value_or(n);
  const bool by_time = cmd.from_time || cmd.to_time;
  if (by_time) {
    if (s.times.empty())
      throw std::runtime_error(
          "--from-time/--to-time need times: give the file's time column with --layout "
          "columns --time-column N (or cut by sample index with --from/--to)");
    if (cmd.from_time) {
      begin = first_sample_at(s, time_value("--from-time", *cmd.from_time, scale));
    }
    if (cmd.to_time) {
      end = first_sample_at(s, time_value("--to-time", *cmd.to_time, scale));
    }
  }
  const std::string range = "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
  if (end > n)
    throw std::runtime_error("--to " + std::to_string(end) + " is beyond the series: " + s.name +
                             " has " + std::to_string(n) + " samples (indices 0 to " +
                             std::to_string(n - 1) + "; --to is exclusive)");
  if (end < begin + 2)
    throw std::runtime_error(
        std::string(by_time ? "the times select samples " : "samples ") + range + " of " + s.name +
        ": a pattern needs at least 2 samples (--to is exclusive and must be >= --from + 2)");
  return {begin, end};
}

// The cut as one row (rows layout: `[label,] v0, v1, ...`) or one line per sample with the
// time and values at the columns they were read from (columns layout; other columns 0).
std::pair<std::vector<double>, std::vector<std::size_t>> cut_array(
    const config::LoadedSeries& s, const config::SeriesFileOptions& o) {
  std::vector<double> data;
  if (o.layout == config::SeriesLayout::rows) {
    if (o.label_column) {
      // A whole number (UCR's labels) reads as itself.
      const auto label = config::parse_time_text(s.label);
      if (!label || !config::is_whole_number(s.label))
        throw std::runtime_error("label '" + s.label +
                                 "' cannot be written as a number: cut with --labels no");
      data.push_back(*label);
    }
    for (const float v : s.values) data.push_back(v);
    const std::size_t width = data.size();
    return {std::move(data), {1, width}};
  }
  std::vector<std::size_t> value_columns = o.value_columns;
  if (value_columns.empty())
    for (std::size_t c = 0; value_columns.size() < s.dims; ++c)
      if (c != o.time_column) value_columns.push_back(c);
  std::size_t columns = o.time_column ? *o.time_column + 1 : 0;
  for (const std::size_t c : value_columns) columns = std::max(columns, c + 1);
  const std::size_t n = s.length();
  data.assign(n * columns, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    if (o.time_column) data[i * columns + *o.time_column] = s.times[i] / o.time_scale;
    for (std::size_t k = 0; k < s.dims; ++k)
      data[i * columns + value_columns[k]] = s.values[i * s.dims + k];
  }
  return {std::move(data), {n, columns}};
}

}  // namespace

CLI::App* add_cut_command(CLI::App& app, CutCommand& cmd) {
  auto* sub = app.add_subcommand(
      "cut",
      "write samples [from, to) of a recording as a pattern file (CSV, or .npy by extension), "
      "readable with the same input options");
  sub->add_option("FILE", cmd.file, "the recording: a series file (CSV, TSV, .npy)")->required();
  sub->add_option("-o,--output", cmd.output,
                  "the pattern file to write: *.npy, else CSV; - = stdout")
      ->required();
  auto* from = sub->add_option("--from", cmd.from, "first sample (0-based index)");
  auto* to = sub->add_option("--to", cmd.to, "end sample (0-based, exclusive; default: the end)");
  sub->add_option("--from-time", cmd.from_time,
                  "instead of --from: the first sample at or after this time (a number in "
                  "--time-unit, or YYYY-MM-DD HH:MM:SS[.fff]); needs --time-column")
      ->excludes(from);
  sub->add_option("--to-time", cmd.to_time, "instead of --to: samples before this time (exclusive)")
      ->excludes(to);
  sub->add_option("--series", cmd.series,
                  "the series (0-based) of a file of several (rows layout: one per row)");
  add_series_input_options(*sub, cmd.input);
  return sub;
}

int run_cut(const CutCommand& cmd, std::ostream& out, std::ostream& err) {
  if (!cmd.from && !cmd.to && !cmd.from_time && !cmd.to_time)
    throw std::runtime_error(
        "say which samples: --from N --to M (sample indices, M exclusive) or "
        "--from-time T --to-time U (with --time-column)");
  const config::SeriesFileOptions options = series_file_options(cmd.input);
  const auto series = load_series_for_cli(cmd.file, cmd.input, err);
  const config::LoadedSeries& s = pick_series(series, cmd);
  // The label goes with the values where the options read it back: --labels yes, or auto
  // (a .tsv file of whole-number labels).
  config::SeriesFileOptions written = options;
  written.label_column =
      !s.label.empty() &&
      (cmd.input.labels == "yes" || std::filesystem::path(cmd.output).extension() == ".tsv");
  const auto [begin, end] = sample_range(s, cmd, options.time_scale);
  const config::LoadedSeries cut = config::slice_series(s, begin, end);
  const auto [data, shape] = cut_array(cut, written);
  config::write_array(cmd.output, data, shape, out);
  err << "cut samples [" << begin << ", " << end << ") of " << s.name << " (" << cut.length()
      << " samples x " << cut.dims << " dims) to " << cmd.output
      << "; the same --layout, --time-column, --value-columns, --time-unit and --labels read it "
         "back\n";
  return 0;
}

}  // namespace warpwatch::cli
