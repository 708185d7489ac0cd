#include "cpu/spring_pattern.hpp"

#include <algorithm>
#include <limits>

#include "common/low32_index.hpp"

namespace warpwatch::kernels::cpu {
namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
using common::low32;

}  // namespace

SpringGroupState SpringPattern::Group::state(const PatternDef& pattern, float eps,
                                             std::size_t width) {
  SpringGroupState st;
  st.width = width;
  st.m = pattern.length();
  st.dims = pattern.dims;
  st.metric = pattern.params.distance.metric;
  st.cost = pattern.params.distance.cost;
  st.eps = eps;
  st.pattern = pattern.values.data();
  st.d = d.data();
  st.s = s.data();
  st.d_min = d_min.data();
  st.t_s = t_s.data();
  st.t_e = t_e.data();
  return st;
}

SpringPattern::SpringPattern(const common::PatternState& pattern)
    : pattern_(pattern), width_(spring_group_width()) {}

void SpringPattern::add_pair(common::Pair* pair) {
  const std::size_t m = pattern_.def->length();
  if (groups_.empty() || groups_.back()->lanes.size() == width_) {
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
  g.lanes.push_back(pair);
  pair->handle = static_cast<std::uint32_t>((groups_.size() - 1) * width_ + lane);
}

void SpringPattern::remove_pair(common::Pair* pair, std::vector<RawMatch>& out) {
  Group& g = *groups_[pair->handle / width_];
  const std::size_t lane = pair->handle % width_;
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
    g.lanes[lane] = last.lanes[from];
    g.lanes[lane]->handle = pair->handle;
  }
  last.d_min[from] = inf;
  last.lanes.pop_back();
  if (last.lanes.empty()) groups_.pop_back();
}

void SpringPattern::run_group(std::size_t gi, WorkerScratch& scratch) {
  Group& g = *groups_[gi];
  const PatternDef& pattern = *pattern_.def;
  const std::size_t dims = pattern.dims;
  alignas(64) std::uint32_t count[64] = {};
  alignas(64) std::int32_t first[64] = {};
  std::size_t steps = 0;
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) {
    const common::StreamState& stream = *g.lanes[lane]->stream;
    count[lane] = stream.chunk_count;
    first[lane] = low32(stream.chunk_first);
    steps = std::max<std::size_t>(steps, count[lane]);
  }
  if (steps == 0) return;
  // Samples transposed to [step][component][lane]; lanes past their count read zeros.
  scratch.x.assign(steps * dims * width_, 0.0f);
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) {
    const float* values = g.lanes[lane]->stream->chunk_values.data();
    for (std::size_t t = 0; t < count[lane]; ++t)
      for (std::size_t k = 0; k < dims; ++k)
        scratch.x[(t * dims + k) * width_ + lane] = values[t * dims + k];
  }
  scratch.reports.clear();
  spring_group_run(g.state(pattern, pattern_.eps, width_),
                   {scratch.x.data(), count, first, steps, g.lanes.size()}, scratch.reports);
  for (const SpringLaneReport& r : scratch.reports) {
    const common::Pair& pair = *g.lanes[r.lane];
    const common::MatchSpan span =
        common::unwrap_match(pair.stream->chunk_first + r.step, r.t_s, r.t_e);
    scratch.matches.push_back(common::make_match(pair, r.distance, span.start, span.end));
  }
}

void SpringPattern::lower_to_live_starts(std::size_t gi, std::span<std::uint64_t> keep_from) const {
  Group& g = *groups_[gi];
  alignas(64) std::int32_t next[64] = {};
  alignas(64) std::uint32_t age[64] = {};
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane)
    next[lane] = low32(g.lanes[lane]->stream->next_index());
  spring_group_live_age(g.state(*pattern_.def, pattern_.eps, width_), next, age);
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) {
    const common::StreamState& stream = *g.lanes[lane]->stream;
    std::uint64_t& keep = keep_from[stream.slot];
    keep = std::min(keep, stream.next_index() - age[lane]);
  }
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
