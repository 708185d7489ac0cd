// The scalar reference of docs/spec.md: slow, obvious, and the oracle every faster backend
// is tested against. Whole-series distances here are computed in float64; stream mode
// (spring_*.hpp) is float32, the form faster backends match bit for bit.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::reference {

// All functions take a = A (n samples, rows i) and b = B (m samples, columns j) of the
// same dimension, both non-empty (std::invalid_argument otherwise). `band` is the
// Sakoe-Chiba radius in cells, |i - j*n/m| <= band (1-based i, j); cells outside are +inf.

// docs/spec.md §4.0: the lock-step distance sum_i c(a_i, b_i) (no square root). Throws
// std::invalid_argument when the lengths differ.
double ed(const SeriesView& a, const SeriesView& b, Cost cost);

// docs/spec.md §4.1: dtw with both ends fixed. +inf when no path fits the band.
double dtw(const SeriesView& a, const SeriesView& b, Cost cost,
           std::optional<double> band = std::nullopt);

// One step of an alignment path: a's sample i and b's sample j (0-based) and their local cost.
struct PathStep {
  std::size_t i = 0, j = 0;
  double cost = 0.0;
  friend bool operator==(const PathStep&, const PathStep&) = default;
};

// docs/spec.md §7: dtw's optimal path from (0, 0) to (n-1, m-1), each step moving by (1,0),
// (0,1) or (1,1), of the float64 table of dtw() above; ties broken by docs/spec.md §3.1's
// predecessor order ((i, j-1), then (i-1, j-1), then (i-1, j): a later one only when strictly
// smaller). Its costs summed from the first step on equal dtw() bit for bit. Empty when no
// path fits the band (dtw() = +inf). warping_path(a, b, dtw, float64, a_is_stream).
std::vector<PathStep> dtw_path(const SeriesView& a, const SeriesView& b, Cost cost,
                               std::optional<double> band = std::nullopt);

// The arithmetic of a backend's dtw and dk cells (docs/spec.md §7):
// - float64: the reference's whole-series distances (window mode on the reference backend;
//   the cuda backend's generic kernel: several dimensions, or patterns its window kernels
//   do not take);
// - float32: c = sum_k (x_k - y_k)^2 (or |x_k - y_k|) from the first component on, then
//   D = c + best (dtw) or max(c, best) (dk), no contraction: stream mode on every backend
//   (spring.hpp) and the cpu backend's window mode (its lane-vectors do the same operations
//   in the same order);
// - float32_fma: the cuda backend's window kernels (one dimension): dtw with sq is
//   D = fma(d, d, best) with d = x - y; every other cell as float32.
enum class Arithmetic { float64, float32, float32_fma };
// Which of a and b is the stream's side for the tie order of docs/spec.md §3.1 ((t, i-1),
// (t-1, i-1), (t-1, i) with t the stream's sample and i the pattern's row).
enum class PathTies { a_is_stream, b_is_stream };

struct WarpingPath {
  std::vector<PathStep> steps;  // empty when no path fits the band
  double distance = 0.0;        // D(n, m) in the arithmetic (+inf when no path fits)
};

// docs/spec.md §7: the optimal path of dtw or dk (params.metric, cost and band as dtw() and
// dk() read them) between a and b, computed in `arithmetic`, each step's cost the local cost
// in it (float64 or float32), ties as `ties` says. The path's cells accumulated in its order
// in the arithmetic (sum or fma for dtw, max for dk) give `distance` bit for bit (checked).
// Throws std::invalid_argument for another measure, and for float32_fma with dims != 1.
WarpingPath warping_path(const SeriesView& a, const SeriesView& b, const DistanceParams& params,
                         Arithmetic arithmetic, PathTies ties);

// docs/spec.md §7, stream mode: SPRING (docs/spec.md §3.1, float32, its reports and resets
// included) run over `stream` from a fresh state (no live cell before its first sample) with
// the pattern `pattern`, `metric` (dtw or dk), `cost` and `threshold`, up to the column of the
// stream's sample `end` (0-based in the view); then the path that cell (end, m)'s start
// pointer followed, back to its start: steps (pattern row i, stream sample j, local cost) in
// path order, `distance` D(end, m) and `start` S(end, m) as the column left them (after its
// resets: +inf when the cell was reset). Only a path starting at or after `from` is followed
// (the predecessors kept: (end - from + 1) x m bytes); steps empty otherwise. The Matcher's own
// path when the replay's table is the Matcher's, which holds when no cell was live (D <= eps) and
// no candidate pending at the column before the view's first sample; the caller checks the distance
// it reproduces.
struct SpringPath {
  std::vector<PathStep> steps;  // empty when D(end, m) is +inf or S(end, m) < from
  double distance = 0.0;        // D(end, m) in float32
  std::size_t start = 0;        // S(end, m), 0-based in the view
};
SpringPath spring_path(const SeriesView& pattern, const SeriesView& stream, Metric metric,
                       Cost cost, double threshold, std::size_t from, std::size_t end);

// docs/spec.md §3.2's znorm: `values` (samples of `dims` components, row-major) normalized
// per component as window mode normalizes a window and its pattern, to the bit (population
// mean and standard deviation in float64, rounded to float32). False, `values` untouched,
// when a component's standard deviation is below 1e-8 (a flat window, skipped).
bool znormalize(std::vector<float>& values, std::size_t dims);

// docs/spec.md §4.1: discrete Frechet ("dog-keeper") distance, max instead of sum along paths.
double dk(const SeriesView& a, const SeriesView& b, Cost cost,
          std::optional<double> band = std::nullopt);

// docs/spec.md §4.2: soft-DTW value (may be negative).
double softdtw(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
               std::optional<double> band = std::nullopt);

// docs/spec.md §4.2: soft-DTW value, and its gradient with respect to a's values written to
// grad_a (resized to a.length * a.dims, row-major like a.values).
double softdtw_grad(const SeriesView& a, const SeriesView& b, Cost cost, double gamma,
                    std::optional<double> band, std::vector<double>& grad_a);

// docs/spec.md §4.3: time-warp edit distance with the series' timestamps (seconds; sample
// index when a view has none).
double twed(const SeriesView& a, const SeriesView& b, double nu, double lambda, double p);

// The moves of an edit distance's table into cell (i, j): from (i-1, j-1) (a's and b's
// samples together: twed's and erp's match, msm's move, lcss's match), from (i-1, j) (a's
// sample alone: a deletion, a split or merge, a gap, a skip), from (i, j-1) (b's alone).
enum class EditMove { diagonal, a_step, b_step };
struct EditStep {
  std::size_t i = 0, j = 0;  // the cell moved into, 1-based (0: before the first sample)
  EditMove move = EditMove::diagonal;
  double cost = 0.0;          // the cell minus its predecessor (lcss: 1 for a match, else 0)
  std::size_t component = 0;  // msm: the component whose table it is in
};
struct EditPath {
  // From (0, 0) to (n, m) in path order (msm: each component's in turn); empty when no path
  // fits the band.
  std::vector<EditStep> steps;
  double distance = 0.0;  // distance(a, b, params) bit for bit
};

// docs/spec.md §7: the edit operations of twed, msm, erp or lcss (params.metric; std::
// invalid_argument for another measure) between a and b: the float64 table of distance()
// walked back from (n, m), at each cell the first of diagonal, a_step, b_step that gives it.
// The costs summed in path order from 0 are the table's last cell bit for bit, so: twed and
// erp, the distance; msm, each component's table, whose values summed in component order are
// the distance; lcss, L(n, m), the distance being 1 - L / min(n, m).
EditPath edit_path(const SeriesView& a, const SeriesView& b, const DistanceParams& params);

// Dispatch on params.metric (validated first). The measures computed by their cells
// (msm, erp, lcss: docs/spec.md §4.4-§4.6, common/measure_cells-inl.h) are reached through
// this alone: float64 scalars, the band applied where the measure's row says it applies.
double distance(const SeriesView& a, const SeriesView& b, const DistanceParams& params);

// The reference Matcher backend: stream mode in float32 (SPRING, docs/spec.md §3.1), window
// mode in float64 (docs/spec.md §3.2).
std::unique_ptr<Matcher> make_matcher();

}  // namespace warpwatch::kernels::reference
