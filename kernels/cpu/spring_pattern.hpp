// Stream mode on the CPU: all (stream, pattern) pairs of one pattern, packed one pair per
// lane into groups of spring_group_width() lanes (spring_kernel.hpp). Pairs join and
// leave without disturbing the other lanes' state: a leaving pair's lane is filled with
// the pattern's last lane. Pair::handle is the pair's lane, counted across the groups.
#pragma once

#include <memory>
#include <span>
#include <vector>

#include "common/matcher_state.hpp"
#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

class SpringPattern {
 public:
  explicit SpringPattern(const common::PatternState& pattern);

  // A fresh pair, starting at its stream's next sample.
  void add_pair(common::Pair* pair);
  // The pair ends: its pending candidate (if any) is appended to `out`.
  void remove_pair(common::Pair* pair, std::vector<RawMatch>& out);

  std::size_t group_count() const { return groups_.size(); }
  // Runs this batch's chunks through group g (thread-safe across distinct g).
  void run_group(std::size_t g, WorkerScratch& scratch);
  // Lowers keep_from[stream slot] of each lane's stream to the oldest start it may still report.
  void lower_to_live_starts(std::size_t g, std::span<std::uint64_t> keep_from) const;
  // End of input: every pending candidate.
  void flush(std::vector<RawMatch>& out);

 private:
  struct Group {
    std::vector<common::Pair*> lanes;
    std::vector<float> d, d_min;
    std::vector<std::int32_t> s, t_s, t_e;
    SpringGroupState state(const PatternDef& pattern, float eps, std::size_t width);
  };
  void flush_lane(Group& group, std::size_t lane, std::vector<RawMatch>& out);

  const common::PatternState& pattern_;
  std::size_t width_;
  std::vector<std::unique_ptr<Group>> groups_;
};

}  // namespace warpwatch::kernels::cpu
