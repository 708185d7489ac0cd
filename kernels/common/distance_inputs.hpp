// What every backend's distance_matrix (and softdtw_grad_matrix) checks and prepares alike,
// so they accept the same inputs with the same messages and put twed's times on the same
// clock.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::common {

// Throws std::invalid_argument for invalid params, an output that is not |A| x |B|, series
// of different dimensions, an empty series, or (ed) series of different lengths.
void check_distance_inputs(std::span<const SeriesView> a, std::span<const SeriesView> b,
                           const DistanceParams& params, std::span<const double> out);

// What softdtw_grad_matrix writes (backends.hpp): every pair's gradient with respect to its
// series of A, the pairs in (i, j) order, pair (i, j) at rows[i] + j * a[i].length * dims.
// rows[i] for i = 0..|A|: where the pairs (i, .) start; rows[|A|] is the size.
std::vector<std::size_t> softdtw_grad_rows(std::span<const SeriesView> a, std::size_t b_count);

// Throws std::invalid_argument for invalid params or a metric other than softdtw, series of
// different dimensions, an empty series, or an output not of softdtw_grad_rows(a, |B|).back().
void check_softdtw_grad_inputs(std::span<const SeriesView> a, std::span<const SeriesView> b,
                               const DistanceParams& params, std::span<const double> out);

// twed compares times only through differences, so all series are shifted by one common
// origin (the earliest first time) before going to float32: epoch seconds would lose
// everything below a minute. 0 when a series has no times (index times stay as they are).
double twed_time_origin(std::span<const SeriesView> a, std::span<const SeriesView> b);

}  // namespace warpwatch::kernels::common
