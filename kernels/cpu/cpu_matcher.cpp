// The CPU backend's Matcher: its SIMD state around the Matcher base's bookkeeping. A batch
// runs every stream-mode lane group and every window-mode pair's windows in parallel
// (per-worker scratch), then merges the workers' matches.
#include <map>
#include <memory>

#include "common/matcher_state.hpp"
#include "cpu/spring_pattern.hpp"
#include "cpu/window_distances.hpp"
#include "cpu/worker_pool.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::kernels::cpu {
namespace {

class CpuMatcher final : public Matcher {
 public:
  explicit CpuMatcher(const Options& options) : pool_(options.threads), scratch_(pool_.size()) {}

  std::string_view name() const override { return "cpu"; }

 protected:
  void on_stream_pattern_added(PatternState& pattern) override {
    springs_.emplace(&pattern, std::make_unique<SpringPattern>(pattern));
  }

  void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) override {
    const auto it = springs_.find(&pattern);
    it->second->flush(out);
    springs_.erase(it);
  }

  void on_stream_pair_added(Pair& pair) override { springs_.at(pair.pattern)->add_pair(&pair); }

  void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) override {
    springs_.at(pair.pattern)->remove_pair(&pair, out);
  }

  void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) override {
    // One task per stream-mode lane group and per window-mode pair with windows.
    tasks_.clear();
    for (auto& [pattern, spring] : springs_)
      for (std::size_t g = 0; g < spring->group_count(); ++g)
        tasks_.push_back({spring.get(), g, nullptr});
    for (WindowBatch& w : windows)
      if (!w.ends.empty()) tasks_.push_back({nullptr, 0, &w});
    for (auto& s : scratch_) s.matches.clear();
    pool_.for_each(tasks_.size(), [&](std::size_t i, unsigned worker) {
      const Task& task = tasks_[i];
      if (task.spring)
        task.spring->run_group(task.group, scratch_[worker]);
      else
        compute_window_distances(*task.windows, scratch_[worker]);
    });
    for (auto& s : scratch_) out.insert(out.end(), s.matches.begin(), s.matches.end());
  }

  void flush_stream_pairs(std::vector<RawMatch>& out) override {
    for (auto& [pattern, spring] : springs_) spring->flush(out);
  }

  void lower_to_live_starts(std::span<std::uint64_t> keep_from) override {
    for (auto& [pattern, spring] : springs_)
      for (std::size_t g = 0; g < spring->group_count(); ++g)
        spring->lower_to_live_starts(g, keep_from);
  }

 private:
  struct Task {
    SpringPattern* spring;  // a stream-mode lane group, or
    std::size_t group;
    WindowBatch* windows;  // a window-mode pair's windows
  };

  WorkerPool pool_;
  std::vector<WorkerScratch> scratch_;
  std::map<const PatternState*, std::unique_ptr<SpringPattern>> springs_;  // stream-mode patterns
  std::vector<Task> tasks_;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher(const Options& options) {
  return std::make_unique<CpuMatcher>(options);
}

}  // namespace warpwatch::kernels::cpu
