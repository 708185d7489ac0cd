// LibraryEditor: a change checked against If-Match, merged into the overlay, applied by the
// Pipeline's reload on the scheduler's thread, then persisted, logged and kept in the
// history. Changes run one at a time (change_mu_), from the If-Match check to the answer,
// so that of two changes made with one ETag exactly one applies and the other is told 409.
#include "warpwatch/service/library_editor.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

#include "warpwatch/base/sha256.hpp"
#include "warpwatch/config/config_reader.hpp"
#include "warpwatch/config/yaml_file.hpp"
#include "warpwatch/plugins/registry.hpp"

namespace warpwatch::service {
namespace {

using config::cat;
using nlohmann::json;

const kernels::PatternDef* find_pattern(const std::vector<config::Library>& libraries,
                                        std::string_view library, std::string_view id) {
  for (const auto& lib : libraries)
    if (lib.name == library)
      for (const auto& p : lib.patterns)
        if (p.id == id) return &p;
  return nullptr;
}

bool has_library(const std::vector<config::Library>& libraries, std::string_view library) {
  return std::any_of(libraries.begin(), libraries.end(),
                     [&](const auto& lib) { return lib.name == library; });
}

ChangeResult problem(int status, std::string field, std::string detail) {
  ChangeResult r;
  r.status = status;
  r.problem_field = std::move(field);
  r.problem_detail = std::move(detail);
  return r;
}

const char* kind_name(OverlayChange::Kind kind) {
  switch (kind) {
    case OverlayChange::Kind::put:
      return "put";
    case OverlayChange::Kind::remove:
      return "remove";
    case OverlayChange::Kind::threshold:
      return "threshold";
  }
  return "?";
}

std::string named(std::string_view s) {
  return config::in_quotes(s);
}

}  // namespace

json pattern_json(const kernels::PatternDef& p, bool with_values) {
  const kernels::DistanceParams& d = p.params.distance;
  json j = {{"id", p.id},
            {"library", p.library},
            {"dims", p.dims},
            {"length", p.length()},
            {"metric", std::string(kernels::to_string(d.metric))},
            {"mode", std::string(kernels::to_string(p.params.mode))},
            {"threshold", p.params.threshold},
            {"cost", std::string(kernels::to_string(d.cost))},
            {"band", d.band ? json(*d.band) : json(nullptr)},
            {"window", p.params.window},
            {"hop", p.params.hop},
            {"znorm", p.params.normalize == kernels::Normalize::znorm}};
  // Each measure's own parameters, under the measure that reads them.
#define WW_PARAM_JSON_real(name) json(d.name)
#define WW_PARAM_JSON_count(name) (d.name ? json(*d.name) : json(nullptr))
#define WW_PARAM_JSON(name, measure, kind, def, lower, open, help) \
  if (kernels::to_string(d.metric) == #measure) j[#name] = WW_PARAM_JSON_##kind(name);
  WARPWATCH_MEASURE_PARAMS(WW_PARAM_JSON)
#undef WW_PARAM_JSON
#undef WW_PARAM_JSON_count
#undef WW_PARAM_JSON_real
  if (!p.times.empty()) j["times"] = p.times;
  if (with_values) {
    json rows = json::array();
    for (std::size_t i = 0; i < p.length(); ++i)
      rows.push_back(
          std::vector<float>(p.values.begin() + static_cast<std::ptrdiff_t>(i * p.dims),
                             p.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * p.dims)));
    j["values"] = std::move(rows);
  }
  return j;
}

std::string LibraryEditor::etag_of(const kernels::PatternDef& pattern) {
  const auto digest = stream::sha256(pattern_json(pattern, true).dump());
  std::string hex = "\"";
  for (std::size_t i = 0; i < 16; ++i) {
    char byte[3];
    std::snprintf(byte, sizeof byte, "%02x", digest[i]);
    hex += byte;
  }
  return hex + "\"";
}

LibraryEditor::LibraryEditor(Pipeline& pipeline, std::string config_path, Logger log,
                             LibraryEditorOptions options)
    : pipeline_(pipeline),
      config_path_(std::move(config_path)),
      log_(std::move(log)),
      options_(options) {
  text_ = config::read_config_text(config_path_);
  const config::DaemonConfig file = plugins::parse_daemon_config(text_, config_path_);
  state_dir_ = file.state_dir;
  overlay_ = read_overlay(state_dir_);
  file_libraries_ = file.live.libraries;
  libraries_ = pipeline_.config().live.libraries;
}

json LibraryEditor::libraries() const {
  const std::lock_guard lock(mu_);
  json out = json::array();
  for (const auto& lib : libraries_) {
    json patterns = json::array();
    for (const auto& p : lib.patterns) {
      json j = pattern_json(p, false);
      j["etag"] = etag_of(p);
      j["origin"] = overlay_.find(lib.name, p.id) ? "overlay" : "files";
      patterns.push_back(std::move(j));
    }
    out.push_back({{"name", lib.name}, {"exclusive", lib.exclusive}, {"patterns", patterns}});
  }
  json removed = json::array();
  for (const auto& [lib, changes] : overlay_.libraries)
    for (const auto& [id, change] : changes)
      if (change.kind == OverlayChange::Kind::remove)
        removed.push_back({{"library", lib}, {"pattern", id}});
  return {{"libraries", std::move(out)},
          {"removed", std::move(removed)},
          {"persisted", !state_dir_.empty()},
          {"overlay", state_dir_.empty() ? "" : overlay_path(state_dir_).string()}};
}

ChangeResult LibraryEditor::get(std::string_view library, std::string_view id) const {
  const std::lock_guard lock(mu_);
  if (!has_library(libraries_, library))
    return problem(404, "", cat("no library ", named(library)));
  const kernels::PatternDef* p = find_pattern(libraries_, library, id);
  if (!p) return problem(404, "", cat("library ", named(library), " has no pattern ", named(id)));
  ChangeResult r;
  r.etag = etag_of(*p);
  r.body = pattern_json(*p, true);
  r.body["etag"] = r.etag;
  r.body["origin"] = overlay_.find(p->library, p->id) ? "overlay" : "files";
  return r;
}

ChangeResult LibraryEditor::put(const PatternChange& c) {
  return change(c, OverlayChange::Kind::put);
}
ChangeResult LibraryEditor::remove(const PatternChange& c) {
  return change(c, OverlayChange::Kind::remove);
}
ChangeResult LibraryEditor::set_threshold(const PatternChange& c) {
  return change(c, OverlayChange::Kind::threshold);
}

ChangeResult LibraryEditor::change(const PatternChange& c, OverlayChange::Kind kind) {
  const std::lock_guard serial(change_mu_);
  Overlay next;
  std::string old_etag;
  bool existed = false;
  {
    const std::lock_guard lock(mu_);
    const auto answer = [&](ChangeResult r) {
      record(c, kind_name(kind), r, old_etag);
      return r;
    };
    if (!has_library(libraries_, c.library))
      return answer(problem(404, "", cat("no library ", named(c.library))));
    const kernels::PatternDef* current = find_pattern(libraries_, c.library, c.pattern);
    existed = current != nullptr;
    if (current) old_etag = etag_of(*current);
    if (!current && kind != OverlayChange::Kind::put)
      return answer(problem(
          404, "", cat("library ", named(c.library), " has no pattern ", named(c.pattern))));
    if (kind == OverlayChange::Kind::put) {
      if (!c.definition || !c.definition->is_object())
        return answer(problem(400, "", "the body must be a JSON object: the pattern's entry"));
      if (c.definition->contains("file"))
        return answer(
            problem(400, "file", "'file' is not taken over the API: give the pattern's 'values'"));
    }
    if (kind == OverlayChange::Kind::threshold && !c.threshold)
      return answer(problem(400, "threshold", "a threshold (a number) is required"));
    // Optimistic concurrency: a change of what exists names the version it changes.
    if (current && c.if_match.empty())
      return answer(problem(428, "", "If-Match with the pattern's ETag is required (GET it)"));
    if (!c.if_match.empty() && c.if_match != old_etag)
      return answer(problem(
          409, "",
          current ? cat("the pattern changed since that ETag (now ", old_etag, "): GET it again")
                  : "the pattern does not exist any more"));
    if (state_dir_.empty())
      return answer(problem(403, "",
                            "runtime changes of libraries need state.dir (where they persist); "
                            "it is off in this configuration"));
    next = overlay_;
    auto& changes = next.libraries[c.library];
    const bool in_files = find_pattern(file_libraries_, c.library, c.pattern) != nullptr;
    const auto it = changes.find(c.pattern);
    const bool put_here = it != changes.end() && it->second.kind == OverlayChange::Kind::put;
    switch (kind) {
      case OverlayChange::Kind::put: {
        OverlayChange put;
        put.entry = *c.definition;
        changes[c.pattern] = std::move(put);
        break;
      }
      case OverlayChange::Kind::remove:
        if (in_files) {
          OverlayChange remove;
          remove.kind = OverlayChange::Kind::remove;
          changes[c.pattern] = std::move(remove);
        } else {
          changes.erase(c.pattern);  // an addition of the overlay undone
        }
        break;
      case OverlayChange::Kind::threshold:
        if (put_here) {
          it->second.entry["threshold"] = *c.threshold;
        } else {
          OverlayChange threshold;
          threshold.kind = OverlayChange::Kind::threshold;
          threshold.threshold = *c.threshold;
          changes[c.pattern] = std::move(threshold);
        }
        break;
    }
  }

  // Applied on the scheduler's thread: the configuration in effect plus the change, through
  // the Pipeline's two-phase reload.
  std::optional<OverlayError> refused_entry;
  std::string refused;
  config::DaemonConfig merged;
  bool applied = false;
  const std::function<void()> work = [&] {
    std::string text;
    {
      const std::lock_guard lock(mu_);
      text = text_;
    }
    try {
      merged = merge_overlay(text, config_path_, next);
    } catch (const OverlayError& e) {
      refused_entry = e;
      return;
    } catch (const std::exception& e) {
      refused = e.what();
      return;
    }
    applied = pipeline_.reload(merged);
    if (!applied) refused = pipeline_.last_reload_refusal();
  };
  ChangeResult result;
  bool served = false;
  try {
    served = pipeline_.scheduler_requests().run(work, options_.scheduler_limit);
  } catch (const std::exception& e) {
    served = true;
    refused = e.what();
  }
  const std::lock_guard lock(mu_);
  if (!served) {
    result = problem(503, "", "the scheduler did not take the change in time; nothing changed");
  } else if (refused_entry && refused_entry->library == c.library &&
             refused_entry->pattern == c.pattern) {
    result = problem(400,
                     kind == OverlayChange::Kind::threshold && refused_entry->field.empty()
                         ? "threshold"
                         : refused_entry->field,
                     refused_entry->detail);
  } else if (refused_entry || !applied) {
    result = problem(422, "",
                     cat("the change was refused: ",
                         refused_entry ? std::string(refused_entry->what()) : refused));
  } else {
    try {
      write_overlay(state_dir_, next);
    } catch (const std::exception& e) {
      // Applied but not persisted: a restart would lose it. Said, logged, kept running.
      log_->error("library change applied but not persisted: {}", e.what());
      result.problem_detail = cat("applied, but not persisted: ", e.what());
    }
    overlay_ = std::move(next);
    libraries_ = merged.live.libraries;
    result.status = kind == OverlayChange::Kind::remove ? 204 : existed ? 200 : 201;
    if (const kernels::PatternDef* p = find_pattern(libraries_, c.library, c.pattern)) {
      result.etag = etag_of(*p);
      result.body = pattern_json(*p, true);
      result.body["etag"] = result.etag;
      result.body["origin"] = "overlay";
    }
  }
  record(c, kind_name(kind), result, old_etag);
  return result;
}

std::optional<kernels::PatternDef> LibraryEditor::pattern(std::string_view library,
                                                          std::string_view id) const {
  const std::lock_guard lock(mu_);
  const kernels::PatternDef* p = find_pattern(libraries_, library, id);
  return p ? std::optional(*p) : std::nullopt;
}

LibraryEditor::Candidate LibraryEditor::candidate(std::string_view library, std::string_view id,
                                                  const json& definition) const {
  Candidate out;
  Overlay next;
  std::string text;
  {
    const std::lock_guard lock(mu_);
    if (!has_library(libraries_, library)) {
      out.problem = problem(404, "library", cat("no library ", named(library)));
      return out;
    }
    next = overlay_;
    text = text_;
  }
  if (!definition.is_object()) {
    out.problem = problem(400, "", "the pattern must be a JSON object: a PUT body");
    return out;
  }
  if (definition.contains("file")) {
    out.problem =
        problem(400, "file", "'file' is not taken over the API: give the pattern's 'values'");
    return out;
  }
  OverlayChange put;
  put.entry = definition;
  next.libraries[std::string(library)][std::string(id)] = std::move(put);
  try {
    const config::DaemonConfig merged = merge_overlay(text, config_path_, next);
    if (const kernels::PatternDef* p = find_pattern(merged.live.libraries, library, id))
      out.pattern = *p;
    else
      out.problem = problem(400, "", "the configuration did not take the pattern");
  } catch (const OverlayError& e) {
    out.problem = problem(400, e.library == library && e.pattern == id ? e.field : "",
                          e.library == library && e.pattern == id ? e.detail : e.what());
  } catch (const std::exception& e) {
    out.problem = problem(422, "", cat("the configuration cannot be read: ", e.what()));
  }
  return out;
}

void LibraryEditor::record(const PatternChange& c, std::string_view what,
                           const ChangeResult& result, const std::string& old_etag) {
  const bool ok = result.status < 300;
  if (ok)
    log_->info("library change by '{}': {} library '{}' pattern '{}': etag {} -> {} ({})", c.who,
               what, c.library, c.pattern, old_etag.empty() ? "none" : old_etag,
               result.etag.empty() ? "none" : result.etag, result.status);
  else
    log_->info("library change by '{}' refused: {} library '{}' pattern '{}' ({}{}{}): {}", c.who,
               what, c.library, c.pattern, result.status,
               result.problem_field.empty() ? "" : ", field ", result.problem_field,
               result.problem_detail);
  json entry = {{"time_ns", std::chrono::duration_cast<std::chrono::nanoseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count()},
                {"who", c.who},
                {"what", what},
                {"library", c.library},
                {"pattern", c.pattern},
                {"status", result.status},
                {"old_etag", old_etag},
                {"new_etag", result.etag}};
  if (!ok) entry["detail"] = result.problem_detail;
  history_.push_front(std::move(entry));
  while (history_.size() > options_.history) history_.pop_back();
}

json LibraryEditor::history() const {
  const std::lock_guard lock(mu_);
  return {{"changes", json(history_)}};
}

bool LibraryEditor::reload() {
  std::string text;
  config::DaemonConfig file, merged;
  Overlay overlay;
  try {
    text = config::read_config_text(config_path_);
    file = plugins::parse_daemon_config(text, config_path_);
    overlay = read_overlay(state_dir_);
    merged = merge_overlay(text, config_path_, overlay);
  } catch (const std::exception& e) {
    return pipeline_.refuse_reload(e.what());
  }
  if (!pipeline_.reload(merged)) return false;
  const std::lock_guard lock(mu_);
  text_ = std::move(text);
  overlay_ = std::move(overlay);
  file_libraries_ = std::move(file.live.libraries);
  libraries_ = merged.live.libraries;
  return true;
}

}  // namespace warpwatch::service
