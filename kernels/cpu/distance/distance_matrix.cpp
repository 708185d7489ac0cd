// `warpwatch distance` on the CPU: every row of A against lane groups of equally long
// columns of B (elastic_kernel.hpp), groups transposed once and shared by all rows.
#include <hwy/targets.h>

#include <algorithm>
#include <stdexcept>

#include "common/distance_inputs.hpp"
#include "common/worker_pool.hpp"
#include "cpu/distance/column_groups.hpp"
#include "cpu/distance/elastic_kernel.hpp"
#include "warpwatch/kernels/cpu.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::cpu {

using common::WorkerPool;

void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out, const Options& options) {
  common::check_distance_inputs(a, b, params, out);
  if (a.empty() || b.empty()) return;
  const std::size_t dims = a[0].dims;
  WorkerPool pool(options.threads);
  if (measure_info(params.metric)
          .lock_step) {  // lock-step (ed): the reference's one pass is already the fast
    pool.for_each(a.size(), [&](std::size_t i, unsigned) {  // form (no table); rows on threads
      for (std::size_t j = 0; j < b.size(); ++j)
        out[i * b.size() + j] = reference::ed(a[i], b[j], params.cost);
    });
    return;
  }
  const bool twed = measure_info(params.metric).times;
  const std::size_t width = elastic_group_width();
  const double origin = twed ? common::twed_time_origin(a, b) : 0.0;
  const std::vector<ColumnGroup> groups = group_columns(b, width, twed, origin);

  struct Scratch {
    ElasticScratch elastic;
    std::vector<float> a_times;
  };
  std::vector<Scratch> scratch(pool.size());
  pool.for_each(a.size() * groups.size(), [&](std::size_t task, unsigned worker) {
    const SeriesView& row = a[task / groups.size()];
    const ColumnGroup& g = groups[task % groups.size()];
    Scratch& s = scratch[worker];
    OneVsMany job;
    job.a = row.values;
    job.n = row.length;
    job.b = g.values.data();
    job.m = g.length;
    job.dims = dims;
    job.width = width;
    if (twed && row.times) {
      s.a_times.resize(row.length);
      for (std::size_t i = 0; i < row.length; ++i)
        s.a_times[i] = static_cast<float>(row.time(i) - origin);
      job.a_times = s.a_times.data();
      job.b_times = g.times.data();
    }
    double result[64];
    one_vs_many(job, params, s.elastic, result);
    const std::size_t i = task / groups.size();
    for (std::size_t lane = 0; lane < g.columns.size(); ++lane)
      out[i * b.size() + g.columns[lane]] = result[lane];
  });
}

std::string simd_target() {
  // Highway numbers better targets with lower bits: the lowest supported-and-compiled bit
  // is the one HWY_DYNAMIC_DISPATCH picks.
  const std::int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(targets & -targets);
}

}  // namespace warpwatch::kernels::cpu
