// The SIMD form (Highway, dispatched to the machine's best target) of window mode's
// LB_Keogh sums, common::keogh_terms: the same terms, each the exact double of its float32
// operands as common::keogh_terms makes them (the window's values normalized through double
// and rounded to float32, as compared), combined lane by lane, so that a sum differs from the
// scalar one only by the rounding of double additions in another order (both within
// relative count * 2^-53 of the exact sum: far inside WindowQuery::margin, over 2^-20).
// Abandoned like the scalar sum: once the running value exceeds the cut, tested every two
// lane-vectors. Column order only: a visiting order (`order`) is summed by the scalar form.
#pragma once

#include "common/window/window_bounds.hpp"

namespace warpwatch::kernels::cpu {

double keogh_terms_simd(const common::KeoghTerms& terms, Metric metric, Cost cost, double cut);

}  // namespace warpwatch::kernels::cpu
