// The scalar reference of SPEC.md: slow, obvious, and the oracle every faster backend
// is tested against. Whole-series distances here are computed in float64.
#pragma once

#include <optional>

#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"

namespace warpwatch::kernels::reference {

// SPEC.md 4.1: dtw with both ends fixed; `band` is the Sakoe-Chiba radius in cells
// (|i - j*n/m| <= band), unconstrained when empty. +inf when no path fits the band.
double dtw(const SeriesView& a, const SeriesView& b, Cost cost,
           std::optional<double> band = std::nullopt);

}  // namespace warpwatch::kernels::reference
