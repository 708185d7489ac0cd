#include "cpu/stream/spring_pattern.hpp"

#include <algorithm>
#include <bit>
#include <limits>

#include "common/low32_index.hpp"
#include "warpwatch/kernels/errors.hpp"

namespace warpwatch::kernels::cpu {
namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
using common::low32;

// A group's active lanes are gathered into packs when the lane-samples that its idle lanes
// would run along in place exceed this many per active lane. Measured (AVX-512, m 64,
// 1000 or 10,000 streams, random active sets, chunks of 1, 10 and 100 samples): 4 was
// best or within noise of it among 0, 1, 4, 16 and never; a lane of a group that sits
// out of cache costs less to gather than the whole group to run.
constexpr std::size_t gather_cost_samples = 4;

// SpringPattern::hot_batches: a lane with samples now that had samples in one of the 4
// batches before is likely to have more soon, so it moves for good beside the pattern's
// other active lanes (a swap costs about two gathers, once). Measured (10,000 streams, 8
// patterns of m 64): with two sets of 100 streams taking turns batch by batch, 2 or 4 run
// them in place (chunks of 1: 0.05 ms a batch, against 0.95 ms gathering them every batch
// with 1); with random sets, 1 and 4 cost the same.

// A group where at most 1/diagonal_lane_ratio of the lanes are active runs each of them
// alone, along the anti-diagonal (spring_diagonal.hpp), when their chunks fill a few
// stripes: a stripe fills every lane with one pair, where the group pays for its idle
// lanes. Measured (AVX-512, one thread, m 256, chunks of 4096): the group does 0.25e9
// cells/s per active lane (7.97e9 with all 32), the anti-diagonal 1.94e9 per pair: even
// at 8 active lanes of 32.
constexpr std::size_t diagonal_lane_ratio = 4;
constexpr std::size_t diagonal_min_steps_per_lane = 4;

bool diagonal_pays(std::size_t width, std::size_t active, std::size_t steps) {
  return active * diagonal_lane_ratio <= width &&
         steps >= diagonal_min_steps_per_lane * spring_diagonal_width();
}

bool gather_pays(std::size_t width, std::size_t active, std::size_t steps) {
  return (width - active) * steps > gather_cost_samples * active;
}

SpringGroupState group_state(const common::PatternState& pattern, std::size_t width, float* d,
                             std::int32_t* s, float* d_min, std::int32_t* t_s, std::int32_t* t_e) {
  const PatternDef& def = *pattern.def;
  SpringGroupState st;
  st.width = width;
  st.m = def.length();
  st.dims = def.dims;
  st.metric = def.params.distance.metric;
  st.cost = def.params.distance.cost;
  st.eps = pattern.eps;
  st.pattern = def.values.data();
  st.d = d;
  st.s = s;
  st.d_min = d_min;
  st.t_s = t_s;
  st.t_e = t_e;
  return st;
}

}  // namespace

// Applies op(word of a, word of b) to every word of lane `la`'s state in `a` and lane `lb`'s
// in `b` (the m cells of D and S, d_min, t_s, t_e): one list of a lane's state for moving
// lanes between groups, gathering them into a pack and scattering them back.
template <typename Op>
void each_lane_word(const SpringGroupState& a, std::size_t la, const SpringGroupState& b,
                    std::size_t lb, Op op) {
  for (std::size_t i = 0; i < a.m; ++i) {
    op(a.d[i * a.width + la], b.d[i * b.width + lb]);
    op(a.s[i * a.width + la], b.s[i * b.width + lb]);
  }
  op(a.d_min[la], b.d_min[lb]);
  op(a.t_s[la], b.t_s[lb]);
  op(a.t_e[la], b.t_e[lb]);
}

constexpr auto assign_from = [](auto& to, const auto& from) { to = from; };

// The run's reports (scratch.reports, lane and step) as matches of the pairs they name.
template <typename PairOfLane>
void append_matches(WorkerScratch& scratch, PairOfLane pair_of_lane) {
  for (const SpringLaneReport& r : scratch.reports) {
    const common::Pair& pair = pair_of_lane(r.lane);
    const common::MatchSpan span =
        common::unwrap_match(pair.stream->chunk_first + r.step, r.t_s, r.t_e);
    scratch.matches.push_back(common::make_match(pair, r.distance, span.start, span.end));
  }
}
constexpr auto swap_words = [](auto& x, auto& y) { std::swap(x, y); };

SpringGroupState SpringPattern::Group::state(const common::PatternState& pattern,
                                             std::size_t width) {
  return group_state(pattern, width, d.data(), s.data(), d_min.data(), t_s.data(), t_e.data());
}

SpringPattern::SpringPattern(const common::PatternState& pattern)
    : pattern_(pattern),
      width_(spring_group_width()),
      width_log2_(static_cast<unsigned>(std::countr_zero(width_))) {
  WW_ASSERT(std::has_single_bit(width_) && width_ <= 64, "lane groups of 1..64, a power of 2");
}

void SpringPattern::add_pair(common::Pair* pair) {
  const std::size_t m = pattern_.def->length();
  if (groups_.empty() || groups_.back()->lanes.size() == width_) {
    if (seen_.size() < (groups_.size() + 1) * width_) seen_.resize((groups_.size() + 1) * width_);
    auto g = std::make_unique<Group>();
    g->d.assign(m * width_, inf);  // D(0, i) = +inf: a fresh pair
    g->s.assign(m * width_, 0);
    g->d_min.assign(width_, inf);
    g->t_s.assign(width_, 0);
    g->t_e.assign(width_, 0);
    groups_.push_back(std::move(g));
  }
  Group& g = *groups_.back();
  const std::size_t lane = g.lanes.size();
  for (std::size_t i = 0; i < m; ++i) {
    g.d[i * width_ + lane] = inf;
    g.s[i * width_ + lane] = 0;
  }
  g.d_min[lane] = inf;
  seen_[(groups_.size() - 1) * width_ + lane] = 0;
  g.lanes.push_back(pair);
  pair->handle = static_cast<std::uint32_t>((groups_.size() - 1) * width_ + lane);
}

void SpringPattern::remove_pair(common::Pair* pair, std::vector<RawMatch>& out) {
  Group& g = *groups_[group_of(pair->handle)];
  const std::size_t lane = lane_of(pair->handle);
  flush_lane(g, lane, out);
  // Fill the hole with the last lane of the last group, state and all.
  Group& last = *groups_.back();
  const std::size_t from = last.lanes.size() - 1;
  if (&last != &g || from != lane) {
    for (std::size_t i = 0; i < pattern_.def->length(); ++i) {
      g.d[i * width_ + lane] = last.d[i * width_ + from];
      g.s[i * width_ + lane] = last.s[i * width_ + from];
    }
    g.d_min[lane] = last.d_min[from];
    g.t_s[lane] = last.t_s[from];
    g.t_e[lane] = last.t_e[from];
    seen_[pair->handle] = seen_[(groups_.size() - 1) * width_ + from];
    g.lanes[lane] = last.lanes[from];
    g.lanes[lane]->handle = pair->handle;
  }
  last.d_min[from] = inf;
  last.lanes.pop_back();
  if (last.lanes.empty()) groups_.pop_back();
}

void SpringPattern::plan_batch() {
  tasks_.clear();
  packed_.clear();
  compact();
  // Each group runs in place, or its lanes join the packs.
  std::size_t sparse_groups = 0;
  for (const Use& use : uses_) {
    use_of_[use.group] = 0;
    if (use.active == 0) continue;
    const auto lanes = static_cast<std::size_t>(std::popcount(use.active));
    if (diagonal_pays(width_, lanes, use.steps)) {
      for (std::uint64_t bits = use.active; bits; bits &= bits - 1)
        tasks_.push_back({static_cast<std::uint32_t>(use.group * width_) +
                              static_cast<std::uint32_t>(std::countr_zero(bits)),
                          one_pair});
      continue;
    }
    if (gather_pays(width_, lanes, use.steps)) {
      for (std::uint64_t bits = use.active; bits; bits &= bits - 1)
        packed_.push_back(static_cast<std::uint32_t>(use.group * width_) +
                          static_cast<std::uint32_t>(std::countr_zero(bits)));
      ++sparse_groups;
    } else {
      tasks_.push_back({use.group, 0});
    }
  }
  uses_.clear();
  ++batch_;
  if (packed_.empty()) return;
  if ((packed_.size() + width_ - 1) / width_ >= sparse_groups) {
    // As many packs as groups: nothing to gain, the groups run in place.
    for (std::size_t i = 0; i < packed_.size(); ++i)
      if (i == 0 || group_of(packed_[i]) != group_of(packed_[i - 1]))
        tasks_.push_back({group_of(packed_[i]), 0});
    packed_.clear();
    return;
  }
  // Lanes of similar counts share a pack, so that few run along idle.
  std::stable_sort(packed_.begin(), packed_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return pair_of(a).stream->chunk_count > pair_of(b).stream->chunk_count;
  });
  for (std::size_t k = 0; k < packed_.size(); k += width_)
    tasks_.push_back({static_cast<std::uint32_t>(k),
                      static_cast<std::uint32_t>(std::min(width_, packed_.size() - k))});
}

// Moves the hot lanes of the sparsest groups into the idle lanes (pairs without samples
// this batch) of the densest ones, until they meet.
void SpringPattern::compact() {
  std::size_t active = 0;
  for (const Use& use : uses_) active += static_cast<std::size_t>(std::popcount(use.active));
  if (uses_.size() <= (active + width_ - 1) / width_) return;  // as dense as it gets
  order_.resize(uses_.size());
  for (std::size_t i = 0; i < order_.size(); ++i) order_[i] = static_cast<std::uint32_t>(i);
  std::stable_sort(order_.begin(), order_.end(), [&](std::uint32_t a, std::uint32_t b) {
    return std::popcount(uses_[a].active) > std::popcount(uses_[b].active);
  });
  std::size_t i = 0, j = order_.size() - 1;
  while (i < j) {
    Use& to = uses_[order_[i]];
    Use& from = uses_[order_[j]];
    const std::size_t lanes = groups_[to.group]->lanes.size();
    const std::uint64_t held = lanes == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << lanes) - 1;
    const std::uint64_t idle = held & ~to.active;
    if (idle == 0) {
      ++i;
      continue;
    }
    if (from.hot == 0) {
      --j;
      continue;
    }
    const auto a = static_cast<std::size_t>(std::countr_zero(idle));
    const auto b = static_cast<std::size_t>(std::countr_zero(from.hot));
    swap_lanes(to.group, a, from.group, b);
    to.steps = std::max(to.steps, from.steps);  // bounds, as from's stays
    to.active |= std::uint64_t{1} << a;
    to.hot |= std::uint64_t{1} << a;
    from.active &= ~(std::uint64_t{1} << b);
    from.hot &= ~(std::uint64_t{1} << b);
  }
}

void SpringPattern::swap_lanes(std::size_t g1, std::size_t l1, std::size_t g2, std::size_t l2) {
  Group& a = *groups_[g1];
  Group& b = *groups_[g2];
  const std::size_t w = width_;
  each_lane_word(a.state(pattern_, w), l1, b.state(pattern_, w), l2, swap_words);
  std::swap(seen_[g1 * w + l1], seen_[g2 * w + l2]);
  std::swap(a.lanes[l1], b.lanes[l2]);
  a.lanes[l1]->handle = static_cast<std::uint32_t>(g1 * w + l1);
  b.lanes[l2]->handle = static_cast<std::uint32_t>(g2 * w + l2);
}

void SpringPattern::run_task(std::size_t k, WorkerScratch& scratch) {
  const Task& task = tasks_[k];
  if (task.lanes == one_pair)
    run_pair(task.index, scratch);
  else if (task.lanes == 0)
    run_group(task.index, scratch);
  else
    run_pack(task.index, task.lanes, scratch);
}

std::size_t SpringPattern::transpose(std::span<common::Pair* const> lanes, std::uint32_t* count,
                                     std::int32_t* first, WorkerScratch& scratch) const {
  const std::size_t dims = pattern_.def->dims;
  std::size_t steps = 0;
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    const common::StreamState& stream = *lanes[lane]->stream;
    count[lane] = stream.chunk_count;
    first[lane] = low32(stream.chunk_first);
    steps = std::max<std::size_t>(steps, count[lane]);
  }
  if (steps == 0) return 0;
  // Samples transposed to [step][component][lane]; lanes past their count read zeros.
  scratch.x.assign(steps * dims * width_, 0.0f);
  for (std::size_t lane = 0; lane < lanes.size(); ++lane) {
    const float* values = lanes[lane]->stream->chunk_values.data();
    for (std::size_t t = 0; t < count[lane]; ++t)
      for (std::size_t k = 0; k < dims; ++k)
        scratch.x[(t * dims + k) * width_ + lane] = values[t * dims + k];
  }
  return steps;
}

void SpringPattern::run_group(std::size_t gi, WorkerScratch& scratch) {
  Group& g = *groups_[gi];
  alignas(64) std::uint32_t count[64] = {};
  alignas(64) std::int32_t first[64] = {};
  const std::size_t steps = transpose(g.lanes, count, first, scratch);
  if (steps == 0) return;
  scratch.reports.clear();
  spring_group_run(g.state(pattern_, width_),
                   {scratch.x.data(), count, first, steps, g.lanes.size()}, scratch.reports);
  append_matches(scratch,
                 [&](std::uint32_t lane) -> const common::Pair& { return *g.lanes[lane]; });
}

void SpringPattern::run_pack(std::size_t first_handle, std::size_t n, WorkerScratch& sc) {
  const std::size_t m = pattern_.def->length(), w = width_;
  if (sc.pack_d.size() < m * w) {  // lanes past n run along: any finite or infinite state does
    sc.pack_d.resize(m * w, inf);
    sc.pack_s.resize(m * w, 0);
  }
  if (sc.pack_d_min.size() < w) {
    sc.pack_d_min.resize(w, inf);
    sc.pack_t_s.resize(w, 0);
    sc.pack_t_e.resize(w, 0);
  }
  const std::uint32_t* handles = packed_.data() + first_handle;
  common::Pair* lanes[64];
  const SpringGroupState pack =
      group_state(pattern_, w, sc.pack_d.data(), sc.pack_s.data(), sc.pack_d_min.data(),
                  sc.pack_t_s.data(), sc.pack_t_e.data());
  // Gather: lane k of the pack is lane lane_of(handles[k]) of group group_of(handles[k]).
  for (std::size_t k = 0; k < n; ++k) {
    Group& g = *groups_[group_of(handles[k])];
    const std::size_t lane = lane_of(handles[k]);
    lanes[k] = g.lanes[lane];
    each_lane_word(pack, k, g.state(pattern_, w), lane, assign_from);
  }
  for (std::size_t k = n; k < w; ++k) sc.pack_d_min[k] = inf;
  alignas(64) std::uint32_t count[64] = {};
  alignas(64) std::int32_t first[64] = {};
  const std::size_t steps = transpose(std::span<common::Pair* const>(lanes, n), count, first, sc);
  sc.reports.clear();
  if (steps > 0) spring_group_run(pack, {sc.x.data(), count, first, steps, n}, sc.reports);
  // Scatter (distinct lanes of the groups: packs run side by side).
  for (std::size_t k = 0; k < n; ++k) {
    Group& g = *groups_[group_of(handles[k])];
    each_lane_word(g.state(pattern_, w), lane_of(handles[k]), pack, k, assign_from);
  }
  append_matches(sc, [&](std::uint32_t lane) -> const common::Pair& { return *lanes[lane]; });
}

void SpringPattern::run_pair(std::uint32_t handle, WorkerScratch& sc) {
  Group& g = *groups_[group_of(handle)];
  const std::size_t lane = lane_of(handle), m = pattern_.def->length();
  const common::Pair& pair = *g.lanes[lane];
  const common::StreamState& stream = *pair.stream;
  // The lane, copied to a group of width 1 (a contiguous column) and back.
  SpringDiagonalScratch& ds = sc.diagonal;
  ds.column_d.resize(m);
  ds.column_s.resize(m);
  const SpringGroupState alone = group_state(pattern_, 1, ds.column_d.data(), ds.column_s.data(),
                                             &ds.column_d_min, &ds.column_t_s, &ds.column_t_e);
  const SpringGroupState group = g.state(pattern_, width_);
  each_lane_word(alone, 0, group, lane, assign_from);
  sc.reports.clear();
  spring_pair_run(alone, stream.chunk_values.data(), stream.chunk_count, low32(stream.chunk_first),
                  static_cast<std::uint32_t>(lane), ds, sc.reports);
  each_lane_word(group, lane, alone, 0, assign_from);
  append_matches(sc, [&](std::uint32_t) -> const common::Pair& { return pair; });
}

void SpringPattern::lower_to_live_starts(const common::Pair& pair,
                                         std::span<std::uint64_t> keep_from) const {
  Group& g = *groups_[group_of(pair.handle)];
  const common::StreamState& stream = *pair.stream;
  const std::uint32_t age = spring_lane_live_age(g.state(pattern_, width_), lane_of(pair.handle),
                                                 low32(stream.next_index()));
  std::uint64_t& keep = keep_from[stream.slot];
  keep = std::min(keep, stream.next_index() - age);
}

namespace {
// A portable lane state seen as a group of one lane (sized to m first), for each_lane_word.
SpringGroupState lane_view(const common::PatternState& pattern, common::SpringLaneState& lane) {
  const std::size_t m = pattern.def->length();
  lane.d.resize(m);
  lane.s.resize(m);
  return group_state(pattern, 1, lane.d.data(), lane.s.data(), &lane.d_min, &lane.t_s, &lane.t_e);
}
}  // namespace

void SpringPattern::export_lane(const common::Pair& pair, common::SpringLaneState& out) {
  each_lane_word(lane_view(pattern_, out), 0,
                 groups_[group_of(pair.handle)]->state(pattern_, width_), lane_of(pair.handle),
                 assign_from);
}

void SpringPattern::import_lane(const common::Pair& pair, const common::SpringLaneState& in) {
  WW_ASSERT(in.d.size() == pattern_.def->length() && in.s.size() == in.d.size(),
            "a lane state of the pattern's rows");
  common::SpringLaneState copy = in;  // each_lane_word takes mutable views of both sides
  each_lane_word(groups_[group_of(pair.handle)]->state(pattern_, width_), lane_of(pair.handle),
                 lane_view(pattern_, copy), 0, assign_from);
}

void SpringPattern::flush_lane(Group& g, std::size_t lane, std::vector<RawMatch>& out) {
  if (!(g.d_min[lane] <= pattern_.eps)) return;
  const common::Pair& pair = *g.lanes[lane];
  const common::MatchSpan span =
      common::unwrap_match(pair.stream->next_index() - 1, g.t_s[lane], g.t_e[lane]);
  out.push_back(common::make_match(pair, g.d_min[lane], span.start, span.end));
  g.d_min[lane] = inf;
}

void SpringPattern::flush(std::vector<RawMatch>& out) {
  for (auto& g : groups_)
    for (std::size_t lane = 0; lane < g->lanes.size(); ++lane) flush_lane(*g, lane, out);
}

}  // namespace warpwatch::kernels::cpu
