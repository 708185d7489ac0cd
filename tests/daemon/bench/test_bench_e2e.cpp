// `warpwatch bench e2e` against the built warpwatchd (cpu backend, loopback): a tiny sweep
// writes its JSON, reconciles (samples sent = accepted + rejected, every planted occurrence
// reported once at its indices, no other event) and the daemon exits 0 on SIGTERM. Also the
// /metrics reading and the plot. No timing assertions: the numbers are the bench's output.
#include <gtest/gtest.h>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/bench/e2e.hpp"

namespace {

using nlohmann::json;
using warpwatch::testing::run_cli;
using warpwatch::testing::TempDir;
namespace bench = warpwatch::bench;

json read_json(const std::string& path) {
  std::ifstream in(path);
  return json::parse(in);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool gnuplot_installed() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "";
  std::size_t at = 0;
  while (at <= dirs.size()) {
    const auto colon = std::min(dirs.find(':', at), dirs.size());
    const std::string file = dirs.substr(at, colon - at) + "/gnuplot";
    if (::access(file.c_str(), X_OK) == 0) return true;
    at = colon + 1;
  }
  return false;
}

void expect_reconciled(const json& run) {
  SCOPED_TRACE(run.dump(1).substr(0, 4000));
  EXPECT_TRUE(run.at("error").is_null());
  EXPECT_TRUE(run.at("ok").get<bool>());
  const json& rec = run.at("reconciliation");
  EXPECT_TRUE(rec.at("ok").get<bool>());
  const auto planted = rec.at("planted").get<std::uint64_t>();
  EXPECT_GT(planted, 0u);
  EXPECT_EQ(rec.at("found_once").get<std::uint64_t>(), planted);
  EXPECT_EQ(rec.at("missing").get<std::uint64_t>(), 0u);
  EXPECT_EQ(rec.at("duplicated").get<std::uint64_t>(), 0u);
  EXPECT_EQ(rec.at("unexpected").get<std::uint64_t>(), 0u);
  EXPECT_EQ(rec.at("unaccounted_samples").get<double>(), 0.0);
  EXPECT_GE(rec.at("probe_events").get<std::uint64_t>(), 1u);
  const json& gen = run.at("generator");
  const json& daemon = run.at("daemon");
  EXPECT_EQ(gen.at("planted").get<std::uint64_t>(), planted);
  EXPECT_EQ(rec.at("sent_samples").get<double>(),
            gen.at("samples").get<double>() + gen.at("probe_samples").get<double>());
  EXPECT_EQ(daemon.at("accepted_samples").get<double>(), rec.at("sent_samples").get<double>());
  EXPECT_EQ(daemon.at("matched_samples").get<double>(),
            daemon.at("accepted_samples").get<double>());
  EXPECT_EQ(daemon.at("rejected_total").get<double>(), 0.0);
  EXPECT_EQ(daemon.at("exit_status").get<int>(), 0);
  EXPECT_FALSE(daemon.at("killed").get<bool>());
  EXPECT_GT(daemon.at("peak_rss_bytes").get<double>(), 0.0);
  EXPECT_GT(daemon.at("cpu_total_s").get<double>(), 0.0);
  // Every occurrence found before SIGTERM has a latency.
  EXPECT_EQ(run.at("latency_ms").at("count").get<std::uint64_t>(),
            planted - rec.at("events_after_sigterm").get<std::uint64_t>());
  EXPECT_EQ(run.at("throughput").at("settled"), "accounted");
  EXPECT_GT(run.at("throughput").at("sustained_samples_per_s").get<double>(), 0.0);
}

// `warpwatch bench e2e` on the built warpwatchd with a tiny load (4 built-in shapes of m 40
// planted every 200 samples, the daemon on one thread), then `options`.
warpwatch::testing::CliResult run_tiny_e2e(const std::vector<std::string>& options) {
  std::vector<std::string> args = {"bench",      "e2e", "--daemon",         WARPWATCHD_PATH,
                                   "--patterns", "4",   "--pattern-length", "40",
                                   "--every",    "200", "--threads",        "1"};
  args.insert(args.end(), options.begin(), options.end());
  return run_cli(args);
}

TEST(BenchE2e, TinySweepReconcilesEveryPlantedOccurrence) {
  TempDir dir;
  const std::string json_path = dir.file("e2e.json");
  const auto r = run_tiny_e2e({"--streams", "4", "--frame", "10", "--duration-s", "2", "--rate",
                               "5000", "--json", json_path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json doc = read_json(json_path);
  EXPECT_TRUE(doc.at("ok").get<bool>());
  EXPECT_EQ(doc.at("plan_check").get<std::string>().rfind("ok: ", 0), 0u);
  ASSERT_EQ(doc.at("runs").size(), 1u);
  const json& run = doc.at("runs")[0];
  EXPECT_EQ(run.at("backend"), "cpu");
  EXPECT_EQ(run.at("streams"), 4);
  EXPECT_EQ(run.at("frame"), 10);
  expect_reconciled(run);
  EXPECT_EQ(doc.at("patterns").size(), 4u);
  EXPECT_NE(r.out.find("found/planted"), std::string::npos) << r.out;
}

// --api-put-at (issue 38): mid-run, a threshold changed and a pattern put over the API. Each
// PUT answered 2xx and found applied in the daemon's history; the events of the new
// definitions after it only, some of them; the counters reconciled: every pattern's samples
// matched == samples accepted (the new pattern's: those after its application), printed.
TEST(BenchE2e, ApiPutMidRunAppliesAndTheCountersReconcile) {
  TempDir dir;
  const std::string json_path = dir.file("e2e.json");
  const auto r = run_tiny_e2e({"--streams", "4", "--frame", "10", "--duration-s", "3", "--rate",
                               "5000", "--api-put-at", "1", "--json", json_path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json run = read_json(json_path).at("runs").at(0);
  SCOPED_TRACE(run.dump(1).substr(0, 6000));
  EXPECT_TRUE(run.at("ok").get<bool>());
  const json& put = run.at("api_put");
  ASSERT_EQ(put.at("changes").size(), 2u);
  const json& threshold = put.at("changes")[0];
  const json& pattern = put.at("changes")[1];
  EXPECT_EQ(threshold.at("what"), "threshold");
  EXPECT_EQ(threshold.at("pattern"), "shape1");
  EXPECT_EQ(threshold.at("status"), 200);
  EXPECT_EQ(pattern.at("what"), "pattern");
  EXPECT_EQ(pattern.at("pattern"), "bench-put");
  EXPECT_EQ(pattern.at("status"), 201);
  for (const json* c : {&threshold, &pattern}) {
    EXPECT_TRUE(c->at("ok").get<bool>());
    EXPECT_EQ(
        c->at("rounds_between").get<std::uint64_t>(),
        c->at("round_applied").get<std::uint64_t>() - c->at("round_asked").get<std::uint64_t>());
    EXPECT_GT(c->at("round_applied").get<std::uint64_t>(), 0u);
    EXPECT_EQ(c->at("new_definition_events_before").get<std::uint64_t>(), 0u);
    EXPECT_GT(c->at("new_definition_events_after").get<std::uint64_t>(), 0u);
    EXPECT_EQ(c->at("old_definition_events_after").get<std::uint64_t>(), 0u);
  }
  EXPECT_TRUE(put.at("counters_ok").get<bool>());
  const double accepted = run.at("daemon").at("accepted_samples").get<double>();
  for (const char* shape : {"shape0", "shape1", "shape2", "shape3"})
    EXPECT_EQ(put.at("pattern_samples").at(shape).get<double>(), accepted) << shape;
  EXPECT_EQ(put.at("pattern_samples").at("bench-put").get<double>(),
            accepted - pattern.at("samples_matched_before").get<double>());
  EXPECT_GT(pattern.at("samples_matched_before").get<double>(), 0.0);
  EXPECT_LT(pattern.at("samples_matched_before").get<double>(), accepted);
  const json& rec = run.at("reconciliation");
  EXPECT_EQ(rec.at("found_once").get<std::uint64_t>() +
                put.at("boundary_missed").get<std::uint64_t>() +
                put.at("pending_at_exit").get<std::uint64_t>(),
            rec.at("planted").get<std::uint64_t>());
  EXPECT_LE(put.at("pending_at_exit").get<std::uint64_t>(), 4u) << "one a stream at most";
  EXPECT_EQ(rec.at("unexpected").get<std::uint64_t>(), 0u);
  EXPECT_EQ(rec.at("duplicated").get<std::uint64_t>(), 0u);
  EXPECT_NE(r.out.find("counters reconciled: sent "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("ok: bench-put matched "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PUT threshold shape1: 200 in "), std::string::npos) << r.out;
}

// Text payloads, a configuration template (its rules dropped, its scheduler kept), a
// bound in samples.
TEST(BenchE2e, TextAndATemplateReconcile) {
  TempDir dir;
  const std::string config =
      dir.write("template.yaml",
                "instance: templated\nscheduler: {tick_ms: 5}\nlimits: {max_message_bytes: 65536}\n"
                "rules:\n  - {name: never, patterns: [\"nothing-*\"]}\n");
  const std::string json_path = dir.file("e2e.json");
  const std::string work = dir.file("work");
  const auto r = run_cli({"bench",    "e2e",        "--daemon",  WARPWATCHD_PATH,
                          "--config", config,       "--streams", "3",
                          "--frame",  "25",         "--samples", "3000",
                          "--text",   "--patterns", "2",         "--pattern-length",
                          "30",       "--every",    "150",       "--work-dir",
                          work,       "--json",     json_path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json doc = read_json(json_path);
  ASSERT_EQ(doc.at("runs").size(), 1u);
  expect_reconciled(doc.at("runs")[0]);
  EXPECT_EQ(doc.at("runs")[0].at("generator").at("samples").get<std::uint64_t>(), 9000u);
  // The configuration it wrote, kept in --work-dir.
  const std::string text = read_text(work + "/cpu-s3-f25/warpwatchd.yaml");
  EXPECT_NE(text.find("instance: templated"), std::string::npos) << text;
  EXPECT_NE(text.find("tick_ms: 5"), std::string::npos) << text;
  EXPECT_NE(text.find("max_message_bytes: 65536"), std::string::npos) << text;
  EXPECT_EQ(text.find("never"), std::string::npos) << text;
}

// Window mode (issue 14's e2e workload): the library the daemon is given says window mode,
// the band in cells and znorm, at the threshold derived from the shapes and the noise; every
// planted occurrence comes back once as its best window, at the planted span.
TEST(BenchE2e, WindowModeReconcilesEveryPlantedOccurrence) {
  TempDir dir;
  const std::string json_path = dir.file("e2e.json");
  const std::string work = dir.file("work");
  const auto r =
      run_tiny_e2e({"--streams", "3", "--frame", "20", "--samples", "2400", "--mode", "window",
                    "--band-percent", "10", "--znorm", "--work-dir", work, "--json", json_path});
  ASSERT_EQ(r.status, 0) << r.out << r.err;
  const json doc = read_json(json_path);
  EXPECT_TRUE(doc.at("ok").get<bool>());
  EXPECT_EQ(doc.at("plan_check").get<std::string>().rfind("ok: ", 0), 0u);
  const json& options = doc.at("options");
  EXPECT_EQ(options.at("mode"), "window");
  EXPECT_EQ(options.at("band_cells").get<double>(), 4.0);
  EXPECT_TRUE(options.at("znorm").get<bool>());
  const double threshold = options.at("threshold").get<double>();
  const json& derived = options.at("window_threshold");
  EXPECT_GT(threshold, derived.at("copy").get<double>());
  EXPECT_LT(threshold, derived.at("decoy").get<double>());
  ASSERT_EQ(doc.at("runs").size(), 1u);
  expect_reconciled(doc.at("runs")[0]);
  EXPECT_EQ(doc.at("runs")[0].at("generator").at("samples").get<std::uint64_t>(), 7200u);
  // The windows it compared, and what the cpu backend's bounds pruned of them, from /metrics.
  const json& daemon = doc.at("runs")[0].at("daemon");
  EXPECT_GT(daemon.at("windows_evaluated").get<double>(), 4 * 7200 * 0.9);
  EXPECT_GT(daemon.at("windows_pruned").at("lb_kim").get<double>(), 0.0);
  EXPECT_NE(r.out.find("window mode, 4 patterns of m 40"), std::string::npos) << r.out;
  const std::string text = read_text(work + "/cpu-s3-f20/warpwatchd.yaml");
  EXPECT_NE(text.find("mode: window"), std::string::npos) << text;
  EXPECT_NE(text.find("znorm: true"), std::string::npos) << text;
  EXPECT_NE(text.find("band: 4"), std::string::npos) << text;
}

TEST(BenchE2e, WindowOptionsNeedWindowMode) {
  const auto r = run_cli({"bench", "e2e", "--daemon", WARPWATCHD_PATH, "--znorm"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("add --mode window"), std::string::npos) << r.err;
}

TEST(BenchE2e, AMissingDaemonIsAClearError) {
  const auto r = run_cli({"bench", "e2e", "--daemon", "/nonexistent/warpwatchd"});
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.err.find("no warpwatchd executable"), std::string::npos) << r.err;
}

// Rejection reasons are read from the label as they come, new ones included; the backlog
// gauges are optional.
TEST(BenchE2e, MetricsAreReadGenerically) {
  const std::string text =
      "# HELP warpwatch_ingest_rejected_total x\n# TYPE warpwatch_ingest_rejected_total counter\n"
      "warpwatch_ingest_accepted_samples_total 1200\n"
      "warpwatch_ingest_rejected_total{reason=\"malformed_frame\"} 2\n"
      "warpwatch_ingest_rejected_total{reason=\"queue_full\"} 5\n"
      "warpwatch_stream_rejected_total{stream=\"a\",reason=\"queue_full\"} 5\n"
      "warpwatch_batch_samples_total 1100\n"
      "warpwatch_events_published_total{rule=\"a\"} 3\n"
      "warpwatch_events_published_total{rule=\"b\"} 4\n"
      "warpwatch_events_dropped_total{rule=\"a\"} 1\n"
      "warpwatch_ingest_backlog_samples 100\n"
      "warpwatch_batches_total 40\n"
      "warpwatch_batch_duration_seconds_total 2.5\n"
      "warpwatch_matcher_device_seconds_total 0.75\n"
      "warpwatch_matcher_host_seconds_total{phase=\"prepare\"} 0.25\n"
      "warpwatch_matcher_host_seconds_total{phase=\"trim\"} 1.5\n"
      "warpwatch_matcher_windows_evaluated_total 900\n"
      "warpwatch_matcher_flat_windows_skipped_total 3\n"
      "warpwatch_matcher_windows_pruned_total{stage=\"lb_kim\"} 600\n"
      "warpwatch_matcher_windows_pruned_total{stage=\"abandoned\"} 20\n";
  const auto m = bench::parse_metrics(text);
  EXPECT_EQ(m.batches, 40);
  EXPECT_EQ(m.batch_seconds, 2.5);
  EXPECT_EQ(m.device_seconds, 0.75);
  EXPECT_EQ(m.host_seconds.at("prepare"), 0.25);
  EXPECT_EQ(m.host_seconds.at("trim"), 1.5);
  EXPECT_EQ(m.windows_evaluated, 900);
  EXPECT_EQ(m.flat_windows, 3);
  EXPECT_EQ(m.windows_pruned.at("lb_kim"), 600);
  EXPECT_EQ(m.windows_pruned.at("abandoned"), 20);
  EXPECT_EQ(m.accepted, 1200);
  EXPECT_EQ(m.matched, 1100);
  EXPECT_EQ(m.rejected_total, 7);
  EXPECT_EQ(m.rejected.at("queue_full"), 5);
  EXPECT_EQ(m.rejected.at("malformed_frame"), 2);
  EXPECT_EQ(m.events_published, 7);
  EXPECT_EQ(m.events_dropped, 1);
  ASSERT_TRUE(m.backlog_samples);
  EXPECT_EQ(*m.backlog_samples, 100);
  EXPECT_FALSE(m.backlog_oldest_age_s);
  EXPECT_FALSE(bench::parse_metrics("warpwatch_batch_samples_total 1\n").backlog_samples);
}

TEST(BenchE2e, Percentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const auto p = bench::percentiles(v);
  EXPECT_EQ(p.count, 100u);
  EXPECT_EQ(p.p50, 50);
  EXPECT_EQ(p.p99, 99);
  EXPECT_EQ(p.max, 100);
  EXPECT_EQ(p.mean, 50.5);
  EXPECT_EQ(bench::percentiles({}).count, 0u);
}

bench::E2eReport synthetic_report() {
  bench::E2eReport report;
  report.options.streams = {10, 100};
  report.options.backends = {"cpu", "cuda"};
  for (const std::string backend : {"cpu", "cuda"})
    for (const std::size_t streams : {std::size_t{10}, std::size_t{100}}) {
      bench::E2eRun run;
      run.backend = backend;
      run.streams = streams;
      run.frame = 100;
      run.sustained_samples_per_s = 1e6 * static_cast<double>(streams);
      run.latency_ms.p99 = 3.0;
      report.runs.push_back(run);
    }
  return report;
}

TEST(BenchE2e, PlotIsAPng) {
  if (!gnuplot_installed())
    GTEST_SKIP() << "gnuplot is not installed (Debian package gnuplot-nox; make bench-deps)";
  TempDir dir;
  const std::string png = dir.file("e2e.png");
  bench::write_e2e_plot(synthetic_report(), png);
  std::ifstream in(png, std::ios::binary);
  char magic[4] = {};
  in.read(magic, 4);
  EXPECT_EQ(std::string(magic + 1, 3), "PNG");
}

// A sweep measured where gnuplot is missing is plotted elsewhere from its JSON: what the
// plot draws comes back as it was written.
TEST(BenchE2e, ReportForThePlotReadsBackFromItsJson) {
  bench::E2eReport written = synthetic_report();
  written.options.frames = {10, 100};
  written.options.patterns = 64;
  written.options.pattern_length = 128;
  written.runs[1].error = "the daemon did not start";
  const bench::E2eReport read = bench::e2e_report_from_json(bench::e2e_json(written));
  EXPECT_EQ(read.options.frames, written.options.frames);
  EXPECT_EQ(read.options.patterns, 64u);
  EXPECT_EQ(read.options.pattern_length, 128u);
  ASSERT_EQ(read.runs.size(), written.runs.size());
  for (std::size_t i = 0; i < read.runs.size(); ++i) {
    EXPECT_EQ(read.runs[i].backend, written.runs[i].backend);
    EXPECT_EQ(read.runs[i].streams, written.runs[i].streams);
    EXPECT_EQ(read.runs[i].frame, written.runs[i].frame);
    EXPECT_EQ(read.runs[i].error, written.runs[i].error);
    if (i == 1) continue;
    EXPECT_EQ(read.runs[i].sustained_samples_per_s, written.runs[i].sustained_samples_per_s);
    EXPECT_EQ(read.runs[i].latency_ms.p99, written.runs[i].latency_ms.p99);
  }
  EXPECT_THROW(bench::e2e_report_from_json("{\"runs\": []}"), std::runtime_error);
  EXPECT_THROW(bench::e2e_report_from_json("not json"), std::runtime_error);
}

TEST(BenchE2e, ReplotNeedsAPlotPath) {
  TempDir dir;
  const std::string json = dir.file("e2e.json");
  std::ofstream(json) << bench::e2e_json(synthetic_report());
  const auto r = run_cli({"bench", "e2e", "--replot", json});
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("--replot needs --plot"), std::string::npos) << r.err;
}

TEST(BenchE2e, PlotWithoutGnuplotNamesThePackage) {
  TempDir dir;
  try {
    bench::write_e2e_plot(synthetic_report(), dir.file("e2e.png"), "warpwatch-no-such-gnuplot");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("gnuplot-nox"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("e2e.png")));
}

}  // namespace
