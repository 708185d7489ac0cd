// What every backend's distance_matrix checks and prepares alike, so they accept the same
// inputs with the same messages and put twed's times on the same clock.
#pragma once

#include <span>

#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::common {

// Throws std::invalid_argument for invalid params, an output that is not |A| x |B|, series
// of different dimensions, an empty series, or (ed) series of different lengths.
void check_distance_inputs(std::span<const SeriesView> a, std::span<const SeriesView> b,
                           const DistanceParams& params, std::span<const double> out);

// twed compares times only through differences, so all series are shifted by one common
// origin (the earliest first time) before going to float32: epoch seconds would lose
// everything below a minute. 0 when a series has no times (index times stay as they are).
double twed_time_origin(std::span<const SeriesView> a, std::span<const SeriesView> b);

}  // namespace warpwatch::kernels::common
