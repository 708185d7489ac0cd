// The CPU backend's Matcher: its SIMD state around the Matcher base's bookkeeping. A batch
// runs the stream-mode lanes whose stream has samples (in their groups, or gathered into
// packs: spring_pattern.hpp) and every window-mode pair's windows in parallel (per-worker
// scratch), then merges the workers' matches. Its cost follows the batch's chunks, not the
// streams and pairs that exist.
#include <algorithm>
#include <array>
#include <memory>
#include <vector>

#include "common/matcher_state.hpp"
#include "common/worker_pool.hpp"
#include "cpu/stream/spring_pattern.hpp"
#include "cpu/window/window_distances.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::kernels::cpu {
namespace {

using common::WorkerPool;

class CpuMatcher final : public Matcher {
 public:
  explicit CpuMatcher(const Options& options)
      : pool_(options.threads), scratch_(pool_.size()), options_(options) {
    lend_host_pool(&pool_);
  }

  std::string_view name() const override { return "cpu"; }

 protected:
  void on_stream_pattern_added(PatternState& pattern) override {
    auto spring = std::make_unique<SpringPattern>(pattern);
    free_springs_.reserve(springs_.size() + 1);  // so that removing it cannot throw
    if (free_springs_.empty()) {
      springs_.push_back(std::move(spring));
      pattern.handle = static_cast<std::uint32_t>(springs_.size() - 1);
    } else {
      pattern.handle = free_springs_.back();
      free_springs_.pop_back();
      springs_[pattern.handle] = std::move(spring);
    }
  }

  void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) override {
    spring_of(pattern).flush(out);
    springs_[pattern.handle].reset();
    free_springs_.push_back(pattern.handle);
  }

  void on_stream_pair_added(Pair& pair) override { spring_of(*pair.pattern).add_pair(&pair); }

  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    spring_of(*pair.pattern).remove_pair(&pair, out);
  }

  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    // The stream-mode pairs with samples, by pattern; one task per group or pack they
    // make, and one per window-mode pair with windows.
    tasks_.clear();
    for (const StreamState* stream : batch_streams())
      for (const Pair* pair : stream->pairs)
        if (!pair->window) spring_of(*pair->pattern).mark_active(*pair, stream->chunk_count);
    for (auto& spring : springs_) {
      if (!spring) continue;
      spring->plan_batch();
      for (std::size_t k = 0; k < spring->task_count(); ++k)
        tasks_.push_back({spring.get(), k, nullptr, 0, 0, {}});
    }
    // A pair's windows in slices, so that one long stream keeps every thread busy.
    for (WindowBatch& w : windows)
      for (std::size_t first = 0; first < w.ends.size(); first += kWindowsPerTask)
        tasks_.push_back(
            {nullptr, 0, &w, first, std::min(kWindowsPerTask, w.ends.size() - first), {}});
    for (auto& s : scratch_) s.matches.clear();
    pool_.for_each(tasks_.size(), [&](std::size_t i, unsigned worker) {
      Task& task = tasks_[i];
      if (task.spring)
        task.spring->run_task(task.task, scratch_[worker]);
      else
        compute_window_distances(*task.windows, task.first, task.count, options_, scratch_[worker],
                                 task.pruned);
    });
    for (const Task& task : tasks_)
      if (task.windows)
        for (std::size_t k = 0; k < task.pruned.size(); ++k)
          task.windows->pruned[k] += task.pruned[k];
    for (auto& s : scratch_) out.insert(out.end(), s.matches.begin(), s.matches.end());
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override {
    for (auto& spring : springs_)
      if (spring) spring->flush(out);
  }

  void export_stream_pairs(std::span<Pair* const> pairs,
                           std::span<common::SpringLaneState> out) override {
    for (std::size_t k = 0; k < pairs.size(); ++k)
      spring_of(*pairs[k]->pattern).export_lane(*pairs[k], out[k]);
  }

  void import_stream_pairs(std::span<Pair* const> pairs,
                           std::span<const common::SpringLaneState> in) override {
    for (std::size_t k = 0; k < pairs.size(); ++k)
      spring_of(*pairs[k]->pattern).import_lane(*pairs[k], in[k]);
  }

  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    for (const StreamState* stream : streams_to_trim())
      for (const Pair* pair : stream->pairs)
        if (!pair->window) spring_of(*pair->pattern).lower_to_live_starts(*pair, keep_from);
  }

 private:
  struct Task {
    SpringPattern* spring;  // a stream-mode group or pack (the pattern's task), or
    std::size_t task;
    WindowBatch* windows;  // a slice of a window-mode pair's windows
    std::size_t first, count;
    std::array<std::uint64_t, kPruneStages> pruned;  // what the slice's cascade pruned, by stage
  };
  // Windows a task: enough to amortize a slice's start (its moments begin at an anchor).
  static constexpr std::size_t kWindowsPerTask = 2048;

  WorkerPool pool_;
  std::vector<WorkerScratch> scratch_;
  Options options_;  // window_pruning, ed_fft
  SpringPattern& spring_of(const PatternState& pattern) { return *springs_[pattern.handle]; }

  // The stream-mode patterns' state by PatternState::handle (null: a free handle).
  std::vector<std::unique_ptr<SpringPattern>> springs_;
  std::vector<std::uint32_t> free_springs_;
  std::vector<Task> tasks_;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher(const Options& options) {
  return std::make_unique<CpuMatcher>(options);
}

}  // namespace warpwatch::kernels::cpu
