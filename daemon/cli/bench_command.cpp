// `warpwatch bench`: measure a backend's throughput (see bench.hpp) and print a table.
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "warpwatch/bench/bench.hpp"
#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::cli {

CLI::App* add_bench_command(CLI::App& app, BenchCommand& cmd) {
  auto* sub = app.add_subcommand("bench",
                                 "measure a backend's throughput in DP cells/s, next to the "
                                 "reference and the machine's ceiling");
  std::vector<std::string> names(std::begin(bench::case_names), std::end(bench::case_names));
  add_backend_option(*sub, cmd.backend);
  sub->add_option(
         "--case", cmd.options.cases,
         "cases to run, repeatable or comma-separated: stream_dtw, whole_dtw, twed_allpairs, "
         "twed_long, threads (cpu) (default: all of the backend's)")
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
  sub->add_option("--pairs", cmd.options.pairs,
                  "stream_dtw: (stream, pattern) pairs (cpu 1024, cuda 16384)");
  sub->add_option("--patterns", cmd.options.patterns,
                  "stream_dtw: patterns; streams = pairs / patterns (16)");
  sub->add_option("--m", cmd.options.m, "stream_dtw: pattern length (256)");
  sub->add_option("--chunk", cmd.options.chunks,
                  "stream_dtw: samples per stream per batch, a row each (cpu 512, cuda 512,8)")
      ->delimiter(',');
  sub->add_option("--batches", cmd.options.batches,
                  "stream_dtw: timed batches after 2 warm-up batches (20)");
  sub->add_option(
      "--series", cmd.options.series,
      "whole_dtw: N series (cpu 10^4, cuda 10^6); twed_allpairs: N x N (cpu 256, cuda 1024)");
  sub->add_option("--length", cmd.options.lengths,
                  "whole_dtw, twed_allpairs, twed_long: series length L, a row each (whole_dtw cpu "
                  "256, cuda "
                  "1023,1000,1500; twed_allpairs 256; twed_long cpu 16384, cuda 65536)")
      ->delimiter(',');
  return sub;
}

int run_bench(const BenchCommand& cmd, std::ostream& out, std::ostream& err) {
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
