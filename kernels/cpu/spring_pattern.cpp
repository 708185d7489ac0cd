#include "cpu/spring_pattern.hpp"

#include "common/low32_index.hpp"
#include "reference/spring.hpp"

#include <algorithm>
#include <limits>

namespace warpwatch::kernels::cpu {
namespace {

constexpr float inf = std::numeric_limits<float>::infinity();
using common::low32;

}  // namespace

SpringGroupState SpringPattern::Group::state(const PatternDef& pattern, std::size_t width) {
  SpringGroupState st;
  st.width = width;
  st.m = pattern.length();
  st.dims = pattern.dims;
  st.metric = pattern.params.distance.metric;
  st.cost = pattern.params.distance.cost;
  st.eps = reference::stream_eps(pattern.params.threshold);
  st.pattern = pattern.values.data();
  st.d = d.data();
  st.s = s.data();
  st.d_min = d_min.data();
  st.t_s = t_s.data();
  st.t_e = t_e.data();
  return st;
}

SpringPattern::SpringPattern(const PatternDef& pattern)
    : pattern_(pattern), width_(spring_group_width()) {}

void SpringPattern::add_stream(StreamSlot* stream) {
  const std::size_t m = pattern_.length();
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
  g.lanes.push_back(stream);
}

void SpringPattern::remove_stream(const StreamSlot* stream, std::vector<RawMatch>& out) {
  for (std::size_t gi = 0; gi < groups_.size(); ++gi) {
    Group& g = *groups_[gi];
    const auto it = std::find(g.lanes.begin(), g.lanes.end(), stream);
    if (it == g.lanes.end()) continue;
    const std::size_t lane = static_cast<std::size_t>(it - g.lanes.begin());
    flush_lane(g, lane, out);
    // Fill the hole with the last lane of the last group, state and all.
    Group& last = *groups_.back();
    const std::size_t from = last.lanes.size() - 1;
    if (&last != &g || from != lane) {
      for (std::size_t i = 0; i < pattern_.length(); ++i) {
        g.d[i * width_ + lane] = last.d[i * width_ + from];
        g.s[i * width_ + lane] = last.s[i * width_ + from];
      }
      g.d_min[lane] = last.d_min[from];
      g.t_s[lane] = last.t_s[from];
      g.t_e[lane] = last.t_e[from];
      g.lanes[lane] = last.lanes[from];
    }
    last.d_min[from] = inf;
    last.lanes.pop_back();
    if (last.lanes.empty()) groups_.pop_back();
    return;
  }
}

RawMatch SpringPattern::make_match(const StreamSlot& stream, std::uint64_t current, float distance,
                                   std::int32_t t_s, std::int32_t t_e) const {
  const common::MatchSpan span = common::unwrap_match(current, t_s, t_e);
  return RawMatch{stream.def.id,  pattern_.id, static_cast<double>(distance), span.start, span.end,
                  stream.history.time_ns(span.start), stream.history.time_ns(span.end)};
}

void SpringPattern::run_group(std::size_t gi, WorkerScratch& scratch) {
  Group& g = *groups_[gi];
  const std::size_t dims = pattern_.dims;
  alignas(64) std::uint32_t count[64] = {};
  alignas(64) std::int32_t first[64] = {};
  std::size_t steps = 0;
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) {
    count[lane] = g.lanes[lane]->chunk_count;
    first[lane] = low32(g.lanes[lane]->chunk_first);
    steps = std::max<std::size_t>(steps, count[lane]);
  }
  if (steps == 0) return;
  // Samples transposed to [step][component][lane]; lanes past their count read zeros.
  scratch.x.assign(steps * dims * width_, 0.0f);
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) {
    const float* values = g.lanes[lane]->chunk_values.data();
    for (std::size_t t = 0; t < count[lane]; ++t)
      for (std::size_t k = 0; k < dims; ++k)
        scratch.x[(t * dims + k) * width_ + lane] = values[t * dims + k];
    scratch.cells += static_cast<std::uint64_t>(count[lane]) * pattern_.length();
  }
  scratch.reports.clear();
  spring_group_run(g.state(pattern_, width_), {scratch.x.data(), count, first, steps, g.lanes.size()},
                   scratch.reports);
  for (const SpringLaneReport& r : scratch.reports) {
    const StreamSlot& stream = *g.lanes[r.lane];
    scratch.matches.push_back(make_match(stream, stream.chunk_first + r.step, r.distance, r.t_s, r.t_e));
  }
}

void SpringPattern::update_keep_from(std::size_t gi) {
  Group& g = *groups_[gi];
  alignas(64) std::int32_t next[64] = {};
  alignas(64) std::uint32_t age[64] = {};
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) next[lane] = low32(g.lanes[lane]->next_index());
  spring_group_live_age(g.state(pattern_, width_), next, age);
  for (std::size_t lane = 0; lane < g.lanes.size(); ++lane) {
    StreamSlot& stream = *g.lanes[lane];
    stream.keep_from = std::min(stream.keep_from, stream.next_index() - age[lane]);
  }
}

void SpringPattern::flush_lane(Group& g, std::size_t lane, std::vector<RawMatch>& out) {
  const float eps = reference::stream_eps(pattern_.params.threshold);
  if (!(g.d_min[lane] <= eps)) return;
  const StreamSlot& stream = *g.lanes[lane];
  out.push_back(make_match(stream, stream.next_index() - 1, g.d_min[lane], g.t_s[lane], g.t_e[lane]));
  g.d_min[lane] = inf;
}

void SpringPattern::flush(std::vector<RawMatch>& out) {
  for (auto& g : groups_)
    for (std::size_t lane = 0; lane < g->lanes.size(); ++lane) flush_lane(*g, lane, out);
}

}  // namespace warpwatch::kernels::cpu
