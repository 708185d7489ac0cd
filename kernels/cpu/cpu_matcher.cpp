// The CPU backend's Matcher: bookkeeping of streams, patterns and pairs around the SIMD
// kernels. A batch runs in three phases: append the chunks to the streams (serial), run
// every stream-mode lane group and every window-mode pair (parallel, per-worker
// scratch), then merge matches and forget samples no pair needs (serial).
#include <map>
#include <memory>

#include "cpu/spring_pattern.hpp"
#include "cpu/window_pair.hpp"
#include "cpu/worker_pool.hpp"
#include "warpwatch/kernels/cpu.hpp"

namespace warpwatch::kernels::cpu {
namespace {

struct PatternEntry {
  std::unique_ptr<PatternDef> def;
  std::unique_ptr<SpringPattern> spring;              // stream mode
  std::vector<std::unique_ptr<WindowPair>> windows;   // window mode, one per stream
};

class CpuMatcher final : public Matcher {
 public:
  explicit CpuMatcher(const Options& options) : pool_(options.threads), scratch_(pool_.size()) {}

  std::string_view name() const override { return "cpu"; }
  MatcherCounters counters() const override { return counters_; }

 protected:
  void do_add_stream(const StreamDef& def) override {
    auto slot = std::make_unique<StreamSlot>(def);
    for (auto& [id, p] : patterns_)
      if (p.def->dims == def.dims) pair(p, *slot, 0);
    streams_.emplace(def.id, std::move(slot));
  }

  std::vector<RawMatch> do_remove_stream(const StreamDef& def) override {
    const auto it = streams_.find(def.id);
    std::vector<RawMatch> out;
    for (auto& [id, p] : patterns_) {
      if (p.spring) p.spring->remove_stream(it->second.get(), out);
      std::erase_if(p.windows, [&](const std::unique_ptr<WindowPair>& w) {
        if (&w->stream() != it->second.get()) return false;
        w->flush(out);
        return true;
      });
    }
    streams_.erase(it);
    return out;
  }

  void do_add_pattern(const PatternDef& pattern) override {
    PatternEntry entry{std::make_unique<PatternDef>(pattern), nullptr, {}};
    if (pattern.params.mode == Mode::stream) {
      entry.spring = std::make_unique<SpringPattern>(*entry.def);
    } else {  // validates the pattern (znorm of a constant) even with no stream yet
      StreamSlot probe(StreamDef{"", pattern.dims});
      WindowPair check(*entry.def, probe, 0);
    }
    for (auto& [id, slot] : streams_)
      if (slot->def.dims == pattern.dims) pair(entry, *slot, slot->next_index());
    patterns_.emplace(pattern.id, std::move(entry));
  }

  std::vector<RawMatch> do_remove_pattern(const PatternDef& pattern) override {
    const auto it = patterns_.find(pattern.id);
    std::vector<RawMatch> out;
    if (it->second.spring) it->second.spring->flush(out);
    for (auto& w : it->second.windows) w->flush(out);
    patterns_.erase(it);
    forget_unneeded();
    return out;
  }

  std::vector<RawMatch> do_process(std::span<const StreamChunk> batch) override {
    for (auto& [id, slot] : streams_) slot->chunk_count = 0;
    for (const StreamChunk& chunk : batch) {
      StreamSlot& slot = *streams_.find(chunk.stream_id)->second;
      slot.chunk_first = slot.next_index();
      slot.chunk_count = static_cast<std::uint32_t>(chunk.timestamps_ns.size());
      slot.chunk_values = chunk.values;
      slot.history.append(chunk.values, chunk.timestamps_ns);
      counters_.samples += chunk.timestamps_ns.size();
      samples_since_trim_ += chunk.timestamps_ns.size();
    }
    // One task per stream-mode lane group and per window-mode pair with new samples.
    tasks_.clear();
    for (auto& [id, p] : patterns_) {
      if (p.spring)
        for (std::size_t g = 0; g < p.spring->group_count(); ++g) tasks_.push_back({&p, g});
      for (std::size_t k = 0; k < p.windows.size(); ++k)
        if (p.windows[k]->stream().chunk_count) tasks_.push_back({&p, k});
    }
    for (auto& s : scratch_) s.matches.clear();
    pool_.for_each(tasks_.size(), [&](std::size_t i, unsigned worker) {
      const Task& task = tasks_[i];
      WorkerScratch& s = scratch_[worker];
      if (task.pattern->spring) {
        task.pattern->spring->run_group(task.index, s);
      } else {
        WindowPair& w = *task.pattern->windows[task.index];
        const StreamSlot& slot = w.stream();
        w.run(slot.chunk_first, slot.chunk_first + slot.chunk_count, s);
      }
    });
    std::vector<RawMatch> out;
    for (auto& s : scratch_) {
      out.insert(out.end(), s.matches.begin(), s.matches.end());
      counters_.cells += s.cells;
      counters_.flat_windows_skipped += s.flat_skipped;
      s.cells = s.flat_skipped = 0;
    }
    // Finding the oldest live start scans every lane's column: O(m) per pair whatever the
    // batch size. Done every batch it would dominate small batches (one sample against a
    // long pattern), so samples are forgotten in bulk once enough have arrived.
    if (samples_since_trim_ >= trim_interval_samples) forget_unneeded();
    return out;
  }

  std::vector<RawMatch> do_flush() override {
    std::vector<RawMatch> out;
    for (auto& [id, p] : patterns_) {
      if (p.spring) p.spring->flush(out);
      for (auto& w : p.windows) w->flush(out);
    }
    forget_unneeded();
    return out;
  }

 private:
  struct Task {
    PatternEntry* pattern;
    std::size_t index;  // lane group (stream mode) or window pair (window mode)
  };

  static void pair(PatternEntry& p, StreamSlot& slot, std::uint64_t first_index) {
    if (p.spring)
      p.spring->add_stream(&slot);
    else
      p.windows.push_back(std::make_unique<WindowPair>(*p.def, slot, first_index));
  }

  // Keeps, per stream, only the samples a future window or report can still need.
  void forget_unneeded() {
    samples_since_trim_ = 0;
    for (auto& [id, slot] : streams_) slot->keep_from = slot->next_index();
    for (auto& [id, p] : patterns_) {
      if (p.spring)
        for (std::size_t g = 0; g < p.spring->group_count(); ++g) p.spring->update_keep_from(g);
      for (auto& w : p.windows) {
        StreamSlot& slot = w->stream();
        slot.keep_from = std::min(slot.keep_from, w->track().oldest_needed(slot.next_index()));
      }
    }
    for (auto& [id, slot] : streams_) slot->history.forget_before(slot->keep_from);
  }

  WorkerPool pool_;
  std::vector<WorkerScratch> scratch_;
  std::map<std::string, std::unique_ptr<StreamSlot>, std::less<>> streams_;
  std::map<std::string, PatternEntry, std::less<>> patterns_;
  std::vector<Task> tasks_;
  MatcherCounters counters_;
  static constexpr std::uint64_t trim_interval_samples = 1 << 16;
  std::uint64_t samples_since_trim_ = 0;
};

}  // namespace

std::unique_ptr<Matcher> make_matcher(const Options& options) {
  return std::make_unique<CpuMatcher>(options);
}

}  // namespace warpwatch::kernels::cpu
