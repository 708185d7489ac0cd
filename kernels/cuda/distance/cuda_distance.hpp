// distance_matrix with the kernel family forced, for the GPU tests that exercise each
// family on its own (cuda.hpp's distance_matrix is this with DistancePath::automatic).
#pragma once

#include <span>

#include "elastic_engine.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::cuda::detail {

void distance_matrix_path(std::span<const SeriesView> a, std::span<const SeriesView> b,
                          const DistanceParams& params, std::span<double> out, DistancePath path,
                          DeviceTimings* timings = nullptr);

}  // namespace warpwatch::kernels::cuda::detail
