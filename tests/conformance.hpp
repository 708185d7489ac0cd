// The conformance suite of a fast backend: scenario runners that drive a backend and the
// scalar reference (reference.hpp, the oracle) through the same inputs and compare what
// they return. Backend-agnostic: a backend is a Matcher factory plus a distance-matrix
// function, so the CPU suite (test_cpu_backend.cpp) and the CUDA suite run the same
// scenarios with their own factories.
//
// What must hold (SPEC.md 3.1, 3.2, 4):
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
//   empty and missing chunks and empty batches, large chunks, one big batch) is compared
//   with the reference;
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
// The suite, one header per part (each includes what it builds on; all in namespace
// warpwatch::testing::conformance):
//   conformance.hpp              this file: Backend/Backends, tolerances, small helpers
//   conformance_inputs.hpp       inputs: random walks with planted noisy copies, pattern makers
//   conformance_workload.hpp     workloads (a script of Matcher calls), chunkings, comparisons
//                                with the reference, check_workload
//   conformance_stream.hpp       scenario 1, stream mode: run_stream_scenario (StreamScenario),
//                                run_stream_quantized_ties, run_stream_threshold_edges
//   conformance_many_pairs.hpp   scenario 2, many pairs: run_many_pairs, run_mixed_dims_and_modes
//   conformance_hot_changes.hpp  scenario 3, hot changes: run_hot_changes
//   conformance_window.hpp       window-mode thresholds (calibrate_window_thresholds) and
//                                scenario 4, window mode: run_window_scenario,
//                                run_window_flat_znorm
//   conformance_distance.hpp     scenario 5, whole-series distance matrices: run_distance_scenario,
//                                run_distance_twed_large_time_origin, run_distance_edge_cases
//   conformance_agree.hpp        scenario 6, backends agree bit for bit: run_backends_agree
//
// Use from a backend's suite (see test_cpu_backend.cpp): include the scenario headers it runs,
//   #include "conformance_stream.hpp"
//   const Backends b{{"cuda", [] { return make_cuda_matcher(); },
//                     [](auto a, auto bb, const auto& p, auto out) { cuda_distance_matrix(a, bb, p, out); }}};
//   TEST(CudaStream, SmallPatterns) { StreamScenario sc; sc.ms = {2, 31, 32, 33}; run_stream_scenario(b, sc); }
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "matcher_test_support.hpp"
#include "test_support.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/reference.hpp"
#include "warpwatch/kernels/series.hpp"

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
using DistanceMatrixFn = std::function<void(std::span<const SeriesView> a, std::span<const SeriesView> b,
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

inline double magnitude(double x) { return std::max(1.0, std::abs(x)); }

// A fast backend's whole-series distance against the reference's (SPEC.md 3.2, 4).
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

}  // namespace warpwatch::testing::conformance
