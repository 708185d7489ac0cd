// `warpwatch cut` (a pattern cut out of a recording, read back by `search` at distance 0 where
// it was cut), and the messages of a first hour with real files: a pattern whose dims fit no
// series, a header skipped, a file that cannot be opened.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <random>
#include <sstream>
#include <string>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/config/series_file.hpp"

namespace {

namespace fs = std::filesystem;
using namespace warpwatch::testing;

const fs::path shared_data = fs::path(WARPWATCH_SOURCE_DIR "/../shared/data").lexically_normal();

std::vector<nlohmann::json> events_of(const std::string& out) {
  std::vector<nlohmann::json> events;
  std::istringstream lines(out);
  for (std::string line; std::getline(lines, line);) events.push_back(nlohmann::json::parse(line));
  return events;
}

// A recording as Daphnet exports it: a date-time column, `dims` value columns of noise and
// (`label`) a text label column.
std::string recording(std::size_t samples, std::size_t dims, bool label = true) {
  std::mt19937_64 rng(test_seed());
  std::normal_distribution<double> noise(0.0, 1.0);
  std::ostringstream s;
  s << "timestamp";
  for (std::size_t k = 0; k < dims; ++k) s << ",v" << k;
  s << (label ? ",label\n" : "\n");
  for (std::size_t i = 0; i < samples; ++i) {
    s << "1970-01-01 00:00:" << (10 + i / 100) << "." << (i % 100 < 10 ? "0" : "") << i % 100;
    for (std::size_t k = 0; k < dims; ++k) s << "," << noise(rng);
    s << (label ? ",walk\n" : "\n");
  }
  return s.str();
}

TEST(CliCut, Ecg200CutIsFoundWhereItWasCut) {
  const fs::path ecg = shared_data / "ECG200_TEST.tsv";
  if (!fs::exists(ecg)) GTEST_SKIP() << "shared data set not present: " << ecg;
  const auto dir = temp_dir("cut_ecg200");
  const std::string pattern = (dir / "beat.csv").string();
  const auto cut =
      run_cli({"cut", ecg.string(), "--series", "3", "--from", "20", "--to", "60", "-o", pattern});
  ASSERT_EQ(cut.status, 0) << cut.err;
  EXPECT_NE(cut.err.find("cut samples [20, 60) of ECG200_TEST:3 (40 samples x 1 dims)"),
            std::string::npos)
      << cut.err;
  const auto found = run_cli({"search", "--patterns", pattern, "--input", ecg.string(),
                              "--threshold", "0", "--backend", "cpu"});
  ASSERT_EQ(found.status, 0) << found.err;
  const auto events = events_of(found.out);
  ASSERT_EQ(events.size(), 1u) << found.out;
  EXPECT_EQ(events[0]["stream"], "ECG200_TEST:3");
  EXPECT_EQ(events[0]["pattern"], "beat");
  EXPECT_EQ(events[0]["start_index"], 20);
  EXPECT_EQ(events[0]["end_index"], 59);
  EXPECT_EQ(events[0]["distance"], 0.0);
}

// Cut by times from a multivariate recording into .npy: the same input options read the
// pattern back, and search finds it at the indices of those times.
TEST(CliCut, MultivariateCutByTimeRoundTrip) {
  const auto dir = temp_dir("cut_multivariate");
  const std::string rec = write_file(dir / "rec.csv", recording(400, 3));
  const std::string pattern = (dir / "step.npy").string();
  const std::vector<std::string> input = {"--layout", "columns",         "--time-column",
                                          "0",        "--value-columns", "1,2,3"};
  std::vector<std::string> args = {
      "cut", rec,    "--from-time", "1970-01-01 00:00:11.20", "--to-time", "1970-01-01 00:00:11.50",
      "-o",  pattern};
  args.insert(args.end(), input.begin(), input.end());
  const auto cut = run_cli(args);
  ASSERT_EQ(cut.status, 0) << cut.err;
  EXPECT_NE(cut.err.find("cut samples [120, 150) of rec (30 samples x 3 dims)"), std::string::npos)
      << cut.err;
  EXPECT_NE(cut.err.find("rec.csv: line 1 read as a header (column names) and skipped: 1 line"),
            std::string::npos)
      << cut.err;
  std::vector<std::string> search = {"search",      "--patterns", pattern,     "--input", rec,
                                     "--threshold", "0",          "--backend", "cpu"};
  search.insert(search.end(), input.begin(), input.end());
  const auto found = run_cli(search);
  ASSERT_EQ(found.status, 0) << found.err;
  const auto events = events_of(found.out);
  ASSERT_EQ(events.size(), 1u) << found.out;
  EXPECT_EQ(events[0]["start_index"], 120);
  EXPECT_EQ(events[0]["end_index"], 149);
  EXPECT_EQ(events[0]["distance"], 0.0);
  EXPECT_EQ(events[0]["start_ns"], 11'200'000'000LL);  // the recording's own times
}

TEST(CliCut, RangeBeyondTheSeriesSaysItsLength) {
  const auto dir = temp_dir("cut_range");
  const std::string rec = write_file(dir / "r.csv", "1,2,3,4,5\n");
  const auto r = run_cli({"cut", rec, "--from", "2", "--to", "9", "-o", (dir / "p.csv").string()});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("warpwatch cut: --to 9 is beyond the series: r has 5 samples (indices 0 "
                       "to 4; --to is exclusive)"),
            std::string::npos)
      << r.err;
  const auto by_time = run_cli({"cut", rec, "--from-time", "1", "-o", (dir / "p.csv").string()});
  EXPECT_EQ(by_time.status, 1);
  EXPECT_NE(by_time.err.find("--from-time/--to-time need times: give the file's time column "
                             "with --layout columns --time-column N"),
            std::string::npos)
      << by_time.err;
}

// A 3-dimensional pattern over a 10-column recording: an error naming both dims, not an
// empty output.
TEST(CliSearch, PatternDimsThatFitNoSeriesAreAnError) {
  const auto dir = temp_dir("search_dims_misfit");
  const std::string rec = write_file(dir / "rec.csv", recording(50, 10, false));
  const std::string pattern = write_file(dir / "p.csv", recording(5, 3, false));
  const auto r = run_cli({"search", "--patterns", pattern, "--input", rec, "--threshold", "1",
                          "--layout", "columns", "--time-column", "0", "--backend", "cpu"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("warpwatch search: no pattern has the dims of an input series (pattern "
                       "dims: 3; input series dims: 10): nothing to search"),
            std::string::npos)
      << r.err;
}

TEST(CliSearch, MissingFileSaysWhy) {
  const auto dir = temp_dir("search_missing_file");
  const std::string pattern = write_file(dir / "p.csv", "1,2,3\n");
  const std::string missing = (dir / "nope.csv").string();
  const auto r = run_cli({"search", "--patterns", pattern, "--input", missing, "--threshold", "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(
      r.err.find("warpwatch search: " + missing + ": cannot open file: No such file or directory"),
      std::string::npos)
      << r.err;
}

}  // namespace
