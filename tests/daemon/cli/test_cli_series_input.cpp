// `--labels auto` (daemon/cli/options.cpp): a .tsv file whose first fields are all whole
// numbers, in any notation, is read as UCR-style labelled rows; anything else as data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_test_support.hpp"
#include "warpwatch/config/series_file.hpp"

namespace {

namespace fs = std::filesystem;
using namespace warpwatch::testing;

// Normalized by hand: the kernel would not resolve ".." past a folder that does not exist.
const fs::path shared_data = fs::path(WARPWATCH_SOURCE_DIR "/../shared/data").lexically_normal();

TEST(CliLabels, WholeNumbersInAnyNotationAreLabels) {
  using warpwatch::config::is_whole_number;
  for (const char* label : {"1", "-1", "+2", "0", "1.0", "-1.0000000e+00", "1.0000000e+00", "2e1"})
    EXPECT_TRUE(is_whole_number(label)) << label;
  for (const char* value : {"0.5", "-1.25e+00", "1e-1", "abc", "", "nan", "inf", "1,0", "--1"})
    EXPECT_FALSE(is_whole_number(value)) << value;
}

// Labels written as ECG200 writes them: the values alone are compared (ed: 0.25 + 0.25),
// not the labels with them (4 + 0.25 + 0.25).
TEST(CliLabels, AutoReadsFloatNotationLabelsAsLabels) {
  const auto dir = temp_dir("labels_float_notation");
  const auto ucr =
      write_file(dir / "ucr.tsv", "-1.0000000e+00\t5.0e-01\t1.5\n1.0000000e+00\t1\t2\n");
  const auto r = run_cli({"distance", "--metric", "ed", "--backend", "cpu", ucr, ucr});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "0,0.5\n0.5,0\n");
  EXPECT_NE(r.err.find("first column read as class labels"), std::string::npos) << r.err;
  // A first field that is not a whole number makes the first column data.
  const auto data = write_file(dir / "data.tsv", "-1.0000000e+00\t1\n0.5\t1\n");
  const auto d = run_cli({"distance", "--metric", "ed", "--backend", "cpu", data, data});
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out, "0,2.25\n2.25,0\n");
  EXPECT_EQ(d.err.find("class labels"), std::string::npos) << d.err;
}

// A UCR file of the shared data sets: every series `length` long once its labels are read
// as labels (ed refuses series of other lengths, naming them), and its first row, values
// only, at distance 0 from the file's first series.
void expect_ucr_series(const std::string& name, std::size_t length) {
  const fs::path path = shared_data / name;
  if (!fs::exists(path)) GTEST_SKIP() << "shared data set not present: " << path;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::string first_values = line.substr(line.find('\t') + 1);
  for (char& c : first_values)
    if (c == '\t') c = ',';
  const auto dir = temp_dir("labels_" + name);
  const auto row = write_file(dir / "first.csv", first_values + "\n");
  const auto r = run_cli({"distance", "--metric", "ed", "--backend", "cpu", path.string(), row});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("first column read as class labels"), std::string::npos) << r.err;
  EXPECT_EQ(r.out.substr(0, 2), "0\n") << "the first series is the first row's values";
  const auto values = warpwatch::config::load_series_file(row);
  ASSERT_EQ(values.size(), 1u);
  EXPECT_EQ(values[0].length(), length);
}

TEST(CliLabels, Ecg200SeriesAre96Long) {
  expect_ucr_series("ECG200_TRAIN.tsv", 96);
}

TEST(CliLabels, GunPointSeriesAre150Long) {
  expect_ucr_series("GunPoint_TRAIN.tsv", 150);
}

}  // namespace
