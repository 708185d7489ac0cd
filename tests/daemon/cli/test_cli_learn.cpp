// `warpwatch learn` (docs/cli.md §4.3): GunPoint learnt into a library that check-config
// accepts as is, and every bad input an error naming the file with nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cli_test_support.hpp"
#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;
using namespace warpwatch::testing;

const fs::path shared_data = fs::path(WARPWATCH_SOURCE_DIR "/../shared/data").lexically_normal();

void write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::vector<std::string> files_in(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(CliLearn, GunPointLibraryIsAcceptedByCheckConfig) {
  const fs::path train = shared_data / "GunPoint_TRAIN.tsv";
  if (!fs::exists(train)) GTEST_SKIP() << "shared data set not present: " << train;
  const auto dir = temp_dir("learn_gunpoint");
  const std::string out = (dir / "gun.yaml").string();
  const auto learnt =
      run_cli({"learn", "--positives", train.string(), "--label", "1", "--negatives",
               train.string(), "--negative-label", "2", "--out", out, "--template", "dba",
               "--folds", "6", "--report", (dir / "gun.html").string()});
  ASSERT_EQ(learnt.status, 0) << learnt.err;
  EXPECT_NE(learnt.err.find("mode: "), std::string::npos) << learnt.err;
  EXPECT_NE(learnt.err.find("threshold: "), std::string::npos) << learnt.err;
  EXPECT_EQ(files_in(dir), (std::vector<std::string>{"gun.gun.csv", "gun.html", "gun.yaml"}));
  // The report: self-contained (no external resource), its four charts inline.
  std::ifstream page(dir / "gun.html");
  const std::string html((std::istreambuf_iterator<char>(page)), {});
  std::size_t charts = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1))
    ++charts;
  EXPECT_EQ(charts, 4u);
  EXPECT_EQ(html.find("src=\"http"), std::string::npos);
  EXPECT_NE(html.find("the template over the aligned positives"), std::string::npos);
  std::ifstream yaml(out);
  const std::string text((std::istreambuf_iterator<char>(yaml)), {});
  EXPECT_EQ(text.rfind("# Learnt by `warpwatch learn` on ", 0), 0u) << text;
  EXPECT_NE(text.find("streams: {auto_create: true, auto_dims: 1}"), std::string::npos) << text;
  EXPECT_NE(text.find("- {id: \"gun\", file: \"gun.gun.csv\", layout: columns}"), std::string::npos)
      << text;
  const auto checked = run_cli({"check-config", out});
  EXPECT_EQ(checked.status, 0) << checked.err << checked.out;
}

// Both classes: one library with `exclusive: true`, the thresholds chosen jointly on the
// nearest-template decision (docs/spec.md §8), run as it is by `search --library`: of
// overlapping events only one pattern's is kept.
TEST(CliLearn, BothClassesCalibratedJointlyAndRunBySearchLibrary) {
  const fs::path train = shared_data / "GunPoint_TRAIN.tsv";
  if (!fs::exists(train)) GTEST_SKIP() << "shared data set not present: " << train;
  const auto dir = temp_dir("learn_gunpoint_both");
  const std::string out = (dir / "gp.yaml").string();
  const auto learnt = run_cli({"learn", "--positives", train.string(), "--label", "1", "--label",
                               "2", "--out", out, "--folds", "6"});
  ASSERT_EQ(learnt.status, 0) << learnt.err;
  EXPECT_NE(learnt.err.find("joint calibration (the nearest template on the 50 training series"),
            std::string::npos)
      << learnt.err;
  EXPECT_NE(learnt.err.find("  gp.1: threshold "), std::string::npos) << learnt.err;
  EXPECT_NE(learnt.err.find("  gp.2: threshold "), std::string::npos) << learnt.err;
  std::ifstream yaml(out);
  const std::string text((std::istreambuf_iterator<char>(yaml)), {});
  EXPECT_NE(text.find("    exclusive: true\n"), std::string::npos) << text;
  EXPECT_NE(text.find("(jointly)"), std::string::npos) << text;
  // Six training series laid end to end, a sample a line.
  std::ifstream rows(train);
  std::string stream_text, line;
  for (int k = 0; k < 6 && std::getline(rows, line); ++k) {
    std::istringstream fields(line);
    std::string v;
    fields >> v;  // the label
    while (fields >> v) stream_text += v + "\n";
  }
  write(dir / "stream.csv", stream_text);
  const auto found = run_cli({"search", "--library", out, "--input", (dir / "stream.csv").string(),
                              "--layout", "columns", "--backend", "cpu"});
  ASSERT_EQ(found.status, 0) << found.err;
  std::vector<std::tuple<long, long, std::string>> events;
  std::istringstream lines(found.out);
  while (std::getline(lines, line)) {
    const auto number = [&](const std::string& key) {
      const auto at = line.find("\"" + key + "\":");
      return at == std::string::npos ? -1L : std::stol(line.substr(at + key.size() + 3));
    };
    const auto at = line.find("\"pattern\":\"");
    ASSERT_NE(at, std::string::npos) << line;
    events.emplace_back(number("start_index"), number("end_index"),
                        line.substr(at + 11, line.find('"', at + 11) - at - 11));
  }
  ASSERT_FALSE(events.empty()) << found.err;
  for (std::size_t a = 0; a < events.size(); ++a)
    for (std::size_t b = a + 1; b < events.size(); ++b) {
      const auto& [s1, e1, p1] = events[a];
      const auto& [s2, e2, p2] = events[b];
      if (p1 != p2) {
        EXPECT_TRUE(e1 < s2 || e2 < s1) << p1 << " [" << s1 << ", " << e1 << "] overlaps " << p2
                                        << " [" << s2 << ", " << e2 << "]";
      }
    }
}

// Negatives given as several series without timestamps are laid end to end, as a stream
// carries them (docs/spec.md §8): two flat series, one ending with the rise of the bump and
// one starting with its fall, hold no bump alone but one across their boundary, a false
// alarm that --negatives-apart does not see.
TEST(CliLearn, NegativeSeriesAreScoredEndToEndUnlessApart) {
  const auto dir = temp_dir("learn_end_to_end");
  write(dir / "pos.csv",
        "1,0,1,2,3,4,6,4,3,2,1,0,0,0,0,0,0,0,0,0,0\n"
        "1,0,0,1,2,3,4,5,4,3,2,1,0,0,0,0,0,0,0,0,0\n"
        "1,0,0,0,1,2,4,4,5,4,3,2,1,0,0,0,0,0,0,0,0\n");
  write(dir / "neg.csv",
        "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1,2,3,4,5\n"
        "4,3,2,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0\n");
  const auto learn = [&](bool apart) {
    std::vector<std::string> args{"learn",
                                  "--positives",
                                  (dir / "pos.csv").string(),
                                  "--labels",
                                  "yes",
                                  "--label",
                                  "1",
                                  "--mode",
                                  "stream",
                                  "--negatives",
                                  (dir / "neg.csv").string(),
                                  "--max-false-per-hour",
                                  "1000000",
                                  "--out",
                                  (dir / (apart ? "apart.yaml" : "joined.yaml")).string()};
    if (apart) args.push_back("--negatives-apart");
    return run_cli(args);
  };
  const auto joined = learn(false);
  ASSERT_EQ(joined.status, 0) << joined.err;
  EXPECT_NE(joined.err.find("1 negative recording(s) of 56 samples"), std::string::npos)
      << joined.err;
  EXPECT_NE(joined.err.find("negatives: neg:0 .. neg:1 (2 series end to end)"), std::string::npos)
      << joined.err;
  const auto apart = learn(true);
  ASSERT_EQ(apart.status, 0) << apart.err;
  EXPECT_NE(apart.err.find("2 negative recording(s) of 56 samples"), std::string::npos)
      << apart.err;
  // The chosen row (the largest threshold, every one allowed): the bump across the boundary
  // is a false alarm when the series are joined, and there is none apart.
  const auto chosen_false = [](const std::string& err) {
    const auto at = err.find("\n* ");
    if (at == std::string::npos) return std::string("no chosen row");
    std::istringstream row(err.substr(at + 3));
    std::string threshold, recall, precision, false_alarms;
    row >> threshold >> recall >> precision >> false_alarms;
    return false_alarms;
  };
  EXPECT_EQ(chosen_false(joined.err), "1") << joined.err;
  EXPECT_EQ(chosen_false(apart.err), "0") << apart.err;
}

struct BadCase {
  std::string name;
  std::vector<std::string> args;  // after `learn`; {dir} stands for the scratch folder
  std::string message;            // the error holds it...
  std::string file;               // ...and names this file ({dir}/...)
};

class CliLearnBadInput : public ::testing::TestWithParam<BadCase> {};

TEST_P(CliLearnBadInput, SaysWhatAndWhereAndWritesNothing) {
  const BadCase& c = GetParam();
  const auto dir = temp_dir("learn_bad_" + c.name);
  // Positives: three bumps of 20 samples; a 2-dim recording; a short series; series of
  // different dims and of very different lengths.
  write(dir / "pos.csv",
        "1,0,1,2,3,4,5,4,3,2,1,0,0,0,0,0,0,0,0,0,0\n"
        "1,0,0,1,2,3,4,5,4,3,2,1,0,0,0,0,0,0,0,0,0\n"
        "2,0,0,0,1,2,3,4,5,4,3,2,1,0,0,0,0,0,0,0,0\n");
  write(dir / "wide.csv", "1,2\n3,4\n5,6\n7,8\n");
  fs::create_directory(dir / "mixed");
  write(dir / "mixed" / "a.csv", "1\n2\n3\n");
  write(dir / "mixed" / "b.csv", "1,2\n3,4\n5,6\n");
  write(dir / "short.csv", "0,1,0,1,0\n");
  fs::create_directory(dir / "lengths");  // 80 samples and 10: 8 times longer
  std::string bumps;
  for (int k = 0; k < 4; ++k) bumps += "0,1,2,3,4,5,4,3,2,1,0,0,0,0,0,0,0,0,0,0,";
  bumps.pop_back();
  write(dir / "lengths" / "a.csv", bumps + "\n");
  write(dir / "lengths" / "b.csv", "0,1,0,1,0,1,0,1,0,1\n");
  std::vector<std::string> args{"learn"};
  for (auto a : c.args) {
    if (const auto at = a.find("{dir}"); at != std::string::npos) a.replace(at, 5, dir.string());
    args.push_back(a);
  }
  args.push_back("--out");
  args.push_back((dir / "lib.yaml").string());
  const auto before = files_in(dir);
  const auto r = run_cli(args);
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  std::string file = c.file;
  if (const auto at = file.find("{dir}"); at != std::string::npos)
    file.replace(at, 5, dir.string());
  EXPECT_NE(r.err.find(file), std::string::npos) << "the error names " << file << ": " << r.err;
  EXPECT_EQ(files_in(dir), before) << "something was written";
}

INSTANTIATE_TEST_SUITE_P(
    Learn, CliLearnBadInput,
    ::testing::Values(
        BadCase{
            "no_positives", {"--negatives", "{dir}/short.csv"}, "give the positive examples", ""},
        BadCase{"label_not_in_file",
                {"--positives", "{dir}/pos.csv", "--labels", "yes", "--label", "7"},
                "no series has label '7'; the labels there: 1, 2",
                "{dir}/pos.csv"},
        BadCase{"positives_of_other_dims",
                {"--positives", "{dir}/mixed", "--layout", "columns"},
                "every example must have the same dims",
                "{dir}/mixed"},
        BadCase{"negatives_of_other_dims",
                {"--positives", "{dir}/short.csv", "--negatives", "{dir}/wide.csv", "--layout",
                 "columns"},
                "give negatives of the same dims",
                "{dir}/wide.csv"},
        BadCase{"lengths_beyond_the_band",
                {"--positives", "{dir}/lengths", "--mode", "window", "--band", "1"},
                "too different for band 1",
                "{dir}/lengths"},
        BadCase{"negatives_shorter_than_the_template",
                {"--positives", "{dir}/pos.csv", "--labels", "yes", "--label", "1", "--negatives",
                 "{dir}/short.csv", "--mode", "stream"},
                "fewer than the template's 20: give negatives at least as long",
                "{dir}/short.csv"},
        BadCase{"target_no_threshold_meets",
                {"--positives", "{dir}/pos.csv", "--labels", "yes", "--label", "1", "--negatives",
                 "{dir}/pos.csv", "--mode", "stream", "--max-false-per-hour", "0"},
                "no threshold stays within --max-false-per-hour 0.000",
                "{dir}/pos.csv"}),
    [](const auto& info) { return info.param.name; });

}  // namespace
