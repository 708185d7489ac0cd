// An exclusive library (docs/spec.md §5.1) through the daemon's pipeline and through
// `warpwatch search --library` (docs/cli.md §4), over the same file: a series with planted
// copies of two patterns of one library, each pattern within its threshold on every copy
// of either. The daemon replays the series from its configuration; search reads the same
// configuration file.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "cli_test_support.hpp"
#include "daemon_e2e_support.hpp"
#include "http/http_client.hpp"
#include "log_capture.hpp"
#include "matching/planted_files.hpp"
#include "test_support.hpp"
#include "warpwatch/plugins/registry.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace {

using namespace warpwatch;
using namespace warpwatch::testing;

std::vector<double> as_doubles(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

// `a` the bump, `b` the bump at 0.7 of its amplitude; time-warped copies a, b, a, b. A copy
// scores about 0.1..2 against its own pattern and about 5..15 against the other; noise far
// above 40.
struct Files {
  TempDir dir;
  std::string config, series, events;
  std::vector<std::pair<std::string, std::size_t>> copies{
      {"a", 200}, {"b", 550}, {"a", 900}, {"b", 1250}};

  Files() {
    std::mt19937_64 rng(test_seed());
    std::vector<float> a = bump_pattern<float>(), b = a;
    for (float& x : b) x *= 0.7f;
    std::vector<std::pair<std::size_t, std::size_t>> at;
    for (const auto& [id, start] : copies) at.emplace_back(id == "a" ? 0 : 1, start);
    const Series s = make_series("series", 1500, {a, b}, at, rng);
    series = dir.write("series.csv", csv_row(as_doubles(s.values)));
    dir.write("a.csv", csv_row(as_doubles(a)));
    dir.write("b.csv", csv_row(as_doubles(b)));
    events = dir.path() + "/events.jsonl";
    config = dir.write("warpwatch.yaml",
                       "instance: t\nbackend: cpu\ncpu_threads: 1\nscheduler: {tick_ms: 5}\n"
                       "ingest:\n  - replay: series.csv\n    stream: series\n"
                       "streams:\n  declared:\n    - {id: series, dims: 1, period_ms: 1000}\n"
                       "publish:\n  endpoint: \"tcp://127.0.0.1:*\"\n  events_file: " +
                           events +
                           "\n"
                           "libraries:\n"
                           "  - name: classes\n"
                           "    exclusive: true\n"
                           "    defaults: {metric: dtw, mode: stream, threshold: 40}\n"
                           "    patterns:\n"
                           "      - {id: a, file: a.csv}\n"
                           "      - {id: b, file: b.csv}\n");
  }
};

std::vector<nlohmann::json> read_lines(const std::string& path) {
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
  return out;
}

// What both sides say of a match, in the order of its start.
using Key = std::tuple<std::size_t, std::string, std::size_t, double, std::int64_t, std::int64_t,
                       std::string, std::string>;
std::vector<Key> keys(const std::vector<nlohmann::json>& events) {
  std::vector<Key> out;
  for (const auto& e : events)
    out.emplace_back(e.at("start_index").get<std::size_t>(), e.at("pattern").get<std::string>(),
                     e.at("end_index").get<std::size_t>(), e.at("distance").get<double>(),
                     e.at("start_ns").get<std::int64_t>(), e.at("end_ns").get<std::int64_t>(),
                     e.at("stream").get<std::string>(), e.at("library").get<std::string>());
  std::sort(out.begin(), out.end());
  return out;
}

TEST(NearestTemplatePipeline, OneEventPerCopyTheCloserPatternsAndSearchLibraryAgrees) {
  const Files f;
  CapturedLog log;
  std::uint64_t matches = 0;
  double superseded = -1;
  {
    service::Pipeline p(plugins::load_daemon_config(f.config), log.logger());
    p.start();
    ASSERT_TRUE(step_until(
        p, [&] { return p.replays_done(); }, 20000ms))
        << log.joined();
    p.shutdown();
    matches = p.stats().matches;
    const auto metrics = parse_prometheus_text(service::render_metrics(p.metrics_snapshot()));
    const auto it = metrics.find(R"(warpwatch_superseded_total{library="classes"})");
    if (it != metrics.end()) superseded = it->second;
    // Every held match decided at the end of the replay: the gauge is there, at 0.
    const auto held = metrics.find("warpwatch_held_matches");
    ASSERT_NE(held, metrics.end());
    EXPECT_EQ(held->second, 0.0);
  }
  EXPECT_EQ(matches, 8u) << "both patterns match every copy";
  EXPECT_EQ(superseded, 4.0);
  const std::vector<Key> daemon = keys(read_lines(f.events));
  ASSERT_EQ(daemon.size(), 4u) << log.joined();
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(std::get<1>(daemon[k]), f.copies[k].first) << "copy " << k;
    EXPECT_EQ(std::get<0>(daemon[k]), f.copies[k].second) << "copy " << k;
  }

  const auto r = run_cli({"search", "--library", f.config, "--input", f.series});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(keys(parse_events(r.out)), daemon) << r.out;
  // Any chunking gives the same events (printed per chunk, so in another order).
  for (const char* chunk : {"1", "7", "64"}) {
    const auto chunked =
        run_cli({"search", "--library", f.config, "--input", f.series, "--chunk", chunk});
    EXPECT_EQ(keys(parse_events(chunked.out)), daemon) << "chunk " << chunk;
  }
  // The event says what the pattern was matched with.
  const auto first = parse_events(r.out).at(0);
  EXPECT_EQ(first.at("library"), "classes");
  EXPECT_EQ(first.at("metric"), "dtw");
  EXPECT_EQ(first.at("mode"), "stream");
  EXPECT_EQ(first.at("threshold"), 40.0);
}

TEST(NearestTemplatePipeline, SearchLibraryRefusesMatchingFlagsByName) {
  const Files f;
  const auto r = run_cli({"search", "--library", f.config, "--input", f.series, "--threshold", "3",
                          "--mode", "window"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("--mode, --threshold cannot be given with it"), std::string::npos) << r.err;
  const auto both =
      run_cli({"search", "--library", f.config, "--patterns", f.series, "--input", f.series});
  EXPECT_NE(both.status, 0);  // CLI11's own refusal and status
  EXPECT_NE(both.err.find("--patterns excludes --library"), std::string::npos) << both.err;
  const auto neither = run_cli({"search", "--input", f.series, "--threshold", "3"});
  EXPECT_EQ(neither.status, 1);
  EXPECT_NE(neither.err.find("--patterns or --library is required"), std::string::npos)
      << neither.err;
}

// A file of libraries alone: the input's series are the streams (a pattern of dims no
// series has is said, as with --patterns).
TEST(NearestTemplatePipeline, SearchLibraryReadsAFileOfLibrariesAlone) {
  TempDir dir;
  const std::string lib = dir.write("lib.yaml",
                                    "libraries:\n"
                                    "  - name: blips\n"
                                    "    defaults: {threshold: 1}\n"
                                    "    patterns:\n"
                                    "      - {id: blip, values: [5, -5]}\n"
                                    "      - {id: wide, values: [[5, 5], [-5, -5]]}\n");
  const std::string series = dir.write("s.csv", "0,5,-5,0,0,5,-5,0\n");
  const auto r = run_cli({"search", "--library", lib, "--input", series});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto events = parse_events(r.out);
  ASSERT_EQ(events.size(), 2u) << r.out;
  EXPECT_EQ(events[0].at("library"), "blips");
  EXPECT_EQ(events[0].at("pattern"), "blip");
  EXPECT_EQ(events[0].at("end_index"), 2);
  EXPECT_EQ(events[1].at("end_index"), 6);
  EXPECT_NE(r.err.find("warning: pattern 'wide' has 2 dims"), std::string::npos) << r.err;
}

TEST(NearestTemplatePipeline, SearchLibraryNamesTheFileLineAndColumnOfAMistake) {
  TempDir dir;
  const std::string bad = dir.write("bad.yaml",
                                    "libraries:\n"
                                    "  - name: x\n"
                                    "    exclusive: maybe\n"
                                    "    defaults: {threshold: 1}\n"
                                    "    patterns:\n"
                                    "      - {id: p, values: [1, 2, 3]}\n");
  const std::string series = dir.write("s.csv", "1,2,3,4\n");
  const auto r = run_cli({"search", "--library", bad, "--input", series});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("bad.yaml:3:16"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exclusive"), std::string::npos) << r.err;
}

}  // namespace
