// The cuda backend's top-K window search (kernels/top_windows.hpp), the passes of
// window_search_launch.hpp on the process's device context:
//   - the series goes up once; moments, bounds and the sort run on the device;
//   - seeds: the host reads the first sorted windows and picks 2K - 1 that do not overlap
//     by more than w/2 (in key order), which are aligned first, so that common::top_bound
//     gives a finite bound before the bulk starts (the first wave of warps would otherwise
//     align thousands of the best-looking windows in full against +inf);
//   - the bulk: the sorted windows in rounds of doubling length; between rounds the host
//     adds what was found and lowers the bound to top_bound of all windows found so far
//     (K = 1: the kernel lowers it itself, so one round does). A round in which a warp
//     met a key over the bound ends the search: the keys are sorted, the bound never rises.
// A window found is one aligned to the end at or under the bound of that moment, so the
// final K are selected from a superset of every window that can be among them
// (top_selection.cpp's argument), exactly as the cpu search does.
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/window/window_bounds.hpp"
#include "common/window/window_grouping.hpp"
#include "common/window/window_track.hpp"
#include "cuda/device_context.hpp"
#include "cuda/distance/elastic_batch.hpp"
#include "cuda/runtime/cuda_check.hpp"
#include "cuda/runtime/device_memory.hpp"
#include "cuda/window/window_inputs.hpp"
#include "cuda/window/window_search_launch.hpp"
#include "warpwatch/kernels/cuda.hpp"
#include "warpwatch/kernels/stream_history.hpp"

namespace warpwatch::kernels::cuda {
namespace {

using detail::float_at_or_below;
using detail::WindowSearchInput;
using detail::WindowSearchState;

constexpr std::uint32_t kSeedScan = 16384;   // sorted windows the host reads to pick seeds
constexpr std::uint32_t kFirstRound = 4096;  // K > 1: the bulk's rounds start this long and
                                             // double, so the bound is refreshed often early

// Measures without window bounds (measures.hpp): no cascade to run, so every window that is
// not flat is aligned (ElasticBatcher on the context's engine: the generic kernel), in
// slices of windows, and the K are selected on the host from all of them, as the reference
// selects them.
std::vector<TopWindow> top_windows_all_aligned(const TopWindowsRequest& r, DeviceTimings* timings) {
  constexpr std::size_t kSliceWindows = std::size_t{1} << 16;
  const PatternDef& pattern = r.pattern;
  const std::size_t dims = r.stream.dims, samples = r.times_ns.size(), n = pattern.length();
  kernels::StreamHistory history(dims);
  history.append(r.values, r.times_ns);
  const common::WindowTrack track(pattern, r.stream.nominal_period_ns, 0);
  const std::size_t w = track.window(), hop = pattern.params.hop;
  if (r.k == 0 || samples < w) return {};
  const bool times = track.twed();  // the measure reads timestamps: the rebased clock

  DeviceContext& ctx = DeviceContext::get();
  const auto lock = ctx.lock();
  ElasticBatcher batcher(ctx.engine());
  DeviceTimings total;
  std::vector<common::TopCandidate> candidates;
  std::vector<float> window, values, clock;
  std::vector<std::uint64_t> ends;
  std::vector<double> distances;
  std::vector<ElasticJob> jobs;
  for (std::uint64_t next = w - 1; next < samples;) {
    ends.clear();
    values.clear();
    clock.clear();
    for (; next < samples && ends.size() < kSliceWindows; next += hop) {
      clock.resize((ends.size() + 1) * (times ? w : 0));
      if (!track.window(history, next, window, times ? clock.data() + ends.size() * w : nullptr))
        continue;  // flat under znorm: skipped
      values.insert(values.end(), window.begin(), window.end());
      ends.push_back(next);
    }
    distances.assign(ends.size(), 0.0);
    jobs.clear();
    for (std::size_t k = 0; k < ends.size(); ++k) {
      ElasticJob job;
      job.a = track.values().data();
      job.a_times = times ? track.times().data() : nullptr;
      job.n = n;
      job.b = values.data() + k * w * dims;
      job.b_times = times ? clock.data() + k * w : nullptr;
      job.m = w;
      job.dims = dims;
      job.params = &pattern.params.distance;
      job.out = &distances[k];
      jobs.push_back(job);
    }
    DeviceTimings slice;
    if (!jobs.empty()) batcher.run(jobs, &slice);
    total.kernel_seconds += slice.kernel_seconds;
    total.copy_seconds += slice.copy_seconds;
    total.device_bytes = std::max(total.device_bytes, slice.device_bytes);
    for (std::size_t k = 0; k < ends.size(); ++k) {
      const double d = distances[k];
      if (!std::isfinite(d)) continue;  // no alignment within the band: not a match
      if (r.use_threshold && !(d <= pattern.params.threshold)) continue;
      candidates.push_back({d, ends[k]});
    }
  }
  if (timings) *timings = total;
  return common::top_windows_of(std::move(candidates), r.k, w, r.times_ns);
}

void refuse_unless_supported(const TopWindowsRequest& r) {
  const Metric metric = r.pattern.params.distance.metric;
  const std::string where = "top windows on the cuda backend (pattern '" + r.pattern.id + "'): ";
  if (metric != Metric::dtw && metric != Metric::dk)
    throw std::invalid_argument(where + "dtw and dk only, not " + std::string(to_string(metric)) +
                                "; use --backend cpu");
  if (r.stream.dims != 1)
    throw std::invalid_argument(where + "series of one dimension only; use --backend cpu");
  if (r.pattern.length() > detail::kWindowMaxRows)
    throw std::invalid_argument(where + "patterns of at most " +
                                std::to_string(detail::kWindowMaxRows) +
                                " samples; use --backend cpu");
}

template <typename T>
T* take(std::vector<StreamOrderedBuffer<std::uint8_t>>& owned, std::size_t count,
        cudaStream_t stream) {
  owned.emplace_back(std::max<std::size_t>(count, 1) * sizeof(T), stream);
  return reinterpret_cast<T*>(owned.back().data());
}

template <typename T>
void upload(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count) WW_CUDA(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyHostToDevice, stream));
}

template <typename T>
void download(T* to, const T* from, std::size_t count, cudaStream_t stream) {
  if (count) WW_CUDA(cudaMemcpyAsync(to, from, count * sizeof(T), cudaMemcpyDeviceToHost, stream));
}

}  // namespace

std::vector<TopWindow> top_windows(const TopWindowsRequest& r, DeviceTimings* timings) {
  common::check_request(r);
  if (!measure_info(r.pattern.params.distance.metric).window_bounds)
    return top_windows_all_aligned(r, timings);
  refuse_unless_supported(r);
  const PatternDef& pattern = r.pattern;
  const std::size_t samples = r.times_ns.size(), n = pattern.length();
  const std::size_t w = common::window_length(pattern), hop = pattern.params.hop;
  if (r.k == 0 || samples < w) return {};
  const std::size_t windows = (samples - w) / hop + 1;
  if (windows > std::numeric_limits<std::uint32_t>::max() / 2)
    throw std::invalid_argument("top windows on the cuda backend: more than 2^31 windows");
  const common::WindowQuery query(pattern);  // the pattern as compared, its envelopes
  if (!query.reachable || !query.rows_nonempty) return {};  // no window has a path in the band
  const bool znorm = pattern.params.normalize == Normalize::znorm;
  const std::size_t k = std::min(r.k, windows);  // more than every window selects them all

  DeviceContext& ctx = DeviceContext::get();
  const auto lock = ctx.lock();
  const cudaStream_t stream = ctx.compute().get();
  const Event begun, copied, finished;
  std::vector<StreamOrderedBuffer<std::uint8_t>> owned;
  owned.reserve(24);

  WindowSearchInput in;
  begun.record(stream);
  in.first_end = w - 1;
  in.anchor_floor = w - 1;
  in.hop = static_cast<std::uint32_t>(hop);
  in.w = static_cast<std::uint32_t>(w);
  in.n = static_cast<std::uint32_t>(n);
  in.windows = static_cast<std::uint32_t>(windows);
  in.margin = query.margin;
  const bool sq = query.cost == Cost::sq;
  in.kind = query.metric == Metric::dtw ? (sq ? 0 : 1) : (sq ? 2 : 3);  // detail::FastKind
  float* x = take<float>(owned, samples, stream);
  float* q = take<float>(owned, n, stream);
  float* env = take<float>(owned, 2 * w, stream);
  upload(x, r.values.data(), samples, stream);
  upload(q, query.values.data(), n, stream);
  upload(env, query.env_lo.data(), w, stream);
  upload(env + w, query.env_hi.data(), w, stream);
  in.x = x;
  in.q = q;
  in.env_lo = env;
  in.env_hi = env + w;
  if (pattern.params.distance.band) {
    std::int32_t* band = take<std::int32_t>(owned, 2 * (n + 1), stream);
    upload(band, query.lo.data(), n + 1, stream);
    upload(band + n + 1, query.hi.data(), n + 1, stream);
    in.band_lo = band;
    in.band_hi = band + n + 1;
  }
  copied.record(stream);

  // Passes 1-3.
  double* mean = nullptr;
  double* scale = nullptr;
  std::uint8_t* flat = nullptr;
  if (znorm) {
    mean = take<double>(owned, windows, stream);
    scale = take<double>(owned, windows, stream);
    flat = take<std::uint8_t>(owned, windows, stream);
    in.mean = mean;
    in.scale = scale;
    in.flat = flat;
  }
  detail::WindowInputTables tables;
  tables.build(std::span(&in, 1));
  const detail::WindowInputs ins = detail::upload_window_inputs(
      std::span(&in, 1), tables, take<WindowSearchInput>(owned, 1, stream),
      take<std::uint32_t>(owned, 4, stream), stream);
  detail::launch_window_moments(ins, mean, scale, flat, stream);
  const auto e = static_cast<std::uint32_t>(windows);
  float* keys = take<float>(owned, windows, stream);
  float* kim = take<float>(owned, windows, stream);
  detail::launch_window_bounds(ins, keys, kim, stream);
  float* sorted = take<float>(owned, windows, stream);
  std::uint32_t* order = take<std::uint32_t>(owned, windows, stream);
  std::uint32_t* indices = take<std::uint32_t>(owned, windows, stream);
  const std::size_t temp_bytes =
      detail::sort_window_bounds(nullptr, 0, keys, sorted, order, indices, e, stream);
  void* temp = take<std::uint8_t>(owned, temp_bytes, stream);
  detail::sort_window_bounds(temp, temp_bytes, keys, sorted, order, indices, e, stream);

  // The alignment pass's state: bound, next, stopped, found count (unsigned each), then the
  // counters (abandoned, skipped by LB_Kim, by LB_Keogh, flat).
  const std::size_t capacity = windows + 2 * k;
  unsigned* scalars = take<unsigned>(owned, 4, stream);
  auto* counters = take<unsigned long long>(owned, 4, stream);
  WW_CUDA(cudaMemsetAsync(scalars, 0, 4 * sizeof(unsigned), stream));
  WW_CUDA(cudaMemsetAsync(counters, 0, 4 * sizeof(unsigned long long), stream));
  WindowSearchState st;
  st.keys = sorted;
  st.order = order;
  st.bound = scalars;
  st.next = scalars + 1;
  st.stopped = scalars + 2;
  st.found_count = scalars + 3;
  st.found_distance = take<float>(owned, capacity, stream);
  st.found_window = take<std::uint32_t>(owned, capacity, stream);
  st.found_capacity = static_cast<unsigned>(capacity);
  st.abandoned = counters;
  st.aligned = take<std::uint8_t>(owned, windows, stream);
  WW_CUDA(cudaMemsetAsync(st.aligned, 0, windows, stream));
  st.tighten = k == 1;
  const int rows = detail::window_rows_per_lane(n);

  const float start_bound = r.use_threshold ? float_at_or_below(pattern.params.threshold)
                                            : std::numeric_limits<float>::infinity();
  float bound = start_bound;
  std::vector<common::TopCandidate> kept;
  unsigned found_so_far = 0;
  std::vector<float> found_distance;
  std::vector<std::uint32_t> found_window;
  // One launch over [begin, end) or the list, then what it found, and the bound from it.
  const auto run = [&](std::uint32_t begin, std::uint32_t end, const std::uint32_t* list,
                       std::uint32_t count) -> bool {
    unsigned head[4] = {std::bit_cast<unsigned>(bound), 0, 0, found_so_far};
    upload(scalars, head, 4, stream);
    detail::launch_window_alignments(ins, in.kind, in.band_lo != nullptr, st, rows, begin, end,
                                     list, count, stream);
    download(head, scalars, 4, stream);
    WW_CUDA(cudaStreamSynchronize(stream));
    const unsigned now = std::min(head[3], st.found_capacity);
    found_distance.resize(now - found_so_far);
    found_window.resize(now - found_so_far);
    download(found_distance.data(), st.found_distance + found_so_far, now - found_so_far, stream);
    download(found_window.data(), st.found_window + found_so_far, now - found_so_far, stream);
    WW_CUDA(cudaStreamSynchronize(stream));
    for (std::size_t i = 0; i < found_distance.size(); ++i)
      kept.push_back(
          {found_distance[i], w - 1 + static_cast<std::uint64_t>(found_window[i]) * hop});
    found_so_far = now;
    // Never raised: top_bound of more windows can be larger (a new window may exclude two
    // taken ones), and every bound it gave holds (top_selection.cpp), so the least one does.
    bound = std::min(bound, float_at_or_below(common::top_bound(kept, k, w)));
    return head[2] != 0;
  };

  // Seeds: 2K - 1 windows of the smallest keys that overlap by at most w/2, in key order.
  {
    const std::uint32_t scan = std::min(e, kSeedScan);
    std::vector<float> head_keys(scan);
    std::vector<std::uint32_t> head_order(scan);
    download(head_keys.data(), sorted, scan, stream);
    download(head_order.data(), order, scan, stream);
    WW_CUDA(cudaStreamSynchronize(stream));
    std::vector<std::uint32_t> seeds;
    std::vector<std::uint64_t> ends;
    for (std::uint32_t p = 0; p < scan && seeds.size() < 2 * k - 1; ++p) {
      if (query.prunes(head_keys[p], bound) || std::isinf(head_keys[p])) break;
      const std::uint64_t end = w - 1 + static_cast<std::uint64_t>(head_order[p]) * hop;
      const bool clash = std::any_of(ends.begin(), ends.end(), [&](std::uint64_t f) {
        return 2 * (end > f ? end - f : f - end) < w;
      });
      if (clash) continue;
      ends.push_back(end);
      seeds.push_back(p);
    }
    if (!seeds.empty()) {
      std::uint32_t* list = take<std::uint32_t>(owned, seeds.size(), stream);
      upload(list, seeds.data(), seeds.size(), stream);
      run(0, 0, list, static_cast<std::uint32_t>(seeds.size()));
    }
  }
  // The bulk.
  std::uint32_t round = k == 1 ? e : kFirstRound;
  for (std::uint32_t begin = 0; begin < e; begin += round, round = std::min(e, 2 * round))
    if (run(begin, begin + std::min(round, e - begin), nullptr, 0)) break;
  finished.record(stream);

  if (r.stats) {
    detail::launch_window_skip_counts(ins, kim, st.aligned, bound, counters + 1, stream);
    unsigned long long c[4] = {};
    download(c, counters, 4, stream);
    WW_CUDA(cudaStreamSynchronize(stream));
    *r.stats = {};
    r.stats->windows_evaluated = windows - c[3];
    r.stats->windows_pruned = {c[1], c[2], 0, c[0]};
  }
  finished.synchronize();
  if (timings) {
    timings->kernel_seconds = finished.seconds_since(copied);
    timings->copy_seconds = copied.seconds_since(begun);
    timings->device_bytes = 0;
    for (const auto& b : owned) timings->device_bytes += b.bytes();
  }
  return common::top_windows_of(std::move(kept), k, w, r.times_ns);
}

}  // namespace warpwatch::kernels::cuda
