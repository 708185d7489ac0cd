#include "warpwatch/kernels/params.hpp"

#include <array>
#include <string>
#include <utility>
#include <vector>

namespace warpwatch::kernels {
namespace {

template <typename E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

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
  return measure_info(m).name;
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
  for (const MeasureInfo& info : kMeasures)
    if (info.name == s) return info.metric;
  return std::nullopt;
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

std::vector<Metric> all_metrics() {
  std::vector<Metric> out;
  for (const MeasureInfo& info : kMeasures) out.push_back(info.metric);
  return out;
}

std::vector<std::string> metric_names() {
  std::vector<std::string> out;
  for (const MeasureInfo& info : kMeasures) out.emplace_back(info.name);
  return out;
}

std::string metric_names_where(bool (*pred)(const MeasureInfo&)) {
  std::vector<std::string_view> names;
  for (const MeasureInfo& info : kMeasures)
    if (pred(info)) names.emplace_back(info.name);
  std::string out;
  for (std::size_t k = 0; k < names.size(); ++k) {
    if (k > 0) out += k + 1 == names.size() ? " and " : ", ";
    out += names[k];
  }
  return out;
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
  const MeasureInfo& info = measure_info(params.metric);
  require(!params.band || (std::isfinite(*params.band) && *params.band >= 0.0),
          "band must be a finite number of cells >= 0");
  if (params.band && info.band == BandUse::refused)
    throw std::invalid_argument(
        "band does not apply to the metric " + std::string(info.name) +
        (info.lock_step ? " (a lock-step distance compares sample i with sample i only)"
                        : " (it has no Sakoe-Chiba band)") +
        ": leave it unset (band applies to " +
        metric_names_where([](const MeasureInfo& m) { return m.band == BandUse::applies; }) + ")");
  require(std::isfinite(params.gamma) && params.gamma > 0.0, "gamma must be > 0");
  require(std::isfinite(params.nu) && params.nu >= 0.0, "nu must be >= 0");
  require(std::isfinite(params.lambda) && params.lambda >= 0.0, "lambda must be >= 0");
  require(std::isfinite(params.p) && params.p >= 1.0, "p must be >= 1");
  require(std::isfinite(params.c) && params.c >= 0.0, "c (msm) must be a finite number >= 0");
  require(std::isfinite(params.g), "g (erp) must be a finite number");
  require(std::isfinite(params.epsilon) && params.epsilon > 0.0,
          "epsilon (lcss) must be a finite number > 0");
}

void validate(const MatchParams& params) {
  validate(params.distance);
  const MeasureInfo& info = measure_info(params.distance.metric);
  if (params.mode == Mode::stream && !info.stream)
    throw std::invalid_argument("stream mode supports the metrics " +
                                metric_names_where([](const MeasureInfo& m) { return m.stream; }) +
                                " only (use mode window)");
  require(std::isfinite(params.threshold), "threshold must be a finite number");
  require(params.window != 1, "window must be 0 (the pattern length) or >= 2 samples");
  require(params.hop >= 1, "hop must be >= 1");
}

void validate(const MatchParams& params, std::size_t pattern_length) {
  validate(params);
  const MeasureInfo& info = measure_info(params.distance.metric);
  if (info.lock_step && params.window != 0 && params.window != pattern_length)
    throw std::invalid_argument(
        "window must be the pattern's length for the metric " + std::string(info.name) +
        " (it compares the window with the pattern sample by sample): the window is " +
        std::to_string(params.window) + " samples, the pattern " + std::to_string(pattern_length) +
        " (leave window at 0)");
}

}  // namespace warpwatch::kernels
