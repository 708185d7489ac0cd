// `warpwatch distance` with ed (SPEC.md 4.0): the matrix as CSV, and series of different
// lengths refused with their names.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "cli_test_support.hpp"
#include "test_support.hpp"

using namespace warpwatch::testing;

TEST(CliDistance, EdWritesTheMatrix) {
  const auto dir = temp_dir("distance_ed");
  const auto a = write_file(dir / "a.csv", "0,1,2\n1,1,1\n");
  const auto b = write_file(dir / "b.csv", "0,0,0\n");
  for (const char* backend : {"cpu", "reference"}) {
    const auto sq = run_cli({"distance", "--metric", "ed", a, b, "--backend", backend});
    ASSERT_EQ(sq.status, 0) << sq.err;
    EXPECT_EQ(sq.out, "5\n3\n") << backend;  // 0 + 1 + 4, 1 + 1 + 1
    const auto abs =
        run_cli({"distance", "--metric", "ed", "--cost", "abs", a, b, "--backend", backend});
    ASSERT_EQ(abs.status, 0) << abs.err;
    EXPECT_EQ(abs.out, "3\n3\n") << backend;
  }
}

// The time taken, on stderr, in the form `search` uses too (daemon/cli/verb_clock.hpp).
TEST(CliDistance, SaysItsTimeAndRateOnStderr) {
  const auto dir = temp_dir("distance_timing");
  const auto a = write_file(dir / "a.csv", "0,1,2\n1,1,1\n");
  const auto b = write_file(dir / "b.csv", "0,0,0\n");
  const auto r = run_cli({"distance", "--metric", "dtw", a, b, "--backend", "cpu"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("distance: 2 x 1 dtw, backend cpu: read in [-+.e0-9]+ s, computed 18 "
                        "cells in [-+.e0-9]+ s \\([-+.e0-9]+ cells/s\\)\n")))
      << r.err;
  const auto written =
      run_cli({"distance", "--metric", "dtw", a, b, "--backend", "cpu", "-o", (dir / "d.csv")});
  ASSERT_EQ(written.status, 0) << written.err;
  EXPECT_NE(written.err.find(" cells/s), written to " + (dir / "d.csv").string() + "\n"),
            std::string::npos)
      << written.err;
}

TEST(CliDistance, EdRefusesSeriesOfDifferentLengthsAndABand) {
  const auto dir = temp_dir("distance_ed_bad");
  const auto a = write_file(dir / "a.csv", "0,1,2\n");
  const auto b = write_file(dir / "b.csv", "0,0\n");
  const auto r = run_cli({"distance", "--metric", "ed", a, b});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--metric ed compares series of equal length: "), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("has 2 samples"), std::string::npos) << r.err;
  const auto band = run_cli({"distance", "--metric", "ed", "--band", "1", a, a});
  EXPECT_EQ(band.status, 1);
  EXPECT_NE(band.err.find("band does not apply to the metric ed"), std::string::npos) << band.err;
}
