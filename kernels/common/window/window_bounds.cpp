#include "common/window/window_bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "common/window/window_grouping.hpp"
#include "common/window/window_stats.hpp"

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
  return params.mode == Mode::window && measure_info(params.distance.metric).window_bounds;
}

WindowQuery::WindowQuery(const PatternDef& pattern)
    : n(pattern.length()),
      w(window_length(pattern)),
      dims(pattern.dims),
      metric(pattern.params.distance.metric),
      cost(pattern.params.distance.cost),
      values(pattern.values) {
  if (!applies(pattern.params))
    throw std::invalid_argument("window bounds: " + metric_names_where([](const MeasureInfo& m) {
                                  return m.window_bounds;
                                }) +
                                " in window mode only");
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
  if (pattern.params.distance.band && n == w && rows_nonempty) {
    const std::int64_t r = hi[1] - 1, last = static_cast<std::int64_t>(w);
    bool uniform = r >= 0 && 2 * r <= last;
    for (std::int64_t i = 1; i <= static_cast<std::int64_t>(n) && uniform; ++i)
      uniform = lo[i] == std::max<std::int64_t>(1, i - r) && hi[i] == std::min(last, i + r);
    if (uniform) radius = r;
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
// keogh_terms for one metric and cost, the hot loop of a search without SIMD: the
// abandoning test every 8 terms against the cut.
template <Metric kMetric, Cost kCost>
double keogh_terms_of(const KeoghTerms& t, double cut) {
  const bool norm_values = t.normalize == KeoghNormalize::values;
  const bool norm_envelope = t.normalize == KeoghNormalize::envelope;
  const auto envelope = [&](float x) -> double {
    return norm_envelope ? znormal(x, t.mean, t.scale) : x;
  };
  double bound = 0.0;
  for (std::size_t u = 0; u < t.count; u += 8) {
    const std::size_t stop = std::min(u + 8, t.count);
    for (std::size_t v = u; v < stop; ++v) {
      const float raw = t.values[t.order ? t.order[v] : v];
      const double x = norm_values ? znormal(raw, t.mean, t.scale) : raw;
      const double d = outside(x, envelope(t.lo[v]), envelope(t.hi[v]));
      const double c = kCost == Cost::sq ? d * d : d;
      bound = kMetric == Metric::dtw ? bound + c : std::max(bound, c);
    }
    if (bound > cut) return bound;
  }
  return bound;
}
}  // namespace

double keogh_terms(const KeoghTerms& terms, Metric metric, Cost cost, double cut) {
  const bool sq = cost == Cost::sq;
  if (metric == Metric::dtw)
    return sq ? keogh_terms_of<Metric::dtw, Cost::sq>(terms, cut)
              : keogh_terms_of<Metric::dtw, Cost::abs>(terms, cut);
  return sq ? keogh_terms_of<Metric::dk, Cost::sq>(terms, cut)
            : keogh_terms_of<Metric::dk, Cost::abs>(terms, cut);
}

KeoghTerms pattern_terms(const WindowQuery& q, const WindowView& window, bool ordered) {
  const bool norm = window.mean != nullptr;
  return {.values = window.raw,
          .order = ordered ? q.order.data() : nullptr,
          .lo = ordered ? q.order_lo.data() : q.env_lo.data(),
          .hi = ordered ? q.order_hi.data() : q.env_hi.data(),
          .count = q.w,
          .normalize = norm ? KeoghNormalize::values : KeoghNormalize::none,
          .mean = norm ? window.mean[0] : 0.0,
          .scale = norm ? window.scale[0] : 1.0};
}

double lb_keogh_pattern(const WindowQuery& q, const WindowView& window, double limit) {
  if (!q.reachable) return kInf;
  if (q.dims == 1)
    return keogh_terms(pattern_terms(q, window, true), q.metric, q.cost, cut_of(q, limit));
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

void clipped_extremes(const float* values, std::size_t count, std::size_t dims, std::size_t r,
                      float* lo, float* hi) {
  for (std::size_t k = 0; k < dims; ++k) {
    const auto x = [&](std::size_t t) { return values[t * dims + k]; };
    const auto put = [&](std::size_t t, float least, float most) {
      lo[t * dims + k] = least;
      hi[t * dims + k] = most;
    };
    // t < r: samples [0, t + r], one more a step.
    float least = x(0), most = least;
    for (std::size_t t = 0, next = 1; t < std::min(r, count); ++t) {
      for (; next <= std::min(t + r, count - 1); ++next) {
        least = std::min(least, x(next));
        most = std::max(most, x(next));
      }
      put(t, least, most);
    }
    // t >= r, t + r >= count: samples [t - r, count - 1], one more a step back.
    least = x(count - 1);
    most = least;
    const std::size_t low = std::max(r, count > r ? count - r : 0);
    for (std::size_t t = count, next = count - 1; t-- > low;) {
      for (; next > t - r; --next) {
        least = std::min(least, x(next - 1));
        most = std::max(most, x(next - 1));
      }
      put(t, least, most);
    }
  }
}

void StretchEnvelope::build(const float* samples, std::size_t count, std::size_t components,
                            std::size_t radius, std::uint64_t first_index) {
  // van Herk / Gil-Werman: in blocks of K = 2 radius + 1 samples, the extremes from each
  // block's start to t (ahead) and from t to its block's end (behind); [t - r, t + r] is the
  // end of one block and the start of the next (or one whole block), so its extremes are
  // behind[t - r]'s and ahead[t + r]'s: three comparisons a sample, none of them
  // data-dependent branches. Where the stretch's ends clip the span, running extremes.
  first = first_index;
  length = count;
  dims = components;
  if (count == 0) return;
  lo.resize(count * dims);
  hi.resize(count * dims);
  ahead_lo.resize(count);
  ahead_hi.resize(count);
  behind_lo.resize(count);
  behind_hi.resize(count);
  const std::size_t r = radius, block = 2 * radius + 1;
  for (std::size_t k = 0; k < dims; ++k) {
    const auto x = [&](std::size_t t) { return samples[t * dims + k]; };
    for (std::size_t start = 0; start < count; start += block) {
      const std::size_t end = std::min(start + block, count);
      ahead_lo[start] = ahead_hi[start] = x(start);
      for (std::size_t t = start + 1; t < end; ++t) {
        ahead_lo[t] = std::min(ahead_lo[t - 1], x(t));
        ahead_hi[t] = std::max(ahead_hi[t - 1], x(t));
      }
      behind_lo[end - 1] = behind_hi[end - 1] = x(end - 1);
      for (std::size_t t = end - 1; t-- > start;) {
        behind_lo[t] = std::min(behind_lo[t + 1], x(t));
        behind_hi[t] = std::max(behind_hi[t + 1], x(t));
      }
    }
    for (std::size_t t = r; t + r < count; ++t) {
      lo[t * dims + k] = std::min(behind_lo[t - r], ahead_lo[t + r]);
      hi[t * dims + k] = std::max(behind_hi[t - r], ahead_hi[t + r]);
    }
  }
  clipped_extremes(samples, count, dims, r, lo.data(), hi.data());
}

namespace {
// Row i's cost (1-based): the pattern's values against the envelope's, normalized as
// `window` says (null mean: as they are).
double row_cost(const WindowQuery& q, std::size_t i, const float* lo, const float* hi,
                const WindowView& window) {
  double row = 0.0;
  for (std::size_t k = 0; k < q.dims; ++k) {
    const std::size_t e = (i - 1) * q.dims + k;
    const auto value = [&](float x) -> double {
      return window.mean ? znormal(x, window.mean[k], window.scale[k]) : x;
    };
    row += q.cost_of(outside(q.values[e], value(lo[e]), value(hi[e])));
  }
  return row;
}
}  // namespace

KeoghTerms middle_terms(const WindowQuery& q, const StretchEnvelope& stretch, std::uint64_t start,
                        const WindowView& window) {
  const auto r = static_cast<std::size_t>(q.radius);
  const bool norm = window.mean != nullptr;
  return {.values = q.values.data() + r,
          .order = nullptr,
          .lo = stretch.lo_at(start) + r,
          .hi = stretch.hi_at(start) + r,
          .count = q.n - 2 * r,
          .normalize = norm ? KeoghNormalize::envelope : KeoghNormalize::none,
          .mean = norm ? window.mean[0] : 0.0,
          .scale = norm ? window.scale[0] : 1.0};
}

void edge_envelope(const WindowQuery& q, const float* raw, float* lo, float* hi) {
  // Row i <= r holds columns 1..i+r, row i > n-r columns i-r..n (n == w, 2r <= n).
  clipped_extremes(raw, q.n, q.dims, static_cast<std::size_t>(q.radius), lo, hi);
}

double edge_terms(const WindowQuery& q, const float* lo, const float* hi,
                  const WindowView& window) {
  const auto r = static_cast<std::size_t>(q.radius);
  double bound = 0.0;
  for (std::size_t t = 1; t <= r; ++t) {
    bound = q.combine(bound, row_cost(q, t, lo, hi, window));
    bound = q.combine(bound, row_cost(q, q.n + 1 - t, lo, hi, window));
  }
  return bound;
}

void window_envelope(const WindowQuery& q, const StretchEnvelope& stretch, std::uint64_t start,
                     const WindowView& window, float* lo, float* hi) {
  const auto r = static_cast<std::size_t>(q.radius);
  edge_envelope(q, window.raw, lo, hi);
  const std::size_t from = r * q.dims, to = (q.n - r) * q.dims;
  std::copy(stretch.lo_at(start) + from, stretch.lo_at(start) + to, lo + from);
  std::copy(stretch.hi_at(start) + from, stretch.hi_at(start) + to, hi + from);
}

namespace {
template <Metric kMetric, Cost kCost>
void keogh_rows_1d(const WindowQuery& q, const float* lo, const float* hi, const WindowView& window,
                   double* rest) {
  const bool norm = window.mean != nullptr;
  const double mean = norm ? window.mean[0] : 0.0, scale = norm ? window.scale[0] : 1.0;
  const auto value = [&](float x) -> double { return norm ? znormal(x, mean, scale) : x; };
  for (std::size_t i = q.n; i >= 1; --i) {
    const double d = outside(q.values[i - 1], value(lo[i - 1]), value(hi[i - 1]));
    const double c = kCost == Cost::sq ? d * d : d;
    rest[i] = kMetric == Metric::dtw ? c + rest[i + 1] : std::max(c, rest[i + 1]);
  }
}
}  // namespace

double keogh_rows(const WindowQuery& q, const float* lo, const float* hi, const WindowView& window,
                  std::vector<double>& rest) {
  rest.assign(q.n + 2, 0.0);
  if (q.dims == 1) {  // the same terms, combined in the same order
    const bool sq = q.cost == Cost::sq;
    if (q.metric == Metric::dtw)
      sq ? keogh_rows_1d<Metric::dtw, Cost::sq>(q, lo, hi, window, rest.data())
         : keogh_rows_1d<Metric::dtw, Cost::abs>(q, lo, hi, window, rest.data());
    else
      sq ? keogh_rows_1d<Metric::dk, Cost::sq>(q, lo, hi, window, rest.data())
         : keogh_rows_1d<Metric::dk, Cost::abs>(q, lo, hi, window, rest.data());
    return rest[1];
  }
  for (std::size_t i = q.n; i >= 1; --i)
    rest[i] = q.combine(row_cost(q, i, lo, hi, window), rest[i + 1]);
  return rest[1];
}

double lb_keogh_stretch(const WindowQuery& q, const StretchEnvelope& stretch, std::uint64_t start,
                        const WindowView& window, double limit, std::vector<float>& lo,
                        std::vector<float>& hi) {
  lo.resize(q.n * q.dims);
  hi.resize(q.n * q.dims);
  window_envelope(q, stretch, start, window, lo.data(), hi.data());
  const double cut = cut_of(q, limit);
  double bound = 0.0;
  for (std::size_t i = 1; i <= q.n; ++i) {
    bound = q.combine(bound, row_cost(q, i, lo.data(), hi.data(), window));
    if (i % 8 == 0 && bound > cut) return bound;
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
  return keogh_rows(q, lo.data(), hi.data(), WindowView{values, nullptr, nullptr, dims}, rest);
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
  std::int64_t last_lo = 1, last_hi = 1;
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
    // The allowed columns of a row form an interval whose ends only move right with i (the
    // predicate is monotone in j and in i, rounding included): the row's first allowed
    // column is at or after the last row's, and the columns from j to the last row's last
    // one are allowed. So the ends are found from the last non-empty row's, in O(n + m)
    // evaluations for all rows rather than O(band) a row.
    std::int64_t a = std::min(j, last_lo), b = std::max(j, last_hi);
    while (a < j && !inside(i, static_cast<std::size_t>(a))) ++a;
    while (b < static_cast<std::int64_t>(m) && inside(i, static_cast<std::size_t>(b + 1))) ++b;
    lo[i] = static_cast<std::int32_t>(a);
    hi[i] = static_cast<std::int32_t>(b);
    last_lo = a;
    last_hi = b;
  }
}

}  // namespace warpwatch::kernels::common
