// distance_matrix with the kernel family forced, for the GPU tests that exercise each
// family on its own (cuda.hpp's distance_matrix is this with DistancePath::automatic), and
// softdtw_grad_matrix with its scratch bounded.
#pragma once

#include <cstddef>
#include <span>

#include "elastic_engine.hpp"
#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::cuda::detail {

void distance_matrix_path(std::span<const SeriesView> a, std::span<const SeriesView> b,
                          const DistanceParams& params, std::span<double> out, DistancePath path,
                          DeviceTimings* timings = nullptr, int device = 0);

// softdtw_grad_matrix with the launches' table scratch bounded by `scratch_bytes` (0: half
// the free device memory, as cuda.hpp's softdtw_grad_matrix), so that tests can force many
// launches.
void softdtw_grad_matrix_scratch(std::span<const SeriesView> a, std::span<const SeriesView> b,
                                 const DistanceParams& params, std::span<double> out,
                                 std::size_t scratch_bytes, DeviceTimings* timings = nullptr);

}  // namespace warpwatch::kernels::cuda::detail
