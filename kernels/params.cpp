#include "warpwatch/kernels/params.hpp"

#include <array>
#include <utility>

namespace warpwatch::kernels {
namespace {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

constexpr NameTable<Metric, 5> metric_names{{{Metric::dtw, "dtw"},
                                             {Metric::dk, "dk"},
                                             {Metric::softdtw, "softdtw"},
                                             {Metric::twed, "twed"},
                                             {Metric::ed, "ed"}}};
constexpr NameTable<Mode, 2> mode_names{{{Mode::stream, "stream"}, {Mode::window, "window"}}};
constexpr NameTable<Cost, 2> cost_names{{{Cost::sq, "sq"}, {Cost::abs, "abs"}}};
constexpr NameTable<Normalize, 2> normalize_names{
    {{Normalize::none, "none"}, {Normalize::znorm, "znorm"}}};

template <typename E, std::size_t N>
std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [e, name] : table)
    if (e == value) return name;
  return "?";
}

template <typename E, std::size_t N>
std::optional<E> value_of(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  return std::nullopt;
}

}  // namespace

std::string_view to_string(Metric m) {
  return name_of(metric_names, m);
}
std::string_view to_string(Mode m) {
  return name_of(mode_names, m);
}
std::string_view to_string(Cost c) {
  return name_of(cost_names, c);
}
std::string_view to_string(Normalize n) {
  return name_of(normalize_names, n);
}

std::optional<Metric> parse_metric(std::string_view s) {
  return value_of(metric_names, s);
}
std::optional<Mode> parse_mode(std::string_view s) {
  return value_of(mode_names, s);
}
std::optional<Cost> parse_cost(std::string_view s) {
  return value_of(cost_names, s);
}
std::optional<Normalize> parse_normalize(std::string_view s) {
  return value_of(normalize_names, s);
}

}  // namespace warpwatch::kernels

#include <cmath>
#include <stdexcept>

namespace warpwatch::kernels {
namespace {
void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}
}  // namespace

void validate(const DistanceParams& params) {
  require(!params.band || (std::isfinite(*params.band) && *params.band >= 0.0),
          "band must be a finite number of cells >= 0");
  require(!params.band || params.metric != Metric::ed,
          "band does not apply to the metric ed (a lock-step distance compares sample i with "
          "sample i only): leave it unset");
  require(std::isfinite(params.gamma) && params.gamma > 0.0, "gamma must be > 0");
  require(std::isfinite(params.nu) && params.nu >= 0.0, "nu must be >= 0");
  require(std::isfinite(params.lambda) && params.lambda >= 0.0, "lambda must be >= 0");
  require(std::isfinite(params.p) && params.p >= 1.0, "p must be >= 1");
}

void validate(const MatchParams& params) {
  validate(params.distance);
  const Metric metric = params.distance.metric;
  require(params.mode == Mode::window || metric == Metric::dtw || metric == Metric::dk,
          "stream mode supports the metrics dtw and dk only (use mode window)");
  require(std::isfinite(params.threshold), "threshold must be a finite number");
  require(params.window != 1, "window must be 0 (the pattern length) or >= 2 samples");
  require(params.hop >= 1, "hop must be >= 1");
}

void validate(const MatchParams& params, std::size_t pattern_length) {
  validate(params);
  if (params.distance.metric == Metric::ed && params.window != 0 && params.window != pattern_length)
    throw std::invalid_argument(
        "window must be the pattern's length for the metric ed (it compares the window with "
        "the pattern sample by sample): the window is " +
        std::to_string(params.window) + " samples, the pattern " + std::to_string(pattern_length) +
        " (leave window at 0)");
}

}  // namespace warpwatch::kernels
