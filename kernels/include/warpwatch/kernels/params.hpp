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
struct DistanceParams {
  Metric metric = Metric::dtw;
  Cost cost = Cost::sq;  // the measures whose row says `cost` (dtw, dk, softdtw, ed, erp)
  // The measures whose row says BandUse::applies (dtw, dk, softdtw, erp): Sakoe-Chiba radius
  // in cells; none = unconstrained.
  std::optional<double> band;
  double gamma = 1.0;    // softdtw: smoothing, > 0
  double nu = 0.001;     // twed: stiffness, cost per second of time misalignment, >= 0
  double lambda = 1.0;   // twed: deletion penalty, >= 0
  double p = 2.0;        // twed: norm degree, >= 1
  double c = 1.0;        // msm: cost of a split or a merge, in units of the values, >= 0
  double g = 0.0;        // erp: the gap value, in units of the values, every component
  double epsilon = 1.0;  // lcss: largest difference of matching components (values), > 0
  // lcss: warping window in samples (a_i and b_j match only when |i - j| <= delta); none =
  // no limit.
  std::optional<std::size_t> delta;

  friend bool operator==(const DistanceParams&, const DistanceParams&) = default;
};

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

// Throws std::invalid_argument naming the offending parameter (docs/spec.md ranges: gamma > 0,
// nu >= 0, lambda >= 0, p >= 1, c >= 0, g finite, epsilon > 0, band >= 0 and only for the
// measures it applies to or that ignore it, hop >= 1, w = 0 or >= 2, stream mode only for
// the measures whose row allows it (dtw, dk), finite threshold).
void validate(const DistanceParams& params);
void validate(const MatchParams& params);
// The same, and what depends on the pattern's length m: ed compares a window with the
// pattern sample by sample, so its window must be m long (window 0 or m).
void validate(const MatchParams& params, std::size_t pattern_length);

}  // namespace warpwatch::kernels
