// `warpwatch distance --backend cuda`: every (a_i, b_j) on the device, on the process's
// device context (its engine and buffers, kept from call to call). A and B are uploaded
// once per slice (one slice unless they outgrow half the free device memory or 2^24 pairs),
// each pair routed to the warp, long-pair or generic kernel (elastic_engine.cpp). `--grad`
// the same way, in slices whose gradients fit too, on softdtw's gradient kernel.
#include <algorithm>
#include <exception>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "common/balanced_blocks.hpp"
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

// The engine holding one slice: its series of A, then of B (`times` one per series of the
// set, an empty one for none; an empty span: none at all), and their pairs as jobs in (i, j)
// order.
void load_slice(ElasticEngine& engine, const DistanceParams& params, std::span<const SeriesView> a,
                std::span<const std::vector<float>> a_times, std::span<const SeriesView> b,
                std::span<const std::vector<float>> b_times) {
  const auto times_of = [](std::span<const std::vector<float>> times, std::size_t k) {
    return times.empty() || times[k].empty() ? nullptr : times[k].data();
  };
  engine.clear();
  const std::uint32_t q = engine.add_params(params);
  for (std::size_t i = 0; i < a.size(); ++i)
    engine.add_series(a[i].values, a[i].length, times_of(a_times, i));
  for (std::size_t j = 0; j < b.size(); ++j)
    engine.add_series(b[j].values, b[j].length, times_of(b_times, j));
  const auto na = static_cast<std::uint32_t>(a.size());
  for (std::uint32_t i = 0; i < na; ++i)
    for (std::uint32_t j = 0; j < b.size(); ++j) engine.add_job(i, na + j, q);
}

}  // namespace

namespace {

// Rows of A against all of B on `device`, out holding those rows; twed's float32 times
// after `origin` (the whole matrix's, so that a block of rows gets what the whole would).
void distance_rows(std::span<const SeriesView> a, std::span<const SeriesView> b,
                   const DistanceParams& params, std::span<double> out, DistancePath path,
                   DeviceTimings* timings, int device, double origin) {
  if (a.empty() || b.empty()) return;
  DeviceContext& context = DeviceContext::get(device);  // its device current from here on
  const std::size_t dims = a[0].dims;
  const bool twed = measure_info(params.metric).times;  // twed: the clock

  // float32 times after the common origin, for the series that have times.
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

  std::size_t free_bytes = 0, total_bytes = 0;
  WW_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t budget = std::max<std::size_t>(free_bytes / 4, std::size_t{64} << 20);
  const auto a_chunks = chunks(a, twed, budget, kMaxPairsPerSlice);

  const auto lock = context.lock();
  ElasticEngine& engine = context.engine();
  DeviceTimings total;
  std::vector<double> results;
  for (const auto& [a0, a1] : a_chunks) {
    const auto b_chunks =
        chunks(b, twed, budget, std::max<std::size_t>(1, kMaxPairsPerSlice / (a1 - a0)));
    for (const auto& [b0, b1] : b_chunks) {
      load_slice(engine, params, a.subspan(a0, a1 - a0),
                 std::span<const std::vector<float>>(a_times).subspan(a0, a1 - a0),
                 b.subspan(b0, b1 - b0),
                 std::span<const std::vector<float>>(b_times).subspan(b0, b1 - b0));
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

}  // namespace

void distance_matrix_path(std::span<const SeriesView> a, std::span<const SeriesView> b,
                          const DistanceParams& params, std::span<double> out, DistancePath path,
                          DeviceTimings* timings, int device) {
  common::check_distance_inputs(a, b, params, out);
  if (a.empty() || b.empty()) return;
  const double origin = measure_info(params.metric).times ? common::twed_time_origin(a, b) : 0.0;
  distance_rows(a, b, params, out, path, timings, device, origin);
}

void softdtw_grad_matrix_scratch(std::span<const SeriesView> a, std::span<const SeriesView> b,
                                 const DistanceParams& params, std::span<double> out,
                                 std::size_t scratch_bytes, DeviceTimings* timings) {
  common::check_softdtw_grad_inputs(a, b, params, out);
  if (a.empty() || b.empty()) return;
  const std::size_t dims = a[0].dims;
  const std::vector<std::size_t> rows = common::softdtw_grad_rows(a, b.size());
  DeviceContext& context = DeviceContext::get();  // device 0, current from here on

  std::size_t free_bytes = 0, total_bytes = 0;
  WW_CUDA(cudaMemGetInfo(&free_bytes, &total_bytes));
  // A slice's series of A, of B, and its gradients (twice the bytes of its A's floats a
  // series of B) each in an eighth of the free memory; the tables in what the caller gives.
  const std::size_t budget = std::max<std::size_t>(free_bytes / 8, std::size_t{32} << 20);
  if (scratch_bytes == 0) scratch_bytes = free_bytes / 2;
  const auto a_chunks = chunks(a, false, budget, kMaxPairsPerSlice);

  const auto lock = context.lock();
  ElasticEngine& engine = context.engine();
  DeviceTimings total;
  std::vector<double> grads;
  for (const auto& [a0, a1] : a_chunks) {
    std::size_t a_bytes = 0;
    for (std::size_t i = a0; i < a1; ++i) a_bytes += series_bytes(a[i], false);
    const std::size_t b_count =
        std::max<std::size_t>(1, std::min(kMaxPairsPerSlice / (a1 - a0), budget / (2 * a_bytes)));
    for (const auto& [b0, b1] : chunks(b, false, budget, b_count)) {
      load_slice(engine, params, a.subspan(a0, a1 - a0), {}, b.subspan(b0, b1 - b0), {});
      grads.resize((rows[a1] - rows[a0]) / b.size() * (b1 - b0));
      engine.run_softdtw_grad(dims, grads, scratch_bytes, &total);
      // The jobs' gradients in (i, j) order; pair (i, j)'s place in out (softdtw_grad_rows).
      auto from = grads.begin();
      for (std::size_t i = a0; i < a1; ++i) {
        const auto pair = static_cast<std::ptrdiff_t>(a[i].length * dims);
        for (std::size_t j = b0; j < b1; ++j, from += pair)
          std::copy(from, from + pair,
                    out.begin() + static_cast<std::ptrdiff_t>(rows[i]) +
                        static_cast<std::ptrdiff_t>(j) * pair);
      }
    }
  }
  if (timings) *timings = total;
}

}  // namespace detail

void softdtw_grad_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                         const DistanceParams& params, std::span<double> out,
                         DeviceTimings* timings) {
  detail::softdtw_grad_matrix_scratch(a, b, params, out, 0, timings);
}

void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out, DeviceTimings* timings,
                     int device) {
  detail::distance_matrix_path(a, b, params, out, detail::DistancePath::automatic, timings, device);
}

void distance_matrix(std::span<const SeriesView> a, std::span<const SeriesView> b,
                     const DistanceParams& params, std::span<double> out, DeviceTimings* timings,
                     std::span<const int> devices) {
  if (devices.size() <= 1)
    return distance_matrix(a, b, params, out, timings, devices.empty() ? 0 : devices[0]);
  common::check_distance_inputs(a, b, params, out);
  if (a.empty() || b.empty()) return;
  const double origin = measure_info(params.metric).times ? common::twed_time_origin(a, b) : 0.0;
  // Blocks of consecutive rows of about equal cells (a row's cells: its length times all of
  // B's), one a device, each on a host thread of its own.
  const std::vector<std::size_t> first =
      common::balanced_blocks(a.size(), devices.size(), [&](std::size_t i) { return a[i].length; });
  std::vector<DeviceTimings> block_timings(devices.size());
  std::vector<std::exception_ptr> errors(devices.size());
  {
    std::vector<std::jthread> threads;
    for (std::size_t k = 0; k < devices.size(); ++k) {
      const std::size_t i0 = first[k], i1 = first[k + 1];
      if (i0 == i1) continue;
      threads.emplace_back([&, k, i0, i1] {
        try {
          detail::distance_rows(
              a.subspan(i0, i1 - i0), b, params, out.subspan(i0 * b.size(), (i1 - i0) * b.size()),
              detail::DistancePath::automatic, &block_timings[k], devices[k], origin);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
    }
  }
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  if (!timings) return;
  // The devices run at once: the call's device time is its slowest device's.
  *timings = DeviceTimings{};
  for (const DeviceTimings& t : block_timings) {
    timings->kernel_seconds = std::max(timings->kernel_seconds, t.kernel_seconds);
    timings->copy_seconds = std::max(timings->copy_seconds, t.copy_seconds);
    timings->device_bytes += t.device_bytes;
  }
}

}  // namespace warpwatch::kernels::cuda
