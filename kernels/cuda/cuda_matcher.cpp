// The CUDA backend's Matcher: its device state around the Matcher base's bookkeeping, on
// the process's device context (streams, the whole-series engine), whose lock each hook
// holds while it works. A batch: pack every chunk into pinned memory, copy it up on the copy stream
// while the compute stream waits only for that copy; run stream mode (stream/spring_pairs.hpp) on
// the compute stream; while it runs, prepare and run window mode (ElasticBatcher, its own
// stream); then collect both. Stream-mode state stays on the device from batch to batch.
#include <algorithm>
#include <memory>

#include "common/matcher_state.hpp"
#include "cuda/device_context.hpp"
#include "cuda/distance/elastic_batch.hpp"
#include "cuda/stream/spring_pairs.hpp"
#include "warpwatch/kernels/cuda.hpp"

namespace warpwatch::kernels::cuda {
namespace {

using common::low32;

class CudaMatcher final : public Matcher {
 public:
  CudaMatcher()
      : context_(DeviceContext::get()), spring_(context_.compute()), batcher_(context_.engine()) {}

  std::string_view name() const override { return "cuda"; }

 protected:
  void add_backend_counters(MatcherCounters& c) const override {
    const std::lock_guard lock(context_.mutex());  // the engine is shared with other users
    c.device_bytes = spring_.device_bytes() + batcher_.device_bytes() + values_dev_.bytes() +
                     chunks_dev_.bytes();
    c.device_seconds = device_seconds_;
  }

  void on_stream_pattern_added(PatternState& pattern) override { spring_.add_pattern(pattern); }
  void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) override {
    const std::lock_guard lock(context_.mutex());
    spring_.remove_pattern(pattern, out);
  }
  void on_stream_pair_added(Pair& pair) override {
    const std::lock_guard lock(context_.mutex());
    spring_.add_pair(&pair);
  }
  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    const std::lock_guard lock(context_.mutex());
    spring_.remove_pair(&pair, out);
  }

  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    const std::lock_guard lock(context_.mutex());
    const std::uint32_t max_count = upload();
    // Stream mode waits (on the device) for the copy only; while it runs, the host
    // prepares window mode and the batcher runs it on its own stream.
    WW_CUDA(cudaStreamWaitEvent(context_.compute().get(), uploaded_.get(), 0));
    spring_.launch(chunks_dev_.data(), values_dev_.data(), max_count);
    run_windows(windows);
    device_seconds_ += spring_.collect(out);
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override {
    const std::lock_guard lock(context_.mutex());
    spring_.flush(out);
  }

  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    if (spring_.empty()) return;
    const std::lock_guard lock(context_.mutex());
    const std::uint32_t slots = std::max<std::uint32_t>(state().slot_count, 1);
    uploaded_.synchronize();  // the pinned chunk table may still be on its way up
    chunks_host_.reserve(slots);
    for (const auto& [id, s] : state().streams)
      chunks_host_[s->slot] = SpringChunkDev{0, 0, low32(s->next_index())};
    chunks_dev_.reserve(slots);
    WW_CUDA(cudaMemcpyAsync(chunks_dev_.data(), chunks_host_.data(),
                            state().slot_count * sizeof(SpringChunkDev), cudaMemcpyHostToDevice,
                            context_.compute().get()));
    spring_.lower_to_live_starts(chunks_dev_.data(), keep_from);
    // The copy above must be done before the next upload refills the pinned table from the
    // copy stream (lower_to_live_starts waits for the compute stream only when it has pairs).
    context_.compute().synchronize();
  }

 private:
  // Packs every stream's chunk (the base has put it in the StreamState) into pinned memory
  // and starts the copy to the device. Returns the longest chunk.
  std::uint32_t upload() {
    const auto& streams = state().streams;
    const std::uint32_t slots = std::max<std::uint32_t>(state().slot_count, 1);
    std::size_t floats = 0;
    for (const auto& [id, s] : streams) floats += s->chunk_values.size();
    // The previous batch's copy must be done before its pinned buffer is refilled.
    uploaded_.synchronize();
    values_host_.reserve(std::max<std::size_t>(floats, 1));
    chunks_host_.reserve(slots);
    std::uint32_t max_count = 0;
    std::size_t offset = 0;
    for (const auto& [id, s] : streams) {
      chunks_host_[s->slot] = SpringChunkDev{offset, s->chunk_count, low32(s->chunk_first)};
      std::copy(s->chunk_values.begin(), s->chunk_values.end(), values_host_.data() + offset);
      offset += s->chunk_values.size();
      max_count = std::max(max_count, s->chunk_count);
    }
    values_dev_.reserve(std::max<std::size_t>(floats, 1));
    chunks_dev_.reserve(slots);
    const cudaStream_t s = context_.copy().get();
    WW_CUDA(cudaMemcpyAsync(values_dev_.data(), values_host_.data(), floats * 4,
                            cudaMemcpyHostToDevice, s));
    WW_CUDA(cudaMemcpyAsync(chunks_dev_.data(), chunks_host_.data(),
                            state().slot_count * sizeof(SpringChunkDev), cudaMemcpyHostToDevice,
                            s));
    uploaded_.record(context_.copy());
    return max_count;
  }

  // Every window (normalized, twed's clock rebased) packed per pair, then one batcher run.
  void run_windows(std::span<WindowBatch> windows) {
    jobs_.clear();
    scratch_.resize(std::max(scratch_.size(), windows.size()));
    for (std::size_t k = 0; k < windows.size(); ++k) {
      WindowBatch& w = windows[k];
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
    if (!jobs_.empty()) batcher_.run(jobs_);
  }

  // One window-mode pair's windows as compared this batch, back to back.
  struct WindowScratch {
    std::vector<float> values, times;
  };

  DeviceContext& context_;
  Event uploaded_{cudaEventDisableTiming};
  SpringPairs spring_;
  ElasticBatcher batcher_;
  PinnedBuffer<float> values_host_;
  PinnedBuffer<SpringChunkDev> chunks_host_;
  DeviceBuffer<float> values_dev_;
  DeviceBuffer<SpringChunkDev> chunks_dev_;
  std::vector<ElasticJob> jobs_;
  std::vector<WindowScratch> scratch_;
  std::vector<float> window_;
  double device_seconds_ = 0.0;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher() {
  return std::make_unique<CudaMatcher>();
}

}  // namespace warpwatch::kernels::cuda
