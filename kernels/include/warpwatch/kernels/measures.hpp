// The one list of measures (docs/spec.md §3, §4): every place that names, parses, offers or
// checks a metric is generated from WARPWATCH_MEASURES, so that a new measure is one line
// here plus its cell (common/measure_cells.hpp), and every `switch` over Metric (none has a
// `default:`) fails to compile until it handles it. C++17 and no CUDA header: the .cu files
// include it too (they take a Metric as it is, not as a copy of its numbers).
#pragma once

namespace warpwatch::kernels {

// How a measure takes the Sakoe-Chiba `band` parameter.
enum class BandUse {
  applies,  // cells outside the band are +inf (docs/spec.md §4.1)
  refused,  // validate() throws: the measure has no band
  ignored,  // twed: read by no backend; kept accepted so that existing configurations load
};

// One row per measure, in the order of the enum (the CUDA backend flattens a Metric to an
// int: new measures go at the end):
//   X(id, "name", stream, band, times, cost, lock_step, window_bounds, path, "summary")
// id/name   the enumerator and the name in YAML, on the command line and in events
// stream    stream mode (SPRING, docs/spec.md §3.1) is defined for it
// band      BandUse
// times     reads the samples' timestamps (else the sample index is all that matters)
// cost      reads the local cost `cost` (sq/abs, docs/spec.md §2)
// lock_step compares sample i with sample i only: series of one length, window w = m
// window_bounds  window mode's lower bounds and early abandoning (common/window/window_bounds.hpp)
//           are valid for it (they are proved for dtw's sum and dk's max only, and ed's sum)
// path      its value is the cost of one alignment path that docs/spec.md §7 can explain
// summary   what --help and the configuration reference say about it
#define WARPWATCH_MEASURES(X)                                                      \
  X(dtw, "dtw", true, BandUse::applies, false, true, false, true, true,            \
    "dynamic time warping, the sum of local costs along the best path")            \
  X(dk, "dk", true, BandUse::applies, false, true, false, true, true,              \
    "discrete Frechet, the largest local cost along the best path")                \
  X(softdtw, "softdtw", false, BandUse::applies, false, true, false, false, false, \
    "soft-DTW, smoothed by gamma")                                                 \
  X(twed, "twed", false, BandUse::ignored, true, false, false, false, true,        \
    "time warp edit distance (nu, lambda, p; reads timestamps)")                   \
  X(ed, "ed", false, BandUse::refused, false, true, true, true, true,              \
    "lock-step Euclidean: series of one length, window = the pattern's length")    \
  X(msm, "msm", false, BandUse::refused, false, false, false, false, true,         \
    "move-split-merge (c), per dimension, summed")                                 \
  X(erp, "erp", false, BandUse::applies, false, true, false, false, true,          \
    "edit distance with real penalty (gap value g)")                               \
  X(lcss, "lcss", false, BandUse::refused, false, false, false, false, true,       \
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
  const char* summary;
};

#define WARPWATCH_MEASURE_INFO(id, name, stream, band, times, cost, lock_step, bounds, path, \
                               summary)                                                      \
  MeasureInfo{Metric::id, name, stream, band, times, cost, lock_step, bounds, path, summary},
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

}  // namespace warpwatch::kernels
