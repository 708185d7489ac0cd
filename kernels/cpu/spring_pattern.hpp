// Stream mode on the CPU: all (stream, pattern) pairs of one pattern, packed one pair
// per lane into groups of spring_group_width() lanes (spring_kernel.hpp). Streams join
// and leave without disturbing the other lanes' state.
#pragma once

#include <memory>
#include <vector>

#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

class SpringPattern {
 public:
  explicit SpringPattern(const PatternDef& pattern);

  // A fresh pair for `stream`, starting at its next sample.
  void add_stream(StreamSlot* stream);
  // The pair of `stream` ends: its pending candidate (if any) is appended to `out`.
  void remove_stream(const StreamSlot* stream, std::vector<RawMatch>& out);

  std::size_t group_count() const { return groups_.size(); }
  // Runs this batch's chunks through group g (thread-safe across distinct g).
  void run_group(std::size_t g, WorkerScratch& scratch);
  // Lowers each lane stream's keep_from to the oldest start it may still report.
  void update_keep_from(std::size_t g);
  // End of input: every pending candidate.
  void flush(std::vector<RawMatch>& out);

 private:
  struct Group {
    std::vector<StreamSlot*> lanes;
    std::vector<float> d, d_min;
    std::vector<std::int32_t> s, t_s, t_e;
    SpringGroupState state(const PatternDef& pattern, std::size_t width);
  };
  RawMatch make_match(const StreamSlot& stream, std::uint64_t current, float distance,
                      std::int32_t t_s, std::int32_t t_e) const;
  void flush_lane(Group& group, std::size_t lane, std::vector<RawMatch>& out);

  PatternDef pattern_;
  std::size_t width_;
  std::vector<std::unique_ptr<Group>> groups_;
};

}  // namespace warpwatch::kernels::cpu
