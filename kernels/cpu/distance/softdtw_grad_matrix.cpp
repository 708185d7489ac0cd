// `warpwatch distance --grad` on the CPU: every row of A against lane groups of equally long
// series of B (softdtw_grad_kernel.hpp), the groups transposed once and shared by all rows,
// (row, group) tasks on the worker pool.
#include <algorithm>
#include <thread>
#include <vector>

#include "common/distance_inputs.hpp"
#include "common/worker_pool.hpp"
#include "cpu/distance/column_groups.hpp"
#include "cpu/distance/softdtw_grad_kernel.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::kernels::cpu {
namespace {

// What the workers' tables may hold together: past it, fewer threads run at once (one
// always runs, whatever its table needs: the reference would need twice that).
constexpr std::size_t kScratchBudget = std::size_t{1} << 30;

}  // namespace

void softdtw_grad_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                         const DistanceParams& params, std::span<double> out,
                         const Options& options) {
  common::check_softdtw_grad_inputs(a, b, params, out);
  if (a.empty() || b.empty()) return;
  const std::size_t width = softdtw_grad_width(), dims = a[0].dims;
  const std::vector<ColumnGroup> groups = group_columns(b, width, false, 0.0);
  const std::vector<std::size_t> rows = common::softdtw_grad_rows(a, b.size());

  std::size_t longest_a = 0;
  for (const SeriesView& s : a) longest_a = std::max(longest_a, s.length);
  const std::size_t table_bytes = softdtw_grad_scratch_bytes(longest_a, groups.back().length);
  const unsigned wanted =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  const auto fit = static_cast<unsigned>(
      std::clamp<std::size_t>(kScratchBudget / std::max<std::size_t>(table_bytes, 1), 1, wanted));
  common::WorkerPool pool(fit);

  struct Scratch {
    GradScratch kernel;
    std::vector<double> grad;  // [n][dims][width]
  };
  std::vector<Scratch> scratch(pool.size());
  pool.for_each(a.size() * groups.size(), [&](std::size_t task, unsigned worker) {
    const std::size_t i = task / groups.size();
    const ColumnGroup& g = groups[task % groups.size()];
    Scratch& s = scratch[worker];
    const std::size_t values = a[i].length * dims;
    s.grad.resize(values * width);
    GradJob job;
    job.a = a[i].values;
    job.n = a[i].length;
    job.b = g.values.data();
    job.m = g.length;
    job.dims = dims;
    softdtw_grad_lanes(job, params, s.kernel, s.grad.data());
    for (std::size_t lane = 0; lane < g.columns.size(); ++lane) {
      double* to = out.data() + rows[i] + g.columns[lane] * values;
      for (std::size_t t = 0; t < values; ++t) to[t] = s.grad[t * width + lane];
    }
  });
}

}  // namespace warpwatch::kernels::cpu
