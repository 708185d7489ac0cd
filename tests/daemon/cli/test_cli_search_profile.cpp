// `warpwatch search --profile OUT.csv` and stream mode's `--top K` (docs/cli.md §4.1,
// docs/spec.md §3.3) end to end, on the planted series of test_cli_search.cpp.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "matching/planted_files.hpp"
#include "test_support.hpp"

namespace {

using namespace warpwatch::testing;

struct ProfileCsv {
  std::string header;
  std::vector<std::vector<std::string>> rows;
};

ProfileCsv read_csv(const std::string& path) {
  std::ifstream in(path);
  ProfileCsv csv;
  std::getline(in, csv.header);
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> fields;
    std::istringstream f(line);
    for (std::string field; std::getline(f, field, ',');) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    csv.rows.push_back(std::move(fields));
  }
  return csv;
}

double number(const std::string& text) {
  double v = 0;
  const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
  EXPECT_TRUE(r.ec == std::errc() && r.ptr == text.data() + text.size()) << "'" << text << "'";
  return v;
}

std::uint64_t index(const std::string& text) {
  return std::stoull(text);
}

TEST(CliSearchProfile, StreamProfileHoldsEachEventsDistanceAtItsEnd) {
  const Planted planted = make_planted_files("profile_stream");
  const auto dir = temp_dir("profile_stream_out");
  const std::string csv_path = (dir / "profile.csv").string();
  for (const char* metric : {"dtw", "dk"}) {
    const char* threshold = std::string(metric) == "dtw" ? "20" : "4";
    const std::vector<std::string> args{"search",  "--patterns",        planted.pattern_path,
                                        "--input", planted.series_path, "--metric",
                                        metric,    "--threshold",       threshold};
    const auto plain = run_cli(args);
    auto with_profile = args;
    with_profile.insert(with_profile.end(), {"--profile", csv_path});
    const auto r = run_cli(with_profile);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_EQ(r.out, plain.out) << metric << ": the events do not change";
    EXPECT_NE(r.err.find(std::string(metric) + " stream mode, profile, backend "),
              std::string::npos)
        << r.err;
    const auto events = parse_events(r.out);
    ASSERT_EQ(events.size(), 3u) << metric << ": " << r.out;
    const ProfileCsv csv = read_csv(csv_path);
    EXPECT_EQ(csv.header, "stream,pattern,index,distance,start_index");
    ASSERT_EQ(csv.rows.size(), 1500u);
    for (std::size_t i = 0; i < csv.rows.size(); ++i) {
      ASSERT_EQ(csv.rows[i].size(), 5u) << "row " << i;
      ASSERT_EQ(csv.rows[i][0], "series");
      ASSERT_EQ(csv.rows[i][1], "bump");
      ASSERT_EQ(index(csv.rows[i][2]), i);
      ASSERT_LE(index(csv.rows[i][4]), i);
    }
    for (std::size_t k = 0; k < 3; ++k) {
      const auto [start, end] = planted.occurrences[k];
      ASSERT_EQ(events[k]["end_index"], end) << metric;
      // The profile's least value over the occurrence: at its end, the event's distance and
      // start, bit for bit.
      std::size_t best = start;
      for (std::size_t i = start; i <= end; ++i)
        if (number(csv.rows[i][3]) < number(csv.rows[best][3])) best = i;
      EXPECT_EQ(best, end) << metric << " occurrence " << k;
      EXPECT_EQ(number(csv.rows[end][3]), events[k]["distance"].get<double>())
          << metric << " occurrence " << k;
      EXPECT_EQ(index(csv.rows[end][4]), events[k]["start_index"].get<std::uint64_t>())
          << metric << " occurrence " << k;
    }
  }
}

TEST(CliSearchProfile, ProfileAloneNeedsNoThresholdAndPrintsNoEvents) {
  const Planted planted = make_planted_files("profile_alone");
  const std::string csv_path = (temp_dir("profile_alone_out") / "p.csv").string();
  const auto r = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                          planted.series_path, "--profile", csv_path});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_TRUE(std::regex_match(
      r.err, std::regex("search: 1 stream\\(s\\) of 1500 samples, 1 pattern\\(s\\), dtw stream "
                        "mode, profile, backend reference: read in [-+.e0-9]+ s, searched 1500 "
                        "samples in [-+.e0-9]+ s \\([-+.e0-9]+ samples/s\\)\n")))
      << r.err;
  EXPECT_EQ(read_csv(csv_path).rows.size(), 1500u);
}

// Window mode: a point per window end (w - 1, then every hop); at the reference's window
// events, their distances.
TEST(CliSearchProfile, WindowProfileHasAPointPerWindowEndAndTheEventsDistances) {
  const Planted planted = make_planted_files("profile_window");
  const std::string csv_path = (temp_dir("profile_window_out") / "w.csv").string();
  const auto r = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                          planted.series_path, "--mode", "window", "--w", "44", "--hop", "2",
                          "--threshold", "40", "--backend", "reference", "--profile", csv_path});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto events = parse_events(r.out);
  ASSERT_EQ(events.size(), 3u) << r.out;
  const ProfileCsv csv = read_csv(csv_path);
  EXPECT_EQ(csv.header, "stream,pattern,index,distance,start_index");
  ASSERT_EQ(csv.rows.size(), (1500u - 44u) / 2u + 1u);
  for (std::size_t j = 0; j < csv.rows.size(); ++j) {
    ASSERT_EQ(index(csv.rows[j][2]), 43 + 2 * j);
    ASSERT_EQ(index(csv.rows[j][4]), 2 * j);
  }
  for (const auto& e : events) {
    const std::size_t j = (e["end_index"].get<std::size_t>() - 43) / 2;
    EXPECT_EQ(number(csv.rows[j][3]), e["distance"].get<double>()) << e.dump();
  }
}

// A band that leaves a window no alignment: `inf`.
TEST(CliSearchProfile, WindowWithoutAlignmentInTheBandIsInf) {
  const auto dir = temp_dir("profile_inf");
  const auto p = write_file(dir / "p.csv", "1,2,3,4\n");
  const auto s = write_file(dir / "s.csv", "1,2,3,4,5,6,7,8,9\n");
  const std::string csv_path = (dir / "out.csv").string();
  // A window of 8 against 4 rows with band 0: cell (1, 1) lies off |i - j*8/4| <= 0.
  const auto r = run_cli({"search", "--patterns", p, "--input", s, "--mode", "window", "--w", "8",
                          "--band", "0", "--profile", csv_path});
  ASSERT_EQ(r.status, 0) << r.err;
  const ProfileCsv csv = read_csv(csv_path);
  ASSERT_EQ(csv.rows.size(), 2u);
  EXPECT_EQ(csv.rows[0][3], "inf");
  EXPECT_EQ(csv.rows[1][3], "inf");
}

TEST(CliSearchProfile, TimesColumnWhenTheInputHasTimes) {
  const auto dir = temp_dir("profile_times");
  // --layout applies to both files: a sample a row, its time first.
  const auto p = write_file(dir / "p.csv", "0,1\n1,2\n2,1\n");
  const auto s = write_file(dir / "s.csv", "0.5,0\n0.75,1\n1.5,2\n2,1\n3,0\n");
  const std::string csv_path = (dir / "out.csv").string();
  const auto r = run_cli({"search", "--patterns", p, "--input", s, "--layout", "columns",
                          "--time-column", "0", "--profile", csv_path});
  ASSERT_EQ(r.status, 0) << r.err;
  const ProfileCsv csv = read_csv(csv_path);
  EXPECT_EQ(csv.header, "stream,pattern,index,time_ns,distance,start_index");
  ASSERT_EQ(csv.rows.size(), 5u) << r.err;
  const char* times[] = {"500000000", "750000000", "1500000000", "2000000000", "3000000000"};
  for (std::size_t i = 0; i < 5; ++i) EXPECT_EQ(csv.rows[i][3], times[i]) << i;
  // 0,1,2,1 against 1,2,1: the best alignment ending at index 3 starts at 1 and costs 0.
  EXPECT_EQ(csv.rows[3][4], "0");
  EXPECT_EQ(csv.rows[3][5], "1");
}

TEST(CliSearchProfile, AFileThatCannotBeWrittenIsNamed) {
  const auto dir = temp_dir("profile_unwritable");
  const auto p = write_file(dir / "p.csv", "1,2,3\n");
  const std::string bad = (dir / "missing" / "out.csv").string();
  const auto r = run_cli({"search", "--patterns", p, "--input", p, "--profile", bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--profile: cannot write " + bad + ": No such file or directory"),
            std::string::npos)
      << r.err;
}

// Stream mode's --top K (docs/spec.md §3.3): no threshold needed; the three planted copies
// best first, the same matches (distance bit for bit) as the threshold's events; with a
// larger K more matches, none sharing a sample, in increasing distance.
TEST(CliSearchProfile, StreamTopKIsThePlantedEventsBestFirst) {
  const Planted planted = make_planted_files("top_stream");
  const auto events = parse_events(run_cli({"search", "--patterns", planted.pattern_path, "--input",
                                            planted.series_path, "--threshold", "20"})
                                       .out);
  ASSERT_EQ(events.size(), 3u);
  auto by_distance = events;
  std::stable_sort(by_distance.begin(), by_distance.end(), [](const auto& a, const auto& b) {
    return a["distance"].template get<double>() < b["distance"].template get<double>();
  });
  const auto r = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                          planted.series_path, "--mode", "stream", "--top", "3"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto top = parse_events(r.out);
  ASSERT_EQ(top.size(), 3u) << r.out;
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(top[k]["threshold"].is_null());
    EXPECT_EQ(top[k]["mode"], "stream");
    for (const char* field : {"distance", "start_index", "end_index", "start_ns", "end_ns"})
      EXPECT_EQ(top[k][field], by_distance[k][field]) << k << " " << field;
  }
  EXPECT_NE(r.err.find("dtw stream mode, top 3, backend reference:"), std::string::npos) << r.err;

  const auto more = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                             planted.series_path, "--top", "12", "--backend", "cpu"});
  ASSERT_EQ(more.status, 0) << more.err;
  const auto twelve = parse_events(more.out);
  ASSERT_EQ(twelve.size(), 12u);
  for (std::size_t a = 0; a < 12; ++a) {
    if (a < 3) {
      EXPECT_EQ(twelve[a], top[a]) << a;
    }
    if (a > 0) {
      EXPECT_LE(twelve[a - 1]["distance"], twelve[a]["distance"]) << a;
    }
    for (std::size_t b = 0; b < a; ++b)
      EXPECT_TRUE(twelve[a]["end_index"] < twelve[b]["start_index"] ||
                  twelve[a]["start_index"] > twelve[b]["end_index"])
          << b << " and " << a << " share samples: " << more.out;
  }
  // With a threshold, only those at or under it.
  const auto under = run_cli({"search", "--patterns", planted.pattern_path, "--input",
                              planted.series_path, "--top", "12", "--threshold", "20"});
  ASSERT_EQ(under.status, 0) << under.err;
  EXPECT_EQ(parse_events(under.out).size(), 3u) << under.out;
}

}  // namespace
