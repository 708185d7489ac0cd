// Loading series from files for the CLI (`warpwatch distance`, `warpwatch search`):
// delimited text (.csv .tsv .txt and any other name) and NumPy .npy.
#pragma once

#include <cstddef>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/series.hpp"

namespace warpwatch::config {

enum class SeriesLayout {
  rows,     // one univariate series per row (UCR archive files, 2-D .npy rows)
  columns,  // the whole file is one series: one sample per row, one column per dimension
};

struct SeriesFileOptions {
  SeriesLayout layout = SeriesLayout::rows;
  // rows layout, text files: the first field of each row is a class label, kept as a
  // string and not a value. Ignored for .npy files (they hold numbers only).
  bool label_column = false;
  // columns layout: 0-based column holding timestamps; its values times `time_scale`
  // become the series' times in seconds and must strictly increase. In text files the
  // column may also hold "YYYY-MM-DD HH:MM:SS[.fff]" date-times (UTC), read as seconds
  // since the Unix epoch (time_scale does not apply to those).
  std::optional<std::size_t> time_column;
  // columns layout: the 0-based value columns, in the order wanted; empty = every
  // column except the time column. Columns not named are never parsed, so they may hold
  // text (e.g. Daphnet's trailing label column).
  std::vector<std::size_t> value_columns;
  double time_scale = 1.0;  // seconds per unit of the time column (1e-3 for ms, 1e-9 for ns)
};

struct LoadedSeries {
  std::string name;  // file stem when the file gives one series, else "<stem>:<row>" (0-based)
  std::size_t dims = 1;
  std::vector<float> values;  // length() x dims, row-major
  std::vector<double> times;  // seconds, one per sample; empty when the file has none
  std::string label;          // rows layout with label_column, else empty
  std::string file;           // the file it was read from
  int header_line = 0;        // text: the 1-based line skipped as a header (names); 0 = none

  std::size_t length() const { return dims == 0 ? 0 : values.size() / dims; }
  // Valid while this object lives and is not modified.
  kernels::SeriesView view() const {
    return {values.data(), length(), dims, times.empty() ? nullptr : times.data()};
  }
};

// Samples [begin, end) of `s` (0-based, end exclusive; begin < end <= s.length()), with
// their times when it has them: a pattern cut out of a recording (`warpwatch cut`, a
// pattern entry's `start`/`end`).
LoadedSeries slice_series(const LoadedSeries& s, std::size_t begin, std::size_t end);

// Whether a text field is a whole number in any notation the files use ("2", "+1", "-1",
// "1.0", "-1.0000000e+00" as in UCR's ECG200): how class labels are told from values.
bool is_whole_number(std::string_view field);

// Seconds per unit of a time column: "s", "ms", "us", "ns"; nullopt for any other name.
std::optional<double> time_unit_seconds(std::string_view unit);

// A time as a time column holds it, in seconds: a number times `time_scale`, or a
// "YYYY-MM-DD HH:MM:SS[.fff]" date-time (UTC) as seconds since the Unix epoch; nullopt when
// it is neither.
std::optional<double> parse_time_text(std::string_view text, double time_scale = 1.0);

// One series of a file, read a part at a time (`warpwatch backtest`'s recordings). A .npy
// file of one series (1-D, or 2-D in the columns layout) is read part by part, each part
// checked as load_series_file checks the whole (values finite and within float32, times
// increasing, across parts too), so that memory holds a part, not the file; its header is
// read and checked at construction. Any other file is read whole there (load_series_file)
// and handed out in parts. Errors are ConfigErrors naming the file; a file that holds
// several series is one ("a recording is one series").
class SeriesReader {
 public:
  SeriesReader(const std::string& path, const SeriesFileOptions& options = {});
  ~SeriesReader();
  SeriesReader(const SeriesReader&) = delete;
  SeriesReader& operator=(const SeriesReader&) = delete;

  const std::string& name() const { return name_; }  // the file's stem
  std::size_t dims() const { return dims_; }
  std::size_t length() const { return length_; }  // samples in all
  bool has_times() const;
  bool streamed() const { return npy_ != nullptr; }  // read part by part
  // The next at most `n` samples into `part` (its values and times replaced, name, dims and
  // file set): how many; 0 once every sample was read.
  std::size_t next(std::size_t n, LoadedSeries& part);

 private:
  struct Npy;
  std::string path_;
  SeriesFileOptions options_;
  std::unique_ptr<Npy> npy_;
  LoadedSeries whole_;  // the files read whole
  std::string name_;
  std::size_t dims_ = 1, length_ = 0, read_ = 0;
  std::optional<double> last_time_;
};

// A path's extension lower-cased (".NPY" -> ".npy", none: ""): what picks a series file's
// format (".npy" NumPy, else delimited text).
std::string lower_extension(const std::filesystem::path& path);

// Loads one file: ".npy" (by extension, case-insensitive) as NumPy, anything else as
// delimited text. Every error is a ConfigError naming the file and, for text, the
// 1-based line and field; for .npy the series and sample index are in the message.
std::vector<LoadedSeries> load_series_file(const std::string& path,
                                           const SeriesFileOptions& options = {});
// The same, of a file's bytes in memory: `path`'s extension picks the format, its stem
// names the series and it names the file in the errors (load_series_file reads the file
// and calls this).
std::vector<LoadedSeries> load_series_bytes(std::string_view bytes, const std::string& path,
                                            const SeriesFileOptions& options = {});

// A file as load_series_file, or a directory: every .csv .tsv .txt .npy file directly
// inside it (not hidden, any case of extension), sorted by name, their series concatenated.
// A directory without such files is a ConfigError.
std::vector<LoadedSeries> load_series_path(const std::string& file_or_dir,
                                           const SeriesFileOptions& options = {});

}  // namespace warpwatch::config
