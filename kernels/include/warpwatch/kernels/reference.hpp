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
// path fits the band (dtw() = +inf).
std::vector<PathStep> dtw_path(const SeriesView& a, const SeriesView& b, Cost cost,
                               std::optional<double> band = std::nullopt);

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

// Dispatch on params.metric (validated first). The measures computed by their cells
// (msm, erp, lcss: docs/spec.md §4.4-§4.6, common/measure_cells-inl.h) are reached through
// this alone: float64 scalars, the band applied where the measure's row says it applies.
double distance(const SeriesView& a, const SeriesView& b, const DistanceParams& params);

// The reference Matcher backend: stream mode in float32 (SPRING, docs/spec.md §3.1), window
// mode in float64 (docs/spec.md §3.2).
std::unique_ptr<Matcher> make_matcher();

}  // namespace warpwatch::kernels::reference
