// `warpwatch bench`: the throughput of a matching backend in DP cell updates per second
// (cells/s) on fixed workloads, next to the scalar reference and to the machine's
// ceiling, all three measured in the same run. Every number reported comes from a
// measurement of this run: a case the backend cannot run is reported as an error, never
// estimated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpwatch/kernels/backends.hpp"

namespace warpwatch::bench {

// The cases, by --case name:
//   stream_dtw     stream-mode dtw (SPRING): S streams x Q patterns of length m, fed
//                  batches of `chunk` random-walk samples per stream; a run is one batch
//   whole_dtw      whole-series dtw of one query against N series, all of length L
//   twed_allpairs  twed of all N x N pairs of N series of length L (nu 0.001, lambda 1)
//   twed_long      twed of one pair of series of length L
//   threads        (cpu) stream_dtw on one thread and on all threads, and the speed-up
//   stream_matrix  stream mode in the shapes users run: pairs {1, 64, 16384} x chunk {1, 8,
//                  64, 512, 65536} x m {64, 256, 1024} x matches {none: random walks,
//                  dense: ECG200 beats about every 150 samples} x d {1, 3}; rows whose
//                  batches would exceed the backend's budget are listed as trimmed
//   window_search  one z-normalized dtw (or, --metric ed, ed) query against every window of
//                  a series of 10^6 samples: m {128, 1023} x band {none, 5%; ed: none} x
//                  top-1 / every window under the 10th best's distance x {random walk,
//                  ECG}; effective cells (every window's m x m; ed: m) per second and the
//                  windows pruned by stage
inline constexpr std::string_view case_names[] = {"stream_dtw",   "whole_dtw", "twed_allpairs",
                                                  "twed_long",    "threads",   "stream_matrix",
                                                  "window_search"};

struct Options {
  kernels::Backend backend = kernels::Backend::cpu;  // reference, cpu or cuda (not auto)
  std::vector<std::string> cases;                    // empty: every case of the backend
  unsigned threads = 0;    // cpu worker threads; 0 = std::thread::hardware_concurrency
  std::size_t repeat = 5;  // timed runs per row after one warm-up run (not stream_dtw)
  bool quick = false;      // every default size ~100x smaller: CI and tests
  bool reference = true;   // also measure the reference on a subset of each case
  std::uint64_t seed = 1;  // of the random-walk data
  // Sizes: each overrides the default of every selected case that has the dimension.
  std::optional<std::size_t> pairs;     // stream_dtw: (stream, pattern) pairs
  std::optional<std::size_t> patterns;  // stream_dtw: patterns; streams = pairs / patterns
  std::optional<std::size_t> m;         // stream_dtw: pattern length
  std::optional<std::size_t> batches;   // stream_dtw: timed batches (after 2 warm-up ones)
  std::optional<std::size_t> series;    // whole_dtw: N; twed_allpairs: N (N x N pairs)
  std::vector<std::size_t> chunks;      // stream_dtw: samples per stream per batch; a row each
  std::vector<std::size_t> lengths;     // whole_dtw, twed_allpairs, twed_long: L; a row each
  // stream_matrix: each given axis keeps only these values (pairs, m and chunks above, too).
  std::vector<std::size_t> dims;  // sample dimensions
  std::string matches;            // "none" or "dense"; empty: both
  std::string search;             // window_search: "top" or "threshold"; empty: both
  std::string query;              // window_search, walks: "series" (default), "unrelated", "both"
  std::string data_dir;           // ECG200's folder (dense rows); empty: default_data_dir()
  kernels::Metric metric = kernels::Metric::dtw;  // window_search: dtw or ed
  // cuda: the devices stream_dtw, stream_matrix, whole_dtw, twed_* run on (empty: every
  // usable one; window_search runs on device 0), for the scaling table (1 device vs 2).
  std::vector<int> devices{};
};

// One workload measured once on one backend.
// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double median_of(std::vector<double> values);

struct Measurement {
  std::string shape;  // e.g. "64 streams x 16 patterns, m 256, chunk 512"
  std::vector<std::pair<std::string, std::uint64_t>> dims;  // the shape's numbers by name
  std::uint64_t cells_per_run = 0;                          // DP cell updates of one timed run
  std::vector<double> seconds;                              // wall time of each timed run
  std::vector<std::pair<std::string, double>> extra;        // e.g. state_bytes_per_s, matches

  std::uint64_t runs() const { return seconds.size(); }
  std::uint64_t cells() const { return cells_per_run * runs(); }  // all timed runs
  double median_s() const;
  double min_s() const;
  double max_s() const;
  double cells_per_s() const;  // cells_per_run / median_s
};

struct Row {
  std::string case_name;
  std::string backend;
  unsigned threads = 0;  // cpu worker threads; 1 for the reference; 0 = not applicable (cuda)
  std::string shape;     // of the case, also when it failed
  std::string error;     // non-empty: the backend could not run the case; nothing measured
  std::string trimmed;   // non-empty: not run, and why (stream_matrix rows over the budget)
  Measurement result;
  std::optional<Measurement> reference;  // the reference backend on a subset of the case
  std::string reference_error;
  std::optional<double> ceiling_cells_per_s;  // the machine's peak for this work; none = n/a
  std::string ceiling_note;                   // why there is no ceiling
  std::string auto_picks;  // stream_matrix: the backend `auto` resolves to for this row's pairs
                           // here (kernels/backends.hpp), with --threads as the cpu's threads

  std::optional<double> ratio() const;  // cells/s over the reference's cells/s
};

struct Report {
  std::string date;       // UTC, ISO 8601
  std::string cpu_model;  // from /proc/cpuinfo
  unsigned hardware_threads = 0;
  std::string os, hostname;
  std::string cuda;            // cuda_status(): device, or why none is usable
  std::vector<int> devices{};  // cuda: the devices used (JSON: devices, device_count)
  std::string backend;         // the backend benchmarked
  std::string simd_target;     // what the cpu backend's SIMD kernels dispatch to here
  unsigned threads = 0;        // cpu worker threads used
  bool quick = false;
  std::size_t repeat = 0;
  std::uint64_t seed = 0;
  // The calibration loop: simple float32 operations per second, on `threads` threads and
  // on one (absent when no row needed it).
  std::optional<double> float_ops_per_s, float_ops_per_s_1_thread;
  // cuda: the device's measured float32 add+min ops/s (behind its ceiling column), its
  // measured add-only rate, and the nominal SMs x FP32 lanes x clock.
  std::optional<double> device_float_ops_per_s, device_add_ops_per_s,
      device_nominal_float_ops_per_s;
  std::vector<Row> rows;
  // The memory bound's bandwidth: bytes read + written per second by a large copy (host
  // memory on `threads` threads for cpu; device memory for cuda); absent when no row needed it.
  std::optional<double> copy_bytes_per_s;
  // Conditions that make the numbers lower than the machine can do (e.g. other work on
  // the CPU), said next to them rather than silently folded in.
  std::vector<std::string> warnings;

  std::size_t failed() const;  // rows whose case could not run
};

// Simple float operations one DP cell update costs (docs/architecture.md: dtw 4; twed 10); the
// ceiling in cells/s is the calibrated float ops/s divided by this.
inline constexpr double dtw_ops_per_cell = 4.0;
// With d components a cell's cost adds d - 1 terms of 3 operations (subtract, square, add).
inline double stream_ops_per_cell(std::size_t dims) {
  return dtw_ops_per_cell + 3.0 * static_cast<double>(dims - 1);
}
inline constexpr double twed_ops_per_cell = 10.0;

// Runs the selected cases, logging progress to `log`. Throws std::invalid_argument on bad
// options (unknown case, zero sizes) and std::runtime_error when the backend cannot run on
// this machine at all (e.g. cuda without a usable device).
Report run(const Options& options, std::ostream& log);

// The aligned table, an error line for each failed case, and notes on the columns.
void print_table(const Report& report, std::ostream& out);

// The report as a JSON document: the machine, date, backend, SIMD target and thread count
// at the top level, and "rows", one object per table row.
std::string to_json(const Report& report);

}  // namespace warpwatch::bench
