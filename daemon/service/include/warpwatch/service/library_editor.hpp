// Runtime changes of the pattern libraries (the API's /api/v1/libraries routes): a pattern
// put, removed or given another threshold, applied through the Pipeline's two-phase reload
// with the configuration in effect plus the change (other (stream, pattern) pairs keep their
// state), persisted as the overlay of state.dir (library_overlay.hpp). docs/operations.md
// §4.1 says what an operator sees.
#pragma once

#include <nlohmann/json.hpp>

#include <chrono>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "warpwatch/service/library_overlay.hpp"
#include "warpwatch/service/logging.hpp"
#include "warpwatch/service/pipeline.hpp"

namespace warpwatch::service {

// One change, as the API's route hands it in.
struct PatternChange {
  std::string library, pattern;
  // put: the body, parsed: `values` (an array of rows, or of numbers for one dimension)
  // and the keys of a YAML `patterns:` entry (metric, mode, threshold, band, znorm, ...).
  std::optional<nlohmann::json> definition;
  std::optional<double> threshold;  // set_threshold
  std::string if_match;             // the If-Match header; "" = none
  std::string who;                  // the token's name, for the log and the history
};

// The answer: an HTTP status and what goes with it.
//   200 read or replaced, 201 created, 204 removed; 400 a bad body (problem_field names the
//   field: `values[3][0]`, `threshold`, `unknown`), 404 no such library or pattern, 403
//   changes refused (no state.dir), 409 a stale If-Match (a lost update), 422 the reload
//   refused the change (problem_detail says why), 428 If-Match missing, 503 the scheduler
//   did not take the change in time.
struct ChangeResult {
  int status = 200;
  std::string etag;  // the pattern's (quoted, as the ETag header has it); "" when none
  std::string problem_field, problem_detail;
  nlohmann::json body;  // the pattern (get, put, set_threshold) or the libraries
};

struct LibraryEditorOptions {
  std::chrono::milliseconds scheduler_limit{10000};  // a change waits this long for the scheduler
  std::size_t history = 100;                         // changes kept for history()
};

class LibraryEditor {
 public:
  // `config_path`: the configuration file the pipeline runs (its text is the one in effect
  // until reload()); the overlay is read from its state.dir. The pipeline runs the changes on
  // its scheduler's thread (Pipeline::scheduler_requests), so that a change returns once a
  // scheduler round (or step()) has applied it.
  LibraryEditor(Pipeline& pipeline, std::string config_path, Logger log,
                LibraryEditorOptions options = {});

  // Thread-safe; GET /api/v1/libraries: every library with its patterns (id, dims, length,
  // metric, mode, params, threshold, etag, origin "files" or "overlay").
  nlohmann::json libraries() const;
  // GET .../patterns/{id}: the pattern with its values; 404 unknown.
  ChangeResult get(std::string_view library, std::string_view pattern) const;
  ChangeResult put(const PatternChange& change);            // PUT .../patterns/{id}
  ChangeResult remove(const PatternChange& change);         // DELETE .../patterns/{id}
  ChangeResult set_threshold(const PatternChange& change);  // PUT .../patterns/{id}/threshold
  // POST /api/v1/backtest: a pattern in effect (a copy); nullopt when there is none.
  std::optional<kernels::PatternDef> pattern(std::string_view library, std::string_view id) const;
  // A PUT body checked as PUT checks it (the configuration loader's own checks, the library's
  // defaults filling the rest), without applying anything: the pattern (its id `id`), or a
  // problem: 404 no such library, 400 naming the field.
  struct Candidate {
    std::optional<kernels::PatternDef> pattern;
    ChangeResult problem;
  };
  Candidate candidate(std::string_view library, std::string_view id,
                      const nlohmann::json& definition) const;
  // The last changes (at most options.history), newest first: time, who, what, library,
  // pattern, status, old and new ETag.
  nlohmann::json history() const;

  // SIGHUP, on the scheduler's thread: the file read again, the overlay on top, the
  // Pipeline reloaded with it (false when it refused: the running configuration stays).
  bool reload();

  // The ETag of a pattern's effective definition: a hash of its id, library, values, times
  // and parameters, quoted.
  static std::string etag_of(const kernels::PatternDef& pattern);

 private:
  ChangeResult change(const PatternChange& change, OverlayChange::Kind kind);
  void record(const PatternChange& change, std::string_view what, const ChangeResult& result,
              const std::string& old_etag);

  Pipeline& pipeline_;
  const std::string config_path_;
  Logger log_;
  LibraryEditorOptions options_;
  std::mutex change_mu_;   // one change at a time, from its check of If-Match to its answer
  mutable std::mutex mu_;  // what follows: read by every thread, written by changes and reload()
  std::string text_;       // the configuration file's text in effect
  std::string state_dir_;
  Overlay overlay_;
  std::vector<config::Library> libraries_;       // in effect
  std::vector<config::Library> file_libraries_;  // the files' alone
  std::deque<nlohmann::json> history_;
};

// A pattern as the API shows it (etag, origin aside): id, library, dims, length, metric,
// mode, the parameters, threshold, and `values` (rows) with `with_values`.
nlohmann::json pattern_json(const kernels::PatternDef& pattern, bool with_values);

}  // namespace warpwatch::service
