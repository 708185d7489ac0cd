// The CUDA backend's Matcher: bookkeeping of streams and patterns around the device.
// A batch: pack every chunk into pinned memory, copy it up on the copy stream while the
// compute stream waits only for that copy; run stream mode (spring_pairs.hpp) on the
// compute stream; while it runs, prepare and run window mode (ElasticBatcher, its own
// stream); then collect both. State stays on the device from batch to batch.
#include <algorithm>
#include <map>
#include <memory>

#include "common/window_track.hpp"
#include "cuda/distance/elastic_batch.hpp"
#include "cuda/stream/spring_pairs.hpp"
#include "warpwatch/kernels/cuda.hpp"

namespace warpwatch::kernels::cuda {
namespace {

// One window-mode (stream, pattern) pair and its batch scratch.
struct WindowPair {
  StreamHost* stream;
  common::WindowTrack track;
  std::vector<std::uint64_t> ends;
  std::vector<double> distances;
  std::vector<std::uint8_t> flat;
  std::vector<float> windows, times;  // the batch's windows as compared, back to back
};

struct PatternEntry {
  std::unique_ptr<PatternDef> def;
  std::vector<std::unique_ptr<WindowPair>> windows;  // window mode, one per stream
  bool stream_mode() const { return def->params.mode == Mode::stream; }
};

class CudaMatcher final : public Matcher {
 public:
  CudaMatcher() : spring_(compute_) {}

  std::string_view name() const override { return "cuda"; }
  MatcherCounters counters() const override {
    MatcherCounters c = counters_;
    c.device_bytes = spring_.device_bytes() + batcher_.device_bytes() + values_dev_.bytes() + chunks_dev_.bytes();
    return c;
  }

 protected:
  void do_add_stream(const StreamDef& def) override {
    std::uint32_t slot = static_cast<std::uint32_t>(streams_.size());
    if (!free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    }
    auto stream = std::make_unique<StreamHost>(def, slot);
    for (auto& [id, p] : patterns_)
      if (p.def->dims == def.dims) pair(p, *stream);
    slot_count_ = std::max(slot_count_, slot + 1);
    streams_.emplace(def.id, std::move(stream));
  }

  std::vector<RawMatch> do_remove_stream(const StreamDef& def) override {
    const auto it = streams_.find(def.id);
    std::vector<RawMatch> out;
    spring_.remove_stream(it->second.get(), out);
    for (auto& [id, p] : patterns_)
      std::erase_if(p.windows, [&](const std::unique_ptr<WindowPair>& w) {
        if (w->stream != it->second.get()) return false;
        w->track.flush(def.id, out);
        return true;
      });
    free_slots_.push_back(it->second->slot);
    streams_.erase(it);
    return out;
  }

  void do_add_pattern(const PatternDef& pattern) override {
    PatternEntry entry{std::make_unique<PatternDef>(pattern), {}};
    if (entry.stream_mode())
      spring_.add_pattern(*entry.def);
    else  // validates the pattern (znorm of a constant) even with no stream yet
      common::WindowTrack check(*entry.def, 1, 0);
    for (auto& [id, stream] : streams_)
      if (stream->def.dims == pattern.dims) pair(entry, *stream);
    patterns_.emplace(pattern.id, std::move(entry));
  }

  std::vector<RawMatch> do_remove_pattern(const PatternDef& pattern) override {
    const auto it = patterns_.find(pattern.id);
    std::vector<RawMatch> out;
    if (it->second.stream_mode()) spring_.remove_pattern(pattern.id, out);
    for (auto& w : it->second.windows) w->track.flush(w->stream->def.id, out);
    patterns_.erase(it);
    return out;
  }

  std::vector<RawMatch> do_process(std::span<const StreamChunk> batch) override {
    std::vector<RawMatch> out;
    const std::uint32_t max_count = upload(batch);
    // Stream mode waits (on the device) for the copy only; while it runs, the host
    // prepares window mode and the batcher runs it on its own stream.
    WW_CUDA(cudaStreamWaitEvent(compute_.get(), uploaded_.get(), 0));
    counters_.cells += spring_.launch(chunks_dev_.data(), values_dev_.data(), max_count);
    run_windows(out);
    counters_.device_seconds += spring_.collect(out);
    samples_since_trim_ += batch_samples_;
    if (samples_since_trim_ >= trim_interval_samples) forget_unneeded();
    return out;
  }

  std::vector<RawMatch> do_flush() override {
    std::vector<RawMatch> out;
    spring_.flush(out);
    for (auto& [id, p] : patterns_)
      for (auto& w : p.windows) w->track.flush(w->stream->def.id, out);
    forget_unneeded();
    return out;
  }

 private:
  void pair(PatternEntry& p, StreamHost& stream) {
    if (p.stream_mode())
      spring_.add_pair(p.def->id, &stream);
    else
      p.windows.push_back(std::make_unique<WindowPair>(
          WindowPair{&stream, common::WindowTrack(*p.def, stream.def.nominal_period_ns, stream.next_index()), {}, {}, {}, {}, {}}));
  }

  // Packs the batch into pinned memory, appends it to the histories and starts the copy
  // to the device. Returns the longest chunk.
  std::uint32_t upload(std::span<const StreamChunk> batch) {
    std::size_t floats = 0;
    for (const StreamChunk& c : batch) floats += c.values.size();
    // The previous batch's copy must be done before its pinned buffer is refilled.
    uploaded_.synchronize();
    values_host_.reserve(std::max<std::size_t>(floats, 1));
    chunks_host_.reserve(std::max<std::uint32_t>(slot_count_, 1));
    for (auto& [id, s] : streams_) {
      s->chunk_count = 0;
      s->chunk_first = s->next_index();
      chunks_host_[s->slot] = SpringChunkDev{0, 0, low32(s->next_index())};
    }
    std::uint32_t max_count = 0;
    std::size_t offset = 0;
    batch_samples_ = 0;
    for (const StreamChunk& c : batch) {
      StreamHost& s = *streams_.find(c.stream_id)->second;
      const auto count = static_cast<std::uint32_t>(c.timestamps_ns.size());
      s.chunk_count = count;
      chunks_host_[s.slot] = SpringChunkDev{offset, count, low32(s.chunk_first)};
      std::copy(c.values.begin(), c.values.end(), values_host_.data() + offset);
      offset += c.values.size();
      s.history.append(c.values, c.timestamps_ns);
      max_count = std::max(max_count, count);
      batch_samples_ += count;
    }
    counters_.samples += batch_samples_;
    values_dev_.reserve(std::max<std::size_t>(floats, 1));
    chunks_dev_.reserve(std::max<std::uint32_t>(slot_count_, 1));
    const cudaStream_t s = copy_.get();
    WW_CUDA(cudaMemcpyAsync(values_dev_.data(), values_host_.data(), floats * 4, cudaMemcpyHostToDevice, s));
    WW_CUDA(cudaMemcpyAsync(chunks_dev_.data(), chunks_host_.data(), slot_count_ * sizeof(SpringChunkDev),
                            cudaMemcpyHostToDevice, s));
    uploaded_.record(copy_);
    return max_count;
  }

  void run_windows(std::vector<RawMatch>& out) {
    jobs_.clear();
    std::vector<WindowPair*> active;
    for (auto& [id, p] : patterns_) {
      for (auto& wp : p.windows) {
        WindowPair& w = *wp;
        if (!w.stream->chunk_count) continue;
        const std::uint64_t from = w.stream->chunk_first, to = from + w.stream->chunk_count;
        w.track.ends(from, to, w.ends);
        const std::size_t len = w.track.window() * p.def->dims, n = w.ends.size();
        const bool twed = w.track.twed();
        w.windows.resize(n * len);
        w.times.resize(twed ? n * w.track.window() : 0);
        w.flat.assign(n, 0);
        w.distances.assign(n, 0.0);
        for (std::size_t i = 0; i < n; ++i) {
          float* times = twed ? w.times.data() + i * w.track.window() : nullptr;
          if (!w.track.window(w.stream->history, w.ends[i], window_, times)) {
            w.flat[i] = 1;
            continue;
          }
          std::copy(window_.begin(), window_.end(), w.windows.begin() + static_cast<std::ptrdiff_t>(i * len));
        }
        active.push_back(&w);
      }
    }
    for (WindowPair* w : active) {
      const PatternDef& p = w->track.pattern();
      for (std::size_t i = 0; i < w->ends.size(); ++i) {
        if (w->flat[i]) continue;
        ElasticJob job;
        job.a = w->track.values().data();
        job.a_times = w->track.twed() ? w->track.times().data() : nullptr;
        job.n = p.length();
        job.b = w->windows.data() + i * w->track.window() * p.dims;
        job.b_times = w->track.twed() ? w->times.data() + i * w->track.window() : nullptr;
        job.m = w->track.window();
        job.dims = p.dims;
        job.params = &p.params.distance;
        job.out = &w->distances[i];
        jobs_.push_back(job);
        counters_.cells += static_cast<std::uint64_t>(p.length()) * w->track.window();
      }
    }
    if (!jobs_.empty()) batcher_.run(jobs_);
    for (WindowPair* w : active) {
      const std::uint64_t from = w->stream->chunk_first, to = from + w->stream->chunk_count;
      counters_.flat_windows_skipped +=
          w->track.group(from, to, w->ends, w->distances, w->flat, w->stream->history, w->stream->def.id, out);
    }
  }

  // Keeps, per stream, only the samples a future window or report can still need.
  void forget_unneeded() {
    samples_since_trim_ = 0;
    for (auto& [id, s] : streams_) s->keep_from = s->next_index();
    if (!spring_.empty()) {
      uploaded_.synchronize();
      for (auto& [id, s] : streams_) chunks_host_[s->slot] = SpringChunkDev{0, 0, low32(s->next_index())};
      chunks_dev_.reserve(std::max<std::uint32_t>(slot_count_, 1));
      WW_CUDA(cudaMemcpyAsync(chunks_dev_.data(), chunks_host_.data(), slot_count_ * sizeof(SpringChunkDev),
                              cudaMemcpyHostToDevice, compute_.get()));
      spring_.update_keep_from(chunks_dev_.data());
    }
    for (auto& [id, p] : patterns_)
      for (auto& w : p.windows) {
        StreamHost& s = *w->stream;
        s.keep_from = std::min(s.keep_from, w->track.oldest_needed(s.next_index()));
      }
    for (auto& [id, s] : streams_) s->history.forget_before(s->keep_from);
  }

  Stream compute_, copy_;
  Event uploaded_{cudaEventDisableTiming};
  SpringPairs spring_;
  ElasticBatcher batcher_;
  std::map<std::string, std::unique_ptr<StreamHost>, std::less<>> streams_;
  std::map<std::string, PatternEntry, std::less<>> patterns_;
  std::vector<std::uint32_t> free_slots_;
  std::uint32_t slot_count_ = 0;
  PinnedBuffer<float> values_host_;
  PinnedBuffer<SpringChunkDev> chunks_host_;
  DeviceBuffer<float> values_dev_;
  DeviceBuffer<SpringChunkDev> chunks_dev_;
  std::vector<ElasticJob> jobs_;
  std::vector<float> window_;
  MatcherCounters counters_;
  std::uint64_t batch_samples_ = 0;
  static constexpr std::uint64_t trim_interval_samples = 1 << 16;
  std::uint64_t samples_since_trim_ = 0;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher() { return std::make_unique<CudaMatcher>(); }

}  // namespace warpwatch::kernels::cuda
