// Options shared by the `warpwatch` verbs that read series files and compute distances.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/config/series_file.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::cli {

// How to read a series file (see config/series_file.hpp).
struct SeriesInputOptions {
  std::string labels = "auto";  // rows layout: first column is a class label? yes | no | auto
  std::string layout = "rows";  // rows | columns
  std::optional<std::size_t> time_column;
  std::vector<std::size_t> value_columns;
  std::string time_unit = "s";  // s | ms | us | ns
};

void add_series_input_options(CLI::App& cmd, SeriesInputOptions& opts);

// The options as the file reader takes them (labels: `yes` only; `auto` is decided by
// load_series_for_cli). Throws std::runtime_error on a bad --time-unit.
config::SeriesFileOptions series_file_options(const SeriesInputOptions& opts);

// Loads a file or directory. With labels=auto, a .tsv file whose first fields are all
// whole numbers (config::is_whole_number) is read as UCR-style labelled rows; the choice is
// reported on `err`.
std::vector<config::LoadedSeries> load_series_for_cli(const std::string& path,
                                                      const SeriesInputOptions& opts,
                                                      std::ostream& err);

// The index of the first sample of `s` at or after `seconds` (s.size() when none is): how a
// time given on the command line (cut --from-time, learn --segments) becomes a sample index.
// `s` must have times.
std::size_t first_sample_at(const config::LoadedSeries& s, double seconds);

// A --period-ms value as whole nanoseconds, at least 1: throws std::runtime_error unless
// it is > 0 and fits in int64 nanoseconds (below 9e12 ms, about 104 days), where the
// conversion would be undefined behaviour.
std::int64_t period_ms_to_ns(double period_ms);

// The metric and its parameters (docs/spec.md §2 and §4).
struct MetricOptions {
  kernels::Metric metric = kernels::Metric::dtw;
  kernels::Cost cost = kernels::Cost::sq;
  std::optional<double> band;
  // The measures' own parameters (--gamma, --nu, ... --delta: one flag for each row of
  // WARPWATCH_MEASURE_PARAMS); metric, cost and band above are not read from it.
  kernels::DistanceParams measure;
};

void add_metric_options(CLI::App& cmd, MetricOptions& opts);
kernels::DistanceParams to_distance_params(const MetricOptions& opts);  // throws on bad names

// A validated choice: the option takes one of the names of `values` (their to_string) and
// stores the enum value it names; anything else is a usage error naming the choices (which
// --help lists too).
template <typename E, typename List = std::initializer_list<E>>
CLI::Option* add_choice(CLI::App& cmd, const std::string& name, E& value, const List& values,
                        const std::string& help) {
  std::map<std::string, E> names;
  std::vector<std::string> list;
  for (E v : values) {
    list.emplace_back(kernels::to_string(v));
    names.emplace(list.back(), v);
  }
  return cmd
      .add_option_function<std::string>(
          name, [&value, names](const std::string& text) { value = names.at(text); }, help)
      ->check(CLI::IsMember(list))
      ->default_str(std::string(kernels::to_string(value)));
}

// --backend reference|cpu|cuda|auto.
CLI::Option* add_backend_option(CLI::App& cmd, kernels::Backend& backend);

// --devices 0,1,...: the CUDA devices the cuda backend uses (cuda.devices; none: all).
CLI::Option* add_devices_option(CLI::App& cmd, std::vector<int>& devices);

// The backend to use, with `auto` resolved by its rule for the work's shape (kernels/
// backends.hpp; said on `err`, one line).
kernels::Backend resolve_cli_backend(kernels::Backend backend, std::ostream& err,
                                     const kernels::WorkShape& shape = {});

}  // namespace warpwatch::cli
