// softdtw's gradient on the CPU backend (cpu.hpp's softdtw_grad_matrix) against
// reference::softdtw_grad: conformance scenario 7 with 1, 2 and 3 worker threads (which must
// agree bit for bit), its edge cases, and backends.hpp's dispatch for every backend name.

#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <vector>

#include "conformance/conformance.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/cpu.hpp"

using namespace warpwatch::testing::conformance;
namespace kernels = warpwatch::kernels;

namespace {

GradBackend cpu_grad(unsigned threads) {
  return GradBackend{cat("cpu threads=", threads),
                     [threads](std::span<const SeriesView> a, std::span<const SeriesView> b,
                               const DistanceParams& params, std::span<double> out) {
                       kernels::cpu::softdtw_grad_matrix(a, b, params, out, {.threads = threads});
                     }};
}

}  // namespace

TEST(CpuSoftDtwGrad, MatchesTheReference) {
  run_softdtw_grad_scenario({cpu_grad(1), cpu_grad(2), cpu_grad(3)});
}

TEST(CpuSoftDtwGrad, EdgeCases) {
  run_softdtw_grad_edge_cases(cpu_grad(2));
}

// The dispatch: reference (the reference's own gradients, so exact), cpu and auto (the cpu
// without a device, else cuda) against the reference; reference and cpu refuse bad input.
TEST(CpuSoftDtwGrad, EveryBackendNameThroughTheDispatch) {
  std::mt19937_64 rng(warpwatch::testing::test_seed());
  std::vector<Series> a, b;
  for (std::size_t n : {1u, 17u, 64u}) {
    Series s;
    s.dims = 2;
    s.values = random_walk(rng, n, 2);
    a.push_back(s);
  }
  for (std::size_t m : {9u, 9u, 30u}) {
    Series s;
    s.dims = 2;
    s.values = random_walk(rng, m, 2);
    b.push_back(s);
  }
  DistanceParams q;
  q.metric = Metric::softdtw;
  q.gamma = 0.5;
  EXPECT_EQ(
      check_softdtw_grad({dispatched_grad(kernels::Backend::reference)}, a, b, q, "reference"),
      0.0);
  check_softdtw_grad({dispatched_grad(kernels::Backend::cpu)}, a, b, q, "cpu");
  check_softdtw_grad({dispatched_grad(kernels::Backend::automatic)}, a, b, q, "auto");
  for (kernels::Backend backend : {kernels::Backend::reference, kernels::Backend::cpu})
    run_softdtw_grad_edge_cases(dispatched_grad(backend));
}
