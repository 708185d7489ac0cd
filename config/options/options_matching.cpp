// The option table, second half: pattern libraries and alert rules (the daemon's own
// options are in options.cpp).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/options.hpp"
#include "warpwatch/kernels/params.hpp"

namespace warpwatch::config {
namespace {

using T = OptionTargets;
using V = OptionValue;
using OT = OptionType;
using std::chrono::milliseconds;

// The bound of the real-valued matching parameters: the kernels compute in float32
// (FLT_MAX is 3.4e38), so a larger value could not be converted.
constexpr double max_parameter = 1e38;

// The texts of the metric, cost and band options, generated from the list of measures
// (kernels/measures.hpp), so that a new measure shows up in them by its row alone.
std::vector<std::string_view> metric_choices() {
  std::vector<std::string_view> out;
  for (const kernels::MeasureInfo& m : kernels::kMeasures) out.emplace_back(m.name);
  return out;
}

std::string_view metric_help() {
  static const std::string text = [] {
    std::string s = "measure:";
    const char* sep = " ";
    for (const kernels::MeasureInfo& m : kernels::kMeasures) {
      s += std::string(sep) + "`" + m.name + "` " + m.summary;
      sep = "; ";
    }
    return s + ". Stream mode: " +
           kernels::metric_names_where([](const kernels::MeasureInfo& m) { return m.stream; }) +
           " only";
  }();
  return text;
}

std::string_view cost_help() {
  static const std::string text =
      "local cost of " +
      kernels::metric_names_where([](const kernels::MeasureInfo& m) { return m.cost; }) +
      ": squared or absolute differences";
  return text;
}

std::string_view band_help() {
  static const std::string text = kernels::metric_names_where([](const kernels::MeasureInfo& m) {
                                    return m.band == kernels::BandUse::applies;
                                  }) +
                                  ": Sakoe-Chiba radius in cells; unset = unconstrained (" +
                                  kernels::metric_names_where([](const kernels::MeasureInfo& m) {
                                    return m.band == kernels::BandUse::refused;
                                  }) +
                                  ": refused)";
  return text;
}

// A row of the option table for a row of WARPWATCH_MEASURE_PARAMS: a real is a number
// within its lower bound (or any finite value) and max_parameter, a count a whole number
// of samples, unset = no limit.
constexpr double param_min(double lower) {
  return lower == -__builtin_huge_val() ? -max_parameter : lower;
}
void set_param(double& field, const V& v) {
  field = v.number;
}
void set_param(std::optional<std::size_t>& field, const V& v) {
  field = static_cast<std::size_t>(v.integer);
}
#define WW_PARAM_ROW_real(field, which, def, lower, open, text) \
  {.name = "libraries[].defaults." #field,                      \
   .type = OT::number,                                          \
   .default_yaml = #def,                                        \
   .help = #which ": " text,                                    \
   .min = param_min(lower),                                     \
   .max = max_parameter,                                        \
   .min_exclusive = open,                                       \
   .set = [](T& t, const V& v) { set_param(t.params->match.distance.field, v); }},
#define WW_PARAM_ROW_count(field, which, def, lower, open, text) \
  {.name = "libraries[].defaults." #field,                       \
   .type = OT::integer,                                          \
   .help = #which ": " text,                                     \
   .min = 0,                                                     \
   .max = 100000000,                                             \
   .set = [](T& t, const V& v) { set_param(t.params->match.distance.field, v); }},
#define WW_PARAM_ROW(field, which, kind, def, lower, open, text) \
  WW_PARAM_ROW_##kind(field, which, def, lower, open, text)

}  // namespace

std::vector<OptionInfo> matching_options() {
  return {
      // --- pattern libraries
      {.name = "libraries",
       .type = OT::list,
       .help = "named pattern libraries; pattern ids are unique across all of them"},
      {.name = "libraries[].name",
       .type = OT::string,
       .required = true,
       .help = "library name (events carry it; rules select on it); unique",
       .min = 1,
       .set = [](T& t, const V& v) { t.library->name = v.text; }},
      {.name = "libraries[].exclusive",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "nearest template (docs/spec.md §5.1): of overlapping matches of this library's "
               "patterns on one stream, only the closest (distance over its threshold) becomes "
               "an event; the others are counted as superseded",
       .set = [](T& t, const V& v) { t.library->exclusive = v.boolean; }},
      {.name = "libraries[].defaults",
       .type = OT::section,
       .help =
           "matching parameters of every pattern of the library (docs/spec.md §2-§4); a pattern "
           "entry may override any of them"},
      {.name = "libraries[].defaults.metric",
       .type = OT::choice,
       .default_yaml = "dtw",
       .help = metric_help(),
       .choices = metric_choices(),
       .set =
           [](T& t, const V& v) {
             t.params->match.distance.metric = chosen(kernels::parse_metric(v.text), v.text);
           }},
      {.name = "libraries[].defaults.mode",
       .type = OT::choice,
       .default_yaml = "stream",
       .help = "`stream`: SPRING subsequence matching (dtw, dk); `window`: sliding windows",
       .choices = {"stream", "window"},
       .set =
           [](T& t, const V& v) {
             t.params->match.mode = chosen(kernels::parse_mode(v.text), v.text);
           }},
      {.name = "libraries[].defaults.cost",
       .type = OT::choice,
       .default_yaml = "sq",
       .help = cost_help(),
       .choices = {"sq", "abs"},
       .set =
           [](T& t, const V& v) {
             t.params->match.distance.cost = chosen(kernels::parse_cost(v.text), v.text);
           }},
      {.name = "libraries[].defaults.threshold",
       .type = OT::number,
       .help = "a match qualifies when its distance <= threshold; required here or on each "
               "pattern (matching compares in float32)",
       .min = -max_parameter,
       .max = max_parameter,
       .set =
           [](T& t, const V& v) {
             t.params->match.threshold = v.number;
             t.params->has_threshold = true;
           }},
      {.name = "libraries[].defaults.window",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "`window` mode: window length in samples; 0 = the pattern's length (ed: 0 or "
               "that length)",
       .min = 0,
       .max = 100000000,
       .allowed = "0, or 2 to 100000000",
       .set = [](T& t,
                 const V& v) { t.params->match.window = static_cast<std::size_t>(v.integer); }},
      {.name = "libraries[].defaults.hop",
       .type = OT::integer,
       .default_yaml = "1",
       .help = "`window` mode: a window ends every hop-th sample",
       .min = 1,
       .max = 100000000,
       .set = [](T& t, const V& v) { t.params->match.hop = static_cast<std::size_t>(v.integer); }},
      {.name = "libraries[].defaults.znorm",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "`window` mode: z-normalize each window and the pattern",
       .set =
           [](T& t, const V& v) {
             t.params->match.normalize =
                 v.boolean ? kernels::Normalize::znorm : kernels::Normalize::none;
           }},
      {.name = "libraries[].defaults.band",
       .type = OT::number,
       .help = band_help(),
       .min = 0,
       .max = max_parameter,
       .set = [](T& t, const V& v) { t.params->match.distance.band = v.number; }},
      // The measures' own parameters (gamma, nu, lambda, p, c, g, epsilon, delta), one row
      // each, generated from WARPWATCH_MEASURE_PARAMS (kernels/measures.hpp).
      WARPWATCH_MEASURE_PARAMS(WW_PARAM_ROW){
          .name = "libraries[].patterns",
          .type = OT::list,
          .help = "the patterns, each from `file` or inline `values`; an entry may also set any "
                  "key of `defaults` for itself"},
      {.name = "libraries[].patterns[].id",
       .type = OT::string,
       .required = true,
       .help = "pattern id; a file of several series gives `<id>:<row>` (0-based) per series",
       .min = 1,
       .set = [](T& t, const V& v) { t.pattern->id = v.text; }},
      {.name = "libraries[].patterns[].file",
       .type = OT::path,
       .help = "series file: CSV/TSV/text (one series per row) or .npy (1-D, or one per row)",
       .set = [](T& t, const V& v) { t.pattern->file = v.text; }},
      {.name = "libraries[].patterns[].row",
       .type = OT::integer,
       .help = "`file` only: take this series (0-based) alone, with the id as given",
       .min = 0,
       .max = 1 << 30,
       .set = [](T& t, const V& v) { t.pattern->row = v.integer; }},
      {.name = "libraries[].patterns[].layout",
       .type = OT::choice,
       .default_yaml = "rows",
       .help = "`file` only: `rows` = one series per row; `columns` = the file is one series, "
               "a sample per row, a dimension per column",
       .choices = {"rows", "columns"},
       .set =
           [](T& t, const V& v) {
             t.pattern->file_options.layout =
                 v.text == "rows" ? SeriesLayout::rows : SeriesLayout::columns;
           }},
      {.name = "libraries[].patterns[].labels",
       .type = OT::boolean,
       .default_yaml = "false",
       .help = "`file`, `rows` layout: the first field of each row is a class label (UCR files)",
       .set = [](T& t, const V& v) { t.pattern->file_options.label_column = v.boolean; }},
      {.name = "libraries[].patterns[].time_column",
       .type = OT::integer,
       .help = "`file`, `columns` layout: 0-based column of timestamps; the others are values",
       .min = 0,
       .max = 1 << 20,
       .set =
           [](T& t, const V& v) {
             t.pattern->file_options.time_column = static_cast<std::size_t>(v.integer);
           }},
      {.name = "libraries[].patterns[].time_unit",
       .type = OT::choice,
       .default_yaml = "s",
       .help = "`file`: unit of `time_column`",
       .choices = {"s", "ms", "us", "ns"},
       .set = [](T& t,
                 const V& v) { t.pattern->file_options.time_scale = *time_unit_seconds(v.text); }},
      {.name = "libraries[].patterns[].value_columns",
       .type = OT::columns,
       .help = "`file`, `columns` layout: the value columns, in the order wanted; unset = every "
               "column but `time_column`",
       .set =
           [](T& t, const V& v) {
             t.pattern->file_options.value_columns.assign(v.numbers.begin(), v.numbers.end());
           }},
      {.name = "libraries[].patterns[].start",
       .type = OT::integer,
       .help = "`file`: the pattern is samples [start, end) of the series, a part cut out of a "
               "recording (0-based sample index); unset = 0",
       .min = 0,
       .max = 1e12,
       .set = [](T& t, const V& v) { t.pattern->start = v.integer; }},
      {.name = "libraries[].patterns[].end",
       .type = OT::integer,
       .help = "`file`: the end of the part (0-based sample index, exclusive); unset = the "
               "series' length",
       .min = 1,
       .max = 1e12,
       .set = [](T& t, const V& v) { t.pattern->end = v.integer; }},
      {.name = "libraries[].patterns[].values",
       .type = OT::samples,
       .help = "inline pattern: numbers (1 dimension) or one `[v1, v2, ...]` per sample",
       .set = [](T& t, const V& v) { t.pattern->values = v.rows; }},
      {.name = "libraries[].patterns[].times",
       .type = OT::number_list,
       .help = "inline pattern: relative timestamps in seconds, one per sample, increasing, "
               "within the float32 range; unset = the stream's `period_ms`",
       .set = [](T& t, const V& v) { t.pattern->times = v.numbers; }},

      // --- alert rules
      {.name = "rules",
       .type = OT::list,
       .help = "which matches become events; none = one rule `default` that passes every "
               "match"},
      {.name = "rules[].name",
       .type = OT::string,
       .required = true,
       .help = "rule name: events carry it, the topic is `<rule>/<stream>`; unique",
       .min = 1,
       .set = [](T& t, const V& v) { t.rule->name = v.text; }},
      {.name = "rules[].streams",
       .type = OT::string_list,
       .default_yaml = "[\"*\"]",
       .help = "globs (`*`, `?`, `[...]`) on stream ids; a match needs one of them",
       .min = 1,
       .set = [](T& t, const V& v) { t.rule->streams = v.texts; }},
      {.name = "rules[].patterns",
       .type = OT::string_list,
       .default_yaml = "[\"*\"]",
       .help = "globs on pattern ids",
       .min = 1,
       .set = [](T& t, const V& v) { t.rule->patterns = v.texts; }},
      {.name = "rules[].libraries",
       .type = OT::string_list,
       .default_yaml = "[\"*\"]",
       .help = "globs on library names",
       .min = 1,
       .set = [](T& t, const V& v) { t.rule->libraries = v.texts; }},
      {.name = "rules[].threshold",
       .type = OT::number,
       .help = "also require distance <= this; unset = the pattern's threshold only",
       .set = [](T& t, const V& v) { t.rule->threshold = v.number; }},
      {.name = "rules[].cooldown_ms",
       .type = OT::integer,
       .default_yaml = "0",
       .help = "per stream: an event ending sooner than this after the rule's last event for the "
               "stream ended (stream time) is dropped",
       .min = 0,
       .max = 86400000,
       .set = [](T& t, const V& v) { t.rule->cooldown = milliseconds(v.integer); }},
      {.name = "rules[].severity",
       .type = OT::choice,
       .default_yaml = "info",
       .help = "carried by the events",
       .choices = {std::begin(severity_names), std::end(severity_names)},
       .set = [](T& t, const V& v) { t.rule->severity = chosen(parse_severity(v.text), v.text); }},
      {.name = "rules[].labels",
       .type = OT::string_map,
       .default_yaml = "{}",
       .help = "`key: value` pairs added to the events",
       .set = [](T& t, const V& v) { t.rule->labels = v.text_map; }},
      {.name = "rules[].resolve_ms",
       .type = OT::integer,
       .default_yaml = "300000",
       .help = "alert sinks: an alert stays firing this long after its latest event "
               "(Alertmanager's `endsAt` = detection time + this)",
       .min = 1,
       .max = 604800000,
       .set = [](T& t, const V& v) { t.rule->resolve = milliseconds(v.integer); }},

  };
}

}  // namespace warpwatch::config
