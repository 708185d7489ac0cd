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

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace warpwatch::kernels {
namespace {
void require(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(what);
}

// A number as the rules print it: 0, 1, 0.5.
std::string bound_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

// A real parameter (WARPWATCH_MEASURE_PARAMS): finite, and above its lower bound.
void check_param(const char* name, const char* measure, double lower, bool open, double value) {
  const bool bounded = std::isfinite(lower);
  if (std::isfinite(value) && (!bounded || (open ? value > lower : value >= lower))) return;
  std::string what = std::string(name) + " (" + measure + ") must be a finite number";
  if (bounded) what += (open ? " > " : " >= ") + bound_text(lower);
  throw std::invalid_argument(what);
}
// A count: any value is one (unset = no limit; the readers refuse negative numbers).
void check_param(const char*, const char*, double, bool, const std::optional<std::size_t>&) {}

double flat_value(double value) {
  return value;
}
std::size_t flat_value(const std::optional<std::size_t>& value) {
  return value ? std::min(*value, kNoLimit) : kNoLimit;
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
#define WW_CHECK_PARAM(name, measure, kind, def, lower, open, help) \
  check_param(#name, #measure, lower, open, params.name);
  WARPWATCH_MEASURE_PARAMS(WW_CHECK_PARAM)
#undef WW_CHECK_PARAM
}

MeasureParams measure_params(const DistanceParams& params) {
  MeasureParams out;
#define WW_FLAT_PARAM(name, measure, kind, def, lower, open, help) \
  out.name = flat_value(params.name);
  WARPWATCH_MEASURE_PARAMS(WW_FLAT_PARAM)
#undef WW_FLAT_PARAM
  return out;
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
