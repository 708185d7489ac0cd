// Lower bounds of window mode's dtw and dk (docs/spec.md §3.2, 4.1) for pruning: a window whose
// bound already exceeds the threshold cannot qualify, so it is not aligned at all, and the
// events stay exactly those of the unpruned computation (docs/spec.md §3.2 allows pruning on
// that condition). The cascade of the UCR Suite (Rakthanmanon et al., KDD 2012), for any
// window length w, pattern length n, Sakoe-Chiba band and component count:
// - LB_Kim: every path holds the cells (1,1) and (n,w).
// - LB_Keogh on the pattern's envelope: every column j of the window lies on the path in
//   some row whose band holds j, so it costs at least its distance to the pattern's values
//   over those rows.
// - LB_Keogh on the window's envelope: every pattern row i costs at least its distance to
//   the window's values over the row's band. Per row, so its suffix sums bound what the rows
//   after i can still add: early abandoning of the alignment itself. For a band of a fixed
//   radius (WindowQuery::radius), the rows whose band lies inside the window read the
//   envelope of the stream's raw samples, computed once for a stretch of windows
//   (StretchEnvelope), and only the rows the window's edges clip are the window's own: the
//   same bound, from O(w) arithmetic a window (SIMD) instead of a deque pass over it.
// dtw adds the parts, dk (a max along the path) takes their maximum.
//
// The bounds are exact in double over the float32 values the alignment reads, up to the
// rounding of their double sums (within relative terms * 2^-53 of the exact sum in any
// order, and the SIMD forms change the order: far inside the margin below); the alignment
// rounds in float32 and may come out below its exact value by its rounding error.
// `prunes` keeps that margin: it drops a window only when the bound, shrunk by a relative
// (cells on a path + dims + 4) * 2^-22, four times the rounding of each addition and of
// each cost, is still above the limit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/window/window_stats.hpp"
#include "warpwatch/kernels/types.hpp"

namespace warpwatch::kernels::common {

// The pattern as window mode compares it, with what pruning needs of it; built once per
// pattern (pairs of all streams share it). dtw and dk: the fields below up to `margin`; ed:
// `order` and `ordered`.
struct WindowQuery {
  std::size_t n = 0, w = 0, dims = 1;
  Metric metric = Metric::dtw;
  Cost cost = Cost::sq;
  std::vector<float> values;  // n x dims, normalized as the windows are
  // Per pattern row i = 1..n: the window columns [lo[i], hi[i]] of its band (lo > hi: none).
  std::vector<std::int32_t> lo, hi;
  // Per window column j = 1..w and component: the least and greatest pattern value over the
  // rows whose band holds j ([(j-1) * dims + k]); `reachable` is false when some column is in
  // no row's band (no path: the distance is +inf).
  std::vector<float> env_lo, env_hi;
  bool reachable = true;
  bool rows_nonempty = true;  // false: some row has no column in its band (no path either)
  // The columns in the order LB_Keogh visits them: largest |envelope| first, so that a
  // window that is far from the pattern is abandoned after few terms (UCR's reordering).
  std::vector<std::uint32_t> order;
  std::vector<float> order_lo, order_hi;  // d = 1: the envelope in that order
  double margin = 0.0;                    // relative rounding margin of `prunes`
  // ed (w = n, no band, no envelopes): `order` visits the pattern's samples by decreasing
  // |value| (summed over the components), the UCR Suite's reordering for z-normalized ed, and
  // `ordered` holds the pattern's values in that order (n x dims). The cpu's ed is the sum in
  // that order (cpu/window_ed.hpp), abandoned or not.
  std::vector<float> ordered;
  // The band as a radius: when n == w and every row i's columns are [i - radius, i + radius]
  // clipped to [1, w], with 2 radius <= w; -1 otherwise (no band, w != n, a narrow table).
  std::int64_t radius = -1;

  // A measure whose row says window_bounds (dtw, dk, ed) in window mode: what the bounds, or
  // ed's early abandoning, are proved for. The others (softdtw, twed, msm, erp, lcss) are
  // aligned in full: dtw's bounds do not bound them (msm's and erp's paths pay other costs,
  // lcss is a similarity count).
  static bool applies(const MatchParams& params);
  // The pattern normalized as WindowTrack does (common::znormalize under znorm); throws
  // std::invalid_argument when applies() is false or the pattern is constant under znorm.
  explicit WindowQuery(const PatternDef& pattern);

  // The local cost of one component's difference, and how costs combine along a path.
  double cost_of(double diff) const {
    return cost == Cost::sq ? diff * diff : (diff < 0 ? -diff : diff);
  }
  double combine(double a, double b) const {
    return metric == Metric::dtw ? a + b : (a < b ? b : a);
  }
  // True when a distance whose lower bound is `bound` cannot be <= limit.
  bool prunes(double bound, double limit) const { return bound * (1.0 - margin) > limit; }
};

// Distance of x to [lo, hi] (0 inside).
inline double outside(double x, double lo, double hi) {
  return x > hi ? x - hi : (x < lo ? lo - x : 0.0);
}

// Rows i = 1..n of an n x m table: the columns [lo[i], hi[i]] (1-based, inclusive; lo > hi
// when the row is empty) that satisfy the Sakoe-Chiba predicate |i - j*n/m| <= band
// exactly as the reference evaluates it.
void band_ranges(std::size_t n, std::size_t m, double band, std::vector<std::int32_t>& lo,
                 std::vector<std::int32_t>& hi);

// Per output o = 1..outputs and component k: the least and greatest of the rows
// [from[o], to[o]] (1-based, non-empty, both ends non-decreasing in o) of `values` (rows x
// dims): lo/hi[(o - 1) * dims + k].
void sliding_envelope(const float* values, std::size_t dims, std::size_t outputs,
                      const std::int32_t* from, const std::int32_t* to, float* lo, float* hi);

// A window as it is compared, read from the stream's samples: raw values, normalized on the
// fly when `mean` and `scale` are given (common::znormal), so that a bound abandoned after a
// few columns has normalized only those.
struct WindowView {
  const float* raw = nullptr;     // w x dims
  const double* mean = nullptr;   // dims, or null: values as they are
  const double* scale = nullptr;  // dims
  std::size_t dims = 1;

  float at(std::size_t j, std::size_t k) const {  // column j (0-based), component k
    const float x = raw[j * dims + k];
    return mean ? znormal(x, mean[k], scale[k]) : x;
  }
  void write(std::size_t w, float* out) const;  // all w x dims values
};

// LB_Kim: the costs of the cells (1,1) and (n,w).
double lb_kim(const WindowQuery& q, const WindowView& window);

// LB_Keogh on the pattern's envelope, abandoned once it exceeds `limit` (then some value
// over it is returned).
double lb_keogh_pattern(const WindowQuery& q, const WindowView& window, double limit);

// One component's LB_Keogh terms over arrays: for u < count, the cost of the distance of
// v_u = values[order ? order[u] : u] to [lo[u], hi[u]], combined by `metric` (the arrays in
// the order they are visited). `normalize` says which operands are raw window values, to be
// compared as common::znormal(x, mean, scale) makes them.
enum class KeoghNormalize : std::uint8_t { none, values, envelope };
struct KeoghTerms {
  const float* values = nullptr;
  const std::uint32_t* order = nullptr;  // null: values[u]
  const float *lo = nullptr, *hi = nullptr;
  std::size_t count = 0;
  KeoghNormalize normalize = KeoghNormalize::none;
  double mean = 0.0, scale = 1.0;
};
// The terms combined, in order, in double; once the running value exceeds `cut` (tested
// every few terms) that value is returned. cpu/window_bounds_simd.hpp is the SIMD form.
double keogh_terms(const KeoghTerms& terms, Metric metric, Cost cost, double cut);

// d = 1: the terms of LB_Keogh on the pattern's envelope (lb_keogh_pattern), in UCR's
// visiting order or (ordered false) in column order.
KeoghTerms pattern_terms(const WindowQuery& q, const WindowView& window, bool ordered);

// WindowQuery::prunes's test as a cut on the bound itself: prunes(bound, limit) holds for a
// bound over cut_of(limit) (up to the rounding of this division).
inline double cut_of(const WindowQuery& q, double limit) {
  return limit / (1.0 - q.margin);
}

// Per sample t < r of `count` (values: count x dims) and component: the least and greatest
// of samples [0, t + r]; per t >= r with t + r >= count: of samples [t - r, count - 1]
// (lo/hi[t * dims + k]; others untouched). The envelope where the ends clip a band of
// radius r.
void clipped_extremes(const float* values, std::size_t count, std::size_t dims, std::size_t r,
                      float* lo, float* hi);

// The stream's raw samples' envelope over a stretch of consecutive samples, for windows of a
// band of WindowQuery::radius >= 0: lo/hi[t * dims + k] (t 0-based in the stretch) is the
// least / greatest of component k over the stretch's samples [t - radius, t + radius]
// (clipped to the stretch, as clipped_extremes says). For
// a window inside the stretch starting at its sample t0, that is at t0 + i - 1 the envelope
// of each row i whose band the window's edges do not clip (radius < i <= n - radius):
// normalizing is monotone, so the normalized envelope is that of the raw one. One
// O(length) pass serves every window of the stretch, whatever the radius.
struct StretchEnvelope {
  std::uint64_t first = 0;  // the stream index of the stretch's first sample
  std::size_t length = 0, dims = 1;
  std::vector<float> lo, hi;
  std::vector<float> ahead_lo, ahead_hi, behind_lo, behind_hi;  // scratch
  void build(const float* samples, std::size_t length, std::size_t dims, std::size_t radius,
             std::uint64_t first);
  // Row 1's envelope (n x dims values follow) of the window starting at stream index `start`.
  const float* lo_at(std::uint64_t start) const { return lo.data() + (start - first) * dims; }
  const float* hi_at(std::uint64_t start) const { return hi.data() + (start - first) * dims; }
};

// LB_Keogh on the window's envelope for a band of a fixed radius (q.radius >= 0), the window
// `window` starting at stream index `start` inside `stretch`: lb_keogh_window's value (rows
// combined in another order), from the stretch's envelope and edge_envelope's; abandoned
// once over `limit`. `lo`/`hi` are scratch.
double lb_keogh_stretch(const WindowQuery& q, const StretchEnvelope& stretch, std::uint64_t start,
                        const WindowView& window, double limit, std::vector<float>& lo,
                        std::vector<float>& hi);

// Its parts. d = 1: the terms of the rows the edges do not clip, read from the stretch.
KeoghTerms middle_terms(const WindowQuery& q, const StretchEnvelope& stretch, std::uint64_t start,
                        const WindowView& window);
// Rows 1..radius and n-radius+1..n of the raw envelope (n x dims) of the window whose raw
// values are `raw` (w x dims): running extremes of its first and last 2 radius columns
// (other rows untouched); and those rows' costs combined, the envelope normalized as
// `window` says.
void edge_envelope(const WindowQuery& q, const float* raw, float* lo, float* hi);
double edge_terms(const WindowQuery& q, const float* lo, const float* hi, const WindowView& window);
// The window's whole raw envelope: its edges' and, between them, the stretch's.
void window_envelope(const WindowQuery& q, const StretchEnvelope& stretch, std::uint64_t start,
                     const WindowView& window, float* lo, float* hi);
// lb_keogh_window's rows from an envelope of the window (n x dims, normalized as `window`
// says): rest[i] (i = 1..n+1, rest[n+1] = 0) receives rows i..n combined; returns rest[1].
double keogh_rows(const WindowQuery& q, const float* lo, const float* hi, const WindowView& window,
                  std::vector<double>& rest);

// LB_Keogh on the window's envelope: rest[i] (i = 1..n+1, rest[n+1] = 0) receives the bound
// of rows i..n combined; returns rest[1]. `values` is the window as compared (w x dims);
// `lo`/`hi` are scratch.
double lb_keogh_window(const WindowQuery& q, const float* values, std::vector<double>& rest,
                       std::vector<float>& lo, std::vector<float>& hi);

}  // namespace warpwatch::kernels::common
