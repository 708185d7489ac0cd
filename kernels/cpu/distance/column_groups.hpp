// The series of B cut into lane groups of one length, transposed for the SIMD kernels that
// run one series of A against a group (distance_matrix.cpp, softdtw_grad_matrix.cpp): built
// once and shared by every row of A.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::cpu {

struct ColumnGroup {
  std::vector<std::size_t> columns;  // indices into B, all of one length, at most `width`
  std::size_t length = 0;
  std::vector<float> values;  // [length][dims][width]; lanes past columns.size() hold 0
  std::vector<float> times;   // twed: [length][width], seconds after the common origin
};

// Groups of up to `width` series of B, shortest first (stable: B's order within a length);
// with `twed`, their times too, after `origin` (common/distance_inputs.hpp).
std::vector<ColumnGroup> group_columns(std::span<const SeriesView> b, std::size_t width, bool twed,
                                       double origin);

}  // namespace warpwatch::kernels::cpu
