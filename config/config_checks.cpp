// The checks at load time (docs/configuration.md §4): a setting that loads but cannot do
// anything is an error at its key (a threshold no distance can pass, a parameter the mode
// ignores, a rule's glob that selects nothing) or a warning (a measure's parameter on another
// measure, a pattern no rule publishes, dims only auto-created streams have). The same
// checks run for `warpwatch check-config`, at start and on reload: load_daemon_config runs
// them.
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>

#include "warpwatch/base/glob.hpp"
#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/daemon_config.hpp"

namespace warpwatch::config {
namespace {

using kernels::Metric;

// The distances a measure can give (docs/spec.md §4): a threshold below `low` can never
// pass, one above `high` passes no more than `high` does.
struct DistanceRange {
  double low = -std::numeric_limits<double>::infinity();
  double high = std::numeric_limits<double>::infinity();
};

DistanceRange distance_range(Metric metric) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  switch (metric) {
    case Metric::dtw:  // sums (dk: the largest) of local costs, each >= 0 (§2)
    case Metric::dk:
    case Metric::ed:
    case Metric::twed:  // norms, nu >= 0 times |time differences|, lambda >= 0
    case Metric::msm:   // absolute differences, c >= 0
    case Metric::erp:   // local costs
      return {0.0, inf};
    case Metric::lcss:  // 1 - L / min(n, m)
      return {0.0, 1.0};
    case Metric::softdtw:  // a soft minimum can be below every path's cost: any value
      return {};
  }
  return {};
}

std::string number_text(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

std::string range_text(Metric metric) {
  const DistanceRange r = distance_range(metric);
  const std::string name(kernels::to_string(metric));
  if (std::isinf(r.high)) return cat(name, " distances are >= ", number_text(r.low));
  return cat(name, " distances are in [", number_text(r.low), ", ", number_text(r.high), "]");
}

}  // namespace

std::optional<UnreadSetting> unread_setting(std::string_view key, const kernels::MatchParams& p) {
  const kernels::MeasureInfo& info = kernels::measure_info(p.distance.metric);
  const std::string metric(info.name);
  if (key == "window" || key == "hop" || key == "znorm" || key == "band") {
    if (p.mode == kernels::Mode::stream)
      return UnreadSetting{true, cat(in_quotes(key), " does nothing in stream mode",
                                     key == "band" ? " (SPRING has no Sakoe-Chiba band)" : "",
                                     ": it applies to mode window")};
  }
  if (key == "band" && info.band != kernels::BandUse::applies)
    return UnreadSetting{info.band == kernels::BandUse::refused,
                         cat(in_quotes(key), " does nothing for the metric ", metric,
                             ": no backend reads it (band applies to ",
                             kernels::metric_names_where([](const kernels::MeasureInfo& m) {
                               return m.band == kernels::BandUse::applies;
                             }),
                             ")")};
  if (key == "cost" && !info.cost)
    return UnreadSetting{
        false,
        cat(in_quotes(key), " does nothing for the metric ", metric, ": it applies to ",
            kernels::metric_names_where([](const kernels::MeasureInfo& m) { return m.cost; }))};
  for (const kernels::MeasureParamInfo& param : kernels::kMeasureParams)
    if (key == param.name && param.measure != p.distance.metric)
      return UnreadSetting{false,
                           cat(in_quotes(key), " does nothing for the metric ", metric, ": it is ",
                               kernels::to_string(param.measure), "'s parameter")};
  return std::nullopt;
}

std::optional<std::string> threshold_problem(const kernels::MatchParams& p) {
  const DistanceRange range = distance_range(p.distance.metric);
  if (p.threshold < range.low)
    return cat("threshold ", number_text(p.threshold),
               " can never be reached: ", range_text(p.distance.metric));
  if (p.threshold > range.high)
    return cat("threshold ", number_text(p.threshold),
               " is beyond every distance the measure gives: ", range_text(p.distance.metric),
               " (a threshold of ", number_text(range.high), " already passes all)");
  return std::nullopt;
}

namespace {

void report(bool error, const SourceLocation& where, std::string message,
            std::vector<ConfigWarning>& warnings) {
  if (error) throw ConfigError(where, message);
  warnings.push_back({where, std::move(message)});
}

// The names of `candidates` that `glob` matches.
std::vector<std::string> selected(const std::string& glob,
                                  const std::vector<std::string>& candidates) {
  std::vector<std::string> out;
  for (const std::string& c : candidates)
    if (stream::glob_matches(glob, c)) out.push_back(c);
  return out;
}

std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::vector<std::string_view> views(candidates.begin(), candidates.end());
  const std::string best = near_miss(word, views);
  return best.empty() ? std::string() : cat(" (did you mean ", in_quotes(best), "?)");
}

bool rule_selects(const Rule& rule, const Library& library, const kernels::PatternDef& pattern) {
  return stream::any_glob_matches(rule.patterns, pattern.id) &&
         stream::any_glob_matches(rule.libraries, library.name);
}

}  // namespace

void check_pattern_entry(const PatternEntry& entry, const PresentKeys& library_keys,
                         std::vector<ConfigWarning>& warnings) {
  const kernels::MatchParams& p = entry.params;
  if (const auto why = threshold_problem(p)) {
    const auto own = entry.keys.find("threshold");
    throw ConfigError(own != entry.keys.end()
                          ? own->second.value
                          : library_keys.find("defaults.threshold")->second.value,
                      cat("pattern ", in_quotes(entry.id), ": ", *why));
  }
  for (const auto& [key, present] : entry.keys)
    if (const auto why = unread_setting(key, p))
      report(why->error, present.key, cat("pattern ", in_quotes(entry.id), ": ", why->why),
             warnings);
}

void check_library(const Library& library, const std::vector<PatternEntry>& entries,
                   const PresentKeys& library_keys, const StreamDims& dims,
                   std::vector<ConfigWarning>& warnings) {
  if (entries.empty()) {
    warnings.push_back({library.where, cat("library ", in_quotes(library.name),
                                           " has no patterns: it matches "
                                           "nothing")});
    return;
  }
  // A key of `defaults` does something when a pattern that takes it (sets no value of its
  // own) reads it.
  const std::string_view prefix = "defaults.";
  for (const auto& [name, present] : library_keys) {
    if (!name.starts_with(prefix)) continue;
    const std::string_view key = std::string_view(name).substr(prefix.size());
    std::optional<UnreadSetting> first;
    bool read = false, all_errors = true;
    for (const PatternEntry& entry : entries) {
      if (entry.keys.count(key)) continue;
      const auto why = unread_setting(key, entry.params);
      if (!why) {
        read = true;
        break;
      }
      all_errors = all_errors && why->error;
      if (!first) first = why;
    }
    if (!read && first)
      report(all_errors, present.key,
             cat("library ", in_quotes(library.name), ": ", in_quotes(name),
                 " does nothing for any of its patterns: ", first->why),
             warnings);
  }
  // Dims that only auto-created streams have (dims that no stream can have are an error of
  // read_libraries). With no stream declared, every stream is auto-created: nothing to say.
  if (dims.declared.empty()) return;
  std::vector<std::size_t> off;  // indices of the patterns no declared stream can run
  for (std::size_t i = 0; i < library.patterns.size(); ++i)
    if (!dims.declared.count(library.patterns[i].dims)) off.push_back(i);
  if (!off.empty() && off.size() == library.patterns.size()) {
    warnings.push_back(
        {library.where, cat("library ", in_quotes(library.name),
                            " has no declared stream to run on: its patterns' dims are those of "
                            "auto-created streams only (",
                            dims.text, ")")});
    return;
  }
  for (const std::size_t i : off)
    warnings.push_back({library.pattern_where[i],
                        cat("pattern ", in_quotes(library.patterns[i].id), " has ",
                            std::to_string(library.patterns[i].dims),
                            " dims, which no declared stream has: only auto-created streams "
                            "can run it (",
                            dims.text, ")")});
}

void check_rule(const Rule& rule, const PresentKeys& keys, const LiveConfig& live,
                const ReadContext& ctx, std::vector<ConfigWarning>& warnings) {
  std::vector<std::string> stream_ids, pattern_ids, library_names;
  for (const StreamDecl& s : live.streams) stream_ids.push_back(s.def.id);
  for (const Library& library : live.libraries) {
    library_names.push_back(library.name);
    for (const kernels::PatternDef& p : library.patterns) pattern_ids.push_back(p.id);
  }
  const auto each_glob = [&](std::string_view key, auto check) {
    const auto it = keys.find(key);
    if (it == keys.end()) return;
    if (it->second.node.IsScalar()) return check(it->second.node.Scalar(), it->second.value);
    for (const YAML::Node& item : it->second.node) check(item.Scalar(), where_is(ctx, item));
  };
  const std::string rule_name = cat("rule ", in_quotes(rule.name), ": ");
  each_glob("patterns", [&](const std::string& glob, const SourceLocation& at) {
    if (selected(glob, pattern_ids).empty())
      throw ConfigError(at, cat(rule_name, in_quotes(glob), " in 'patterns' matches no pattern id",
                                pattern_ids.empty() ? " (the file has no patterns)"
                                                    : did_you_mean(glob, pattern_ids)));
  });
  each_glob("libraries", [&](const std::string& glob, const SourceLocation& at) {
    if (selected(glob, library_names).empty())
      throw ConfigError(at,
                        cat(rule_name, in_quotes(glob), " in 'libraries' matches no library name",
                            library_names.empty() ? " (the file has no libraries)"
                                                  : did_you_mean(glob, library_names)));
  });
  // Streams: with auto-creation on, an id may arrive that the file does not declare; with
  // none declared, every stream is such a one and there is nothing to compare with.
  if (!live.auto_create_streams || !live.streams.empty())
    each_glob("streams", [&](const std::string& glob, const SourceLocation& at) {
      if (!selected(glob, stream_ids).empty()) return;
      report(!live.auto_create_streams, at,
             cat(rule_name, in_quotes(glob), " in 'streams' matches no declared stream",
                 did_you_mean(glob, stream_ids),
                 live.auto_create_streams
                     ? ": only an auto-created stream ('streams.auto_create' is on) can match it"
                     : " and 'streams.auto_create' is false"),
             warnings);
    });
  // Each glob selects something; together they may still select nothing.
  std::vector<Metric> metrics;  // of the patterns the rule selects
  for (const Library& library : live.libraries)
    for (const kernels::PatternDef& p : library.patterns)
      if (rule_selects(rule, library, p)) metrics.push_back(p.params.distance.metric);
  if (metrics.empty() && !pattern_ids.empty() &&
      (keys.count("patterns") || keys.count("libraries")))
    throw ConfigError(rule.where,
                      cat(rule_name,
                          "selects no pattern: none of the patterns its 'patterns' match is in a "
                          "library its 'libraries' match"));
  if (rule.threshold && !metrics.empty() &&
      std::all_of(metrics.begin(), metrics.end(),
                  [&](Metric m) { return *rule.threshold < distance_range(m).low; }))
    throw ConfigError(
        keys.find("threshold")->second.value,
        cat(rule_name, "threshold ", number_text(*rule.threshold),
            " can never be reached by the patterns it selects: ", range_text(metrics.front())));
}

void check_unselected_patterns(const LiveConfig& live, std::vector<ConfigWarning>& warnings) {
  for (const Library& library : live.libraries)
    for (std::size_t i = 0; i < library.patterns.size(); ++i) {
      const kernels::PatternDef& p = library.patterns[i];
      if (std::none_of(live.rules.begin(), live.rules.end(),
                       [&](const Rule& rule) { return rule_selects(rule, library, p); }))
        warnings.push_back({library.pattern_where[i],
                            cat("pattern ", in_quotes(p.id),
                                " is selected by no rule: its matches will be counted but not "
                                "published")});
    }
}

}  // namespace warpwatch::config
