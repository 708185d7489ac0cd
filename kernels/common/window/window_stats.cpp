#include "common/window/window_stats.hpp"

#include <algorithm>
#include <cmath>

#include "common/window/window_grouping.hpp"

namespace warpwatch::kernels::common {

WindowStats::WindowStats(std::size_t w, std::size_t dims, std::uint64_t first_end)
    : w_(w), dims_(dims), first_end_(first_end), mean_(dims), m2_(dims), big_(dims) {
  moments_.mean.resize(dims);
  moments_.scale.resize(dims);
}

const WindowMoments& WindowStats::at(const kernels::StreamHistory& history, std::uint64_t end) {
  const std::uint64_t anchor = stats_anchor(end, first_end_);
  if (!valid_ || anchor != anchor_ || end < end_) {
    exact(history, anchor, mean_, m2_, big_);
    anchor_ = anchor;
    end_ = anchor;
    valid_ = true;
  }
  while (end_ < end) slide(history);
  bool trusted = true;
  for (std::size_t k = 0; k < dims_; ++k) trusted = trusted && m2_[k] > 1e-5 * big_[k] * big_[k];
  if (trusted) {
    moments_.mean = mean_;
    finish(m2_);
  } else {
    exact(history, end, moments_.mean, m2_exact_, big_exact_);
    finish(m2_exact_);
  }
  return moments_;
}

// Two passes in double, as common::znormalize does for a whole window (the same code).
void WindowStats::exact(const kernels::StreamHistory& history, std::uint64_t end,
                        std::vector<double>& mean, std::vector<double>& m2,
                        std::vector<double>& big) const {
  const float* x = history.sample(end + 1 - w_);
  mean.resize(dims_);
  m2.resize(dims_);
  big.resize(dims_);
  for (std::size_t k = 0; k < dims_; ++k) {
    const ComponentMoments c = component_moments(x, w_, dims_, k);
    mean[k] = c.mean;
    m2[k] = c.m2;
    big[k] = c.largest;
  }
}

// Welford's update for a window of fixed size: x_old leaves, x_new enters.
void WindowStats::slide(const kernels::StreamHistory& history) {
  const float* old_x = history.sample(end_ + 1 - w_);
  const float* new_x = history.sample(end_ + 1);
  const double n = static_cast<double>(w_);
  for (std::size_t k = 0; k < dims_; ++k) {
    const double x_old = old_x[k], x_new = new_x[k];
    const double mean = mean_[k];
    const double next = mean + (x_new - x_old) / n;
    m2_[k] += (x_new - x_old) * ((x_new - next) + (x_old - mean));
    mean_[k] = next;
    big_[k] = std::max(big_[k], std::fabs(x_new));
  }
  ++end_;
}

void WindowStats::finish(const std::vector<double>& m2) {
  moments_.flat = false;
  for (std::size_t k = 0; k < dims_; ++k) {
    moments_.scale[k] = znorm_scale(m2[k], w_);
    if (moments_.scale[k] == 0.0) moments_.flat = true;
  }
}

}  // namespace warpwatch::kernels::common
