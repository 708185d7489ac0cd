// Fuzz target: series files (CSV, TSV, .npy) as the loader reads them
// (config::load_series_bytes, which load_series_file calls with a file's bytes).
//
// Input: byte 0 picks the file name (value mod 4: x.csv, x.tsv, x.npy, x.txt) and the
// layout (bit 2: columns, else rows); byte 1 the layout's options (rows: bit 0 a label
// column; columns: bit 0 a time column, bits 1-2 which, bit 3 value columns [2, 1], bit 4
// a time scale of 1e-3); the rest is the file.
//
// Oracle: a file either loads or is refused with a ConfigError (any other exception is a
// finding). What loads has consistent sizes (values = length x dims, dims >= 1, one time per
// sample or none, rows layout: dims 1), finite values, finite strictly increasing times.
// Written again as CSV by config::write_array (without labels), it loads to the same values
// and times, bit for bit.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "fuzz_support.hpp"
#include "warpwatch/config/array_writer.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/series_file.hpp"

using namespace warpwatch::config;
using warpwatch::fuzz::Input;

namespace {

std::vector<LoadedSeries> load(std::string_view bytes, const std::string& path,
                               const SeriesFileOptions& options) {
  try {
    return load_series_bytes(bytes, path, options);
  } catch (const ConfigError&) {
    return {};  // refused with a location: what a bad file should get
  }
}

void check_consistent(const LoadedSeries& s, const SeriesFileOptions& options) {
  WARPWATCH_FUZZ_CHECK(s.dims >= 1, "a series has at least one dim");
  WARPWATCH_FUZZ_CHECK(s.length() >= 1, "a series has at least one sample");
  WARPWATCH_FUZZ_CHECK(s.values.size() == s.length() * s.dims, "values = length x dims");
  WARPWATCH_FUZZ_CHECK(s.times.empty() || s.times.size() == s.length(), "one time per sample");
  WARPWATCH_FUZZ_CHECK(!s.name.empty(), "a series has a name");
  if (options.layout == SeriesLayout::rows)
    WARPWATCH_FUZZ_CHECK(s.dims == 1 && s.times.empty(), "rows are univariate, without times");
  for (const float v : s.values) WARPWATCH_FUZZ_CHECK(std::isfinite(v), "values are finite");
  for (std::size_t i = 0; i < s.times.size(); ++i) {
    WARPWATCH_FUZZ_CHECK(std::isfinite(s.times[i]), "times are finite");
    WARPWATCH_FUZZ_CHECK(i == 0 || s.times[i] > s.times[i - 1], "times strictly increase");
  }
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

// The rows layout's series (all of one length) as a 2-D CSV array, loaded again.
void check_rows_round_trip(const std::vector<LoadedSeries>& series) {
  const std::size_t length = series[0].length();
  for (const LoadedSeries& s : series)
    if (s.length() != length) return;  // one series per row, a row per series
  std::vector<double> data;
  for (const LoadedSeries& s : series) data.insert(data.end(), s.values.begin(), s.values.end());
  const std::size_t shape[] = {series.size(), length};
  std::ostringstream csv;
  write_array("-", data, shape, csv);
  const auto again = load_series_bytes(csv.str(), "again.csv", {});
  WARPWATCH_FUZZ_CHECK(again.size() == series.size(), "rows written again: as many series");
  for (std::size_t i = 0; i < series.size(); ++i)
    WARPWATCH_FUZZ_CHECK(same_bits(again[i].values, series[i].values),
                         "rows written again: the same values");
}

// The columns layout's one series (times first, when it has them) as CSV, loaded again.
void check_columns_round_trip(const LoadedSeries& s) {
  const bool timed = !s.times.empty();
  const std::size_t width = s.dims + (timed ? 1 : 0);
  std::vector<double> data;
  for (std::size_t i = 0; i < s.length(); ++i) {
    if (timed) data.push_back(s.times[i]);
    for (std::size_t k = 0; k < s.dims; ++k) data.push_back(s.values[i * s.dims + k]);
  }
  const std::size_t shape[] = {s.length(), width};
  std::ostringstream csv;
  write_array("-", data, shape, csv);
  SeriesFileOptions options;
  options.layout = SeriesLayout::columns;
  if (timed) options.time_column = 0;
  const auto again = load_series_bytes(csv.str(), "again.csv", options);
  WARPWATCH_FUZZ_CHECK(again.size() == 1 && again[0].dims == s.dims,
                       "columns written again: one series of the same dims");
  WARPWATCH_FUZZ_CHECK(same_bits(again[0].values, s.values),
                       "columns written again: the same values");
  WARPWATCH_FUZZ_CHECK(again[0].times == s.times, "columns written again: the same times");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{std::span(data, size)};
  const std::uint8_t choice = in.u8();
  const std::uint8_t flags = in.u8();
  constexpr const char* names[] = {"x.csv", "x.tsv", "x.npy", "x.txt"};
  const std::string path = names[choice % 4];
  SeriesFileOptions options;
  if ((choice & 4) != 0) {
    options.layout = SeriesLayout::columns;
    if ((flags & 1) != 0) options.time_column = (flags >> 1) % 4;
    if ((flags & 8) != 0) options.value_columns = {2, 1};
    if ((flags & 16) != 0) options.time_scale = 1e-3;
  } else {
    options.label_column = (flags & 1) != 0;
  }
  const std::vector<LoadedSeries> series = load(in.rest(), path, options);
  if (series.empty()) return 0;
  for (const LoadedSeries& s : series) check_consistent(s, options);
  // Round trips: without labels, and without a time scale (times are kept in seconds).
  if (options.layout == SeriesLayout::rows) {
    check_rows_round_trip(series);
  } else if (options.time_scale == 1.0) {
    WARPWATCH_FUZZ_CHECK(series.size() == 1, "the columns layout is one series");
    check_columns_round_trip(series[0]);
  }
  return 0;
}
