// Stream mode's kernels are instantiated once per metric and cost (docs/spec.md §3.1: dtw or
// dk, sq or abs); this picks the instance at run time.
#pragma once

#include <type_traits>

#include "warpwatch/kernels/params.hpp"

namespace warpwatch::kernels::cpu {

template <Metric kMetric>
using MetricTag = std::integral_constant<Metric, kMetric>;
template <Cost kCost>
using CostTag = std::integral_constant<Cost, kCost>;

// Calls f(MetricTag, CostTag) for stream mode's metric (dtw or dk) and cost.
template <typename F>
decltype(auto) with_spring_metric(Metric metric, Cost cost, F&& f) {
  const bool sq = cost == Cost::sq;
  if (metric == Metric::dtw)
    return sq ? f(MetricTag<Metric::dtw>{}, CostTag<Cost::sq>{})
              : f(MetricTag<Metric::dtw>{}, CostTag<Cost::abs>{});
  return sq ? f(MetricTag<Metric::dk>{}, CostTag<Cost::sq>{})
            : f(MetricTag<Metric::dk>{}, CostTag<Cost::abs>{});
}

}  // namespace warpwatch::kernels::cpu
