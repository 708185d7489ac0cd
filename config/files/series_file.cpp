#include "warpwatch/config/series_file.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <stdexcept>
#include <string_view>
#include <system_error>

#include "warpwatch/base/decimal.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/npy.hpp"

namespace warpwatch::config {
namespace {

namespace fs = std::filesystem;

// ---------------------------------------------------------------- numbers and times

enum class NumberStatus { ok, not_a_number, out_of_range };

// The whole field must be a number, read as text payloads read theirs (stream/decimal.hpp:
// from_chars, locale-independent, no "1,5" surprises; 1e-400 is 0, 1e400 out of range).
NumberStatus parse_number(std::string_view s, double& out) {
  if (!s.empty() && s.front() == '+') {  // from_chars rejects a leading '+'; files have them
    s.remove_prefix(1);
    // One sign: "+-5" is not -5.
    if (!s.empty() && (s.front() == '+' || s.front() == '-')) return NumberStatus::not_a_number;
  }
  switch (stream::read_decimal(s, out)) {
    case stream::DecimalRead::ok:
      return NumberStatus::ok;
    case stream::DecimalRead::overflow:
      return NumberStatus::out_of_range;
    case stream::DecimalRead::malformed:
      break;
  }
  return NumberStatus::not_a_number;
}

// "YYYY-MM-DD HH:MM:SS[.fff]" or with 'T', optionally ending in 'Z': seconds since the
// Unix epoch, UTC. Daphnet-style exports carry such timestamps.
bool parse_datetime(std::string_view s, double& seconds) {
  if (!s.empty() && s.back() == 'Z') s.remove_suffix(1);
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') ||
      s[13] != ':' || s[16] != ':')
    return false;
  // Digits only: from_chars would take "-1" as an hour or a minute.
  const auto field = [&](std::size_t pos, std::size_t len, int& v) {
    const char* first = s.data() + pos;
    if (!std::all_of(first, first + len, [](char c) { return c >= '0' && c <= '9'; })) return false;
    const auto [ptr, ec] = std::from_chars(first, first + len, v);
    return ec == std::errc{} && ptr == first + len;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0;
  if (!field(0, 4, year) || !field(5, 2, month) || !field(8, 2, day) || !field(11, 2, hour) ||
      !field(14, 2, minute))
    return false;
  const std::string_view sec_text = s.substr(17);
  if (!std::all_of(sec_text.begin(), sec_text.end(),
                   [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }))
    return false;
  double sec = 0;
  if (parse_number(sec_text, sec) != NumberStatus::ok) return false;
  const std::chrono::year_month_day date{std::chrono::year(year),
                                         std::chrono::month(static_cast<unsigned>(month)),
                                         std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok() || hour > 23 || minute > 59 || sec >= 61) return false;
  const auto days = std::chrono::sys_days(date).time_since_epoch().count();
  seconds = static_cast<double>(days) * 86400.0 + hour * 3600.0 + minute * 60.0 + sec;
  return true;
}

// Doubles at or beyond this magnitude round to infinity as float32.
constexpr double float32_overflow = 0x1.ffffffp+127;

// Shortest text that reads back to `v` (std::to_string would print 1e-9 as 0.000000).
std::string number_text(double v) {
  char buf[32];
  const auto result = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, result.ptr);
}

std::string quoted(std::string_view field) {
  std::string s = "'";
  s += field.substr(0, 40);
  if (field.size() > 40) s += "...";
  s += '\'';
  return s;
}

// A finite double that fits float32, else a ConfigError at `where` prefixed by `what`.
// `what()` names the value in an error message; called only to throw (a file of 10^7
// samples would otherwise format 10^7 names).
template <typename What>
float checked_value(double v, const SourceLocation& where, const What& what) {
  if (!std::isfinite(v)) throw ConfigError(where, what() + "NaN or infinite value");
  if (std::fabs(v) >= float32_overflow)
    throw ConfigError(where, what() + "value " + number_text(v) + " is out of the float32 range");
  return static_cast<float>(v);
}

// What to try when a field is not a number: the configuration keys and the CLI flags that
// read the file another way (docs/configuration.md, docs/cli.md).
std::string layout_hint(std::string_view field, std::size_t index,
                        const SeriesFileOptions& options) {
  const std::string i = std::to_string(index);
  double seconds = 0;
  const bool rows = options.layout == SeriesLayout::rows;
  if (parse_datetime(field, seconds))
    return rows ? "; if this file has one series per column with a time column, use `layout: "
                  "columns` and `time_column: " +
                      i + "` (CLI: --layout columns --time-column " + i + ")"
                : "; it is a time: use `time_column: " + i + "` (CLI: --time-column " + i + ")";
  if (rows && index == 0 && !options.label_column)
    return "; if the first column is a class label, use `labels: true` (CLI: --labels yes)";
  if (rows)
    return "; if this file has one series per column, use `layout: columns`, with "
           "`value_columns: [...]` naming the numeric columns (CLI: --layout columns "
           "--value-columns ...)";
  return "; leave column " + i +
         " out with `value_columns: [...]` (CLI: --value-columns ...), or give it as "
         "`time_column` if it holds times";
}

// A field's value; `hint` says, when the field is not a number, what else to try.
template <typename Hint>
float parse_value(std::string_view field, const SourceLocation& where, const Hint& hint) {
  double v = 0;
  switch (parse_number(field, v)) {
    case NumberStatus::ok:
      return checked_value(v, where, [&] { return quoted(field) + ": "; });
    case NumberStatus::out_of_range:
      throw ConfigError(where, quoted(field) + " is out of range");
    case NumberStatus::not_a_number:
      break;
  }
  if (field.empty()) throw ConfigError(where, "empty field, expected a number");
  throw ConfigError(where, quoted(field) + " is not a number" + hint());
}

bool parse_time_field(std::string_view field, double scale, double& seconds) {
  if (parse_number(field, seconds) == NumberStatus::ok) {
    seconds *= scale;
    return true;
  }
  return parse_datetime(field, seconds);
}

// Each time must be greater than the one before: docs/spec.md §1 never reorders samples.
template <typename What>
void check_increasing(const std::vector<double>& times, const SourceLocation& where,
                      const What& what) {
  const double t = times.back();
  if (!std::isfinite(t)) throw ConfigError(where, what() + "time is NaN or infinite");
  if (times.size() >= 2 && !(t > times[times.size() - 2]))
    throw ConfigError(where, what() + "time " + number_text(t) +
                                 " s does not increase (previous sample at " +
                                 number_text(times[times.size() - 2]) + " s)");
}

// The value columns of the columns layout, checked against the number of columns.
std::vector<std::size_t> resolve_value_columns(const SeriesFileOptions& options,
                                               std::size_t columns, const SourceLocation& where) {
  const auto check = [&](std::size_t c, const char* what) {
    if (c >= columns)
      throw ConfigError(where, std::string(what) + " " + std::to_string(c) +
                                   " does not exist: there are " + std::to_string(columns) +
                                   " columns (0-based indices)");
  };
  if (options.time_column) check(*options.time_column, "time column");
  std::vector<std::size_t> chosen = options.value_columns;
  for (const std::size_t c : chosen) {
    check(c, "value column");
    if (c == options.time_column)
      throw ConfigError(where, "column " + std::to_string(c) + " is both time and value column");
  }
  if (chosen.empty()) {
    for (std::size_t c = 0; c < columns; ++c)
      if (c != options.time_column) chosen.push_back(c);
  }
  if (chosen.empty()) throw ConfigError(where, "no value columns: the only column is the time");
  return chosen;
}

std::string series_name(const std::string& stem, std::size_t index, std::size_t count) {
  if (count == 1) return stem;
  std::string name = stem;
  name += ':';
  name += std::to_string(index);
  return name;
}

// ---------------------------------------------------------------- delimited text

enum class Separator { tab, comma, whitespace };

struct Line {
  int number;  // 1-based
  std::string_view text;
};

bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r';
}

// The lines that hold data or a header: blank lines and '#' comments are left out.
std::vector<Line> content_lines(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);  // UTF-8 BOM from spreadsheets
  std::vector<Line> lines;
  int number = 0;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const auto first = std::find_if_not(line.begin(), line.end(), is_blank);
    if (first == line.end() || *first == '#') continue;
    lines.push_back({number, line});
  }
  return lines;
}

Separator detect_separator(std::string_view line) {
  if (line.find('\t') != std::string_view::npos) return Separator::tab;
  if (line.find(',') != std::string_view::npos) return Separator::comma;
  return Separator::whitespace;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_blank(s.back())) s.remove_suffix(1);
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  return s;
}

void split(std::string_view line, Separator sep, std::vector<std::string_view>& fields) {
  fields.clear();
  if (sep == Separator::whitespace) {
    std::size_t i = 0;
    while (true) {
      while (i < line.size() && is_blank(line[i])) ++i;
      if (i == line.size()) return;
      const std::size_t start = i;
      while (i < line.size() && !is_blank(line[i])) ++i;
      fields.push_back(line.substr(start, i - start));
    }
  }
  const char c = sep == Separator::tab ? '\t' : ',';
  while (true) {
    const std::size_t at = line.find(c);
    fields.push_back(trim(line.substr(0, at)));
    if (at == std::string_view::npos) return;
    line.remove_prefix(at + 1);
  }
}

// Header detection: a name gives a header away; an empty field does not (pandas leaves the
// index column's name empty), so "1,,3" stays a data row and fails as one.
bool is_name(std::string_view field) {
  double v = 0;
  return !field.empty() && parse_number(field, v) == NumberStatus::not_a_number;
}

struct TextFile {
  const std::string& path;
  const std::string& stem;
  std::vector<Line> lines;
  Separator sep;
  int header_line = 0;  // the line skipped as a header; 0 = none
  ConfigError empty() const { return ConfigError({path, 0, 0}, "empty file: no data rows"); }
  SourceLocation at(int line, std::size_t field_index) const {
    return {path, line, static_cast<int>(field_index + 1)};
  }
  // What a field that is not a number says: what to try, and the header skipped.
  std::string hint(std::string_view field, std::size_t index,
                   const SeriesFileOptions& options) const {
    std::string s = layout_hint(field, index, options);
    if (header_line)
      s += " (line " + std::to_string(header_line) + " was read as a header and skipped)";
    return s;
  }
};

std::vector<LoadedSeries> load_text_rows(TextFile& f, const SeriesFileOptions& options) {
  const std::size_t first_value = options.label_column ? 1 : 0;
  std::vector<std::string_view> fields;
  std::size_t start = 0;
  split(f.lines[0].text, f.sep, fields);
  // A header names the samples: any value field that is not a number gives it away.
  if (std::any_of(
          fields.begin() + static_cast<std::ptrdiff_t>(std::min(first_value, fields.size())),
          fields.end(), is_name))
    start = 1;
  if (start == f.lines.size()) throw f.empty();
  if (start) f.header_line = f.lines[0].number;

  std::vector<LoadedSeries> out;
  std::size_t expected = 0;
  int expected_line = 0;
  for (std::size_t r = start; r < f.lines.size(); ++r) {
    const Line& line = f.lines[r];
    split(line.text, f.sep, fields);
    const std::size_t count = fields.size() - std::min(first_value, fields.size());
    if (count == 0)
      throw ConfigError({f.path, line.number, 0},
                        "row has no values: a series needs at least 1 sample");
    if (out.empty()) {
      expected = count;
      expected_line = line.number;
    } else if (count != expected) {
      throw ConfigError({f.path, line.number, 0}, "row has " + std::to_string(count) +
                                                      " values, expected " +
                                                      std::to_string(expected) + " (as on line " +
                                                      std::to_string(expected_line) + ")");
    }
    LoadedSeries s;
    if (options.label_column) s.label = std::string(fields[0]);
    s.values.reserve(count);
    for (std::size_t i = first_value; i < fields.size(); ++i)
      s.values.push_back(parse_value(fields[i], f.at(line.number, i),
                                     [&] { return f.hint(fields[i], i, options); }));
    out.push_back(std::move(s));
  }
  for (std::size_t i = 0; i < out.size(); ++i) out[i].name = series_name(f.stem, i, out.size());
  return out;
}

std::vector<LoadedSeries> load_text_columns(TextFile& f, const SeriesFileOptions& options) {
  std::vector<std::string_view> fields;
  split(f.lines[0].text, f.sep, fields);
  const std::size_t columns = fields.size();
  const std::vector<std::size_t> value_columns =
      resolve_value_columns(options, columns, {f.path, f.lines[0].number, 0});

  // A header is a first line whose time or value fields do not parse; other columns
  // (labels, ids) are never read and may hold anything.
  double ignored = 0;
  const bool header =
      (options.time_column && is_name(fields[*options.time_column]) &&
       !parse_time_field(fields[*options.time_column], options.time_scale, ignored)) ||
      std::any_of(value_columns.begin(), value_columns.end(),
                  [&](std::size_t c) { return is_name(fields[c]); });
  const std::size_t start = header ? 1 : 0;
  if (start == f.lines.size()) throw f.empty();
  if (header) f.header_line = f.lines[0].number;

  LoadedSeries s;
  s.name = f.stem;
  s.dims = value_columns.size();
  s.values.reserve((f.lines.size() - start) * s.dims);
  for (std::size_t r = start; r < f.lines.size(); ++r) {
    const Line& line = f.lines[r];
    split(line.text, f.sep, fields);
    if (fields.size() != columns)
      throw ConfigError({f.path, line.number, 0}, "row has " + std::to_string(fields.size()) +
                                                      " fields, expected " +
                                                      std::to_string(columns) + " (as on line " +
                                                      std::to_string(f.lines[0].number) + ")");
    if (options.time_column) {
      const std::size_t c = *options.time_column;
      double t = 0;
      if (!parse_time_field(fields[c], options.time_scale, t))
        throw ConfigError(f.at(line.number, c),
                          quoted(fields[c]) + " is not a number or a YYYY-MM-DD HH:MM:SS time" +
                              " (column " + std::to_string(c) +
                              " is the time column: is `time_column` the right one?)");
      s.times.push_back(t);
      check_increasing(s.times, f.at(line.number, c), [] { return std::string(); });
    }
    for (const std::size_t c : value_columns)
      s.values.push_back(parse_value(fields[c], f.at(line.number, c),
                                     [&] { return f.hint(fields[c], c, options); }));
  }
  std::vector<LoadedSeries> out;
  out.push_back(std::move(s));
  return out;
}

std::vector<LoadedSeries> load_text(std::string_view text, const std::string& path,
                                    const std::string& stem, const SeriesFileOptions& options) {
  TextFile f{path, stem, content_lines(text), Separator::comma};
  if (f.lines.empty()) throw f.empty();
  f.sep = detect_separator(f.lines[0].text);
  auto series = options.layout == SeriesLayout::rows ? load_text_rows(f, options)
                                                     : load_text_columns(f, options);
  for (LoadedSeries& s : series) s.header_line = f.header_line;
  return series;
}

// ---------------------------------------------------------------- .npy

// "series 3, sample 17" (0-based): .npy errors have no line to point at.
std::string sample_text(std::size_t series, std::size_t sample) {
  std::string s = "series ";
  s += std::to_string(series);
  s += ", sample ";
  s += std::to_string(sample);
  return s;
}

// Rows [first, first + count) of a .npy's columns layout (their elements from `row_data`,
// `cols` a row) appended to `s`: the value columns checked, the time column's times
// increasing (`s.times` may hold the previous part's last time to check the first against).
void append_npy_rows(const double* row_data, std::size_t count, std::size_t first, std::size_t cols,
                     std::span<const std::size_t> value_columns, const SeriesFileOptions& options,
                     const SourceLocation& where, LoadedSeries& s) {
  for (std::size_t k = 0; k < count; ++k) {
    const double* row = row_data + k * cols;
    const std::size_t i = first + k;
    if (options.time_column) {
      s.times.push_back(row[*options.time_column] * options.time_scale);
      check_increasing(s.times, where, [&] { return sample_text(0, i) + ": "; });
    }
    for (const std::size_t c : value_columns)
      s.values.push_back(checked_value(row[c], where, [&] {
        return sample_text(0, i) + ", column " + std::to_string(c) + ": ";
      }));
  }
}

std::vector<LoadedSeries> load_npy(std::string_view bytes, const std::string& path,
                                   const std::string& stem, const SeriesFileOptions& options) {
  const NpyArray a = parse_npy(bytes, path);
  const SourceLocation where{path, 0, 0};
  if (a.shape.empty() || a.shape.size() > 2) {
    std::string shape;
    for (const std::size_t n : a.shape) {
      if (!shape.empty()) shape += ", ";
      shape += std::to_string(n);
    }
    throw ConfigError(where, "wrong dimensions: the array has " + std::to_string(a.shape.size()) +
                                 " (shape (" + shape + ")), expected 1 or 2");
  }
  const std::size_t rows = a.shape[0];
  const std::size_t cols = a.shape.size() == 2 ? a.shape[1] : 1;
  std::vector<LoadedSeries> out;

  if (options.layout == SeriesLayout::rows) {
    // 1-D: one series of `rows` samples; 2-D: `rows` series of `cols` samples.
    const std::size_t count = a.shape.size() == 1 ? 1 : rows;
    const std::size_t length = a.shape.size() == 1 ? rows : cols;
    if (count == 0) throw ConfigError(where, "empty array: no series");
    if (length == 0) throw ConfigError(where, "series have no samples: a series needs at least 1");
    for (std::size_t i = 0; i < count; ++i) {
      LoadedSeries s;
      s.name = series_name(stem, i, count);
      s.values.resize(length);
      for (std::size_t j = 0; j < length; ++j)
        s.values[j] =
            checked_value(a.data[i * length + j], where, [&] { return sample_text(i, j) + ": "; });
      out.push_back(std::move(s));
    }
    return out;
  }

  // columns layout: one series, a row per sample.
  if (rows == 0) throw ConfigError(where, "empty array: the series needs at least 1 sample");
  const std::vector<std::size_t> value_columns = resolve_value_columns(options, cols, where);
  LoadedSeries s;
  s.name = stem;
  s.dims = value_columns.size();
  s.values.reserve(rows * s.dims);
  append_npy_rows(a.data.data(), rows, 0, cols, value_columns, options, where, s);
  out.push_back(std::move(s));
  return out;
}

void check_options(const std::string& path, const SeriesFileOptions& options) {
  const SourceLocation where{path, 0, 0};
  if (!(options.time_scale > 0) || !std::isfinite(options.time_scale))
    throw ConfigError(where, "time_scale must be positive and finite");
  if (options.layout == SeriesLayout::rows &&
      (options.time_column || !options.value_columns.empty()))
    throw ConfigError(where, "time_column and value_columns apply to the columns layout only");
  if (options.layout == SeriesLayout::columns && options.label_column)
    throw ConfigError(where, "label_column applies to the rows layout only");
}

// The OS's reason ("No such file or directory"), or a general one when it gave none.
std::string os_reason(int error) {
  return error ? std::error_code(error, std::generic_category()).message()
               : std::string("unknown reason");
}

}  // namespace

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

bool is_whole_number(std::string_view field) {
  double v = 0;
  return parse_number(field, v) == NumberStatus::ok && std::isfinite(v) && v == std::trunc(v);
}

LoadedSeries slice_series(const LoadedSeries& s, std::size_t begin, std::size_t end) {
  if (!(begin < end && end <= s.length()))
    throw std::out_of_range("slice_series: [" + std::to_string(begin) + ", " + std::to_string(end) +
                            ") is not within the series' " + std::to_string(s.length()) +
                            " samples");
  LoadedSeries out;
  out.name = s.name;
  out.dims = s.dims;
  out.label = s.label;
  out.file = s.file;
  out.header_line = s.header_line;
  const auto at = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
  out.values.assign(s.values.begin() + at(begin * s.dims), s.values.begin() + at(end * s.dims));
  if (!s.times.empty()) out.times.assign(s.times.begin() + at(begin), s.times.begin() + at(end));
  return out;
}

std::optional<double> time_unit_seconds(std::string_view unit) {
  if (unit == "s") return 1.0;
  if (unit == "ms") return 1e-3;
  if (unit == "us") return 1e-6;
  if (unit == "ns") return 1e-9;
  return std::nullopt;
}

std::optional<double> parse_time_text(std::string_view text, double time_scale) {
  double seconds = 0;
  if (!parse_time_field(text, time_scale, seconds)) return std::nullopt;
  return seconds;
}

std::vector<LoadedSeries> load_series_file(const std::string& path,
                                           const SeriesFileOptions& options) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw ConfigError({path, 0, 0}, "is a directory, not a file");
  errno = 0;  // std::ifstream opens with fopen, which sets it
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError({path, 0, 0}, "cannot open file: " + os_reason(errno));
  const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (in.bad()) throw ConfigError({path, 0, 0}, "read error: " + os_reason(errno));
  return load_series_bytes(bytes, path, options);
}

std::vector<LoadedSeries> load_series_bytes(std::string_view bytes, const std::string& path,
                                            const SeriesFileOptions& options) {
  check_options(path, options);
  const fs::path p(path);
  const std::string stem = p.stem().string();
  auto series = lower_extension(p) == ".npy" ? load_npy(bytes, path, stem, options)
                                             : load_text(bytes, path, stem, options);
  for (LoadedSeries& s : series) s.file = path;
  return series;
}

std::vector<LoadedSeries> load_series_path(const std::string& file_or_dir,
                                           const SeriesFileOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(file_or_dir, ec)) return load_series_file(file_or_dir, options);

  std::vector<fs::path> files;
  for (fs::directory_iterator it(file_or_dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path& p = it->path();
    const std::string ext = lower_extension(p);
    std::error_code type_ec;
    if (p.filename().string().starts_with('.') || !fs::is_regular_file(p, type_ec)) continue;
    if (ext == ".csv" || ext == ".tsv" || ext == ".txt" || ext == ".npy") files.push_back(p);
  }
  if (ec) throw ConfigError({file_or_dir, 0, 0}, "cannot read directory: " + ec.message());
  if (files.empty())
    throw ConfigError({file_or_dir, 0, 0}, "no series files (.csv .tsv .txt .npy) in directory");
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.filename() < b.filename(); });
  std::vector<LoadedSeries> out;
  for (const fs::path& p : files) {
    std::vector<LoadedSeries> part = load_series_file(p.string(), options);
    std::move(part.begin(), part.end(), std::back_inserter(out));
  }
  return out;
}

// ---------------------------------------------------------------- SeriesReader

struct SeriesReader::Npy {
  std::ifstream in;
  NpyHeader header;
  std::size_t cols = 1;
  std::vector<std::size_t> value_columns;
  std::vector<char> bytes;      // one part's rows as the file holds them
  std::vector<double> widened;  // the same as doubles
};

SeriesReader::SeriesReader(const std::string& path, const SeriesFileOptions& options)
    : path_(path), options_(options) {
  check_options(path, options);
  const fs::path p(path);
  if (lower_extension(p) == ".npy") {
    auto npy = std::make_unique<Npy>();
    std::error_code ec;
    if (fs::is_directory(path, ec)) throw ConfigError({path, 0, 0}, "is a directory, not a file");
    errno = 0;
    npy->in.open(path, std::ios::binary);
    if (!npy->in) throw ConfigError({path, 0, 0}, "cannot open file: " + os_reason(errno));
    std::string head(12, '\0');
    npy->in.read(head.data(), 12);
    head.resize(static_cast<std::size_t>(npy->in.gcount()));
    const std::size_t need = npy_header_bytes(head);
    if (need > head.size() && npy->in) {
      const std::size_t had = head.size();
      head.resize(need);
      npy->in.read(head.data() + had, static_cast<std::streamsize>(need - had));
      head.resize(had + static_cast<std::size_t>(npy->in.gcount()));
    }
    npy->header = parse_npy_header(head, path);
    const auto& shape = npy->header.shape;
    const bool one_series =
        shape.size() == 1 || (shape.size() == 2 && options.layout == SeriesLayout::columns);
    if (one_series) {
      const SourceLocation where{path, 0, 0};
      const std::size_t rows = shape[0];
      if (rows == 0) throw ConfigError(where, "empty array: the series needs at least 1 sample");
      npy->cols = shape.size() == 2 ? shape[1] : 1;
      if (shape.size() == 2 || options.layout == SeriesLayout::columns) {
        npy->value_columns = resolve_value_columns(options, npy->cols, where);
      } else {
        npy->value_columns = {0};  // 1-D in the rows layout: one series of its values
        options_.time_column.reset();
      }
      const std::uint64_t size = fs::file_size(path, ec);
      if (!ec)
        check_npy_data_bytes(npy->header,
                             size - std::min<std::uint64_t>(size, npy->header.data_offset), path);
      name_ = p.stem().string();
      dims_ = npy->value_columns.size();
      length_ = rows;
      npy->in.seekg(static_cast<std::streamoff>(npy->header.data_offset));
      npy_ = std::move(npy);
      return;
    }
  }
  // Anything else is read whole and handed out in parts.
  auto series = load_series_file(path, options);
  if (series.size() != 1)
    throw ConfigError({path, 0, 0}, "holds " + std::to_string(series.size()) +
                                        " series: a recording is one series (the columns "
                                        "layout reads a sample per row)");
  whole_ = std::move(series.front());
  name_ = whole_.name;
  dims_ = whole_.dims;
  length_ = whole_.length();
}

SeriesReader::~SeriesReader() = default;

bool SeriesReader::has_times() const {
  return npy_ ? options_.time_column.has_value() : !whole_.times.empty();
}

std::size_t SeriesReader::next(std::size_t n, LoadedSeries& part) {
  const std::size_t take = std::min(n, length_ - read_);
  part.name = name_;
  part.dims = dims_;
  part.file = path_;
  part.values.clear();
  part.times.clear();
  if (take == 0) return 0;
  if (!npy_) {
    const LoadedSeries slice = slice_series(whole_, read_, read_ + take);
    part.values = slice.values;
    part.times = slice.times;
    read_ += take;
    return take;
  }
  Npy& f = *npy_;
  const SourceLocation where{path_, 0, 0};
  const std::size_t elements = take * f.cols;
  f.bytes.resize(elements * f.header.item_bytes);
  f.in.read(f.bytes.data(), static_cast<std::streamsize>(f.bytes.size()));
  if (static_cast<std::size_t>(f.in.gcount()) != f.bytes.size())
    throw ConfigError(where, "truncated data: the file ends at sample " +
                                 std::to_string(read_ + static_cast<std::size_t>(f.in.gcount()) /
                                                            (f.cols * f.header.item_bytes)) +
                                 " of the " + std::to_string(length_) + " its header says");
  f.widened.resize(elements);
  for (std::size_t i = 0; i < elements; ++i)
    f.widened[i] = npy_element(f.bytes.data() + i * f.header.item_bytes, f.header.item_bytes);
  if (last_time_) part.times.push_back(*last_time_);  // the first is checked against it
  part.values.reserve(take * dims_);
  append_npy_rows(f.widened.data(), take, read_, f.cols, f.value_columns, options_, where, part);
  if (last_time_) part.times.erase(part.times.begin());
  if (!part.times.empty()) last_time_ = part.times.back();
  read_ += take;
  return take;
}

}  // namespace warpwatch::config
