// The one list of measures (docs/spec.md §3, §4): every place that names, parses, offers or
// checks a metric or one of its parameters is generated from WARPWATCH_MEASURES and
// WARPWATCH_MEASURE_PARAMS, so that a new measure computed by a cell is its rows here plus
// its cell (common/measure_cells-inl.h): the reference, the cpu and the CUDA backends run
// it through the case labels WARPWATCH_CELL_MEASURE_CASES, the configuration and the
// command line offer its parameters, validate() checks them. Every `switch` over Metric
// (none has a `default:`) fails to compile until it handles a new measure that has a kernel
// of its own. C++17 and no CUDA header: the .cu files include it too (they take a Metric as
// it is, not as a copy of its numbers).
#pragma once

#include <cstddef>

namespace warpwatch::kernels {

// How a measure takes the Sakoe-Chiba `band` parameter.
enum class BandUse {
  applies,  // cells outside the band are +inf (docs/spec.md §4.1)
  refused,  // validate() throws: the measure has no band
  ignored,  // twed: read by no backend; kept accepted so that existing configurations load
};

// One row per measure, in the order of the enum (the CUDA backend flattens a Metric to an
// int: new measures go at the end):
//   X(id, "name", stream, band, times, cost, lock_step, window_bounds, path, kernel, "summary")
// id/name   the enumerator and the name in YAML, on the command line and in events
// stream    stream mode (SPRING, docs/spec.md §3.1) is defined for it
// band      BandUse
// times     reads the samples' timestamps (else the sample index is all that matters)
// cost      reads the local cost `cost` (sq/abs, docs/spec.md §2)
// lock_step compares sample i with sample i only: series of one length, window w = m
// window_bounds  window mode's lower bounds and early abandoning (common/window/window_bounds.hpp)
//           are valid for it (they are proved for dtw's sum and dk's max only, and ed's sum)
// path      its value is the cost of one alignment path that docs/spec.md §7 can explain
// kernel    `cells`: computed by its cell (CellOf<Metric::id> in common/measure_cells-inl.h) on
//           every backend, with nothing else to write; `own`: kernels written for it
// summary   what --help and the configuration reference say about it
#define WARPWATCH_MEASURES(X)                                                           \
  X(dtw, "dtw", true, BandUse::applies, false, true, false, true, true, own,            \
    "dynamic time warping, the sum of local costs along the best path")                 \
  X(dk, "dk", true, BandUse::applies, false, true, false, true, true, own,              \
    "discrete Frechet, the largest local cost along the best path")                     \
  X(softdtw, "softdtw", false, BandUse::applies, false, true, false, false, false, own, \
    "soft-DTW, smoothed by gamma")                                                      \
  X(twed, "twed", false, BandUse::ignored, true, false, false, false, true, own,        \
    "time warp edit distance (nu, lambda, p; reads timestamps)")                        \
  X(ed, "ed", false, BandUse::refused, false, true, true, true, true, own,              \
    "lock-step Euclidean: series of one length, window = the pattern's length")         \
  X(msm, "msm", false, BandUse::refused, false, false, false, false, true, cells,       \
    "move-split-merge (c), per dimension, summed")                                      \
  X(erp, "erp", false, BandUse::applies, false, true, false, false, true, cells,        \
    "edit distance with real penalty (gap value g)")                                    \
  X(lcss, "lcss", false, BandUse::refused, false, false, false, false, true, cells,     \
    "1 - longest common subsequence / shorter length (epsilon, delta), in [0, 1]")

#define WARPWATCH_MEASURE_ENUM(id, ...) id,
enum class Metric { WARPWATCH_MEASURES(WARPWATCH_MEASURE_ENUM) };
#undef WARPWATCH_MEASURE_ENUM

// A row of the list as data.
struct MeasureInfo {
  Metric metric;
  const char* name;
  bool stream;
  BandUse band;
  bool times;
  bool cost;
  bool lock_step;
  bool window_bounds;
  bool path;
  bool cells;  // kernel `cells`
  const char* summary;
};

#define WW_MEASURE_KERNEL_cells true
#define WW_MEASURE_KERNEL_own false
#define WARPWATCH_MEASURE_INFO(id, name, stream, band, times, cost, lock_step, bounds, path, \
                               kernel, summary)                                              \
  MeasureInfo{Metric::id, name,      stream, band, times,                                    \
              cost,       lock_step, bounds, path, WW_MEASURE_KERNEL_##kernel,               \
              summary},
inline constexpr MeasureInfo kMeasures[] = {WARPWATCH_MEASURES(WARPWATCH_MEASURE_INFO)};
#undef WARPWATCH_MEASURE_INFO

inline constexpr int kMeasureCount = static_cast<int>(sizeof(kMeasures) / sizeof(kMeasures[0]));

// The row of a measure (the table is in enum order: checked below).
constexpr const MeasureInfo& measure_info(Metric m) {
  return kMeasures[static_cast<int>(m)];
}

namespace detail {
constexpr bool measures_in_enum_order() {
  for (int k = 0; k < kMeasureCount; ++k)
    if (static_cast<int>(kMeasures[k].metric) != k) return false;
  return true;
}
}  // namespace detail
static_assert(detail::measures_in_enum_order(), "kMeasures is indexed by Metric");

// The case labels of the measures whose kernel is `cells`, for a backend's switch over
// Metric: `WARPWATCH_CELL_MEASURE_CASES return run_the_cell(...);` (with_cell in
// common/measure_cells-inl.h builds the cell).
#define WW_MEASURE_CASE_cells(id) case ::warpwatch::kernels::Metric::id:
#define WW_MEASURE_CASE_own(id)
#define WW_MEASURE_CELL_CASE(id, name, stream, band, times, cost, lock_step, bounds, path, kernel, \
                             summary)                                                              \
  WW_MEASURE_CASE_##kernel(id)
#define WARPWATCH_CELL_MEASURE_CASES WARPWATCH_MEASURES(WW_MEASURE_CELL_CASE)

// The parameters of the measures (docs/spec.md §4), one row each:
//   P(name, measure, kind, default, lower, open, "help")
// name      the field of DistanceParams and MeasureParams, the key under a library's
//           `defaults` and the command line's --name
// measure   the measure that reads it (a Metric's id)
// kind      `real`: a finite double, >= lower (> lower when open); lower -inf: any finite
//           `count`: a whole number of samples >= 0 or unset, unset = no limit (default and
//           lower are not read)
// help      what the configuration reference and --help say after "measure: "
// The cells read them from MeasureParams (host and device alike); DistanceParams holds them
// as a user sets them (a count is a std::optional there).
#define WARPWATCH_MEASURE_PARAMS(P)                                                       \
  P(gamma, softdtw, real, 1.0, 0.0, true, "smoothing")                                    \
  P(nu, twed, real, 0.001, 0.0, false, "stiffness, cost per second of time misalignment") \
  P(lambda, twed, real, 1.0, 0.0, false, "deletion penalty")                              \
  P(p, twed, real, 2.0, 1.0, false, "degree of the norm")                                 \
  P(c, msm, real, 1.0, 0.0, false, "cost of a split or a merge, in the values' units")    \
  P(g, erp, real, 0.0, -__builtin_huge_val(), false,                                      \
    "the gap value (one for every component), in the values' units")                      \
  P(epsilon, lcss, real, 1.0, 0.0, true,                                                  \
    "two samples match when every component differs by at most this (values' units)")     \
  P(delta, lcss, count, 0, 0, false,                                                      \
    "warping window in samples (a_i and b_j match only when i and j differ by at most "   \
    "delta); unset = no limit")

enum class ParamKind { real, count };

// A row of the parameter list as data.
struct MeasureParamInfo {
  const char* name;
  Metric measure;
  ParamKind kind;
  double default_value;  // real
  double lower;          // real; -inf: any finite value
  bool open;             // real: > lower, else >= lower
  const char* help;
};

#define WARPWATCH_MEASURE_PARAM_INFO(name, measure, kind, def, lower, open, help) \
  MeasureParamInfo{#name, Metric::measure, ParamKind::kind, def, lower, open, help},
inline constexpr MeasureParamInfo kMeasureParams[] = {
    WARPWATCH_MEASURE_PARAMS(WARPWATCH_MEASURE_PARAM_INFO)};
#undef WARPWATCH_MEASURE_PARAM_INFO

// A count that is unset: no limit.
inline constexpr std::size_t kNoLimit = ~std::size_t{0} >> 1;

// The parameters as the cells read them, on the host and the device: a real as a double, a
// count as a std::size_t (kNoLimit when unset). params.hpp's measure_params() fills it
// from DistanceParams.
#define WW_PARAM_FLAT_real(name, def) double name = def;
#define WW_PARAM_FLAT_count(name, def) std::size_t name = kNoLimit;
#define WARPWATCH_MEASURE_PARAM_FLAT(name, measure, kind, def, lower, open, help) \
  WW_PARAM_FLAT_##kind(name, def)
struct MeasureParams {
  WARPWATCH_MEASURE_PARAMS(WARPWATCH_MEASURE_PARAM_FLAT)
};
#undef WARPWATCH_MEASURE_PARAM_FLAT

}  // namespace warpwatch::kernels
