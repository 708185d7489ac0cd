// Stream mode on the CPU: all (stream, pattern) pairs of one pattern, packed one pair per
// lane into groups of spring_group_width() lanes (spring_kernel.hpp). Pairs join and
// leave without disturbing the other lanes' state: a leaving pair's lane is filled with
// the pattern's last lane. Pair::handle is the pair's lane, counted across the groups.
//
// A batch costs what its chunks hold, not what the groups hold: only the lanes whose
// stream has samples are planned (plan_batch). Lanes that had samples in one of the last
// few batches too move for good into groups beside other such lanes (a steady set of active
// streams ends up dense in as few groups as it fills); a group where enough active lanes
// sit then runs in place, and the active lanes of the other groups are gathered into
// full-width packs in per-worker scratch, run there and scattered back. Every lane
// computes alone, so where a lane runs or lives does not change a bit of its results.
#pragma once

#include <algorithm>
#include <memory>
#include <span>
#include <vector>

#include "common/matcher_state.hpp"
#include "common/spring_lane_state.hpp"
#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

class SpringPattern {
 public:
  explicit SpringPattern(const common::PatternState& pattern);

  // A fresh pair, starting at its stream's next sample.
  void add_pair(common::Pair* pair);
  // The pair ends: its pending candidate (if any) is appended to `out`.
  void remove_pair(common::Pair* pair, std::vector<RawMatch>& out);

  // This batch: `pair` (of this pattern) has `count` samples (its stream's chunk). Then
  // plan_batch() makes the batch's tasks from the pairs marked (and may move lanes: handles
  // change), and run_task(k) runs task k < task_count() (thread-safe across distinct k; the
  // tasks stay valid until the next plan_batch()).
  void mark_active(const common::Pair& pair, std::uint32_t count) {
    const std::uint32_t g = group_of(pair.handle);
    const std::uint64_t bit = std::uint64_t{1} << lane_of(pair.handle);
    if (use_of_.size() <= g) use_of_.resize(groups_.size(), 0);
    if (use_of_[g] == 0) {
      uses_.push_back({g, 0, 0, 0});
      use_of_[g] = static_cast<std::uint32_t>(uses_.size());
    }
    Use& use = uses_[use_of_[g] - 1];
    use.active |= bit;
    use.steps = std::max(use.steps, count);
    std::uint64_t& seen = seen_[pair.handle];
    if (seen != 0 && seen + hot_batches >= batch_) use.hot |= bit;
    seen = batch_;
  }
  void plan_batch();
  std::size_t task_count() const { return tasks_.size(); }
  void run_task(std::size_t k, WorkerScratch& scratch);

  // Lowers keep_from[stream slot] of the pair's stream to the oldest start it may still report.
  void lower_to_live_starts(const common::Pair& pair, std::span<std::uint64_t> keep_from) const;
  // End of input: every pending candidate.
  void flush(std::vector<RawMatch>& out);
  // The pair's state in the portable form, and over it (Matcher::export/import_stream_pairs).
  void export_lane(const common::Pair& pair, common::SpringLaneState& out);
  void import_lane(const common::Pair& pair, const common::SpringLaneState& in);

 private:
  struct Group {
    std::vector<common::Pair*> lanes;
    std::vector<float> d, d_min;
    std::vector<std::int32_t> s, t_s, t_e;
    SpringGroupState state(const common::PatternState& pattern, std::size_t width);
  };
  // A task: group `index` in place (lanes == 0), the `lanes` handles of packed_ from
  // `index` on, gathered, or (lanes == one_pair) the pair of handle `index` alone, along
  // the anti-diagonal.
  struct Task {
    std::uint32_t index;
    std::uint32_t lanes;
  };
  static constexpr std::uint32_t one_pair = 0xffffffffu;
  // A group with lanes that have samples this batch (bit l: lane l), `hot` those of them
  // that had samples in one of the last few batches too, and the most samples of a lane
  // (at least).
  struct Use {
    std::uint32_t group;
    std::uint32_t steps;
    std::uint64_t active, hot;
  };
  void compact();
  void swap_lanes(std::size_t g1, std::size_t l1, std::size_t g2, std::size_t l2);
  void run_group(std::size_t g, WorkerScratch& scratch);
  void run_pack(std::size_t first, std::size_t lanes, WorkerScratch& scratch);
  void run_pair(std::uint32_t handle, WorkerScratch& scratch);
  // The batch's samples of `lanes` pairs, transposed to scratch.x ([step][component][lane];
  // zeros past a lane's count), with each lane's count and first index; returns the steps.
  std::size_t transpose(std::span<common::Pair* const> lanes, std::uint32_t* count,
                        std::int32_t* first, WorkerScratch& scratch) const;
  void flush_lane(Group& group, std::size_t lane, std::vector<RawMatch>& out);
  // A handle's group and lane (the width is a power of 2: no division on the way).
  std::uint32_t group_of(std::uint32_t handle) const { return handle >> width_log2_; }
  std::uint32_t lane_of(std::uint32_t handle) const {
    return handle & static_cast<std::uint32_t>(width_ - 1);
  }
  common::Pair& pair_of(std::uint32_t handle) const {
    return *groups_[group_of(handle)]->lanes[lane_of(handle)];
  }

  const common::PatternState& pattern_;
  std::size_t width_;
  unsigned width_log2_;
  std::vector<std::unique_ptr<Group>> groups_;
  std::vector<std::uint64_t> seen_;  // by handle: the last batch (batch_) it had samples in
  // A lane with samples now that had samples in one of this many batches before is "hot"
  // (spring_pattern.cpp says why 4).
  static constexpr std::uint64_t hot_batches = 4;
  // This batch: its number, the groups with lanes marked (use_of_[g]: 1 + g's index in
  // uses_, 0 for none), the handles to gather (in pack order), the tasks.
  std::uint64_t batch_ = 1;
  std::vector<Use> uses_;
  std::vector<std::uint32_t> use_of_, order_, packed_;
  std::vector<Task> tasks_;
};

}  // namespace warpwatch::kernels::cpu
