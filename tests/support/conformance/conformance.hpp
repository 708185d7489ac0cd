// The conformance suite of a fast backend: scenario runners that drive a backend and the
// scalar reference (reference.hpp, the oracle) through the same inputs and compare what
// they return. Backend-agnostic: a backend is a Matcher factory plus a distance-matrix
// function, so the CPU suite (test_cpu_backend.cpp) and the CUDA suite run the same
// scenarios with their own factories.
//
// What must hold (docs/spec.md §3.1, 3.2, 4):
// - stream mode (dtw, dk): exactly the reference's matches, distances bit-identical
//   (RawMatch::operator==);
// - window mode and whole-series distances: the same windows; distances within 1e-5 of
//   the float64 reference relative to max(1, |reference|) (an absolute 1e-5 near zero);
//   +inf exactly where the reference has +inf;
// - every match comes back from the process() call whose chunk holds the sample that
//   completes it (the reference, fed one sample per batch, tells which sample that is),
//   or from the same flush()/remove_*() call as the reference's;
// - process(), flush() and remove_*() return matches ordered by stream, pattern, end index;
// - every chunking of the input (one sample per batch, random uneven chunks per stream with
//   empty and missing chunks and empty batches, large chunks, one big batch, and random
//   chunks pipelined with submit()/collect(), two batches outstanding) is compared with
//   the reference;
// - the backends of one list (one backend at several thread counts) return bit-identical
//   results for the same inputs and the same chunking.
//
// Window-mode inputs are chosen so that float32 rounding cannot flip a decision: each
// pattern's threshold lies in a gap of its reference window distances (more than 1e-3
// relative from every one), and a pattern is re-drawn while two qualifying windows that
// the exclusion zone compares are within 1e-4 of each other.
//
// Each runner calls test_seed() (printed; WARPWATCH_SEED replays a failure).
//
// The suite is one compiled library (warpwatch_test_support); this header is its whole
// interface (namespace warpwatch::testing::conformance):
//   conformance.hpp    this file: Backend/Backends, named tolerances, small helpers, the
//                      scenario options and runners
//   inputs.hpp/.cpp    inputs: random walks with planted noisy copies, pattern makers
//   workload.hpp       workloads (a script of Matcher calls), chunkings, comparisons with
//                      the reference, check_workload
//   stream.cpp         scenario 1, stream mode (StreamScenario)
//   many_pairs.cpp     scenario 2, many pairs
//   hot_changes.cpp    scenario 3, hot changes
//   window.hpp/.cpp    window-mode thresholds (calibrate_window_thresholds), scenario 4
//   distance.cpp       scenario 5, whole-series distance matrices
//   agree.cpp          scenario 6, backends agree bit for bit
//   softdtw_grad.cpp   scenario 7, softdtw's gradient matrices
//   snapshot.cpp       scenario 8, streams exported and imported into a fresh matcher
//   measures.cpp       scenario 9, msm, erp and lcss: lengths, UCR data, top-K windows
// The .hpp files other than this one are the library's own.
//
// Use from a backend's suite (see kernels/cpu/test_cpu_backend.cpp):
//   #include "conformance/conformance.hpp"
//   const Backends b{{"cuda", [] { return make_cuda_matcher(); },
//                     [](auto a, auto bb, const auto& p, auto out) { cuda_distance_matrix(a, bb, p,
//                     out); }}};
//   TEST(CudaStream, SmallPatterns) { StreamScenario sc; sc.ms = {2, 31, 32, 33};
//   run_stream_scenario(b, sc); }
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "matching/matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/series.hpp"
#include "warpwatch/kernels/top_windows.hpp"

namespace warpwatch::testing::conformance {

using kernels::Cost;
using kernels::DistanceParams;
using kernels::Matcher;
using kernels::Metric;
using kernels::Mode;
using kernels::Normalize;
using kernels::PatternDef;
using kernels::RawMatch;
using kernels::SeriesView;
using kernels::StreamChunk;

// =================================================================================
// Backends under test.

using MatcherFactory = std::function<std::unique_ptr<Matcher>()>;
// out[i * b.size() + j] = distance(a[i], b[j]); throws std::invalid_argument on bad input.
using DistanceMatrixFn =
    std::function<void(std::span<const SeriesView> a, std::span<const SeriesView> b,
                       const DistanceParams& params, std::span<double> out)>;

struct Backend {
  std::string name;  // in failure messages, e.g. "cpu threads=2"
  MatcherFactory make_matcher;
  DistanceMatrixFn distance_matrix;
};
// Every backend of a list is compared with the reference, and all of them with the first
// one bit for bit (pass one backend when there is nothing to compare them with).
using Backends = std::vector<Backend>;

// =================================================================================
// Tolerances and constants.

inline constexpr double kRel = 1e-5;  // window mode, whole series: relative to max(1, |want|)
inline constexpr double kGap = 1e-3;  // window thresholds: this far (relative) from every distance
inline constexpr double kTie = 1e-4;  // compared qualifying windows closer than this: re-draw
inline constexpr std::int64_t kSecond = 1'000'000'000;
inline constexpr std::int64_t kEpochNs = 1'700'000'000'000'000'000;  // late 2023

inline double magnitude(double x) {
  return std::max(1.0, std::abs(x));
}

// A fast backend's whole-series distance against the reference's (docs/spec.md §3.2, 4).
inline bool within_tolerance(double got, double want) {
  if (std::isnan(got) || std::isnan(want)) return false;
  if (std::isinf(want) || std::isinf(got)) return got == want;
  return std::abs(got - want) <= kRel * magnitude(want);
}

inline std::string format_double(double x) {
  std::ostringstream os;
  os.precision(17);
  os << x;
  return os.str();
}

// Concatenates the arguments as an ostream prints them (for ids and messages: GCC 12 at -O3
// warns falsely, -Wrestrict, about "literal" + std::string chains).
template <class... Args>
std::string cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// =================================================================================
// Chunkings: how a workload's samples are cut into batches.

// pipelined: small_random's batches, each submitted before the one before it is collected
// (Matcher::submit/collect, as the daemon runs them under load).
enum class Chunking { one_sample, small_random, large_random, one_big, pipelined };

std::string to_string(Chunking c);
const std::vector<Chunking>& all_chunkings();

// $WARPWATCH_TEST_SHRINK (an integer from 1 to 64; 1 when unset): how much smaller the
// conformance scenarios run, for compute-sanitizer (tests/kernels/cuda/compute_sanitizer.sh),
// under which a kernel is 10-100x slower. Above 1, dense streams and soft-DTW gradient series
// are that many times shorter, and check_workload leaves out the one-sample and small-random
// chunkings (one launch a sample or a few: the same kernels as the larger chunks, and most
// of the time under a tool); the pipelined chunking stays. Patterns keep their lengths, so
// every kernel family and tile shape still runs. Throws std::invalid_argument on a bad value.
std::size_t test_shrink();
std::vector<Chunking> chunkings_to_run(const std::vector<Chunking>& chunkings);

// =================================================================================
// Scenario 1: stream mode against the reference, bit for bit (stream.cpp).

struct StreamScenario {
  std::vector<std::size_t> ms;  // pattern lengths
  std::vector<std::size_t> dims{1, 3};
  std::size_t streams_per_dims = 3;
  std::size_t min_length = 300;  // stream length before room for the copies
  std::size_t copies = 1;        // noisy copies of each pattern per stream
  bool four_variants = true;     // dtw/dk x sq/abs per m; else two (dims alternate)
  std::vector<Chunking> chunkings = all_chunkings();
  std::size_t large_chunk = 300;

  // Presets that every backend's suite runs alike.
  static StreamScenario small_patterns();  // m 2, 31, 32, 33: a lane's rows around the warp size
  static StreamScenario pattern_257();     // one row past 256, two copies a stream
  // The reference does ~3e7 cells/s: one stream of 3300 samples per dimension, two patterns
  // each (dtw/sq and dk/abs for d = 1, dtw/abs and dk/sq for d = 3).
  static StreamScenario pattern_3000();
};

void run_stream_scenario(const Backends& backends, const StreamScenario& sc);

// Stream mode on quantized data (values in {0, 1, 2, 3}, zeros of either sign): D values tie
// exactly all the time, so the tie rule of docs/spec.md §3.1 (earlier predecessor wins, start S
// follows it) decides the starts.
void run_stream_quantized_ties(const Backends& backends);

// Thresholds at the edges of the float32 comparison D <= eps of the reference (threshold
// rounded to float, clamped to FLT_MAX beyond it): exactly an attainable distance r, the
// double just below r (rounds to r), the float below r, 0 with an exact copy, a negative
// one, and thresholds beyond float range (everything qualifies, +inf never).
void run_stream_threshold_edges(const Backends& backends);

// Dense matches on long single streams (docs/spec.md §3.1's rules at every few columns): per
// dimension d, one stream of `length / d` samples where a noisy copy of each pattern starts
// every 60-200 samples (patterns of m samples; dtw/sq and dk/abs, thresholds above every
// copy's cost), and streams of real ECG200 heartbeats (bench/dense_data.hpp: a beat about
// every 150 samples, patterns of 96 samples that match most beats; d 1 and 3). Chunkings:
// one big batch, random chunks up to large_chunk, small random chunks and pipelined.
struct DenseStreamScenario {
  std::vector<std::size_t> dims{1, 3, 8};
  std::size_t m = 64;
  std::size_t length = 100'000;
  std::vector<Chunking> chunkings{Chunking::one_big, Chunking::large_random, Chunking::small_random,
                                  Chunking::pipelined};
  std::size_t large_chunk = 65'536;
};
void run_stream_dense(const Backends& backends, const DenseStreamScenario& sc);

// =================================================================================
// Scenario 2: many pairs (many_pairs.cpp).

// `n_streams` x `n_patterns` stream-mode pairs, all of dimension `dims`: short streams,
// patterns of 2..max_m samples, each a noisy copy of a stretch of one stream.
void run_many_pairs(const Backends& backends, std::size_t n_streams, std::size_t n_patterns,
                    std::size_t min_length, std::size_t max_length, std::size_t max_m,
                    std::size_t dims = 1);

// Streams and patterns of several dimensions (1..64) in one matcher, stream and window
// mode: only pairs of equal dimension exist, patterns without a stream of their dimension
// and streams without patterns are fine; a few streams x patterns of mixed modes.
void run_mixed_dims_and_modes(const Backends& backends, const std::vector<std::size_t>& stream_dims,
                              const std::vector<std::size_t>& pattern_dims, std::size_t length);

// =================================================================================
// Scenario 3: hot changes (hot_changes.cpp).

// Streams and patterns (both modes) added and removed between batches, a stream removed and
// added again under the same id (index 0 again, timestamps from the start), a pattern id
// removed and added again with other parameters; removal returns the pending candidates
// (copies are planted so that the stream-mode pairs removed have one); flush at the end.
void run_hot_changes(const Backends& backends);

// =================================================================================
// Scenario 4: window mode (window.cpp).

// One metric in window mode: patterns with w = m, w < m, w > m, hop 1..3, normalize
// none/znorm, bands (none, 0, fractional) for dtw/dk/softdtw/erp, gamma 0.1/1 for softdtw;
// twed with nu/lambda/p variations and patterns with and without times; msm's c, erp's g,
// lcss's epsilon and delta varied; streams of d = 1 and 3 with irregular timestamps and
// different nominal periods.
void run_window_scenario(const Backends& backends, Metric metric);

// znorm with exactly constant stretches (values that are not powers of two, so that a
// float32 mean is not exact): those windows are flat (std 0 < 1e-8), skipped and counted
// exactly as the reference does.
void run_window_flat_znorm(const Backends& backends);

// =================================================================================
// Scenario 5: whole-series distances (distance.cpp); inputs (inputs.cpp).

struct Series {
  std::vector<float> values;
  std::vector<double> times;  // seconds; empty: none (sample index)
  std::size_t dims = 1;
  std::size_t length() const { return values.size() / dims; }
  SeriesView view() const {
    return {values.data(), length(), dims, times.empty() ? nullptr : times.data()};
  }
};

// `length` x `dims` values: each component a random walk from N(0, 1) with N(0, step) steps.
std::vector<float> random_walk(std::mt19937_64& rng, std::size_t length, std::size_t dims,
                               float step = 0.3f);

std::vector<SeriesView> views(const std::vector<Series>& s);

// The matrix of every backend against reference::distance (within tolerance, +inf where it
// has +inf), and the backends with each other bit for bit.
void check_distance_matrix(const Backends& backends, const std::vector<Series>& a,
                           const std::vector<Series>& b, const DistanceParams& params,
                           const std::string& what);

// |A| x |B| with unequal lengths (1..300) inside A and inside B, d = 1 and 3, for one
// metric: dtw/dk with band none/0/3.5 and cost sq/abs; softdtw also with gamma 0.1/1;
// twed with nu/lambda/p variations, with and without timestamps; msm with c 0..5; erp with
// band none/0/3.5, cost sq/abs, g 0/0.7; lcss with epsilon 0.1..1 and delta none/0/5.
void run_distance_scenario(const Backends& backends, Metric metric, std::size_t na = 5,
                           std::size_t nb = 4, std::size_t max_length = 300);

// twed with timestamps far from 0 (seconds since the epoch, as a CSV time column gives
// them): only differences of times enter docs/spec.md §4.3, and the result must still be within
// tolerance (float32 times of that size would be off by minutes).
void run_distance_twed_large_time_origin(const Backends& backends);

// Empty sets give an empty matrix; mismatched dimensions, an empty series, a wrong output
// size and invalid parameters throw std::invalid_argument.
void run_distance_edge_cases(const Backend& backend);

// =================================================================================
// Scenario 6 (agree.cpp): several backends (thread counts) agree bit for bit on larger work,
// without the reference. (Every scenario above also compares them on its own inputs.)
void run_backends_agree(const Backends& backends);

// =================================================================================
// Scenario 7 (softdtw_grad.cpp): softdtw's gradient with respect to A (docs/spec.md §4.2), the
// layout of backends.hpp's softdtw_grad_matrix, against reference::softdtw_grad.

// out: every pair's gradient, pairs in (i, j) order; throws std::invalid_argument on bad input.
using SoftDtwGradFn =
    std::function<void(std::span<const SeriesView> a, std::span<const SeriesView> b,
                       const DistanceParams& params, std::span<double> out)>;
struct GradBackend {
  std::string name;
  SoftDtwGradFn grad;
};
// Compared with the reference, and all with the first one bit for bit.
using GradBackends = std::vector<GradBackend>;

// backends.hpp's softdtw_grad_matrix on `backend` with `options` (a cuda backend's timings).
GradBackend dispatched_grad(kernels::Backend backend, kernels::BackendOptions options = {});

// A gradient component against the reference's: within kGradRel of the pair's largest
// |component| (the backward pass sums terms of both signs, so a component near 0 is only
// as exact as the pair's scale), exactly 0 where the reference's is (no path in the band).
inline constexpr double kGradRel = 1e-9;

// Every backend's gradients against the reference's (as above), and with each other bit for
// bit. Returns the largest error seen, relative to its pair's scale (for the suites to print).
double check_softdtw_grad(const GradBackends& backends, const std::vector<Series>& a,
                          const std::vector<Series>& b, const DistanceParams& params,
                          const std::string& what);

// |A| x |B| with A of lengths 1..max_length (1 and max_length among them) and B of a few
// lengths repeated (SIMD lanes of one length filled, a partial group, a group of one),
// d = 1 and 3, cost sq/abs, gamma 0.01/0.1/1/10, band none/0/3.5/20 (0 on unequal lengths
// leaves most pairs without a path).
void run_softdtw_grad_scenario(const GradBackends& backends, std::size_t na = 4,
                               std::size_t nb = 13, std::size_t max_length = 200);

// Empty sets give an empty output; a metric other than softdtw, invalid params, mismatched
// dimensions, an empty series and a wrong output size throw std::invalid_argument.
void run_softdtw_grad_edge_cases(const GradBackend& backend);

// =================================================================================
// Scenario 8 (snapshot.cpp): a restart. Random walks with dense noisy copies of stream- and
// window-mode patterns (d 1 and 2, dtw/dk, znorm, hop > 1), fed in random chunks; at a random
// cut, while copies planted across it are in progress, every stream is exported
// (Matcher::export_stream), a fresh matcher is given the same patterns but one changed, and
// the snapshots are imported (one over a stream it already has). The matches before the cut
// and after it equal, exactly, those of one uninterrupted matcher of the same backend and
// chunking, in which the changed pattern is replaced at the cut (its pairs start fresh; the
// old one's pending candidates are not reported); the copies across the cut are reported,
// once, at their indices. Each backend of the list on its own.
void run_snapshot_restore(const Backends& backends);

// =================================================================================
// Scenario 9 (measures.cpp): the measures of the shared cells (msm, erp, lcss;
// common/measure_cells.hpp), a few parameter sets each, against the reference (within
// kRel; lcss exactly, its matches are decided in float64 everywhere).

// A of one series of each length 1, 2, 31, 32, 33, 257 and B of several of each (17 of 32:
// a full SIMD group and then some), d = 1 and 3.
// The measures computed by their cells (kernels/measures.hpp, kernel `cells`), in list
// order: the backends' measure suites are parameterized over them, so that a new one is
// tested by every backend with nothing but its parameter sets below.
std::vector<Metric> cell_metrics();
// A test name for a Metric parameter ("msm").
std::string metric_param_name(const ::testing::TestParamInfo<Metric>& info);
// The parameter sets a cell measure is checked with (docs/spec.md §4.4-4.6): its own
// parameters at a few values, band and cost where they apply.
std::vector<DistanceParams> cell_param_sets(Metric metric);

void run_measure_lengths(const Backends& backends, Metric metric);
// Rows of the UCR archive's GunPoint and ECG200 (../shared/data) against each other.
void run_measure_ucr(const Backends& backends, Metric metric);

// A backend's top-K window search (kernels/top_windows.hpp).
struct TopWindowsBackend {
  std::string name;
  std::function<std::vector<kernels::TopWindow>(const kernels::TopWindowsRequest&)> top;
};
// Planted copies in a random walk (d = 1 and 3, normalize none/znorm, w = m and w > m with
// hop 4): the K = 4 best windows, then those under a threshold between the 2nd and the
// 3rd, the same windows as the reference's, distances within kRel.
void run_measure_top_windows(const std::vector<TopWindowsBackend>& backends, Metric metric);

}  // namespace warpwatch::testing::conformance
