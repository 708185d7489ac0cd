// The measures computed by their cells, msm, erp and lcss (docs/spec.md §4.4-4.6), on the cpu
// backend, the shared cells of
// common/measure_cells.hpp on Highway lane-vectors, against the float64 reference:
// conformance scenario 9 (lengths 1, 2, 31, 32, 33, 257 and d = 1, 3; GunPoint and ECG200;
// top-K windows), with 1 and 3 worker threads, which must agree bit for bit. msm and erp
// run in float32 (within 1e-5 relative of the reference, kRel); lcss decides its matches
// in float64 and comes out exactly as the reference. Also conformance scenarios 4 (window
// mode through the Matcher) and 5 (distance matrices).
#include <gtest/gtest.h>

#include <span>

#include "conformance/conformance.hpp"
#include "warpwatch/kernels/cpu.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;

namespace {

Backend cpu(unsigned threads) {
  return Backend{cat("cpu threads=", threads),
                 [threads] { return kernels::cpu::make_matcher(kernels::cpu::Options{threads}); },
                 [threads](std::span<const SeriesView> a, std::span<const SeriesView> b,
                           const DistanceParams& params, std::span<double> out) {
                   kernels::cpu::distance_matrix(a, b, params, out, kernels::cpu::Options{threads});
                 }};
}

const Backends& backends() {
  static const Backends b{cpu(1), cpu(3)};
  return b;
}

std::vector<TopWindowsBackend> top_backends() {
  std::vector<TopWindowsBackend> out;
  for (const bool pruning : {true, false}) {
    kernels::cpu::Options o{2};
    o.window_pruning = pruning;  // the new measures have no bounds: both align every window
    out.push_back({cat("cpu pruning=", pruning), [o](const kernels::TopWindowsRequest& r) {
                     return kernels::cpu::top_windows(r, o);
                   }});
  }
  return out;
}

}  // namespace

// Every measure computed by its cells (kernels/measures.hpp), each in its own instance.
class CpuMeasures : public ::testing::TestWithParam<kernels::Metric> {};

TEST_P(CpuMeasures, Lengths) {
  run_measure_lengths(backends(), GetParam());
}
TEST_P(CpuMeasures, Ucr) {
  run_measure_ucr(backends(), GetParam());
}
TEST_P(CpuMeasures, TopWindows) {
  run_measure_top_windows(top_backends(), GetParam());
}
// Window mode through the Matcher (threshold, every chunking) and the distance scenario.
TEST_P(CpuMeasures, Window) {
  run_window_scenario(backends(), GetParam());
}
TEST_P(CpuMeasures, Distance) {
  run_distance_scenario(backends(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cells, CpuMeasures, ::testing::ValuesIn(cell_metrics()),
                         metric_param_name);
