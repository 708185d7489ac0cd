#include "options.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <ostream>
#include <stdexcept>

#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::cli {
namespace {

double seconds_per_unit(const std::string& unit) {
  if (const auto seconds = config::time_unit_seconds(unit)) return *seconds;
  throw std::runtime_error("--time-unit must be s, ms, us or ns (got '" + unit + "')");
}

// Says, once per file, the line that was skipped as a header: a first row of names is
// left out without a word otherwise.
std::vector<config::LoadedSeries> noting_headers(std::vector<config::LoadedSeries> series,
                                                 std::ostream& err) {
  std::string last;
  for (const auto& s : series) {
    if (!s.header_line || s.file == last) continue;
    last = s.file;
    err << s.file << ": line " << s.header_line
        << " read as a header (column names) and skipped: 1 line\n";
  }
  return series;
}

}  // namespace

void add_series_input_options(CLI::App& cmd, SeriesInputOptions& opts) {
  cmd.add_option("--labels", opts.labels,
                 "rows layout: is the first column a class label (UCR files)? yes|no|auto "
                 "(auto: yes for .tsv files whose first fields are all whole numbers, in any "
                 "notation: 1, -1, -1.0000000e+00)")
      ->check(CLI::IsMember({"yes", "no", "auto"}))
      ->capture_default_str();
  cmd.add_option("--layout", opts.layout,
                 "rows: one univariate series per row; columns: the file is one series, one "
                 "sample per row, one column per dimension")
      ->check(CLI::IsMember({"rows", "columns"}))
      ->capture_default_str();
  cmd.add_option("--time-column", opts.time_column, "columns layout: 0-based timestamp column");
  cmd.add_option("--value-columns", opts.value_columns,
                 "columns layout: 0-based value columns (default: all but the time column)")
      ->delimiter(',');
  cmd.add_option("--time-unit", opts.time_unit, "unit of the time column: s|ms|us|ns")
      ->check(CLI::IsMember({"s", "ms", "us", "ns"}))
      ->capture_default_str();
}

std::size_t first_sample_at(const config::LoadedSeries& s, double seconds) {
  return static_cast<std::size_t>(std::lower_bound(s.times.begin(), s.times.end(), seconds) -
                                  s.times.begin());
}

std::int64_t period_ms_to_ns(double period_ms) {
  if (!(period_ms > 0 && period_ms < 9e12))
    throw std::runtime_error("--period-ms must be > 0 and below 9e12");
  return std::max<std::int64_t>(1, std::llround(period_ms * 1e6));
}

config::SeriesFileOptions series_file_options(const SeriesInputOptions& opts) {
  config::SeriesFileOptions file_opts;
  file_opts.layout =
      opts.layout == "columns" ? config::SeriesLayout::columns : config::SeriesLayout::rows;
  file_opts.time_column = opts.time_column;
  file_opts.value_columns = opts.value_columns;
  file_opts.time_scale = seconds_per_unit(opts.time_unit);
  file_opts.label_column = opts.labels == "yes";
  return file_opts;
}

std::vector<config::LoadedSeries> load_series_for_cli(const std::string& path,
                                                      const SeriesInputOptions& opts,
                                                      std::ostream& err) {
  config::SeriesFileOptions file_opts = series_file_options(opts);
  const bool try_labels = opts.labels == "auto" && file_opts.layout == config::SeriesLayout::rows &&
                          std::filesystem::path(path).extension() == ".tsv";
  if (try_labels) {
    file_opts.label_column = true;
    auto labelled = config::load_series_path(path, file_opts);
    const bool all_whole = std::all_of(labelled.begin(), labelled.end(), [](const auto& s) {
      return config::is_whole_number(s.label);
    });
    if (all_whole) {
      err << path
          << ": first column read as class labels (UCR layout); --labels no reads it as data\n";
      return noting_headers(std::move(labelled), err);
    }
    file_opts.label_column = false;
  }
  return noting_headers(config::load_series_path(path, file_opts), err);
}

namespace {
// A measure parameter's flag: a real shows its default in --help; a count is checked as a
// number first (a size_t would take "-1" as 2^64 - 1, no limit at all), unset = no limit.
void add_param_flag(CLI::App& cmd, const std::string& flag, double& field,
                    const std::string& help) {
  cmd.add_option(flag, field, help)->capture_default_str();
}
void add_param_flag(CLI::App& cmd, const std::string& flag, std::optional<std::size_t>& field,
                    const std::string& help) {
  cmd.add_option(flag, field, help)->check(CLI::NonNegativeNumber);
}
}  // namespace

void add_metric_options(CLI::App& cmd, MetricOptions& opts) {
  using kernels::Cost;
  using kernels::MeasureInfo;
  using kernels::Metric;
  // The choices and what they take, from the list of measures (kernels/measures.hpp).
  std::string metric_help = "the measure:";
  for (const MeasureInfo& m : kernels::kMeasures)
    metric_help += std::string(" ") + m.name + " (" + m.summary + ");";
  metric_help += " stream mode: " +
                 kernels::metric_names_where([](const MeasureInfo& m) { return m.stream; }) +
                 " only";
  add_choice(cmd, "--metric", opts.metric, kernels::all_metrics(), metric_help);
  add_choice(
      cmd, "--cost", opts.cost, {Cost::sq, Cost::abs},
      "local cost for " + kernels::metric_names_where([](const MeasureInfo& m) { return m.cost; }));
  cmd.add_option(
      "--band", opts.band,
      "Sakoe-Chiba radius in cells (" + kernels::metric_names_where([](const MeasureInfo& m) {
        return m.band == kernels::BandUse::applies;
      }) + ")");
  // One flag for each measure parameter (kernels/measures.hpp), its help its row's.
#define WW_PARAM_FLAG(field, which, kind, def, lower, open, help) \
  add_param_flag(cmd, "--" #field, opts.measure.field, #which ": " help);
  WARPWATCH_MEASURE_PARAMS(WW_PARAM_FLAG)
#undef WW_PARAM_FLAG
}

kernels::DistanceParams to_distance_params(const MetricOptions& opts) {
  kernels::DistanceParams params = opts.measure;
  params.metric = opts.metric;
  params.cost = opts.cost;
  params.band = opts.band;
  kernels::validate(params);
  return params;
}

CLI::Option* add_backend_option(CLI::App& cmd, kernels::Backend& backend) {
  using kernels::Backend;
  return add_choice(
      cmd, "--backend", backend,
      {Backend::reference, Backend::cpu, Backend::cuda, Backend::automatic},
      "the backend; auto = cuda when a device is usable and the work has enough pairs, else cpu");
}

CLI::Option* add_devices_option(CLI::App& cmd, std::vector<int>& devices) {
  return cmd
      .add_option("--devices", devices,
                  "cuda: the CUDA devices to use, comma-separated indices (default: every "
                  "usable device; see the README's \"Several GPUs\")")
      ->delimiter(',')
      ->check(CLI::Range(0, 1023));
}

kernels::Backend resolve_cli_backend(kernels::Backend backend, std::ostream& err,
                                     const kernels::WorkShape& shape) {
  std::string why;
  const kernels::Backend chosen = kernels::resolve_backend(backend, shape, &why);
  if (backend == kernels::Backend::automatic) err << why << "\n";
  return chosen;
}

}  // namespace warpwatch::cli
