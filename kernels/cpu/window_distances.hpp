// Window mode on the CPU: the windows that end in a batch for one (stream, pattern) pair
// (the Matcher base's WindowBatch) compared with the pattern one SIMD lane per window
// (elastic_kernel.hpp).
#pragma once

#include "common/matcher_state.hpp"
#include "cpu/cpu_state.hpp"

namespace warpwatch::kernels::cpu {

// Fills windows.distances (and windows.flat for the windows znorm skips).
void compute_window_distances(common::WindowBatch& windows, WorkerScratch& scratch);

}  // namespace warpwatch::kernels::cpu
