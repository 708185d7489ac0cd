// `warpwatch distance` with ed (docs/spec.md §4.0): the matrix as CSV, and series of different
// lengths refused with their names; `--grad` (docs/spec.md §4.2) on every backend, in the layout
// it has always had.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/config/array_writer.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/reference.hpp"

using namespace warpwatch::testing;
namespace kernels = warpwatch::kernels;

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

namespace {

// The lines of a CSV, each split at its commas.
std::vector<std::vector<std::string>> csv_fields(const std::string& text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream row(line);
    for (std::string field; std::getline(row, field, ',');) fields.push_back(field);
    lines.push_back(fields);
  }
  return lines;
}

// The lines `distance --grad` writes for A x B: "i,j,g_1,...,g_n" with d = 1, else
// "i,j,t,g_t1,...,g_td", from the reference's gradients (values in write_array's spelling).
std::vector<std::vector<std::string>> reference_grad_lines(const std::vector<std::vector<float>>& a,
                                                           const std::vector<std::vector<float>>& b,
                                                           std::size_t dims, double gamma) {
  std::vector<std::vector<std::string>> lines;
  std::vector<double> grad;
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) {
      const kernels::SeriesView x{a[i].data(), a[i].size() / dims, dims, nullptr};
      const kernels::SeriesView y{b[j].data(), b[j].size() / dims, dims, nullptr};
      kernels::reference::softdtw_grad(x, y, kernels::Cost::sq, gamma, std::nullopt, grad);
      for (std::size_t t = 0; t < (dims == 1 ? 1 : x.length); ++t) {
        std::vector<std::string> line{std::to_string(i), std::to_string(j)};
        if (dims > 1) line.push_back(std::to_string(t));
        const std::size_t from = dims == 1 ? 0 : t * dims, count = dims == 1 ? x.length : dims;
        for (std::size_t k = from; k < from + count; ++k)
          line.push_back(warpwatch::config::format_value(grad[k]));
        lines.push_back(line);
      }
    }
  return lines;
}

// `got` has the lines of `want`, the same indices, values within 1e-9 of the largest |value|
// of the pair's lines (the reference: exactly the same text).
void expect_grad_lines(const std::vector<std::vector<std::string>>& got,
                       const std::vector<std::vector<std::string>>& want, std::size_t lead,
                       bool exact, const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double scale = 0.0;
  for (const auto& line : want)
    for (std::size_t k = lead; k < line.size(); ++k)
      scale = std::max(scale, std::abs(std::stod(line[k])));
  ASSERT_GT(scale, 0.0) << what;
  for (std::size_t l = 0; l < want.size(); ++l) {
    ASSERT_EQ(got[l].size(), want[l].size()) << what << " line " << l;
    for (std::size_t k = 0; k < want[l].size(); ++k) {
      if (exact || k < lead) {
        EXPECT_EQ(got[l][k], want[l][k]) << what << " line " << l << " field " << k;
      } else {
        EXPECT_NEAR(std::stod(got[l][k]), std::stod(want[l][k]), 1e-9 * scale)
            << what << " line " << l << " field " << k;
      }
    }
  }
}

}  // namespace

// Univariate: (|A|, |B|, n), one line per pair (B's series of different lengths). Every
// backend name gives the reference's gradients (the reference exactly) and says on stderr
// which backend ran and how fast.
TEST(CliDistance, GradOnEveryBackend) {
  const auto dir = temp_dir("distance_grad");
  const std::vector<std::vector<float>> a{{0.5f, 1.25f, -0.75f, 2.0f, 0.0f},
                                          {1.0f, 1.0f, 3.5f, -1.0f, 0.25f}};
  const std::vector<std::vector<float>> b{{0.0f, 1.0f, 2.0f, 1.5f},
                                          {2.0f, -0.5f, 0.75f, 1.0f, 0.0f, 3.0f},
                                          {-1.0f, 0.5f, 0.5f, 1.0f, 2.5f, 0.0f}};
  const auto csv = [](const std::vector<std::vector<float>>& set) {
    std::string text;
    for (const auto& s : set) {
      for (std::size_t k = 0; k < s.size(); ++k) {
        if (k > 0) text += ',';
        text += warpwatch::config::format_value(s[k]);
      }
      text += '\n';
    }
    return text;
  };
  // B's series differ in length: a directory of one series a file.
  const auto fa = write_file(dir / "a.csv", csv(a));
  std::filesystem::create_directories(dir / "b");
  for (std::size_t j = 0; j < b.size(); ++j) {
    std::string name = "b";  // (no "literal" + std::string: GCC 12 warns falsely, -Wrestrict)
    name += std::to_string(j);
    write_file(dir / "b" / (name + ".csv"), csv({b[j]}));
  }
  const std::string fb = (dir / "b").string();
  const auto want = reference_grad_lines(a, b, 1, 0.5);
  ASSERT_EQ(want.size(), 6u);
  const bool device = kernels::cuda_status().device_count > 0;
  for (const std::string& backend : std::vector<std::string>{"reference", "cpu", "auto", "cuda"}) {
    const auto r = run_cli({"distance", "--metric", "softdtw", "--gamma", "0.5", "--grad", fa, fb,
                            "--backend", backend});
    if (backend == "cuda" && !device) {  // asked for explicitly: an error, no fallback
      EXPECT_EQ(r.status, 1) << r.err;
      EXPECT_NE(r.err.find("the cuda backend cannot run"), std::string::npos) << r.err;
      continue;
    }
    ASSERT_EQ(r.status, 0) << backend << ": " << r.err;
    expect_grad_lines(csv_fields(r.out), want, 2, backend == "reference", backend);
    const std::string ran = backend == "auto" ? (device ? "cuda" : "cpu") : backend;
    EXPECT_NE(r.err.find("distance: 2 x 3 softdtw gradients, backend " + ran + ": read in "),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("computed 160 cells in "), std::string::npos) << r.err;
  }
}

// Multivariate (a directory of one series a file, --layout columns): (|A|, |B|, n, d), one
// line per sample of a series of A.
TEST(CliDistance, GradMultivariate) {
  const auto dir = temp_dir("distance_grad_d2");
  std::filesystem::create_directories(dir / "a");
  const std::vector<std::vector<float>> a{{0.5f, 1.0f, 1.25f, -2.0f, -0.75f, 0.5f},
                                          {1.0f, 0.0f, 2.0f, 1.5f, 3.5f, -1.0f}};
  const std::vector<std::vector<float>> b{{0.0f, 0.25f, 1.0f, 1.0f, 2.0f, -1.0f, 1.5f, 0.0f}};
  write_file(dir / "a" / "a0.csv", "0.5,1\n1.25,-2\n-0.75,0.5\n");
  write_file(dir / "a" / "a1.csv", "1,0\n2,1.5\n3.5,-1\n");
  const auto fb = write_file(dir / "b.csv", "0,0.25\n1,1\n2,-1\n1.5,0\n");
  const auto want = reference_grad_lines(a, b, 2, 1.0);
  ASSERT_EQ(want.size(), 6u);
  for (const std::string& backend : std::vector<std::string>{"reference", "cpu"}) {
    const auto r = run_cli({"distance", "--metric", "softdtw", "--grad", "--layout", "columns",
                            (dir / "a").string(), fb, "--backend", backend});
    ASSERT_EQ(r.status, 0) << backend << ": " << r.err;
    expect_grad_lines(csv_fields(r.out), want, 3, backend == "reference", backend);
  }
}

// msm, erp, lcss (docs/spec.md §4.4-4.6) with their flags, on every CPU-side backend, the
// values worked by hand in tests/kernels/reference/test_reference_measures.cpp.
TEST(CliDistance, MsmErpLcssTakeTheirParameters) {
  const auto dir = temp_dir("distance_measures");
  const auto a = write_file(dir / "a.csv", "1,2\n");
  const auto b = write_file(dir / "b.csv", "1,3\n");
  const auto r = write_file(dir / "r.csv", "0\n");
  const auto s = write_file(dir / "s.csv", "1,2\n");
  const auto l = write_file(dir / "l.csv", "0,1,2,3\n");
  const auto m = write_file(dir / "m.csv", "0,2\n0,10\n");
  for (const char* backend : {"cpu", "reference"}) {
    // msm, c 0.5: a move of 1. c 10 changes nothing here (no split or merge pays).
    const auto msm =
        run_cli({"distance", "--metric", "msm", "--c", "0.5", a, b, "--backend", backend});
    ASSERT_EQ(msm.status, 0) << msm.err;
    EXPECT_EQ(msm.out, "1\n") << backend;
    // erp, g 0, abs: 3 (one match and one gap); sq: 5; g 2, abs: the 2 is a free gap, 0 - 1 = 1.
    const auto erp =
        run_cli({"distance", "--metric", "erp", "--cost", "abs", r, s, "--backend", backend});
    ASSERT_EQ(erp.status, 0) << erp.err;
    EXPECT_EQ(erp.out, "3\n") << backend;
    const auto erp_sq = run_cli({"distance", "--metric", "erp", r, s, "--backend", backend});
    EXPECT_EQ(erp_sq.out, "5\n") << backend << erp_sq.err;
    const auto erp_g = run_cli(
        {"distance", "--metric", "erp", "--cost", "abs", "--g", "2", r, s, "--backend", backend});
    EXPECT_EQ(erp_g.out, "1\n") << backend << erp_g.err;
    // lcss, epsilon 0.5: (0, 1, 2, 3) holds (0, 2) whole: 0; of (0, 10) only the 0: 1 - 1/2.
    // delta 0: only (1, 1) may match in both: 1 - 1/2 each.
    const auto lcss =
        run_cli({"distance", "--metric", "lcss", "--epsilon", "0.5", l, m, "--backend", backend});
    ASSERT_EQ(lcss.status, 0) << lcss.err;
    EXPECT_EQ(lcss.out, "0,0.5\n") << backend;
    const auto lcss_delta = run_cli({"distance", "--metric", "lcss", "--epsilon", "0.5", "--delta",
                                     "0", l, m, "--backend", backend});
    EXPECT_EQ(lcss_delta.out, "0.5,0.5\n") << backend << lcss_delta.err;
  }
}

TEST(CliDistance, MsmErpLcssRefuseBadValuesNamingThem) {
  const auto dir = temp_dir("distance_measures_bad");
  const auto a = write_file(dir / "a.csv", "0,1,2\n");
  const struct {
    std::vector<std::string> args;
    const char* says;
  } cases[] = {
      {{"--metric", "msm", "--c", "-1"}, "c (msm) must be a finite number >= 0"},
      {{"--metric", "lcss", "--epsilon", "0"}, "epsilon (lcss) must be a finite number > 0"},
      {{"--metric", "lcss", "--epsilon", "-0.5"}, "epsilon (lcss) must be"},
      {{"--metric", "lcss", "--delta", "-1"}, "--delta"},
      {{"--metric", "erp", "--g", "nan"}, "g (erp) must be a finite number"},
      {{"--metric", "lcss", "--band", "2"}, "band does not apply to the metric lcss"},
      {{"--metric", "msm", "--band", "2"}, "band does not apply to the metric msm"},
      {{"--metric", "lcs"}, "--metric"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args{"distance"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.push_back(a);
    args.push_back(a);
    const auto r = run_cli(args);
    EXPECT_NE(r.status, 0) << c.says;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.says << ": " << r.err;
  }
  // erp takes a band (cells outside are +inf, as dtw's).
  const auto erp = run_cli({"distance", "--metric", "erp", "--band", "0", a, a});
  EXPECT_EQ(erp.status, 0) << erp.err;
  EXPECT_EQ(erp.out, "0\n");
}

// --help names every measure of the list (kernels/measures.hpp) and the new flags.
TEST(CliDistance, HelpListsTheMeasuresAndTheirFlags) {
  const auto r = run_cli({"distance", "--help"});
  ASSERT_EQ(r.status, 0) << r.err;
  for (const char* word : {"msm", "erp", "lcss", "--c", "--g", "--epsilon", "--delta"})
    EXPECT_NE(r.out.find(word), std::string::npos) << word << "\n" << r.out;
}
