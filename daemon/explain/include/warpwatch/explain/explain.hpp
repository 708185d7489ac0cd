// Explanations of events (docs/spec.md §7): how a matched segment aligns with its pattern,
// computed from stored samples on request, never on the matching path.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "warpwatch/kernels/types.hpp"

namespace warpwatch::explain {

struct Step {
  std::uint64_t stream_index;  // the stream's sample (0-based, as events count them)
  std::uint32_t pattern_row;   // 1-based (0: erp's gap before the pattern's first row)
  float cost;                  // the step's local cost (edit operations: the move's cost)
};

struct Explanation {
  std::string kind;  // "path" (dtw, dk; ed: the identity path), "edit_operations" (twed, msm,
                     // erp, lcss), or "none" (softdtw; a flat window; no path in the band)
  std::vector<Step> steps;              // in path order from the segment's first sample
  std::vector<std::string> operations;  // "edit_operations": one per step
  float total = 0;   // the steps' costs accumulated in the contract's order (docs/spec.md §7)
  std::string note;  // what this is, and how exact; for "none", why there is none
};

// What the Matcher had besides the samples. None of it is needed in stream mode.
struct Context {
  // The Matcher's name() ("reference", "cpu", "cuda", "auto"): the arithmetic its window
  // mode computed dtw's and dk's cells in (kernels::reference::Arithmetic).
  std::string backend = "cpu";
  // The event's distance: where the backend leaves the arithmetic open ("auto", cuda's two
  // window kernels) the first of its arithmetics that gives this distance is taken.
  std::optional<double> distance;
  // The segment's timestamps (ns, one a sample) and the stream's nominal period: twed's
  // clock (a pattern without timestamps is spaced at the period).
  std::span<const std::int64_t> times_ns;
  std::int64_t nominal_period_ns = 0;
};

// Stream mode: the samples to hold before a segment (4 pattern lengths) so that SPRING's
// replay (docs/spec.md §7) can follow the Matcher's path when a report made after the segment
// began reset cells of it; the explanation checks the distance it reproduces.
constexpr std::uint64_t stream_samples_before(std::size_t pattern_length) {
  return 4 * static_cast<std::uint64_t>(pattern_length);
}

// The explanation of a match from stored samples: `segment` holds the stream's samples
// from stream index `first_index` (row-major, pattern.dims values a sample), covering at least
// [start_index, end_index]; params/pattern as the Matcher had them. Never on the matching path.
// Throws std::invalid_argument naming what does not fit (the segment's size, the range).
Explanation explain(const kernels::PatternDef& pattern, std::span<const float> segment,
                    std::uint64_t first_index, std::uint64_t start_index, std::uint64_t end_index,
                    const Context& context = {});

// {"kind", "steps": [[stream_index, pattern_row, cost], ...], "operations", "total", "note"}.
nlohmann::json to_json(const Explanation&);

// The segment (window mode under znorm: the window as compared) above and the pattern below,
// the pattern's rows spread over the matched range, with a line between each step's sample
// and row (first component). The title gets ", distance D, threshold T" when given.
std::string plot_svg(const Explanation&, const kernels::PatternDef& pattern,
                     std::span<const float> segment, std::uint64_t first_index,
                     const std::string& title, std::optional<double> distance = std::nullopt,
                     std::optional<double> threshold = std::nullopt);

}  // namespace warpwatch::explain
