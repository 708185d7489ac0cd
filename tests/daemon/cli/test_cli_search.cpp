// `warpwatch search` end to end: a generated series with three planted, time-warped copies
// of a pattern; the events must be exactly those three, at the planted positions.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <regex>
#include <sstream>

#include "cli_test_support.hpp"
#include "matching/planted_files.hpp"
#include "test_support.hpp"

namespace {

using namespace warpwatch::testing;

void expect_exactly_planted(const std::vector<nlohmann::json>& events, const Planted& planted,
                            double threshold) {
  ASSERT_EQ(events.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(events[k]["stream"], "series");
    EXPECT_EQ(events[k]["pattern"], "bump");
    EXPECT_EQ(events[k]["start_index"], planted.occurrences[k].first) << "occurrence " << k;
    EXPECT_EQ(events[k]["end_index"], planted.occurrences[k].second) << "occurrence " << k;
    // Without timestamps sample i is at i seconds (--period 1).
    EXPECT_EQ(events[k]["start_ns"], planted.occurrences[k].first * 1'000'000'000LL);
    EXPECT_LE(events[k]["distance"].get<double>(), threshold);
    EXPECT_GE(events[k]["distance"].get<double>(), 0.0);
  }
}

TEST(CliSearch, StreamModeDtwFindsExactlyThePlantedCopies) {
  const Planted planted = make_planted_files("search_dtw");
  const auto r =
      run_cli({"search", "--patterns", planted.pattern_path, "--input", planted.series_path,
               "--mode", "stream", "--metric", "dtw", "--threshold", "20"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Planted copies score about 0.1..2 (noise and dropped samples); anywhere else the
  // steep ends cost at least 9 each, measured above 90.
  expect_exactly_planted(parse_events(r.out), planted, 20.0);
  // Chunking invariance through the CLI: the same events, byte for byte.
  const auto chunked =
      run_cli({"search", "--patterns", planted.pattern_path, "--input", planted.series_path,
               "--metric", "dtw", "--threshold", "20", "--chunk", "7"});
  EXPECT_EQ(chunked.out, r.out);
}

TEST(CliSearch, StreamModeDkFindsExactlyThePlantedCopies) {
  const Planted planted = make_planted_files("search_dk");
  const auto r = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                          planted.series_path, "--metric", "dk", "--threshold", "4"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Planted copies: largest step cost about 0.01..1.5; elsewhere above 8.
  expect_exactly_planted(parse_events(r.out), planted, 4.0);
}

TEST(CliSearch, WindowModeReportsOneEventPerPlantedCopy) {
  const Planted planted = make_planted_files("search_window");
  const auto r =
      run_cli({"search", "--patterns", planted.pattern_path, "--input", planted.series_path,
               "--mode", "window", "--metric", "dtw", "--threshold", "40"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto events = parse_events(r.out);
  ASSERT_EQ(events.size(), 3u) << r.out;
  for (std::size_t k = 0; k < 3; ++k) {
    const auto [start, end] = planted.occurrences[k];
    EXPECT_EQ(
        events[k]["end_index"].get<std::uint64_t>() - events[k]["start_index"].get<std::uint64_t>(),
        39u);
    // The best window lies on the occurrence: it overlaps it by more than half its length.
    const auto overlap = std::min<std::uint64_t>(end, events[k]["end_index"]) + 1 -
                         std::max<std::uint64_t>(start, events[k]["start_index"]);
    EXPECT_GT(overlap, 20u) << "occurrence " << k << ": " << events[k].dump();
  }
}

TEST(CliSearch, BadPatternFileNamesFileAndRowAndFails) {
  const auto dir = temp_dir("search_bad");
  const auto patterns = write_file(dir / "p.csv", "1,2,3\n4,nan,6\n");
  const auto series = write_file(dir / "s.csv", "1,2,3,4,5,6\n");
  const auto r = run_cli({"search", "--patterns", patterns, "--input", series, "--threshold", "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find(patterns + ":2"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
}

// msm, erp, lcss in window mode (docs/spec.md §4.4-4.6): `--top` finds the planted copies
// on the cpu backend as on the reference; stream mode is refused.
TEST(CliSearch, WindowModeTopWithMsmErpLcss) {
  const Planted planted = make_planted_files("search_measures");
  const std::vector<std::vector<std::string>> measures{
      {"--metric", "msm", "--c", "0.1"},
      {"--metric", "erp", "--g", "0", "--band", "8"},
      {"--metric", "lcss", "--epsilon", "0.2", "--delta", "10"}};
  for (const auto& m : measures) {
    std::vector<std::string> args{"search",
                                  "--patterns",
                                  planted.pattern_path,
                                  "--input",
                                  planted.series_path,
                                  "--mode",
                                  "window",
                                  "--top",
                                  "3"};
    args.insert(args.end(), m.begin(), m.end());
    const auto cpu = run_cli(args);
    ASSERT_EQ(cpu.status, 0) << m[1] << ": " << cpu.err;
    args.insert(args.end(), {"--backend", "reference"});
    const auto reference = run_cli(args);
    ASSERT_EQ(reference.status, 0) << m[1] << ": " << reference.err;
    const auto got = parse_events(cpu.out), want = parse_events(reference.out);
    ASSERT_EQ(got.size(), 3u) << m[1] << ": " << cpu.out;
    ASSERT_EQ(want.size(), 3u) << m[1] << ": " << reference.out;
    for (std::size_t k = 0; k < 3; ++k) {
      EXPECT_EQ(got[k]["end_index"], want[k]["end_index"]) << m[1];
      EXPECT_EQ(got[k]["metric"], m[1]);
      EXPECT_NEAR(got[k]["distance"].get<double>(), want[k]["distance"].get<double>(),
                  1e-5 * std::max(1.0, std::abs(want[k]["distance"].get<double>())))
          << m[1];
    }
    // The best window lies on a planted copy.
    bool on_copy = false;
    for (const auto& [start, end] : planted.occurrences)
      on_copy = on_copy || (got[0]["end_index"] >= start && got[0]["start_index"] <= end);
    EXPECT_TRUE(on_copy) << m[1] << ": " << cpu.out;
  }
}

TEST(CliSearch, StreamModeRefusesMsmErpLcss) {
  const auto dir = temp_dir("search_measures_stream");
  const auto p = write_file(dir / "p.csv", "1,2,3\n");
  for (const char* metric : {"msm", "erp", "lcss"}) {
    const auto r =
        run_cli({"search", "--patterns", p, "--input", p, "--metric", metric, "--threshold", "1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("stream mode supports the metrics dtw and dk only"), std::string::npos)
        << metric << ": " << r.err;
  }
}

// The checks a configuration gets (docs/configuration.md §4), on search's flags: a window
// setting in stream mode and an unreachable threshold are errors, twed's band a warning.
TEST(CliSearch, SettingsThatDoNothingAreSaid) {
  const auto dir = temp_dir("search_unread");
  const auto p = write_file(dir / "p.csv", "1,2,3\n");
  const auto s = write_file(dir / "s.csv", "0,1,2,3,0,0\n");
  auto r = run_cli({"search", "--patterns", p, "--input", s, "--band", "2", "--threshold", "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--band: 'band' does nothing in stream mode (SPRING has no Sakoe-Chiba "
                       "band): it applies to mode window"),
            std::string::npos)
      << r.err;
  r = run_cli({"search", "--patterns", p, "--input", s, "--znorm", "--threshold", "1"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--znorm: 'znorm' does nothing in stream mode"), std::string::npos) << r.err;
  r = run_cli({"search", "--patterns", p, "--input", s, "--threshold", "-2.5"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--threshold: threshold -2.5 can never be reached: dtw distances are >= 0"),
            std::string::npos)
      << r.err;
  r = run_cli({"search", "--patterns", p, "--input", s, "--mode", "window", "--metric", "twed",
               "--band", "1", "--threshold", "100"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("warning: --band: 'band' does nothing for the metric twed"),
            std::string::npos)
      << r.err;
}

TEST(CliSearch, StreamModeRefusesTwedAndEd) {
  const auto dir = temp_dir("search_twed_stream");
  const auto p = write_file(dir / "p.csv", "1,2,3\n");
  for (const char* metric : {"twed", "ed"}) {
    const auto r =
        run_cli({"search", "--patterns", p, "--input", p, "--metric", metric, "--threshold", "1"});
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("stream mode supports the metrics dtw and dk only"), std::string::npos)
        << metric << ": " << r.err;
  }
}

}  // namespace

namespace {

// Timestamps are whole int64 nanoseconds: a period that would round to 0 ns (every sample
// as old as the first) or overflow them is refused, naming the option.
TEST(CliSearch, PeriodsOutsideWholeNanosecondsAreRefused) {
  const auto dir = warpwatch::testing::temp_dir("search_period");
  const std::string series = warpwatch::testing::write_file(dir / "s.csv", "0,1,2,3,4,5\n");
  const std::string pattern = warpwatch::testing::write_file(dir / "p.csv", "1,2,3\n");
  for (const char* period : {"1e-10", "0", "-1", "1e10", "nan"}) {
    const auto r = warpwatch::testing::run_cli({"search", "--patterns", pattern, "--input", series,
                                                "--threshold", "1", "--period", period});
    EXPECT_EQ(r.status, 1) << period;
    EXPECT_NE(r.err.find("--period must be from 1e-9 s (1 ns) to 9.2e9 s"), std::string::npos)
        << period << ": " << r.err;
  }
}

}  // namespace

TEST(CliSearch, TopReportsTheBestWindowsInIncreasingDistance) {
  const Planted planted = make_planted_files("search_top");
  const auto r = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                          planted.series_path, "--mode", "window", "--top", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto events = parse_events(r.out);
  ASSERT_EQ(events.size(), 3u) << r.out;
  std::vector<std::uint64_t> matched;
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(events[k]["threshold"].is_null());
    if (k > 0) {
      EXPECT_LE(events[k - 1]["distance"].get<double>(), events[k]["distance"].get<double>());
    }
    // Each of the three best windows lies on a planted copy (they are far from anything else).
    for (std::size_t c = 0; c < 3; ++c) {
      const auto [start, end] = planted.occurrences[c];
      const auto overlap = std::min<std::uint64_t>(end, events[k]["end_index"]) + 1 -
                           std::max<std::uint64_t>(start, events[k]["start_index"]);
      if (overlap > 20 && overlap < 1000) matched.push_back(c);
    }
  }
  std::sort(matched.begin(), matched.end());
  EXPECT_EQ(matched, (std::vector<std::uint64_t>{0, 1, 2})) << r.out;
  // The time taken goes to stderr as `distance` says it: reading, then searching and its rate.
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("search: 1 stream\\(s\\) of 1500 samples, 1 pattern\\(s\\), dtw window "
                        "mode, top 3, backend cpu: read in [-+.e0-9]+ s, searched 1500 samples "
                        "in [-+.e0-9]+ s \\([-+.e0-9]+ samples/s\\)\n")))
      << r.err;
  // The reference agrees on which windows (its distances may differ in the last bits).
  const auto reference =
      run_cli({"search", "--patterns", planted.pattern_path, "--input", planted.series_path,
               "--mode", "window", "--top", "3", "--backend", "reference"});
  ASSERT_EQ(reference.status, 0) << reference.err;
  const auto want = parse_events(reference.out);
  ASSERT_EQ(want.size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(events[k]["end_index"], want[k]["end_index"]);
  }
}

TEST(CliSearch, TopRefusesChunkAndSearchNeedsThresholdOrTopOrProfile) {
  const auto dir = temp_dir("search_top_bad");
  const auto p = write_file(dir / "p.csv", "1,2,3\n");
  const auto chunked = run_cli(
      {"search", "--patterns", p, "--input", p, "--mode", "window", "--top", "1", "--chunk", "2"});
  EXPECT_EQ(chunked.status, 1);
  EXPECT_NE(chunked.err.find("--chunk does not apply to --top"), std::string::npos) << chunked.err;
  const auto neither = run_cli({"search", "--patterns", p, "--input", p, "--mode", "window"});
  EXPECT_EQ(neither.status, 1);
  EXPECT_NE(neither.err.find("--threshold is required (or --top K, or --profile OUT.csv)"),
            std::string::npos)
      << neither.err;
}

TEST(CliSearch, EdWindowModeAndTopFindThePlantedCopiesOnBothBackends) {
  const Planted planted = make_planted_files("search_ed", false);
  for (const char* backend : {"cpu", "reference"}) {
    for (const char* znorm : {"--znorm", "--hop=1"}) {
      const auto window = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                                   planted.series_path, "--mode", "window", "--metric", "ed",
                                   "--threshold", "5", znorm, "--backend", backend});
      ASSERT_EQ(window.status, 0) << window.err;
      const auto events = parse_events(window.out);
      expect_exactly_planted(events, planted, 5.0);
      EXPECT_EQ(events[0]["metric"], "ed");
      const auto top = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                                planted.series_path, "--mode", "window", "--metric", "ed", "--cost",
                                "abs", "--top", "3", znorm, "--backend", backend});
      ASSERT_EQ(top.status, 0) << top.err;
      const auto best = parse_events(top.out);
      ASSERT_EQ(best.size(), 3u) << top.out;
      std::vector<std::uint64_t> starts;
      for (const auto& e : best) starts.push_back(e["start_index"].get<std::uint64_t>());
      std::sort(starts.begin(), starts.end());
      EXPECT_EQ(starts, (std::vector<std::uint64_t>{200, 700, 1200})) << top.out;
    }
  }
}

// (Stream mode: StreamModeRefusesTwedAndEd.)
TEST(CliSearch, EdRefusesABandAndAnotherWindowLength) {
  const auto dir = temp_dir("search_ed_bad");
  const auto p = write_file(dir / "p.csv", "1,2,3\n");
  const auto s = write_file(dir / "s.csv", "1,2,3,4,5,6,7,8\n");
  const auto band = run_cli({"search", "--patterns", p, "--input", s, "--mode", "window",
                             "--metric", "ed", "--band", "2", "--threshold", "1"});
  EXPECT_EQ(band.status, 1);
  EXPECT_NE(band.err.find("band does not apply to the metric ed"), std::string::npos) << band.err;
  for (const char* top : {"--threshold=1", "--top=1"}) {
    const auto longer = run_cli({"search", "--patterns", p, "--input", s, "--mode", "window",
                                 "--metric", "ed", "--w", "5", top});
    EXPECT_EQ(longer.status, 1);
    EXPECT_NE(longer.err.find("window must be the pattern's length for the metric ed"),
              std::string::npos)
        << longer.err;
  }
}
