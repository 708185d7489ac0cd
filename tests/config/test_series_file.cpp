// Loading series from delimited text files (config/files/series_file.cpp); .npy in test_npy.cpp.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "test_support.hpp"
#include "warpwatch/config/config_error.hpp"
#include "warpwatch/config/series_file.hpp"

using namespace warpwatch::config;
namespace fs = std::filesystem;
using warpwatch::testing::TempDir;

namespace {

// Runs `load`, expecting a ConfigError at file:line:column whose message contains `text`.
void expect_error(const std::function<void()>& load, const std::string& file, int line, int column,
                  const std::string& text) {
  try {
    load();
    ADD_FAILURE() << "expected a ConfigError containing '" << text << "'";
  } catch (const ConfigError& e) {
    EXPECT_EQ(e.where().file, file) << e.what();
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().column, column) << e.what();
    EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
  }
}

SeriesFileOptions columns(std::optional<std::size_t> time_column = {},
                          std::vector<std::size_t> value_columns = {}, double time_scale = 1.0) {
  SeriesFileOptions o;
  o.layout = SeriesLayout::columns;
  o.time_column = time_column;
  o.value_columns = std::move(value_columns);
  o.time_scale = time_scale;
  return o;
}

SeriesFileOptions labelled() {
  SeriesFileOptions o;
  o.label_column = true;
  return o;
}

// Normalized by hand: tests/data need not exist, and the kernel would not resolve ".." past it.
const std::string shared_data =
    fs::path(WARPWATCH_SOURCE_DIR "/../shared/data").lexically_normal().string();

}  // namespace

// ------------------------------------------------------------------ rows layout

TEST(SeriesFile, RowsTsvWithLabelColumn) {
  TempDir dir;
  const auto path = dir.write("ucr.tsv", "1\t0.5\t-1.25\t3\n2\t4\t5e-1\t+6\n");
  const auto series = load_series_file(path, labelled());
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].name, "ucr:0");
  EXPECT_EQ(series[1].name, "ucr:1");
  EXPECT_EQ(series[0].label, "1");
  EXPECT_EQ(series[1].label, "2");
  EXPECT_EQ(series[0].dims, 1u);
  EXPECT_EQ(series[0].values, (std::vector<float>{0.5f, -1.25f, 3.0f}));
  EXPECT_EQ(series[1].values, (std::vector<float>{4.0f, 0.5f, 6.0f}));
  EXPECT_TRUE(series[0].times.empty());
}

TEST(SeriesFile, RowsCsvWithoutLabelHeaderCommentsAndCrlf) {
  TempDir dir;
  const auto path = dir.write(
      "plain.csv", "# exported by hand\r\nt0,t1,t2\r\n\r\n1,2,3\r\n  # note\n4, 5 ,0.1\r\n");
  const auto series = load_series_file(path);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].name, "plain:0");
  EXPECT_EQ(series[0].values, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(series[1].values, (std::vector<float>{4, 5, 0.1f}));
  EXPECT_EQ(series[0].label, "");
}

TEST(SeriesFile, RowsHeaderWithLabelColumnIsDetected) {
  TempDir dir;
  const auto path = dir.write("h.csv", "class,a,b\nabnormal,1,2\nnormal,3,4\n");
  const auto series = load_series_file(path, labelled());
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].label, "abnormal");
  EXPECT_EQ(series[1].values, (std::vector<float>{3, 4}));
}

TEST(SeriesFile, SingleSeriesIsNamedByStem) {
  TempDir dir;
  const auto path = dir.write("one.txt", "  1.0000000e+00  -6.4788540e-01   2\n");
  const auto series = load_series_file(path);  // whitespace-separated, like old UCR files
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].name, "one");
  EXPECT_EQ(series[0].values, (std::vector<float>{1.0f, -0.6478854f, 2.0f}));
  const auto v = series[0].view();
  EXPECT_EQ(v.values, series[0].values.data());
  EXPECT_EQ(v.length, 3u);
  EXPECT_EQ(v.dims, 1u);
  EXPECT_EQ(v.times, nullptr);
}

// ------------------------------------------------------------------ columns layout

TEST(SeriesFile, ColumnsWithTimeColumnAndSelectedValues) {
  TempDir dir;
  const auto path = dir.write("sensor.csv",
                              "id,t_ms,a,b,label\n"
                              "x,1000,1.5,2.5,calm\n"
                              "x,1500,-1,0.25,calm\n"
                              "x,2250,3,4,storm\n");
  const auto series = load_series_file(path, columns(1, {3, 2}, 1e-3));
  ASSERT_EQ(series.size(), 1u);
  const auto& s = series[0];
  EXPECT_EQ(s.name, "sensor");
  EXPECT_EQ(s.dims, 2u);
  EXPECT_EQ(s.length(), 3u);
  // Columns in the order asked for: b then a.
  EXPECT_EQ(s.values, (std::vector<float>{2.5f, 1.5f, 0.25f, -1, 4, 3}));
  ASSERT_EQ(s.times.size(), 3u);
  EXPECT_DOUBLE_EQ(s.times[0], 1.0);
  EXPECT_DOUBLE_EQ(s.times[1], 1.5);
  EXPECT_DOUBLE_EQ(s.times[2], 2.25);
  const auto v = s.view();
  EXPECT_EQ(v.times, s.times.data());
  EXPECT_FLOAT_EQ(v.sample(1)[0], 0.25f);
  EXPECT_DOUBLE_EQ(v.time(2), 2.25);
}

TEST(SeriesFile, ColumnsDefaultToAllButTheTimeColumn) {
  TempDir dir;
  const auto path = dir.write("m.tsv", "0\t1\t2\t3\n10\t4\t5\t6\n");  // no header
  const auto series = load_series_file(path, columns(0));
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].dims, 3u);
  EXPECT_EQ(series[0].values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  EXPECT_EQ(series[0].times, (std::vector<double>{0, 10}));

  const auto no_time = load_series_file(path, columns());
  EXPECT_EQ(no_time[0].dims, 4u);
  EXPECT_TRUE(no_time[0].times.empty());
}

TEST(SeriesFile, ColumnsReadDateTimeStamps) {
  TempDir dir;
  const auto path = dir.write("d.csv",
                              "timestamp,x,label\n"
                              "1970-01-01 00:04:40.000,101,0\n"
                              "1970-01-01 00:04:40.015,90,1\n"
                              "1970-01-02T00:00:00Z,7,0\n");
  const auto s = load_series_file(path, columns(0, {1}))[0];
  ASSERT_EQ(s.times.size(), 3u);
  EXPECT_DOUBLE_EQ(s.times[0], 280.0);
  EXPECT_DOUBLE_EQ(s.times[1], 280.015);
  EXPECT_DOUBLE_EQ(s.times[2], 86400.0);
  EXPECT_EQ(s.values, (std::vector<float>{101, 90, 7}));
}

TEST(SeriesFile, DateTimeFieldsAreDigitsOnly) {
  // from_chars reads "-1" as an hour: negative hours, minutes and years were accepted.
  TempDir dir;
  for (const std::string bad : {"1970-01-01 -1:00:00", "1970-01-01 00:-5:00", "1970-01-01 -0:00:00",
                                "-970-01-01 00:00:00", "1970-01-01 00:00:-1"}) {
    SCOPED_TRACE(bad);
    const auto path = dir.write("neg.csv", "t,x\n1970-01-01 00:00:00,1\n" + bad + ",2\n");
    expect_error([&] { load_series_file(path, columns(0)); }, path, 3, 1,
                 "is not a number or a YYYY-MM-DD HH:MM:SS time");
  }
}

TEST(SeriesFile, OneSignOnly) {
  TempDir dir;
  for (const std::string bad : {"+-5", "++5", "-+5", "--5"}) {
    SCOPED_TRACE(bad);
    const auto path = dir.write("sign.csv", "1,2\n3," + bad + "\n");
    expect_error([&] { load_series_file(path); }, path, 2, 2, "is not a number");
  }
  const auto plus = dir.write("plus.csv", "+1,-2,+3e-1\n");
  EXPECT_EQ(load_series_file(plus)[0].values, (std::vector<float>{1, -2, 0.3f}));
}

TEST(SeriesFile, TooSmallForFloatIsTheNearestFloat) {
  // As text payloads read values (stream/decimal.hpp): 1e-400 is beyond even float64's
  // range, and its nearest float32 is 0 (-0 for -1e-400); 1e-45 is the smallest subnormal.
  TempDir dir;
  const auto path = dir.write("tiny.csv", "1e-400,-1e-400,1e-45,7e-46\n");
  const auto values = load_series_file(path)[0].values;
  ASSERT_EQ(values.size(), 4u);
  EXPECT_EQ(values[0], 0.0f);
  EXPECT_FALSE(std::signbit(values[0]));
  EXPECT_EQ(values[1], 0.0f);
  EXPECT_TRUE(std::signbit(values[1]));
  EXPECT_EQ(values[2], std::numeric_limits<float>::denorm_min());
  EXPECT_EQ(values[3], 0.0f);
}

TEST(SeriesFile, BytesInMemoryLoadAsTheFile) {
  TempDir dir;
  const std::string text = "t,x,y\n0,1,2\n1.5,3,4\n";
  const auto path = dir.write("cols.csv", text);
  const auto from_file = load_series_file(path, columns(0))[0];
  const auto from_bytes = load_series_bytes(text, path, columns(0))[0];
  EXPECT_EQ(from_bytes.name, "cols");
  EXPECT_EQ(from_bytes.values, from_file.values);
  EXPECT_EQ(from_bytes.times, from_file.times);
  expect_error([&] { load_series_bytes("1,2\n3,x\n", "mem.csv"); }, "mem.csv", 2, 2,
               "'x' is not a number");
  expect_error([&] { load_series_bytes("nope", "mem.npy"); }, "mem.npy", 0, 0, "not a .npy file");
}

// ------------------------------------------------------------------ directories

TEST(SeriesFile, DirectoryIsLoadedInNameOrder) {
  TempDir dir;
  dir.write("b.csv", "5,6\n");
  dir.write("a.tsv", "1\t2\n3\t4\n");
  dir.write("notes.md", "not a series\n");
  dir.write(".hidden.csv", "9,9\n");
  const auto series = load_series_path(dir.path());
  ASSERT_EQ(series.size(), 3u);
  EXPECT_EQ(series[0].name, "a:0");
  EXPECT_EQ(series[1].name, "a:1");
  EXPECT_EQ(series[2].name, "b");
  EXPECT_EQ(series[2].values, (std::vector<float>{5, 6}));
  // A plain file goes straight to load_series_file.
  EXPECT_EQ(load_series_path(dir.path() + "/b.csv").size(), 1u);
}

TEST(SeriesFile, DirectoryWithoutSeriesFilesIsAnError) {
  TempDir dir;
  dir.write("readme.md", "x\n");
  expect_error([&] { load_series_path(dir.path()); }, dir.path(), 0, 0, "no series files");
}

// ------------------------------------------------------------------ errors

TEST(SeriesFile, CannotOpenFileSaysWhy) {
  const std::string path = "/nonexistent/warpwatch/series.csv";
  expect_error([&] { load_series_file(path); }, path, 0, 0,
               "cannot open file: No such file or directory");
}

// A field that is not a number says which options read the file another way: the date of
// a Daphnet-style export, a class label, a text column; and the header line skipped.
TEST(SeriesFile, NotANumberSaysWhatToTry) {
  TempDir dir;
  const auto daphnet = dir.write("daphnet.csv",
                                 "timestamp,ankle,knee,label\n"
                                 "1970-01-01 00:04:40.000,101,1000,0\n");
  expect_error([&] { load_series_file(daphnet); }, daphnet, 2, 1,
               "'1970-01-01 00:04:40.000' is not a number; if this file has one series per "
               "column with a time column, use `layout: columns` and `time_column: 0` (CLI: "
               "--layout columns --time-column 0) (line 1 was read as a header and skipped)");
  // columns layout, the date in a value column: name it the time column.
  expect_error(
      [&] {
        load_series_file(daphnet, columns({}, {2, 0}));
      },
      daphnet, 2, 1, "; it is a time: use `time_column: 0` (CLI: --time-column 0)");
  // columns layout, text in a value column: leave it out.
  const auto text = dir.write("text.csv", "1,2,3\n4,5,x\n");
  expect_error([&] { load_series_file(text, columns()); }, text, 2, 3,
               "'x' is not a number; leave column 2 out with `value_columns: [...]` (CLI: "
               "--value-columns ...)");
  // rows layout, a label in the first field.
  const auto labelled = dir.write("labelled.csv", "1,2,3\nB,4,5\n");
  expect_error([&] { load_series_file(labelled); }, labelled, 2, 1,
               "'B' is not a number; if the first column is a class label, use `labels: true` "
               "(CLI: --labels yes)");
}

TEST(SeriesFile, HeaderLineSkippedIsReported) {
  TempDir dir;
  const auto with_header = dir.write("h.csv", "# exported\n\nt,a\n0,1\n1,2\n");
  const auto series = load_series_file(with_header, columns(0));
  ASSERT_EQ(series.size(), 1u);
  EXPECT_EQ(series[0].header_line, 3);  // after the comment and the blank line
  EXPECT_EQ(series[0].file, with_header);
  EXPECT_EQ(series[0].values, (std::vector<float>{1, 2}));
  const auto without = dir.write("n.csv", "0,1\n1,2\n");
  EXPECT_EQ(load_series_file(without, columns(0))[0].header_line, 0);
  EXPECT_EQ(load_series_file(without)[1].header_line, 0);
}

TEST(SeriesFile, SliceIsAPartWithItsTimes) {
  TempDir dir;
  const auto path = dir.write("s.csv", "0,1,5\n1,2,6\n2,3,7\n3,4,8\n");
  const auto s = load_series_file(path, columns(0))[0];
  const LoadedSeries part = slice_series(s, 1, 3);
  EXPECT_EQ(part.dims, 2u);
  EXPECT_EQ(part.values, (std::vector<float>{2, 6, 3, 7}));
  EXPECT_EQ(part.times, (std::vector<double>{1, 2}));
  EXPECT_THROW(slice_series(s, 2, 5), std::out_of_range);
  EXPECT_THROW(slice_series(s, 2, 2), std::out_of_range);
}

TEST(SeriesFile, EmptyFiles) {
  TempDir dir;
  for (const std::string text : {"", "\n\n", "# only a comment\n", "a,b,c\n"}) {
    SCOPED_TRACE(text);
    const auto path = dir.write("empty.csv", text);
    expect_error([&] { load_series_file(path); }, path, 0, 0, "empty file");
    expect_error([&] { load_series_file(path, columns()); }, path, 0, 0, "empty file");
  }
}

TEST(SeriesFile, RaggedRowNamesItsLine) {
  TempDir dir;
  const auto path = dir.write("ragged.tsv", "# c\n1\t1\t2\t3\n\n2\t4\t5\t6\n1\t7\t8\n");
  expect_error([&] { load_series_file(path, labelled()); }, path, 5, 0,
               "row has 2 values, expected 3 (as on line 2)");
}

TEST(SeriesFile, FieldThatIsNotANumber) {
  TempDir dir;
  const auto path = dir.write("bad.csv", "1,2,3\n4,abc,6\n");
  expect_error([&] { load_series_file(path); }, path, 2, 2, "'abc' is not a number");
  const auto labelled_path = dir.write("bad.tsv", "1\t2\t3\n1\t4\t5x\n");
  expect_error([&] { load_series_file(labelled_path, labelled()); }, labelled_path, 2, 3,
               "'5x' is not a number");
  const auto empty_field = dir.write("gap.csv", "1,,3\n");
  expect_error([&] { load_series_file(empty_field); }, empty_field, 1, 2, "empty field");
}

TEST(SeriesFile, NanAndInfiniteValuesAreRejected) {
  TempDir dir;
  for (const std::string bad : {"nan", "NaN", "inf", "-Infinity"}) {
    SCOPED_TRACE(bad);
    const auto path = dir.write("nan.csv", "1,2,3\n4,5," + bad + "\n");
    expect_error([&] { load_series_file(path); }, path, 2, 3, "NaN or infinite value");
  }
  const auto big = dir.write("big.csv", "1,1e39\n");
  expect_error([&] { load_series_file(big); }, big, 1, 2, "out of the float32 range");
  const auto huge = dir.write("huge.csv", "1e400,1\n");  // beyond float64 too
  expect_error([&] { load_series_file(huge); }, huge, 1, 1, "out of range");
  const auto in_columns = dir.write("col.csv", "t,v\n0,1\n1,nan\n");
  expect_error([&] { load_series_file(in_columns, columns(0)); }, in_columns, 3, 2,
               "NaN or infinite value");
}

TEST(SeriesFile, SeriesWithoutSamples) {
  TempDir dir;
  const auto path = dir.write("label_only.tsv", "1\n");
  expect_error([&] { load_series_file(path, labelled()); }, path, 1, 0, "at least 1 sample");
}

TEST(SeriesFile, ColumnsRowWithDifferentFieldCount) {
  TempDir dir;
  const auto path = dir.write("c.csv", "t,a,b\n0,1,2\n1,3\n");
  expect_error([&] { load_series_file(path, columns(0)); }, path, 3, 0,
               "row has 2 fields, expected 3");
}

TEST(SeriesFile, TimeThatDoesNotIncrease) {
  TempDir dir;
  const auto equal = dir.write("eq.csv", "v,t\n1,10\n2,20\n3,20\n");
  expect_error([&] { load_series_file(equal, columns(1)); }, equal, 4, 2, "does not increase");
  const auto back = dir.write("back.csv", "1,5\n2,4\n");
  expect_error([&] { load_series_file(back, columns(1)); }, back, 2, 2, "does not increase");
  const auto text = dir.write("text.csv", "1,5\n2,soon\n");
  expect_error([&] { load_series_file(text, columns(1)); }, text, 2, 2, "'soon' is not a number");
}

TEST(SeriesFile, BadColumnOptions) {
  TempDir dir;
  const auto path = dir.write("c.csv", "\n0,1,2\n");
  expect_error([&] { load_series_file(path, columns(3)); }, path, 2, 0,
               "time column 3 does not exist");
  expect_error(
      [&] {
        load_series_file(path, columns(0, {1, 5}));
      },
      path, 2, 0, "value column 5 does not exist");
  expect_error([&] { load_series_file(path, columns(0, {0})); }, path, 2, 0,
               "both time and value column");
  const auto single = dir.write("t.csv", "0\n1\n");
  expect_error([&] { load_series_file(single, columns(0)); }, single, 1, 0, "no value columns");
  SeriesFileOptions rows_with_time;
  rows_with_time.time_column = 0;
  expect_error([&] { load_series_file(path, rows_with_time); }, path, 0, 0, "columns layout only");
  expect_error([&] { load_series_file(path, columns(0, {}, 0.0)); }, path, 0, 0, "time_scale");
}

// ------------------------------------------------------------------ shared data sets

TEST(SeriesFile, GunPointTrain) {
  const std::string path = shared_data + "/GunPoint_TRAIN.tsv";
  if (!fs::exists(path)) GTEST_SKIP() << "shared data set not present: " << path;
  const auto series = load_series_file(path, labelled());
  ASSERT_EQ(series.size(), 50u);
  for (const auto& s : series) {
    EXPECT_EQ(s.length(), 150u) << s.name;
    EXPECT_TRUE(s.label == "1" || s.label == "2") << s.name << ": " << s.label;
  }
  EXPECT_EQ(series[0].name, "GunPoint_TRAIN:0");
  EXPECT_EQ(series[49].name, "GunPoint_TRAIN:49");

  // The first label and value straight from the text of the first line.
  std::ifstream in(path);
  std::string first_line;
  std::getline(in, first_line);
  const std::size_t tab1 = first_line.find('\t');
  const std::size_t tab2 = first_line.find('\t', tab1 + 1);
  EXPECT_EQ(series[0].label, first_line.substr(0, tab1));
  EXPECT_EQ(series[0].values[0], std::stof(first_line.substr(tab1 + 1, tab2 - tab1 - 1)));
}

TEST(SeriesFile, DaphnetWithDateTimeAndLabelColumn) {
  const std::string path = shared_data + "/Daphnet_S06R02E0.csv";
  if (!fs::exists(path)) GTEST_SKIP() << "shared data set not present: " << path;
  // Column 0 is the timestamp, 1..9 the channels, 10 the is_anomaly label.
  const auto series = load_series_file(path, columns(0, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  ASSERT_EQ(series.size(), 1u);
  const auto& s = series[0];
  EXPECT_EQ(s.name, "Daphnet_S06R02E0");
  EXPECT_EQ(s.dims, 9u);
  EXPECT_EQ(s.length(), 7040u);
  EXPECT_EQ(std::vector<float>(s.values.begin(), s.values.begin() + 9),
            (std::vector<float>{101, 1000, 297, -9, 953, 303, 330, 942, -145}));
  EXPECT_DOUBLE_EQ(s.times[0], 280.0);
  EXPECT_DOUBLE_EQ(s.times[1], 280.015);
}
