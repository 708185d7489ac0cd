// The CUDA backend's Matcher: its device state around the Matcher base's bookkeeping, on
// the process's device context (streams, the whole-series engine), whose lock each hook
// holds while it works. A batch is started (start_batch): the active streams' chunks are
// packed into one of two pinned "flights" and copied up on the copy stream, stream mode
// (stream/spring_pairs.hpp) is queued on the compute stream behind that copy, and window
// mode runs meanwhile on its own streams: the pairs window/window_pairs.hpp covers (dtw and
// dk of one dimension) on the device from each stream's samples, the others window by
// window through ElasticBatcher. The batch is finished (finish_batch) by
// reading its reports back. With two flights, batch k+1 is packed and copied while batch
// k's kernels run (Matcher::submit/collect). Stream-mode state stays on the device.
#include <algorithm>
#include <array>
#include <chrono>
#include <memory>
#include <thread>

#include "common/matcher_state.hpp"
#include "common/worker_pool.hpp"
#include "cuda/device_context.hpp"
#include "cuda/distance/elastic_batch.hpp"
#include "cuda/stream/spring_pairs.hpp"
#include "cuda/window/window_pairs.hpp"
#include "warpwatch/kernels/cuda.hpp"

namespace warpwatch::kernels::cuda {
namespace {

using common::low32;

class CudaMatcher final : public Matcher {
 public:
  explicit CudaMatcher(const Options& options)
      : options_(options),
        context_(DeviceContext::get(options.device)),
        spring_(context_.compute()),
        batcher_(context_.engine()) {
    lend_host_pool(&host_pool_);
  }
  // A batch may still be running (a matcher dropped with batches outstanding): its kernels
  // read the flights freed next.
  ~CudaMatcher() override {
    try {
      context_.make_current();  // the members free their device memory on its device
      context_.compute().synchronize();
      context_.copy().synchronize();
    } catch (...) {  // a destructor must not throw; a lost device has nothing running
    }
  }

  std::string_view name() const override { return "cuda"; }

 protected:
  void add_backend_counters(MatcherCounters& c) const override {
    const auto lock = context_.lock();  // the engine is shared with other users
    c.device_bytes = spring_.device_bytes() + batcher_.device_bytes() +
                     window_pairs_.device_bytes() + live_dev_.bytes();
    for (const Flight& f : flights_) c.device_bytes += f.values_dev.bytes() + f.chunks_dev.bytes();
    c.device_seconds = device_seconds_ + window_pairs_.device_seconds();
    c.wait_seconds = spring_.wait_seconds() + upload_wait_seconds_;
  }

  void on_stream_pattern_added(PatternState& pattern) override { spring_.add_pattern(pattern); }
  void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) override {
    const auto lock = context_.lock();
    spring_.remove_pattern(pattern, out);
  }
  void on_stream_pattern_moved_out(PatternState& pattern) override {
    const auto lock = context_.lock();
    spring_.drop_pattern(pattern);
  }
  void on_stream_pair_added(Pair& pair) override {
    const auto lock = context_.lock();
    spring_.add_pair(&pair);
  }
  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    const auto lock = context_.lock();
    spring_.remove_pair(&pair, out);
  }

  // Not called (the base drives start_batch/finish_batch); the whole batch, for the hook's
  // contract.
  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    start_batch(windows, out);
    finish_batch(out);
  }

  void start_batch(std::span<WindowBatch> windows, std::vector<RawMatch>&) override {
    const auto lock = context_.lock();
    Flight& f = flights_[started_ % flights_.size()];
    const std::uint32_t max_count = upload(f);
    // Stream mode waits (on the device) for its copy only; while it runs, the host
    // prepares window mode and the batcher runs it on its own stream.
    spring_.launch(f.chunks_dev.data(), f.values_dev.data(), max_count, f.uploaded);
    ++started_;
    try {
      run_windows(windows);
    } catch (...) {  // the batch failed: nothing of it stays started (Matcher's contract)
      std::vector<RawMatch> lost;
      ++finished_;
      spring_.collect(f.first, lost);
      throw;
    }
  }

  void finish_batch(std::vector<RawMatch>& out) override {
    const auto lock = context_.lock();
    const Flight& f = flights_[finished_ % flights_.size()];
    ++finished_;
    device_seconds_ += spring_.collect(f.first, out);
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override {
    const auto lock = context_.lock();
    spring_.flush(out);
  }

  void export_stream_pairs(std::span<Pair* const> pairs,
                           std::span<common::SpringLaneState> out) override {
    const auto lock = context_.lock();
    spring_.export_pairs(pairs, out);
  }

  void import_stream_pairs(std::span<Pair* const> pairs,
                           std::span<const common::SpringLaneState> in) override {
    const auto lock = context_.lock();
    spring_.import_pairs(pairs, in);
  }

  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    if (spring_.empty()) return;
    const auto lock = context_.lock();
    const std::uint32_t slots = std::max<std::uint32_t>(state().slot_count, 1);
    live_host_.reserve(slots);
    next_index_.assign(slots, 0);
    for (const auto& [id, s] : state().streams) {
      live_host_[s->slot] = SpringChunkDev{0, 0, low32(s->next_index())};
      next_index_[s->slot] = s->next_index();
    }
    live_dev_.reserve(slots);
    WW_CUDA(cudaMemcpyAsync(live_dev_.data(), live_host_.data(),
                            state().slot_count * sizeof(SpringChunkDev), cudaMemcpyHostToDevice,
                            context_.compute().get()));
    spring_.lower_to_live_starts(live_dev_.data(), next_index_, keep_from);
    // The copy above must be done before the pinned table is refilled (lower_to_live_starts
    // waits for the compute stream only when it has pairs).
    context_.compute().synchronize();
  }

 private:
  // One batch's chunks on their way to the device: pinned and device copies of the values
  // and of the chunk table (by stream slot). A flight is reused two batches later, once
  // that batch is collected (its kernels are done with it).
  struct Flight {
    PinnedBuffer<float> values_host;
    PinnedBuffer<SpringChunkDev> chunks_host;
    DeviceBuffer<float> values_dev;
    DeviceBuffer<SpringChunkDev> chunks_dev;
    Event uploaded{cudaEventDisableTiming};
    std::uint32_t table_slots = 0;      // chunk-table entries set (to "no chunk" at least)
    std::vector<std::uint32_t> filled;  // slots given a chunk by the flight's last batch
    std::vector<std::uint64_t> first;   // by slot: the batch's first index of each chunk
  };

  // Grows a buffer by half again at least, so that batches of varying size do not
  // reallocate (pinned allocations cost milliseconds) every time.
  template <typename Buffer>
  static void grow(Buffer& b, std::size_t count) {
    if (count > b.capacity()) b.reserve(std::max(count, b.capacity() + b.capacity() / 2));
  }

  // Packs the active streams' chunks (the base has put them in their StreamStates) into the
  // flight's pinned memory and starts the copy to the device. The chunk table is by slot:
  // the entries the flight's last batch filled are put back to "no chunk", so the work
  // follows the active streams, never all of them. Returns the longest chunk.
  std::uint32_t upload(Flight& f) {
    const auto active = batch_streams();
    const std::uint32_t slots = std::max<std::uint32_t>(state().slot_count, 1);
    std::size_t floats = 0;
    for (const StreamState* s : active) floats += s->chunk_values.size();
    // The flight's previous copy must be done before its pinned memory is refilled (its
    // kernels are: that batch was collected).
    const auto began = std::chrono::steady_clock::now();
    f.uploaded.synchronize();
    upload_wait_seconds_ +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    grow(f.values_host, std::max<std::size_t>(floats, 1));
    if (slots > f.chunks_host.capacity()) {  // reallocated: every entry to set again
      grow(f.chunks_host, slots);
      f.table_slots = 0;
      f.filled.clear();
    }
    for (const std::uint32_t slot : f.filled) f.chunks_host[slot] = SpringChunkDev{};
    f.filled.clear();
    if (f.table_slots < slots) {
      std::fill(f.chunks_host.data() + f.table_slots, f.chunks_host.data() + slots,
                SpringChunkDev{});
      f.table_slots = slots;
    }
    if (f.first.size() < slots) f.first.resize(slots);
    std::uint32_t max_count = 0;
    std::size_t offset = 0;
    offsets_.resize(active.size());
    for (std::size_t k = 0; k < active.size(); ++k) {
      const StreamState* s = active[k];
      f.chunks_host[s->slot] = SpringChunkDev{offset, s->chunk_count, low32(s->chunk_first)};
      f.filled.push_back(s->slot);
      f.first[s->slot] = s->chunk_first;
      offsets_[k] = offset;
      offset += s->chunk_values.size();
      max_count = std::max(max_count, s->chunk_count);
    }
    // The copies into pinned memory, like the base's histories, split over the host pool.
    common::for_each_part(&host_pool_, active.size(), floats, [&](std::size_t k) {
      const auto& v = active[k]->chunk_values;
      std::copy(v.begin(), v.end(), f.values_host.data() + offsets_[k]);
    });
    grow(f.values_dev, std::max<std::size_t>(floats, 1));
    grow(f.chunks_dev, slots);
    const cudaStream_t s = context_.copy().get();
    WW_CUDA(cudaMemcpyAsync(f.values_dev.data(), f.values_host.data(), floats * 4,
                            cudaMemcpyHostToDevice, s));
    WW_CUDA(cudaMemcpyAsync(f.chunks_dev.data(), f.chunks_host.data(),
                            slots * sizeof(SpringChunkDev), cudaMemcpyHostToDevice, s));
    f.uploaded.record(context_.copy());
    return max_count;
  }

  // The pairs WindowPairs covers on the device; every window of the others (normalized,
  // twed's clock rebased) packed per pair, then one batcher run.
  void run_windows(std::span<WindowBatch> windows) {
    jobs_.clear();
    on_device_.clear();
    scratch_.resize(std::max(scratch_.size(), windows.size()));
    for (std::size_t k = 0; k < windows.size(); ++k) {
      WindowBatch& w = windows[k];
      if (WindowPairs::covers(*w.pair)) {
        on_device_.push_back(&w);
        continue;
      }
      const common::WindowTrack& track = *w.pair->window;
      const PatternDef& p = track.pattern();
      const std::size_t wlen = track.window(), len = wlen * p.dims, n = w.ends.size();
      const bool twed = track.twed();
      WindowScratch& sc = scratch_[k];
      sc.values.resize(n * len);
      sc.times.resize(twed ? n * wlen : 0);
      for (std::size_t i = 0; i < n; ++i) {
        float* times = twed ? sc.times.data() + i * wlen : nullptr;
        if (!track.window(w.pair->stream->history, w.ends[i], window_, times)) {
          w.flat[i] = 1;
          continue;
        }
        std::copy(window_.begin(), window_.end(),
                  sc.values.begin() + static_cast<std::ptrdiff_t>(i * len));
        ElasticJob job;
        job.a = track.values().data();
        job.a_times = twed ? track.times().data() : nullptr;
        job.n = p.length();
        job.b = sc.values.data() + i * len;
        job.b_times = times;
        job.m = wlen;
        job.dims = p.dims;
        job.params = &p.params.distance;
        job.out = &w.distances[i];
        jobs_.push_back(job);
      }
    }
    window_pairs_.run(on_device_, options_.window_pruning);
    if (!jobs_.empty()) batcher_.run(jobs_);
  }

  // One window-mode pair's windows as compared this batch, back to back.
  struct WindowScratch {
    std::vector<float> values, times;
  };

  // A few host threads (half the machine's, at most 8: ingest and publishing share it) for
  // the per-sample host work of large batches.
  static unsigned host_threads() {
    return std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
  }

  Options options_;
  common::WorkerPool host_pool_{host_threads()};
  DeviceContext& context_;
  SpringPairs spring_;
  ElasticBatcher batcher_;
  WindowPairs window_pairs_;
  std::vector<WindowBatch*> on_device_;  // run_windows(): this batch's pairs for window_pairs_
  std::array<Flight, Matcher::max_outstanding> flights_;
  std::uint64_t started_ = 0, finished_ = 0;  // batches: flight = count % flights
  PinnedBuffer<SpringChunkDev> live_host_;    // every stream's next index, for trimming
  DeviceBuffer<SpringChunkDev> live_dev_;
  std::vector<std::uint64_t> next_index_;  // the same, whole, on the host
  double upload_wait_seconds_ = 0.0;
  std::vector<std::size_t> offsets_;  // upload(): each active stream's first float
  std::vector<ElasticJob> jobs_;
  std::vector<WindowScratch> scratch_;
  std::vector<float> window_;
  double device_seconds_ = 0.0;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher(const Options& options) {
  return std::make_unique<CudaMatcher>(options);
}

}  // namespace warpwatch::kernels::cuda
