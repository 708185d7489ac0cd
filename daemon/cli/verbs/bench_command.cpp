// `warpwatch bench`: measure a backend's throughput (see bench.hpp) and print a table.
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "warpwatch/bench/bench.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::cli {
namespace {

CLI::App* add_bench_e2e_command(CLI::App& bench, BenchE2eCommand& cmd) {
  auto* sub = bench.add_subcommand(
      "e2e",
      "run warpwatchd on loopback, drive it with the load generator, reconcile what it "
      "reports, and measure samples/s, detection latency, CPU and memory");
  bench::E2eOptions& o = cmd.options;
  sub->add_option("--daemon", o.daemon,
                  "the warpwatchd executable (default: the one beside this warpwatch)");
  sub->add_option("--config", o.config_template,
                  "a daemon configuration to start from (e.g. with limits.*); the bench writes "
                  "its endpoints, backend, streams.auto_create, metrics.listen and its pattern "
                  "library over it and drops its rules")
      ->check(CLI::ExistingFile);
  sub->add_option("--streams", o.streams, "stream counts, a run each")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--frame", o.frames, "samples per message, a run each")
      ->delimiter(',')
      ->capture_default_str();
  sub->add_option("--backend", o.backends,
                  "daemon backends, a run each: cpu, cuda, reference, auto")
      ->delimiter(',')
      ->check(CLI::IsMember({"cpu", "cuda", "reference", "auto"}))
      ->capture_default_str();
  sub->add_option("--patterns", o.patterns,
                  "built-in shapes the daemon matches (and that are planted)")
      ->capture_default_str();
  sub->add_option("--pattern-length", o.pattern_length, "their length m")->capture_default_str();
  add_choice(*sub, "--mode", o.mode, {kernels::Mode::stream, kernels::Mode::window},
             "the library's mode: stream (SPRING, threshold 4) or window (windows of m samples "
             "ending at every sample; the threshold is derived from the shapes and the noise)");
  sub->add_option("--band-percent", o.band_percent,
                  "window mode: Sakoe-Chiba band of this % of m, in cells (default: none)");
  sub->add_flag("--znorm", o.znorm, "window mode: z-normalize each window and the patterns");
  sub->add_option("--rate", o.rate, "samples/s per stream; 0 = as fast as possible")
      ->capture_default_str();
  sub->add_option("--duration-s", o.duration_s, "how long the generator sends, per run")
      ->capture_default_str();
  sub->add_option("--samples", o.samples,
                  "also stop each stream after this many samples (0 = duration only)")
      ->capture_default_str();
  sub->add_option("--every", o.every, "an occurrence every this many samples per stream")
      ->capture_default_str();
  sub->add_option("--jitter", o.jitter,
                  "occurrences move later by 0..J samples (default: (every - m - 1) / 4)");
  sub->add_option("--noise", o.noise, "noise amplitude (at most sqrt(1/m) is used)")
      ->capture_default_str();
  sub->add_option("--seed", o.seed, "seed of the shapes, noise and plan")->capture_default_str();
  sub->add_flag("--text", cmd.text, "send text lines instead of binary frames");
  sub->add_flag("--explicit-timestamps", cmd.explicit_timestamps,
                "binary frames with one timestamp per sample");
  sub->add_option("--hwm", o.send_hwm, "the generator's PUSH high-water mark (messages)")
      ->capture_default_str();
  sub->add_option("--tick-ms", o.tick_ms, "the daemon's scheduler.tick_ms");
  sub->add_option("--batch-samples", o.batch_samples, "the daemon's scheduler.batch_samples");
  sub->add_option("--threads", o.daemon_threads, "the daemon's cpu_threads");
  sub->add_option("--drain-grace-ms", o.drain_grace_ms,
                  "the daemon's shutdown.drain_grace_ms (default 60000)");
  sub->add_option("--settle-timeout-s", o.settle_timeout_s,
                  "after sending, how long to wait for every sample to be accounted for")
      ->capture_default_str();
  sub->add_option("--exit-timeout-s", o.exit_timeout_s,
                  "after SIGTERM, how long to wait for the daemon to exit (then SIGKILL)")
      ->capture_default_str();
  sub->add_option("--api-poll-hz", o.api_poll_hz,
                  "while sending: GET /api/v1/events?limit=100 and the newest event's plot.svg "
                  "this many times a second, each answer timed (p50/p99 on stderr); 0 = off")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--api-put-at", o.api_put_at_s,
                  "SECONDS after sending starts: PUT a library change over the API (If-Match "
                  "from a GET; state.dir is set): its latency, the rounds until it applied, "
                  "the events before and after it and the counters reconciled across it")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--api-put-change", o.api_put,
                  "what --api-put-at changes: threshold (shape1's, 1% up), pattern (a new "
                  "one, bench-put, with shape0's values) or both")
      ->check(CLI::IsMember({"threshold", "pattern", "both"}))
      ->capture_default_str();
  sub->add_option("--scrape-s", o.scrape_interval_s,
                  "interval of the /metrics and /proc readings kept in the JSON, seconds")
      ->capture_default_str();
  sub->add_flag("--overload", o.overload,
                "SIGTERM as soon as the generator stops (no waiting for the backlog); lost "
                "samples and occurrences are reported, not failures");
  sub->add_flag("--no-plan-check{false}", o.check_plan,
                "skip checking the planted data with the reference first");
  sub->add_option("--work-dir", o.work_dir,
                  "keep each run's configuration and daemon log here (default: a temp dir, "
                  "removed)");
  sub->add_option("--json", cmd.json_path, "write every run as JSON here");
  sub->add_option("--plot", cmd.plot_path,
                  "draw samples/s and p99 latency against streams as PNG here (gnuplot)");
  sub->add_option("--replot", cmd.replot_path,
                  "run nothing: draw --plot from this earlier --json report (a sweep run on a "
                  "machine without gnuplot)")
      ->check(CLI::ExistingFile);
  return sub;
}

}  // namespace

int run_bench_e2e(const BenchE2eCommand& cmd, std::ostream& out, std::ostream& err) {
  if (!cmd.replot_path.empty()) {
    if (cmd.plot_path.empty()) throw std::runtime_error("--replot needs --plot PNG");
    std::ifstream in(cmd.replot_path);
    std::stringstream text;
    text << in.rdbuf();
    if (!in) throw std::runtime_error("cannot read " + cmd.replot_path);
    bench::write_e2e_plot(bench::e2e_report_from_json(text.str()), cmd.plot_path);
    out << "plot: " << cmd.plot_path << "\n";
    return 0;
  }
  bench::E2eOptions o = cmd.options;
  if (cmd.text && cmd.explicit_timestamps)
    throw std::runtime_error("--text and --explicit-timestamps exclude each other");
  o.encoding = cmd.text                  ? bench::LoadEncoding::text
               : cmd.explicit_timestamps ? bench::LoadEncoding::binary_explicit
                                         : bench::LoadEncoding::binary;
  if (o.daemon.empty()) {
    o.daemon = bench::daemon_beside_self();
    if (o.daemon.empty())
      throw std::runtime_error("no warpwatchd beside this warpwatch: name one with --daemon");
  }
  std::ofstream json;  // opened first: a bad path should fail before minutes of measuring
  if (!cmd.json_path.empty()) {
    json.open(cmd.json_path);
    if (!json) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  const bench::E2eReport report = bench::run_e2e(o, err);
  bench::print_e2e_table(report, out);
  if (json.is_open()) {
    json << bench::e2e_json(report);
    if (!json.flush()) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  int status = report.ok() ? 0 : 1;
  if (!report.ok())
    err << "warpwatch bench e2e: a run failed or did not reconcile (see the table)\n";
  if (!cmd.plot_path.empty()) {
    try {
      bench::write_e2e_plot(report, cmd.plot_path);
      out << "plot: " << cmd.plot_path << "\n";
    } catch (const std::exception& e) {
      err << "warpwatch bench e2e: " << e.what() << "\n";
      status = 1;
    }
  }
  return status;
}

CLI::App* add_bench_command(CLI::App& app, BenchCommand& cmd) {
  auto* sub = app.add_subcommand("bench",
                                 "measure a backend's throughput in DP cells/s, next to the "
                                 "reference and the machine's ceiling");
  std::vector<std::string> names(std::begin(bench::case_names), std::end(bench::case_names));
  add_backend_option(*sub, cmd.backend);
  add_devices_option(*sub, cmd.options.devices);
  sub->add_option(
         "--case", cmd.options.cases,
         "cases to run, repeatable or comma-separated: stream_dtw, whole_dtw, twed_allpairs, "
         "twed_long, threads (cpu), stream_matrix, window_search (default: all of the "
         "backend's but stream_matrix and window_search)")
      ->delimiter(',')
      ->check(CLI::IsMember(names));
  sub->add_option("--threads", cmd.options.threads,
                  "cpu worker threads (default: all " +
                      std::to_string(std::thread::hardware_concurrency()) + " hardware threads)");
  sub->add_option("--repeat", cmd.options.repeat, "timed runs per row, after one warm-up run")
      ->capture_default_str();
  sub->add_flag("--quick", cmd.options.quick, "every default size ~100x smaller (CI, smoke tests)");
  sub->add_flag("--no-reference{false}", cmd.options.reference,
                "skip measuring the reference on a subset of each case");
  sub->add_option("--json", cmd.json_path,
                  "also write the rows and the machine as JSON to this file");
  sub->add_option("--seed", cmd.options.seed, "seed of the random-walk data")
      ->capture_default_str();
  sub->add_option(
      "--pairs", cmd.options.pairs,
      "stream_dtw: (stream, pattern) pairs (cpu 1024, cuda 16384); stream_matrix: only this "
      "many");
  sub->add_option("--patterns", cmd.options.patterns,
                  "stream_dtw: patterns; streams = pairs / patterns (16)");
  sub->add_option("--m", cmd.options.m,
                  "stream_dtw: pattern length (256); stream_matrix, window_search: only this "
                  "length");
  sub->add_option("--chunk", cmd.options.chunks,
                  "stream_dtw: samples per stream per batch, a row each (cpu 512, cuda 512,8)")
      ->delimiter(',');
  sub->add_option("--batches", cmd.options.batches,
                  "stream_dtw: timed batches after 2 warm-up batches (20); stream_matrix: at "
                  "most this many (1000)");
  sub->add_option("--dims", cmd.options.dims, "stream_matrix: sample dimensions, a row each (1,3)")
      ->delimiter(',');
  sub->add_option("--matches", cmd.options.matches,
                  "stream_matrix, window_search: none (random walks) or dense (ECG beats); "
                  "default both")
      ->check(CLI::IsMember({"none", "dense"}));
  sub->add_option("--search", cmd.options.search,
                  "window_search: top (top-1) or threshold (every window under the 10th best); "
                  "default both")
      ->check(CLI::IsMember({"top", "threshold"}));
  sub->add_option("--query", cmd.options.query,
                  "window_search, random walks: series (the query is the series' middle m "
                  "samples, the UCR Suite's setup), unrelated (a walk of its own) or both "
                  "(default series)")
      ->check(CLI::IsMember({"series", "unrelated", "both"}));
  add_choice(*sub, "--metric", cmd.options.metric, {kernels::Metric::dtw, kernels::Metric::ed},
             "window_search: the query's measure (ed: no band rows)");
  sub->add_option("--data", cmd.options.data_dir,
                  "stream_matrix: the folder of ECG200_TRAIN.tsv and ECG200_TEST.tsv (default "
                  "$WARPWATCH_DATA_DIR, else the source tree's ../shared/data)");
  sub->add_option(
      "--series", cmd.options.series,
      "whole_dtw: N series (cpu 10^4, cuda 10^6); twed_allpairs: N x N (cpu 256, cuda 1024)");
  sub->add_option("--length", cmd.options.lengths,
                  "whole_dtw, twed_allpairs, twed_long: series length L, a row each (whole_dtw cpu "
                  "256, cuda "
                  "1023,1000,1500; twed_allpairs 256; twed_long cpu 16384, cuda 65536); "
                  "window_search: the series' length (10^6)")
      ->delimiter(',');
  cmd.e2e_app = add_bench_e2e_command(*sub, cmd.e2e);
  return sub;
}

int run_bench(const BenchCommand& cmd, std::ostream& out, std::ostream& err) {
  if (cmd.e2e_app && cmd.e2e_app->parsed()) return run_bench_e2e(cmd.e2e, out, err);
  bench::Options options = cmd.options;
  options.backend = resolve_cli_backend(cmd.backend, err);

  std::ofstream json;  // opened first: a bad path should fail before minutes of measuring
  if (!cmd.json_path.empty()) {
    json.open(cmd.json_path);
    if (!json) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  bench::Report report;
  try {
    report = bench::run(options, err);
  } catch (...) {
    if (json.is_open()) {  // leave no empty file behind
      json.close();
      std::filesystem::remove(cmd.json_path);
    }
    throw;
  }
  bench::print_table(report, out);
  if (json.is_open()) {
    json << bench::to_json(report);
    if (!json.flush()) throw std::runtime_error("cannot write " + cmd.json_path);
  }
  if (const std::size_t failed = report.failed()) {
    err << "warpwatch bench: " << failed << " of " << report.rows.size()
        << " case(s) could not run on the " << report.backend << " backend\n";
    return 1;
  }
  return 0;
}

}  // namespace warpwatch::cli
