#include "common/window_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "common/window_grouping.hpp"
#include "common/window_stats.hpp"

namespace warpwatch::kernels::common {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// 0..weight.size()-1 by decreasing weight (ties in index order).
std::vector<std::uint32_t> by_decreasing(const std::vector<double>& weight) {
  std::vector<std::uint32_t> order(weight.size());
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return weight[a] > weight[b]; });
  return order;
}
}  // namespace

bool WindowQuery::applies(const MatchParams& params) {
  const Metric m = params.distance.metric;
  return params.mode == Mode::window && (m == Metric::dtw || m == Metric::dk || m == Metric::ed);
}

WindowQuery::WindowQuery(const PatternDef& pattern)
    : n(pattern.length()),
      w(window_length(pattern)),
      dims(pattern.dims),
      metric(pattern.params.distance.metric),
      cost(pattern.params.distance.cost),
      values(pattern.values) {
  if (!applies(pattern.params))
    throw std::invalid_argument("window bounds: dtw, dk or ed in window mode only");
  if (pattern.params.normalize == Normalize::znorm && !znormalize(values, dims))
    throw std::invalid_argument("pattern '" + pattern.id + "' is constant: znorm is undefined");
  if (metric == Metric::ed) {
    std::vector<double> weight(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t k = 0; k < dims; ++k) weight[i] += std::fabs(values[i * dims + k]);
    order = by_decreasing(weight);
    for (const std::uint32_t i : order)
      ordered.insert(ordered.end(), values.begin() + static_cast<std::ptrdiff_t>(i * dims),
                     values.begin() + static_cast<std::ptrdiff_t>((i + 1) * dims));
    return;
  }
  if (pattern.params.distance.band) {
    band_ranges(n, w, *pattern.params.distance.band, lo, hi);
  } else {
    lo.assign(n + 1, 1);
    hi.assign(n + 1, static_cast<std::int32_t>(w));
  }
  // The rows whose band holds column j: from the first row reaching j to the last row
  // starting at or before it (both ends move right with j).
  for (std::size_t i = 1; i <= n; ++i) rows_nonempty = rows_nonempty && lo[i] <= hi[i];
  std::vector<std::int32_t> first_row(w + 1, 1), last_row(w + 1, 0);
  std::size_t reaching = 1, started = 0;
  for (std::size_t j = 1; j <= w && rows_nonempty; ++j) {
    while (reaching <= n && static_cast<std::size_t>(hi[reaching]) < j) ++reaching;
    while (started < n && static_cast<std::size_t>(lo[started + 1]) <= j) ++started;
    first_row[j] = static_cast<std::int32_t>(reaching);
    last_row[j] = static_cast<std::int32_t>(started);
    reachable = reachable && reaching <= started;
  }
  reachable = reachable && rows_nonempty;
  env_lo.assign(w * dims, 0.0f);
  env_hi.assign(w * dims, 0.0f);
  if (reachable)
    sliding_envelope(values.data(), dims, w, first_row.data(), last_row.data(), env_lo.data(),
                     env_hi.data());
  std::vector<double> weight(w, 0.0);
  for (std::size_t j = 0; j < w && reachable; ++j)
    for (std::size_t k = 0; k < dims; ++k)
      weight[j] += std::max(std::fabs(env_lo[j * dims + k]), std::fabs(env_hi[j * dims + k]));
  order = by_decreasing(weight);
  margin = static_cast<double>(n + w + dims + 4) * std::ldexp(1.0, -22);
  if (dims == 1)
    for (const std::uint32_t j : order) {
      order_lo.push_back(env_lo[j]);
      order_hi.push_back(env_hi[j]);
    }
}

void WindowView::write(std::size_t w, float* out) const {
  for (std::size_t j = 0; j < w; ++j)
    for (std::size_t k = 0; k < dims; ++k) out[j * dims + k] = at(j, k);
}

double lb_kim(const WindowQuery& q, const WindowView& window) {
  double first = 0.0, last = 0.0;
  for (std::size_t k = 0; k < q.dims; ++k) {
    first += q.cost_of(static_cast<double>(q.values[k]) - window.at(0, k));
    last +=
        q.cost_of(static_cast<double>(q.values[(q.n - 1) * q.dims + k]) - window.at(q.w - 1, k));
  }
  return q.combine(first, last);
}

namespace {
// LB_Keogh on the pattern's envelope for one component, the hot loop of a search: the
// envelope read in visiting order, the abandoning test every 8 terms against the limit
// grown by the margin (the same test as WindowQuery::prunes, rearranged).
template <Metric kMetric, Cost kCost>
double keogh_pattern_1d(const WindowQuery& q, const WindowView& window, double limit) {
  const double cut = limit / (1.0 - q.margin);
  const std::uint32_t* order = q.order.data();
  const float *lo = q.order_lo.data(), *hi = q.order_hi.data();
  const bool norm = window.mean != nullptr;
  const double mean = norm ? window.mean[0] : 0.0, scale = norm ? window.scale[0] : 0.0;
  double bound = 0.0;
  for (std::size_t t = 0; t < q.w; t += 8) {
    const std::size_t stop = std::min(t + 8, q.w);
    for (std::size_t u = t; u < stop; ++u) {
      const float raw = window.raw[order[u]];
      const double x = norm ? znormal(raw, mean, scale) : raw;
      const double d = outside(x, lo[u], hi[u]);
      const double c = kCost == Cost::sq ? d * d : d;
      bound = kMetric == Metric::dtw ? bound + c : std::max(bound, c);
    }
    if (bound > cut) return bound;
  }
  return bound;
}
}  // namespace

double lb_keogh_pattern(const WindowQuery& q, const WindowView& window, double limit) {
  if (!q.reachable) return kInf;
  if (q.dims == 1) {
    const bool sq = q.cost == Cost::sq;
    if (q.metric == Metric::dtw)
      return sq ? keogh_pattern_1d<Metric::dtw, Cost::sq>(q, window, limit)
                : keogh_pattern_1d<Metric::dtw, Cost::abs>(q, window, limit);
    return sq ? keogh_pattern_1d<Metric::dk, Cost::sq>(q, window, limit)
              : keogh_pattern_1d<Metric::dk, Cost::abs>(q, window, limit);
  }
  double bound = 0.0;
  for (const std::uint32_t j : q.order) {
    double column = 0.0;
    for (std::size_t k = 0; k < q.dims; ++k)
      column +=
          q.cost_of(outside(window.at(j, k), q.env_lo[j * q.dims + k], q.env_hi[j * q.dims + k]));
    bound = q.combine(bound, column);
    if (q.prunes(bound, limit)) return bound;
  }
  return bound;
}

double lb_keogh_window(const WindowQuery& q, const float* values, std::vector<double>& rest,
                       std::vector<float>& lo, std::vector<float>& hi) {
  const std::size_t n = q.n, dims = q.dims;
  rest.assign(n + 2, 0.0);
  if (!q.rows_nonempty) {  // a row with no column in its band: no path at all
    std::fill(rest.begin(), rest.end() - 1, kInf);
    return kInf;
  }
  lo.resize(n * dims);
  hi.resize(n * dims);
  sliding_envelope(values, dims, n, q.lo.data(), q.hi.data(), lo.data(), hi.data());
  for (std::size_t i = n; i >= 1; --i) {
    double row = 0.0;
    for (std::size_t k = 0; k < dims; ++k)
      row += q.cost_of(
          outside(q.values[(i - 1) * dims + k], lo[(i - 1) * dims + k], hi[(i - 1) * dims + k]));
    rest[i] = q.combine(row, rest[i + 1]);
  }
  return rest[1];
}

void sliding_envelope(const float* values, std::size_t dims, std::size_t outputs,
                      const std::int32_t* from, const std::int32_t* to, float* lo, float* hi) {
  // Both ends only move right, so a queue of row indices whose values only rise (for the
  // least) or only fall (for the greatest) gives each in amortized O(1): Lemire's streaming
  // min/max.
  const auto rows = static_cast<std::size_t>(to[outputs]);
  thread_local std::vector<std::uint32_t> queue_min, queue_max;
  queue_min.resize(rows + 1);
  queue_max.resize(rows + 1);
  for (std::size_t k = 0; k < dims; ++k) {
    std::size_t min_head = 0, min_tail = 0, max_head = 0, max_tail = 0;
    std::size_t next = 1;  // the next row to enter, 1-based
    const auto v = [&](std::size_t r) { return values[(r - 1) * dims + k]; };
    for (std::size_t o = 1; o <= outputs; ++o) {
      for (; next <= static_cast<std::size_t>(to[o]); ++next) {
        while (min_tail > min_head && v(queue_min[min_tail - 1]) >= v(next)) --min_tail;
        queue_min[min_tail++] = static_cast<std::uint32_t>(next);
        while (max_tail > max_head && v(queue_max[max_tail - 1]) <= v(next)) --max_tail;
        queue_max[max_tail++] = static_cast<std::uint32_t>(next);
      }
      const auto first = static_cast<std::uint32_t>(from[o]);
      while (queue_min[min_head] < first) ++min_head;
      while (queue_max[max_head] < first) ++max_head;
      lo[(o - 1) * dims + k] = v(queue_min[min_head]);
      hi[(o - 1) * dims + k] = v(queue_max[max_head]);
    }
  }
}

void band_ranges(std::size_t n, std::size_t m, double band, std::vector<std::int32_t>& lo,
                 std::vector<std::int32_t>& hi) {
  // The reference's predicate, evaluated the same way; the allowed columns of a row form
  // an interval around j = i*m/n, found from an estimate and fixed up by the predicate.
  const auto inside = [&](std::size_t i, std::size_t j) {
    const double centre = static_cast<double>(j) * static_cast<double>(n) / static_cast<double>(m);
    return std::fabs(static_cast<double>(i) - centre) <= band;
  };
  lo.assign(n + 1, 1);
  hi.assign(n + 1, 0);
  for (std::size_t i = 1; i <= n; ++i) {
    const double centre = static_cast<double>(i) * static_cast<double>(m) / static_cast<double>(n);
    auto j = static_cast<std::int64_t>(std::llround(centre));
    j = std::clamp<std::int64_t>(j, 1, static_cast<std::int64_t>(m));
    if (!inside(i, static_cast<std::size_t>(j))) {
      // The nearest column may still be outside for a narrow band: look at its neighbours.
      const auto below = j - 1, above = j + 1;
      if (below >= 1 && inside(i, static_cast<std::size_t>(below)))
        j = below;
      else if (above <= static_cast<std::int64_t>(m) && inside(i, static_cast<std::size_t>(above)))
        j = above;
      else
        continue;  // empty row
    }
    std::int64_t a = j, b = j;
    while (a > 1 && inside(i, static_cast<std::size_t>(a - 1))) --a;
    while (b < static_cast<std::int64_t>(m) && inside(i, static_cast<std::size_t>(b + 1))) ++b;
    lo[i] = static_cast<std::int32_t>(a);
    hi[i] = static_cast<std::int32_t>(b);
  }
}

}  // namespace warpwatch::kernels::common
