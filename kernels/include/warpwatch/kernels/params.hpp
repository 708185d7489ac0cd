// Names and parameters of what is computed (SPEC.md sections 2-4).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace warpwatch::kernels {

// SPEC.md 3.1 / 4: the elastic measures.
enum class Metric { dtw, dk, softdtw, twed };
// SPEC.md 3: stream = SPRING subsequence matching, window = sliding whole-series windows.
enum class Mode { stream, window };
// SPEC.md 2: local cost between two samples (twed uses its own p-norm instead).
enum class Cost { sq, abs };
// SPEC.md 3.2: per-window normalization.
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

}  // namespace warpwatch::kernels
