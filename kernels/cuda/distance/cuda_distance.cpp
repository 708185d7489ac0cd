// `warpwatch distance --backend cuda`: every (a_i, b_j) on the device, on the process's
// device context (its engine and buffers, kept from call to call). A and B are uploaded
// once per slice (one slice unless they outgrow half the free device memory or 2^24 pairs),
// each pair routed to the warp, long-pair or generic kernel (elastic_engine.cpp).
#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

#include "common/distance_inputs.hpp"
#include "cuda/device_context.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda_distance.hpp"
#include "warpwatch/kernels/cuda.hpp"

namespace warpwatch::kernels::cuda {
namespace detail {
namespace {

constexpr std::size_t kMaxPairsPerSlice = std::size_t{1} << 24;

std::size_t series_bytes(const SeriesView& s, bool twed) {
  return s.length * s.dims * sizeof(float) + (twed && s.times ? s.length * sizeof(float) : 0);
}

// Consecutive ranges of `set`, each at most `max_bytes` (but at least one series) and
// `max_count` series.
std::vector<std::pair<std::size_t, std::size_t>> chunks(std::span<const SeriesView> set, bool twed,
                                                        std::size_t max_bytes,
                                                        std::size_t max_count) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t begin = 0; begin < set.size();) {
    std::size_t end = begin, bytes = 0;
    while (end < set.size() && end - begin < max_count &&
           (end == begin || bytes + series_bytes(set[end], twed) <= max_bytes))
      bytes += series_bytes(set[end++], twed);
    out.emplace_back(begin, end);
    begin = end;
  }
  return out;
}

}  // namespace

void distance_matrix_path(std::span<const SeriesView> a, std::span<const SeriesView> b,
                          const DistanceParams& params, std::span<double> out, DistancePath path,
                          DeviceTimings* timings) {
  common::check_distance_inputs(a, b, params, out);
  if (a.empty() || b.empty()) return;
  const std::size_t dims = a[0].dims;
  const bool twed = params.metric == Metric::twed;

  // float32 times after the common origin, for the series that have times.
  const double origin = twed ? common::twed_time_origin(a, b) : 0.0;
  std::vector<std::vector<float>> a_times(a.size()), b_times(b.size());
  if (twed) {
    const auto convert = [origin](std::span<const SeriesView> set,
                                  std::vector<std::vector<float>>& to) {
      for (std::size_t k = 0; k < set.size(); ++k) {
        if (!set[k].times) continue;
        to[k].resize(set[k].length);
        for (std::size_t i = 0; i < set[k].length; ++i)
          to[k][i] = static_cast<float>(set[k].times[i] - origin);
      }
    };
    convert(a, a_times);
    convert(b, b_times);
  }
  const auto times_of = [](const std::vector<float>& t) { return t.empty() ? nullptr : t.data(); };

  std::size_t free_bytes = 0, total_bytes = 0;
  WW_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t budget = std::max<std::size_t>(free_bytes / 4, std::size_t{64} << 20);
  const auto a_chunks = chunks(a, twed, budget, kMaxPairsPerSlice);

  DeviceContext& context = DeviceContext::get();
  const std::lock_guard lock(context.mutex());
  ElasticEngine& engine = context.engine();
  DeviceTimings total;
  std::vector<double> results;
  for (const auto& [a0, a1] : a_chunks) {
    const auto b_chunks =
        chunks(b, twed, budget, std::max<std::size_t>(1, kMaxPairsPerSlice / (a1 - a0)));
    for (const auto& [b0, b1] : b_chunks) {
      engine.clear();
      const std::uint32_t q = engine.add_params(params);
      for (std::size_t i = a0; i < a1; ++i)
        engine.add_series(a[i].values, a[i].length, times_of(a_times[i]));
      for (std::size_t j = b0; j < b1; ++j)
        engine.add_series(b[j].values, b[j].length, times_of(b_times[j]));
      const auto na = static_cast<std::uint32_t>(a1 - a0);
      for (std::uint32_t i = 0; i < na; ++i)
        for (std::uint32_t j = 0; j < b1 - b0; ++j) engine.add_job(i, na + j, q);
      const bool whole = a_chunks.size() == 1 && b_chunks.size() == 1;
      if (!whole) results.resize(engine.job_count());
      engine.run(dims, whole ? out : std::span<double>(results), path, &total);
      if (!whole)
        for (std::size_t i = a0; i < a1; ++i)
          std::copy_n(results.begin() + static_cast<std::ptrdiff_t>((i - a0) * (b1 - b0)), b1 - b0,
                      out.begin() + static_cast<std::ptrdiff_t>(i * b.size() + b0));
    }
  }
  if (timings) *timings = total;
}

}  // namespace detail

void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out, DeviceTimings* timings) {
  detail::distance_matrix_path(a, b, params, out, detail::DistancePath::automatic, timings);
}

}  // namespace warpwatch::kernels::cuda
