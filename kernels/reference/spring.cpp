#include "spring.hpp"

#include <algorithm>
#include <cfloat>
#include <cmath>

#include "common/low32_index.hpp"
#include "warpwatch/kernels/errors.hpp"
#include "warpwatch/kernels/reference.hpp"

namespace warpwatch::kernels::reference {

SpringPair::SpringPair(const float* pattern, std::size_t m, std::size_t dims, Metric metric,
                       Cost cost, double threshold)
    : pattern_(pattern),
      m_(m),
      dims_(dims),
      metric_(metric),
      cost_(cost),
      eps_(stream_eps(threshold)),
      d_(m, inf),  // D(0, i) = +inf
      s_(m, 0) {
  // The cell below is dtw's sum or dk's max: stream mode's measures only (validate()).
  WW_ASSERT(measure_info(metric).stream, "SpringPair: a measure without stream mode");
}

std::optional<SpringReport> SpringPair::step(const float* sample, std::uint64_t index,
                                             std::uint8_t* moves) {
  // Predecessors of cell i: up = (t, i-1), diag = (t-1, i-1), left = (t-1, i).
  // Boundary: D(t, 0) = 0 with S = t, and D(t-1, 0) = 0 (it never wins a tie with up).
  float up_d = 0.0f, diag_d = 0.0f;
  std::uint64_t up_s = index, diag_s = index;
  for (std::size_t i = 0; i < m_; ++i) {
    const float left_d = d_[i];
    const std::uint64_t left_s = s_[i];
    float best_d = up_d;
    std::uint64_t best_s = up_s;
    std::uint8_t move = 0;
    if (diag_d < best_d) {
      best_d = diag_d;
      best_s = diag_s;
      move = 1;
    }
    if (left_d < best_d) {
      best_d = left_d;
      best_s = left_s;
      move = 2;
    }
    if (moves) moves[i] = move;
    const float c = local_cost_f32(sample, pattern_ + i * dims_, dims_, cost_);
    const float d = metric_ == Metric::dtw ? c + best_d : std::max(c, best_d);
    d_[i] = d;
    s_[i] = best_s;
    diag_d = left_d;
    diag_s = left_s;
    up_d = d;
    up_s = best_s;
  }

  std::optional<SpringReport> report;
  if (d_min_ <= eps_) {  // rule 1: can the pending candidate still be improved?
    bool final = true;
    for (std::size_t i = 0; i < m_ && final; ++i) final = d_[i] >= d_min_ || s_[i] > t_e_;
    if (final) {
      report = SpringReport{d_min_, t_s_, t_e_};
      d_min_ = inf;
      for (std::size_t i = 0; i < m_; ++i)
        if (s_[i] <= t_e_) d_[i] = inf;
    }
  }
  const float d_m = d_[m_ - 1];
  if (d_m <= eps_ && d_m < d_min_) {  // rule 2: a better candidate ends here
    d_min_ = d_m;
    t_s_ = s_[m_ - 1];
    t_e_ = index;
  }
  return report;
}

std::optional<SpringReport> SpringPair::flush() {
  if (d_min_ > eps_) return std::nullopt;
  const SpringReport report{d_min_, t_s_, t_e_};
  d_min_ = inf;
  return report;
}

std::optional<std::uint64_t> SpringPair::oldest_live_start() const {
  std::optional<std::uint64_t> oldest;
  if (has_candidate()) oldest = t_s_;
  // D only grows along a path (costs are >= 0), so a cell above eps never leads to a report.
  for (std::size_t i = 0; i < m_; ++i)
    if (d_[i] <= eps_ && (!oldest || s_[i] < *oldest)) oldest = s_[i];
  return oldest;
}

void SpringPair::export_state(common::SpringLaneState& out) const {
  out.d = d_;
  out.s.resize(m_);
  for (std::size_t i = 0; i < m_; ++i) out.s[i] = common::low32(s_[i]);
  out.d_min = d_min_;
  out.t_s = common::low32(t_s_);
  out.t_e = common::low32(t_e_);
}

void SpringPair::import_state(const common::SpringLaneState& in, std::uint64_t next_index) {
  WW_ASSERT(in.d.size() == m_ && in.s.size() == m_, "a lane state of the pattern's rows");
  const std::int32_t next = common::low32(next_index);
  const auto unwrap = [&](std::int32_t low) {
    return next_index - common::samples_back(next, low);
  };
  d_ = in.d;
  for (std::size_t i = 0; i < m_; ++i) s_[i] = unwrap(in.s[i]);
  d_min_ = in.d_min;
  t_s_ = unwrap(in.t_s);
  t_e_ = unwrap(in.t_e);
}

SpringPath spring_path(const SeriesView& pattern, const SeriesView& stream, Metric metric,
                       Cost cost, double threshold, std::size_t from, std::size_t end) {
  const std::size_t m = pattern.length, dims = pattern.dims;
  WW_ASSERT(stream.dims == dims && from <= end && end < stream.length && m > 0,
            "spring_path: the pattern's dims, samples of the stream");
  SpringPair spring(pattern.values, m, dims, metric, cost, threshold);
  // The chosen predecessors of the columns from `from` on (a path starting there stays there).
  std::vector<std::uint8_t> moves((end - from + 1) * m);
  for (std::size_t j = 0; j <= end; ++j)
    spring.step(stream.sample(j), j, j >= from ? moves.data() + (j - from) * m : nullptr);
  SpringPath out;
  out.distance = spring.last_distance();
  out.start = spring.last_start();
  if (out.distance == std::numeric_limits<float>::infinity() || out.start < from) return out;
  // Back from (end, m) along the moves the columns chose, to the boundary (t, 0).
  std::size_t i = m - 1, j = end;
  while (true) {
    out.steps.push_back({i, j, local_cost_f32(stream.sample(j), pattern.sample(i), dims, cost)});
    const std::uint8_t move = moves[(j - from) * m + i];
    if (move == 0 && i == 0) break;
    if (move != 2) --i;
    if (move != 0) --j;
  }
  std::reverse(out.steps.begin(), out.steps.end());
  WW_ASSERT(out.steps.front().j == out.start, "spring_path: the path ends at S(end, m)");
  return out;
}

}  // namespace warpwatch::kernels::reference
