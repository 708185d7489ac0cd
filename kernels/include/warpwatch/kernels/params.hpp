// Names and parameters of what is computed (docs/spec.md §2-§4).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace warpwatch::kernels {

// docs/spec.md §3.1 / 4: the measures (ed, docs/spec.md §4.0, is the lock-step one). The CUDA
// backend passes a Metric to its kernels as an int: new metrics go at the end.
enum class Metric { dtw, dk, softdtw, twed, ed };
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

// Parameters of a whole-series distance (docs/spec.md §4). Each metric reads its own fields.
struct DistanceParams {
  Metric metric = Metric::dtw;
  Cost cost = Cost::sq;  // dtw, dk, softdtw, ed
  std::optional<double>
      band;             // dtw, dk, softdtw: Sakoe-Chiba radius in cells; none = unconstrained
  double gamma = 1.0;   // softdtw: smoothing, > 0
  double nu = 0.001;    // twed: stiffness, cost per second of time misalignment, >= 0
  double lambda = 1.0;  // twed: deletion penalty, >= 0
  double p = 2.0;       // twed: norm degree, >= 1

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
// nu >= 0, lambda >= 0, p >= 1, band >= 0 and not with ed, hop >= 1, w = 0 or >= 2, stream
// mode only for dtw and dk, finite threshold).
void validate(const DistanceParams& params);
void validate(const MatchParams& params);
// The same, and what depends on the pattern's length m: ed compares a window with the
// pattern sample by sample, so its window must be m long (window 0 or m).
void validate(const MatchParams& params, std::size_t pattern_length);

}  // namespace warpwatch::kernels
