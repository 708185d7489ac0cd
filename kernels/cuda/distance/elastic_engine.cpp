#include "elastic_engine.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "cuda/runtime/device_memory.hpp"
#include "distance_launch.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cuda::detail {
namespace {

constexpr std::size_t kStagingBytes = std::size_t{32} << 20;          // one of two pinned chunks
constexpr std::size_t kGenericScratchBytes = std::size_t{256} << 20;  // per generic launch

struct HostSeries {
  const float* values;
  std::size_t length;
  const float* times;
  std::uint64_t off = 0;
  std::int64_t toff = -1;
};

struct HostJob {
  std::uint32_t a, b, params;
};

DevParams flatten(const DistanceParams& p) {
  DevParams d;
  static_cast<MeasureParams&>(d) = measure_params(p);
  d.metric = static_cast<int>(p.metric);
  d.cost = static_cast<int>(p.cost);
  d.band = p.band && measure_info(p.metric).band == BandUse::applies ? *p.band : -1.0;
  return d;
}

enum class Family { warp, long_pair, generic };

struct Route {
  Family family = Family::generic;
  FastKind kind = FastKind::dtw_sq;
  int rows = 0;       // warp: rows per lane
  bool swap = false;  // a and b exchanged (the distances routed here are symmetric)
};

// The family for a job of n x m with these params: forced by `path` (tests; the family
// must be able to run the job), or the fastest that can. dtw and dk without a band and
// twed are symmetric: D of (b, a) is the transposed table, with every cell's float
// operations the same, so the fast kernels may take either side as the rows.
Route route(const DistanceParams& p, std::size_t dims, std::size_t n, std::size_t m,
            DistancePath path) {
  static_assert(GenericDistance::can_implement());
  Route r;
  const bool automatic = path == DistancePath::automatic;
  const bool long_pair = LongPairDistance::can_implement(p, dims);
  if (path == DistancePath::generic || (automatic && !long_pair)) return r;
  WW_ASSERT(long_pair, "a forced fast kernel for parameters only the generic kernel runs");
  r.kind = *fast_kind(p, dims);
  const bool warp_a = WarpDistance::can_implement(p, dims, n),
             warp_b = WarpDistance::can_implement(p, dims, m);
  if (path == DistancePath::long_pair || (automatic && !warp_a && !warp_b)) {
    r.family = Family::long_pair;
    // More rows = more bands working at once; forced, a is kept as the rows side.
    r.swap = automatic && m > n;
    return r;
  }
  WW_ASSERT(warp_a || warp_b, "forced warp path for a job longer than its registers hold");
  r.family = Family::warp;
  // The shorter side in registers: fewer padding rows, fewer registers, longer sweep.
  r.swap = !warp_a || (warp_b && m < n);
  r.rows = WarpDistance::rows_per_lane(r.swap ? m : n);
  return r;
}

}  // namespace

std::optional<FastKind> fast_kind(const DistanceParams& p, std::size_t dims) {
  if (dims != 1) return std::nullopt;
  const bool sq = p.cost == Cost::sq;
  switch (p.metric) {
    case Metric::dtw:
      return p.band ? std::nullopt : std::optional{sq ? FastKind::dtw_sq : FastKind::dtw_abs};
    case Metric::dk:
      return p.band ? std::nullopt : std::optional{sq ? FastKind::dk_sq : FastKind::dk_abs};
    case Metric::twed:
      return FastKind::twed;
    case Metric::softdtw:
    case Metric::ed:                // the generic kernel's lock-step sum
      WARPWATCH_CELL_MEASURE_CASES  // the generic kernel's shared cells
          return std::nullopt;
  }
  return std::nullopt;
}

bool WarpDistance::can_implement(const DistanceParams& p, std::size_t dims, std::size_t n) {
  const std::optional<FastKind> kind = fast_kind(p, dims);
  return kind && n >= 1 && n <= (*kind == FastKind::twed ? max_rows_twed : max_rows);
}

struct ElasticEngine::Impl {
  std::vector<HostSeries> series;
  std::vector<DistanceParams> params;
  std::vector<HostJob> jobs;

  Stream stream;
  Event copy_start, copy_end, kernel_start, kernel_end, back_start, back_end;
  Event staged[2];
  PinnedBuffer<unsigned char> staging[2];
  PinnedBuffer<double> results_host;
  DeviceBuffer<float> values, times;
  DeviceBuffer<DevParams> dev_params;
  DeviceBuffer<DevJob> dev_jobs;
  DeviceBuffer<double> out, generic_scratch;
  DeviceBuffer<unsigned char> long_scratch;

  std::size_t held() const {
    return values.bytes() + times.bytes() + dev_params.bytes() + dev_jobs.bytes() + out.bytes() +
           generic_scratch.bytes() + long_scratch.bytes();
  }

  // Copies the pieces, back to back, to `dst` through the two pinned chunks: the host fills
  // one while the other is on its way.
  void upload(unsigned char* dst, const std::vector<std::pair<const void*, std::size_t>>& pieces) {
    for (auto& s : staging) s.reserve(kStagingBytes);
    // The chunk after the last one used: an earlier call's copy from it may still be
    // running, so wait for it before refilling.
    int buf = next_staging;
    staged[buf].synchronize();
    std::size_t fill = 0, done = 0;
    const auto flush = [&] {
      if (fill == 0) return;
      WW_CUDA(cudaMemcpyAsync(dst + done, staging[buf].data(), fill, cudaMemcpyHostToDevice,
                              stream.get()));
      staged[buf].record(stream);
      done += fill;
      fill = 0;
      buf ^= 1;
      staged[buf].synchronize();  // the other chunk's copy has finished: it may be refilled
    };
    for (const auto& [src, bytes] : pieces) {
      const auto* from = static_cast<const unsigned char*>(src);
      for (std::size_t left = bytes; left > 0;) {
        const std::size_t take = std::min(left, kStagingBytes - fill);
        std::memcpy(staging[buf].data() + fill, from, take);
        from += take;
        left -= take;
        fill += take;
        if (fill == kStagingBytes) flush();
      }
    }
    flush();
    next_staging = buf;
  }
  int next_staging = 0;

  // Every series once, values then (twed) times, each series' offsets set.
  struct Packed {
    std::size_t value_count = 0, time_count = 0;
    std::vector<std::pair<const void*, std::size_t>> value_pieces, time_pieces;
  };
  Packed pack(std::size_t dims) {
    Packed p;
    for (HostSeries& x : series) {
      x.off = p.value_count;
      p.value_count += x.length * dims;
      p.value_pieces.emplace_back(x.values, x.length * dims * sizeof(float));
      x.toff = -1;
      if (x.times) {
        x.toff = static_cast<std::int64_t>(p.time_count);
        p.time_count += x.length;
        p.time_pieces.emplace_back(x.times, x.length * sizeof(float));
      }
    }
    return p;
  }

  // A job of `h` (series a as the rows unless `swap`), its result at out[out_index].
  DevJob dev_job(const HostJob& h, bool swap, std::uint64_t out_index) const {
    HostSeries a = series[h.a], b = series[h.b];
    if (swap) std::swap(a, b);
    DevJob j;
    j.a_off = a.off;
    j.b_off = b.off;
    j.a_toff = a.toff;
    j.b_toff = b.toff;
    j.n = static_cast<std::uint32_t>(a.length);
    j.m = static_cast<std::uint32_t>(b.length);
    j.params = h.params;
    j.out = out_index;
    return j;
  }

  // Grows the buffers (never shrinks them) for these inputs and `result_count` results and
  // uploads the inputs between copy_start and copy_end. Returns the bytes this call's inputs
  // and results take on the device, and the device's view of them.
  std::size_t upload_inputs(const Packed& p, const std::vector<DevJob>& jobs_in_order,
                            std::size_t result_count, std::size_t dims, DeviceData& data) {
    std::vector<DevParams> flat;
    for (const DistanceParams& q : params) flat.push_back(flatten(q));
    values.reserve(p.value_count);
    times.reserve(std::max<std::size_t>(p.time_count, 1));
    dev_params.reserve(flat.size());
    dev_jobs.reserve(jobs_in_order.size());
    out.reserve(result_count);
    results_host.reserve(result_count);
    copy_start.record(stream);
    upload(reinterpret_cast<unsigned char*>(values.data()), p.value_pieces);
    if (!p.time_pieces.empty())
      upload(reinterpret_cast<unsigned char*>(times.data()), p.time_pieces);
    upload(reinterpret_cast<unsigned char*>(dev_params.data()),
           {{flat.data(), flat.size() * sizeof(DevParams)}});
    upload(reinterpret_cast<unsigned char*>(dev_jobs.data()),
           {{jobs_in_order.data(), jobs_in_order.size() * sizeof(DevJob)}});
    copy_end.record(stream);
    data.values = values.data();
    data.times = times.data();
    data.params = dev_params.data();
    data.out = out.data();
    data.dims = static_cast<std::uint32_t>(dims);
    return p.value_count * sizeof(float) + std::max<std::size_t>(p.time_count, 1) * sizeof(float) +
           flat.size() * sizeof(DevParams) + jobs_in_order.size() * sizeof(DevJob) +
           result_count * sizeof(double);
  }

  // After the kernels (kernel_start .. kernel_end): copies results.size() results back,
  // waits for them, and adds the call's times and its device memory (`needed`) to `timings`.
  void fetch(std::span<double> results, std::size_t needed, DeviceTimings* timings) {
    back_start.record(stream);
    WW_CUDA(cudaMemcpyAsync(results_host.data(), out.data(), results.size() * sizeof(double),
                            cudaMemcpyDeviceToHost, stream.get()));
    back_end.record(stream);
    stream.synchronize();
    std::memcpy(results.data(), results_host.data(), results.size() * sizeof(double));
    if (timings) {
      timings->kernel_seconds += kernel_end.seconds_since(kernel_start);
      timings->copy_seconds +=
          copy_end.seconds_since(copy_start) + back_end.seconds_since(back_start);
      timings->device_bytes = std::max(timings->device_bytes, needed);
    }
  }
};

ElasticEngine::ElasticEngine() : impl_(std::make_unique<Impl>()) {}
ElasticEngine::~ElasticEngine() = default;

void ElasticEngine::clear() {
  impl_->series.clear();
  impl_->params.clear();
  impl_->jobs.clear();
}

std::uint32_t ElasticEngine::add_series(const float* values, std::size_t length,
                                        const float* times) {
  if (length == 0 || length > std::numeric_limits<std::uint32_t>::max())
    throw std::invalid_argument("series length out of range for the CUDA backend");
  impl_->series.push_back({values, length, times});
  return static_cast<std::uint32_t>(impl_->series.size() - 1);
}

std::uint32_t ElasticEngine::add_params(const DistanceParams& params) {
  auto& all = impl_->params;
  const auto it = std::find(all.begin(), all.end(), params);
  if (it != all.end()) return static_cast<std::uint32_t>(it - all.begin());
  all.push_back(params);
  return static_cast<std::uint32_t>(all.size() - 1);
}

void ElasticEngine::add_job(std::uint32_t a, std::uint32_t b, std::uint32_t params) {
  impl_->jobs.push_back({a, b, params});
}

std::size_t ElasticEngine::job_count() const {
  return impl_->jobs.size();
}
std::size_t ElasticEngine::device_bytes() const {
  return impl_->held();
}

void ElasticEngine::run(std::size_t dims, std::span<double> results, DistancePath path,
                        DeviceTimings* timings) {
  Impl& s = *impl_;
  if (results.size() != s.jobs.size())
    throw std::invalid_argument("ElasticEngine::run: results size");
  if (s.jobs.empty()) return;
  const cudaStream_t stream = s.stream.get();

  const Impl::Packed packed = s.pack(dims);

  // Route and order the jobs: warp groups by (kind, rows), then long pairs, then generic
  // jobs by ascending m (a generic launch's scratch is sized by its longest b).
  struct Routed {
    Route r;
    DevJob job;
  };
  std::vector<Routed> routed;
  routed.reserve(s.jobs.size());
  for (std::size_t k = 0; k < s.jobs.size(); ++k) {
    const HostJob& h = s.jobs[k];
    const Route r =
        route(s.params[h.params], dims, s.series[h.a].length, s.series[h.b].length, path);
    routed.push_back({r, s.dev_job(h, r.swap, k)});
  }
  const auto key = [](const Routed& x) {
    return std::tuple(static_cast<int>(x.r.family), static_cast<int>(x.r.kind), x.r.rows, x.job.m);
  };
  std::stable_sort(routed.begin(), routed.end(),
                   [&](const Routed& x, const Routed& y) { return key(x) < key(y); });
  std::vector<DevJob> dev_jobs(routed.size());
  for (std::size_t k = 0; k < routed.size(); ++k) dev_jobs[k] = routed[k].job;

  DeviceData data;
  const std::size_t input_bytes = s.upload_inputs(packed, dev_jobs, dev_jobs.size(), dims, data);

  // Scratch first (an allocation inside the timed section would be timed too).
  std::size_t long_bytes = 0;
  for (const Routed& x : routed)
    if (x.r.family == Family::long_pair)
      long_bytes = std::max(long_bytes, LongPairDistance::workspace_bytes(x.job.n, x.job.m));
  if (long_bytes) s.long_scratch.reserve(long_bytes);
  std::size_t generic_bytes = 0;
  for (const Routed& x : routed)
    if (x.r.family == Family::generic)
      generic_bytes = std::max(generic_bytes, GenericDistance::workspace_bytes(1, x.job.m));
  const std::size_t budget = std::max(generic_bytes, kGenericScratchBytes);
  if (generic_bytes) s.generic_scratch.reserve(budget / sizeof(double));
  // What this call needs on the device (the buffers may hold more: they are the process's,
  // grown by the largest call so far).
  const std::size_t needed = input_bytes + long_bytes + (generic_bytes ? budget : 0);

  s.kernel_start.record(s.stream);
  for (std::size_t begin = 0; begin < routed.size();) {
    const Route& r = routed[begin].r;
    std::size_t end = begin + 1;
    while (end < routed.size() && routed[end].r.family == r.family &&
           routed[end].r.kind == r.kind && routed[end].r.rows == r.rows)
      ++end;
    const DevJob* group = s.dev_jobs.data() + begin;
    switch (r.family) {
      case Family::warp:
        WarpDistance::run(r.kind, r.rows, data, group, end - begin, stream);
        break;
      case Family::long_pair:
        for (std::size_t k = begin; k < end; ++k)
          LongPairDistance::run(r.kind, data, routed[k].job, s.dev_jobs.data() + k,
                                s.long_scratch.data(), stream);
        break;
      case Family::generic:
        // Slices whose interleaved scratch fits the budget (m ascending: the last is the longest).
        for (std::size_t k = begin; k < end;) {
          std::size_t stop = k + 1;
          while (stop < end &&
                 GenericDistance::workspace_bytes(stop - k + 1, routed[stop].job.m) <= budget)
            ++stop;
          GenericDistance::run(data, s.dev_jobs.data() + k, stop - k, routed[stop - 1].job.m,
                               s.generic_scratch.data(), stream);
          k = stop;
        }
        break;
    }
    begin = end;
  }
  s.kernel_end.record(s.stream);
  s.fetch(results, needed, timings);
}

void ElasticEngine::run_softdtw_grad(std::size_t dims, std::span<double> grads,
                                     std::size_t scratch_budget, DeviceTimings* timings) {
  Impl& s = *impl_;
  std::size_t total = 0;
  for (const HostJob& h : s.jobs) total += s.series[h.a].length * dims;
  if (grads.size() != total)
    throw std::invalid_argument("ElasticEngine::run_softdtw_grad: gradients size");
  if (s.jobs.empty()) return;
  const Impl::Packed packed = s.pack(dims);

  // Jobs by ascending (n, m), each writing its gradient where the order added puts it; a
  // launch takes jobs while their interleaved tables fit the budget (at least one job).
  std::vector<DevJob> jobs;
  jobs.reserve(s.jobs.size());
  for (std::size_t k = 0, at = 0; k < s.jobs.size(); ++k) {
    jobs.push_back(s.dev_job(s.jobs[k], false, at));
    at += jobs.back().n * dims;
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const DevJob& x, const DevJob& y) {
    return std::tuple(x.n, x.m) < std::tuple(y.n, y.m);
  });
  struct Launch {
    std::size_t begin, end, max_n, max_m;
  };
  std::vector<Launch> launches;
  std::size_t scratch_bytes = 0;
  for (std::size_t k = 0; k < jobs.size();) {
    Launch l{k, k + 1, jobs[k].n, jobs[k].m};
    while (l.end < jobs.size() &&
           SoftDtwGrad::workspace_bytes(l.end - l.begin + 1, jobs[l.end].n,
                                        std::max<std::size_t>(l.max_m, jobs[l.end].m)) <=
               scratch_budget) {
      l.max_n = jobs[l.end].n;
      l.max_m = std::max<std::size_t>(l.max_m, jobs[l.end].m);
      ++l.end;
    }
    scratch_bytes =
        std::max(scratch_bytes, SoftDtwGrad::workspace_bytes(l.end - l.begin, l.max_n, l.max_m));
    launches.push_back(l);
    k = l.end;
  }

  DeviceData data;
  const std::size_t input_bytes = s.upload_inputs(packed, jobs, total, dims, data);
  // The scratch is this call's alone (not kept: it can be most of the device's memory), and
  // allocated before the timed section.
  DeviceBuffer<double> scratch(scratch_bytes / sizeof(double));
  s.kernel_start.record(s.stream);
  for (const Launch& l : launches)
    SoftDtwGrad::run(data, s.dev_jobs.data() + l.begin, l.end - l.begin, l.max_n, l.max_m,
                     scratch.data(), s.stream.get());
  s.kernel_end.record(s.stream);
  s.fetch(grads, input_bytes + scratch_bytes, timings);
}

}  // namespace warpwatch::kernels::cuda::detail
