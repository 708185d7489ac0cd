// Names and parameters of what is computed (docs/spec.md §2-§4).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/measures.hpp"

namespace warpwatch::kernels {

// docs/spec.md §3.1 / 4: the measures, Metric, are the rows of WARPWATCH_MEASURES
// (measures.hpp) with their capabilities (measure_info()).
// docs/spec.md §3: stream = SPRING subsequence matching, window = sliding whole-series windows.
enum class Mode { stream, window };
// docs/spec.md §2: local cost between two samples (twed uses its own p-norm instead).
enum class Cost { sq, abs };
// docs/spec.md §3.2: per-window normalization.
enum class Normalize { none, znorm };

std::string_view to_string(Metric m);
std::string_view to_string(Mode m);
std::string_view to_string(Cost c);
std::string_view to_string(Normalize n);

// Parsers return nullopt for an unknown name, so callers can say where the name came from.
std::optional<Metric> parse_metric(std::string_view s);
std::optional<Mode> parse_mode(std::string_view s);
std::optional<Cost> parse_cost(std::string_view s);
std::optional<Normalize> parse_normalize(std::string_view s);

// Every measure, in the list's order, and their names (for choices and help texts).
std::vector<Metric> all_metrics();
std::vector<std::string> metric_names();
// The names of the measures whose row satisfies `pred`, as "a, b and c" (for messages).
std::string metric_names_where(bool (*pred)(const MeasureInfo&));

// Parameters of a whole-series distance (docs/spec.md §4). Each metric reads its own fields.
#define WW_DISTANCE_PARAM_real(name, def) double name = def;
#define WW_DISTANCE_PARAM_count(name, def) std::optional<std::size_t> name;
#define WW_DISTANCE_PARAM(name, measure, kind, def, lower, open, help) \
  WW_DISTANCE_PARAM_##kind(name, def)
struct DistanceParams {
  Metric metric = Metric::dtw;
  Cost cost = Cost::sq;  // the measures whose row says `cost` (dtw, dk, softdtw, ed, erp)
  // The measures whose row says BandUse::applies (dtw, dk, softdtw, erp): Sakoe-Chiba radius
  // in cells; none = unconstrained.
  std::optional<double> band;
  // The measures' own parameters, a field for each row of WARPWATCH_MEASURE_PARAMS
  // (measures.hpp): gamma (softdtw), nu, lambda, p (twed), c (msm), g (erp), epsilon and
  // delta (lcss; a count, unset = no limit).
  WARPWATCH_MEASURE_PARAMS(WW_DISTANCE_PARAM)

  friend bool operator==(const DistanceParams&, const DistanceParams&) = default;
};
#undef WW_DISTANCE_PARAM

// The measures' own parameters as the cells read them (an unset count is kNoLimit).
MeasureParams measure_params(const DistanceParams& params);

// Parameters of matching one pattern against streams (docs/spec.md §3).
struct MatchParams {
  DistanceParams distance;   // metric and its parameters
  Mode mode = Mode::stream;  // stream: dtw and dk only
  double threshold = 0.0;    // eps: a match/window qualifies when distance <= threshold
  std::size_t window = 0;    // window mode: w in samples; 0 = the pattern length m
  std::size_t hop = 1;       // window mode: a window ends at every hop-th sample
  Normalize normalize = Normalize::none;  // window mode

  friend bool operator==(const MatchParams&, const MatchParams&) = default;
};

// Throws std::invalid_argument naming the offending parameter (docs/spec.md ranges: each
// measure parameter as its row in WARPWATCH_MEASURE_PARAMS says, "<name> (<measure>) must be
// a finite number >= <lower>"; band >= 0 and only for the measures it applies to or that
// ignore it, hop >= 1, w = 0 or >= 2, stream mode only for the measures whose row allows it
// (dtw, dk), finite threshold).
void validate(const DistanceParams& params);
void validate(const MatchParams& params);
// The same, and what depends on the pattern's length m: ed compares a window with the
// pattern sample by sample, so its window must be m long (window 0 or m).
void validate(const MatchParams& params, std::size_t pattern_length);

}  // namespace warpwatch::kernels
