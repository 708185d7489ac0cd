// The API's heavy routes (docs/api.md): POST /api/v1/learn (docs/spec.md §8 on examples cut
// from the streams' recent history, daemon/learn/) and POST /api/v1/backtest (a pattern run
// by the cpu backend's Matcher over recent history). Off the matching path: they read
// RecentHistory through its thread-safe accessors and run their own Matcher. Bounded: the
// samples they read are capped, one of each runs at a time (429 with Retry-After when
// busy), each stops at a time limit (422 saying so).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

#include "routes_internal.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/learn/fit.hpp"
#include "warpwatch/service/api_routes.hpp"
#include "warpwatch/service/library_editor.hpp"
#include "warpwatch/service/pipeline.hpp"
#include "warpwatch/service/recent_history.hpp"

namespace warpwatch::service::http {

JobSlots& job_slots() {
  static JobSlots slots;
  return slots;
}

namespace {

using Json = nlohmann::json;
using Clock = std::chrono::steady_clock;

std::string at(const std::string& field, std::size_t i) {
  std::string out = field;
  out += "[";
  out += std::to_string(i);
  out += "]";
  return out;
}

std::string dot(const std::string& field, const char* key) {
  std::string out = field;
  out += ".";
  out += key;
  return out;
}

void only_keys(const Json& object, std::initializer_list<const char*> keys,
               const std::string& prefix) {
  for (const auto& [key, value] : object.items()) {
    if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) {
      const std::string field = prefix.empty() ? key : dot(prefix, key.c_str());
      throw Problem(400, "unknown field '" + key + "'", field);
    }
  }
}

std::int64_t ns_of(const Json& v, const std::string& field) {
  if (!v.is_number_integer() ||
      (v.is_number_unsigned() &&
       v.get<std::uint64_t>() >
           static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())))
    throw Problem(400, "must be an integer (ns since the epoch, 64 bits)", field);
  return v.get<std::int64_t>();
}

double number_of(const Json& v, const std::string& field, double min, double max) {
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < min ||
      v.get<double>() > max)
    throw Problem(400,
                  "must be a number in [" + std::to_string(min) + ", " + std::to_string(max) + "]",
                  field);
  return v.get<double>();
}

std::string text_of(const Json& v, const std::string& field) {
  if (!v.is_string() || v.get<std::string>().empty())
    throw Problem(400, "must be a non-empty string", field);
  return v.get<std::string>();
}

// A time range of a stream's recent history, inclusive.
struct Range {
  std::string stream;
  std::int64_t from = 0, to = 0;
  std::string field;  // "examples[1]"
};

Range range_of(const Json& v, const std::string& field) {
  if (!v.is_object()) throw Problem(400, "must be an object {stream, from, to}", field);
  only_keys(v, {"stream", "from", "to"}, field);
  Range r;
  r.field = field;
  for (const char* key : {"stream", "from", "to"})
    if (!v.contains(key)) throw Problem(400, "is required", dot(field, key));
  r.stream = text_of(v["stream"], dot(field, "stream"));
  r.from = ns_of(v["from"], dot(field, "from"));
  r.to = ns_of(v["to"], dot(field, "to"));
  return r;
}

std::vector<Range> ranges_of(const Json& body, const char* key, std::size_t most) {
  const Json& v = body[key];
  if (!v.is_array() || v.empty() || v.size() > most)
    throw Problem(400, "must be an array of 1 to " + std::to_string(most) + " ranges", key);
  std::vector<Range> out;
  for (std::size_t i = 0; i < v.size(); ++i) out.push_back(range_of(v[i], at(key, i)));
  return out;
}

// The stream's kept samples with from <= time <= to (all when unset), the newest `most` of
// them; 404 naming `field` for a stream without history.
HistorySamples samples_of(const Pipeline& p, const std::string& stream,
                          std::optional<std::int64_t> from, std::optional<std::int64_t> to,
                          const std::string& field) {
  const std::optional<std::int64_t> since = from && *from > std::numeric_limits<std::int64_t>::min()
                                                ? std::optional(*from - 1)
                                                : std::nullopt;
  auto s = p.history().samples(stream, since, std::numeric_limits<std::size_t>::max());
  if (!s)
    throw Problem(404, "no samples of stream '" + stream + "' (an unknown stream, or history off)",
                  field);
  std::size_t n = s->count();
  if (to)
    n = static_cast<std::size_t>(std::upper_bound(s->times_ns.begin(), s->times_ns.end(), *to) -
                                 s->times_ns.begin());
  s->times_ns.resize(n);
  s->values.resize(n * s->dims);
  return *s;
}

// A range's samples: 404 naming its stream without history (looked up first, so that an
// unknown stream is a 404 before any cross-field 400), 400 naming `to` before `from`.
HistorySamples samples_in(const Pipeline& p, const Range& r) {
  HistorySamples s = samples_of(p, r.stream, r.from, r.to, dot(r.field, "stream"));
  if (r.to < r.from) throw Problem(400, "is before from", dot(r.field, "to"));
  return s;
}

learn::Series series_of(const HistorySamples& s) {
  learn::Series out;
  out.dims = s.dims;
  out.values = s.values;
  return out;
}

// A limit of time: `check()` throws 422 naming `field` once it has passed.
struct Deadline {
  Clock::time_point end;
  const char* what;
  void check() const {
    if (Clock::now() > end)
      throw Problem(
          422,
          std::string(what) + " took longer than " +
              std::to_string(
                  std::chrono::duration_cast<std::chrono::seconds>(job_time_limit).count()) +
              " s: give fewer or shorter ranges",
          "body");
  }
};

// The answer to a second job of a kind while one runs.
Response busy(const char* what) {
  Response r = problem(429, std::string("a ") + what + " is running (one at a time); try again");
  r.headers.emplace_back("Retry-After", "5");
  return r;
}

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// ---- POST /api/v1/learn

learn::FitOptions fit_options_of(const Json& body) {
  learn::FitOptions o;
  if (body.contains("mode")) {
    const std::string mode = text_of(body["mode"], "mode");
    if (mode == "stream" || mode == "window")
      o.given.mode = mode == "stream" ? kernels::Mode::stream : kernels::Mode::window;
    else if (mode != "auto")
      throw Problem(400, "must be stream, window or auto", "mode");
  }
  if (body.contains("znorm") && !body["znorm"].is_null()) {
    if (!body["znorm"].is_boolean())
      throw Problem(400, "must be true, false or null (chosen)", "znorm");
    o.given.znorm = body["znorm"].get<bool>();
  }
  if (body.contains("band") && !body["band"].is_null())
    o.given.band = number_of(body["band"], "band", 0.0, 1e6);
  if (body.contains("metric")) {
    const std::string metric = text_of(body["metric"], "metric");
    if (metric == "dtw")
      o.given.metric = kernels::Metric::dtw;
    else if (metric != "auto")
      throw Problem(400, "must be dtw or auto (dtw, or lcss where it separates better)", "metric");
  }
  if (body.contains("template")) {
    const auto kind = learn::parse_template_kind(text_of(body["template"], "template"));
    if (!kind) throw Problem(400, "must be medoid, dba or softdtw", "template");
    o.options.kind = *kind;
  }
  if (body.contains("gamma")) o.options.gamma = number_of(body["gamma"], "gamma", 1e-6, 1e6);
  o.options.backend = kernels::Backend::cpu;
  if (body.contains("folds")) {
    if (!body["folds"].is_number_integer() || body["folds"].get<std::int64_t>() < 1 ||
        body["folds"].get<std::int64_t>() > 1000)
      throw Problem(400, "must be an integer in [1, 1000]", "folds");
    o.folds = body["folds"].get<std::size_t>();
  }
  if (body.contains("target")) {
    const Json& t = body["target"];
    if (!t.is_object() || t.size() != 1)
      throw Problem(400, "must be {\"recall\": R} or {\"false_alarms_per_hour\": F}", "target");
    only_keys(t, {"recall", "false_alarms_per_hour"}, "target");
    if (t.contains("recall")) o.target.recall = number_of(t["recall"], "target.recall", 0.0, 1.0);
    if (t.contains("false_alarms_per_hour"))
      o.target.false_per_hour =
          number_of(t["false_alarms_per_hour"], "target.false_alarms_per_hour", 0.0, 1e12);
  }
  return o;
}

// The PUT body of the learnt pattern: its values (rows), its settings spelled out (so that
// the library's defaults change none of them) and its threshold.
Json pattern_body(const learn::Series& t, const learn::MatchSettings& s, double threshold) {
  Json values = Json::array();
  for (std::size_t i = 0; i < t.length(); ++i) {
    Json row = Json::array();
    for (std::size_t k = 0; k < t.dims; ++k) row.push_back(t.values[i * t.dims + k]);
    values.push_back(std::move(row));
  }
  Json body = {{"values", std::move(values)},
               {"metric", std::string(kernels::to_string(s.metric))},
               {"mode", std::string(kernels::to_string(s.mode))},
               {"threshold", threshold}};
  if (s.metric == kernels::Metric::dtw) body["cost"] = "sq";
  if (s.mode == kernels::Mode::window) {
    body["znorm"] = s.znorm;
    if (s.metric == kernels::Metric::lcss) {
      body["epsilon"] = s.epsilon;
      if (s.delta) body["delta"] = *s.delta;
    } else if (s.band) {
      body["band"] = *s.band;
    }
  }
  return body;
}

// The recent history of each example's stream with the examples cut out: the pieces
// between them at least `shortest` samples long, each a negative.
std::vector<learn::Negative> default_negatives(const Pipeline& p,
                                               const std::vector<Range>& examples,
                                               std::size_t shortest) {
  std::set<std::string> streams;
  for (const Range& r : examples) streams.insert(r.stream);
  std::vector<learn::Negative> out;
  for (const std::string& stream : streams) {
    HistorySamples s = samples_of(p, stream, std::nullopt, std::nullopt, "examples");
    const std::size_t keep = std::min(s.count(), learn_max_negative_samples);
    const std::size_t skip = s.count() - keep;
    std::size_t begin = skip;
    const auto cut_at = [&](std::size_t end) {
      if (end > begin && end - begin >= shortest) {
        learn::Negative n;
        n.name = stream;
        n.series.dims = s.dims;
        n.series.values.assign(s.values.begin() + static_cast<std::ptrdiff_t>(begin * s.dims),
                               s.values.begin() + static_cast<std::ptrdiff_t>(end * s.dims));
        n.times_ns.assign(s.times_ns.begin() + static_cast<std::ptrdiff_t>(begin),
                          s.times_ns.begin() + static_cast<std::ptrdiff_t>(end));
        out.push_back(std::move(n));
      }
    };
    for (std::size_t i = skip; i < s.count(); ++i) {
      const std::int64_t t = s.times_ns[i];
      const bool in_example = std::any_of(examples.begin(), examples.end(), [&](const Range& r) {
        return r.stream == stream && r.from <= t && t <= r.to;
      });
      if (in_example) {
        cut_at(i);
        begin = i + 1;
      }
    }
    cut_at(s.count());
  }
  return out;
}

Response learn_route(const Pipeline& p, const Request& r) {
  const Json body = body_of(r);
  only_keys(body,
            {"examples", "negatives", "mode", "metric", "znorm", "band", "template", "gamma",
             "folds", "target"},
            "");
  if (!body.contains("examples")) throw Problem(400, "is required", "examples");
  const std::vector<Range> examples = ranges_of(body, "examples", learn_max_examples);
  std::vector<Range> negative_ranges;
  if (body.contains("negatives"))
    negative_ranges = ranges_of(body, "negatives", learn_max_examples);
  learn::FitOptions options = fit_options_of(body);

  const std::unique_lock lock(job_slots().learn, std::try_to_lock);
  if (!lock.owns_lock()) return busy("learn");
  const auto started = Clock::now();
  const Deadline deadline{started + job_time_limit, "the learn"};
  options.after_phase = [&deadline](learn::Phase, const learn::Fit&) { deadline.check(); };

  std::vector<learn::Series> series;
  std::optional<std::size_t> dims;
  std::size_t longest = 0;
  for (const Range& e : examples) {
    const HistorySamples s = samples_in(p, e);
    if (s.count() < learn_min_example_samples)
      throw Problem(422,
                    "the range holds " + std::to_string(s.count()) + " sample(s) of the history; " +
                        "an example needs at least " + std::to_string(learn_min_example_samples),
                    dot(e.field, "to"));
    if (s.count() > learn_max_example_samples)
      throw Problem(422,
                    "the range holds " + std::to_string(s.count()) + " samples; an example may " +
                        "hold at most " + std::to_string(learn_max_example_samples),
                    dot(e.field, "to"));
    if (dims && *dims != s.dims)
      throw Problem(422,
                    "the stream has " + std::to_string(s.dims) + " dims, the first example " +
                        std::to_string(*dims),
                    dot(e.field, "stream"));
    dims = s.dims;
    longest = std::max(longest, s.count());
    series.push_back(series_of(s));
  }
  std::vector<learn::Negative> negatives;
  if (negative_ranges.empty()) {
    negatives = default_negatives(p, examples, longest);
    if (negatives.empty())
      throw Problem(422,
                    "no negatives: the history of the examples' streams holds no stretch of " +
                        std::to_string(longest) +
                        " samples (the longest example) outside the examples; give negatives",
                    "negatives");
  } else {
    std::size_t total = 0;
    for (const Range& n : negative_ranges) {
      const HistorySamples s = samples_in(p, n);
      if (s.count() < longest)
        throw Problem(422,
                      "the range holds " + std::to_string(s.count()) +
                          " sample(s); a negative needs at least the longest example's " +
                          std::to_string(longest),
                      dot(n.field, "to"));
      if (s.dims != *dims)
        throw Problem(422,
                      "the stream has " + std::to_string(s.dims) + " dims, the examples " +
                          std::to_string(*dims),
                      dot(n.field, "stream"));
      total += s.count();
      if (total > learn_max_negative_samples)
        throw Problem(422,
                      "the negatives hold more than " + std::to_string(learn_max_negative_samples) +
                          " samples",
                      dot(n.field, "to"));
      learn::Negative neg;
      neg.name = n.stream;
      neg.series = series_of(s);
      neg.times_ns = s.times_ns;
      negatives.push_back(std::move(neg));
    }
  }
  std::size_t negative_samples = 0;
  for (const auto& n : negatives) negative_samples += n.series.length();
  // Checks across fields come after the streams' (a fuzzer's unknown stream is a 404 first).
  const learn::Given& given = options.given;
  if (given.mode == kernels::Mode::stream && (given.znorm.value_or(false) || given.band))
    throw Problem(400, "mode stream has no znorm true or band (window mode only)",
                  given.band ? "band" : "znorm");

  learn::Fit fit;
  try {
    fit = learn::fit_pattern(series, negatives, options);
  } catch (const Problem&) {
    throw;
  } catch (const std::exception& e) {  // no threshold meets the target, examples unfit
    throw Problem(422, e.what(),
                  options.target.recall || options.target.false_per_hour ? "target" : "examples");
  }
  Json table = Json::array();
  for (const auto& row : fit.table)
    table.push_back({{"threshold", row.threshold},
                     {"found", row.found},
                     {"recall", row.recall},
                     {"precision", row.precision},
                     {"f1", row.f1},
                     {"false_alarms", row.false_alarms},
                     {"false_alarms_per_hour", row.false_per_hour}});
  const learn::MatchSettings& s = fit.choice.settings;
  return json({{"pattern", pattern_body(fit.built.series, s, fit.threshold())},
               {"threshold", fit.threshold()},
               {"chosen_row", fit.chosen.row},
               {"why", fit.chosen.why},
               {"table", std::move(table)},
               {"settings",
                {{"mode", std::string(kernels::to_string(s.mode))},
                 {"metric", std::string(kernels::to_string(s.metric))},
                 {"znorm", s.znorm},
                 {"measure", learn::describe_measure(s)},
                 {"why", fit.choice.why}}},
               {"examples", series.size()},
               {"negative_samples", negative_samples},
               {"seconds", seconds_since(started)}});
}

// ---- POST /api/v1/backtest

std::shared_ptr<LibraryEditor> editor_of(const Pipeline& p) {
  auto editor = p.library_editor();
  if (!editor) throw Problem(503, "libraries are not available in this process");
  return editor;
}

// The pattern the body names: a PUT body checked as PUT checks it, or a pattern in effect.
kernels::PatternDef pattern_of(const Pipeline& p, const Json& body) {
  const bool candidate = body.contains("pattern");
  if (!candidate && !body.contains("id"))
    throw Problem(400, "is required (or a pattern)", "pattern");
  if (!candidate && !body.contains("library")) throw Problem(400, "is required with id", "library");
  const auto editor = editor_of(p);
  std::string library;
  if (body.contains("library")) {
    library = text_of(body["library"], "library");
  } else {
    const Json libraries = editor->libraries().at("libraries");
    if (libraries.empty())
      throw Problem(422, "no library is configured to take the pattern's defaults from", "library");
    library = libraries.front().at("name").get<std::string>();
  }
  if (!candidate) {
    const std::string id = text_of(body["id"], "id");
    auto found = editor->pattern(library, id);
    if (!found) throw Problem(404, "library '" + library + "' has no pattern '" + id + "'", "id");
    return *found;
  }
  if (!body["pattern"].is_object()) throw Problem(400, "must be an object: a PUT body", "pattern");
  // With a pattern, `id` is the id it is checked under (as PUT .../patterns/{id} would).
  const std::string id = body.contains("id") ? text_of(body["id"], "id") : "candidate";
  auto c = editor->candidate(library, id, body["pattern"]);
  if (!c.pattern) {
    const std::string& f = c.problem.problem_field;
    throw Problem(c.problem.status, c.problem.problem_detail,
                  c.problem.status == 404 ? "library"
                  : f.empty()             ? "pattern"
                                          : "pattern." + f);
  }
  return *c.pattern;
}

// A match at its stream's indices (the history's first index on).
struct Found {
  kernels::RawMatch match;
  std::uint64_t first_index = 0;
};

Json event_json(const Found& f) {
  const kernels::RawMatch& m = f.match;
  return {{"stream", m.stream_id()},
          {"start_index", m.start_index + f.first_index},
          {"end_index", m.end_index + f.first_index},
          {"start_ns", m.start_ns},
          {"end_ns", m.end_ns},
          {"distance", m.distance}};
}

Response backtest_route(const Pipeline& p, const Request& r) {
  const Json body = body_of(r);
  only_keys(body, {"stream", "streams", "pattern", "library", "id", "threshold", "from", "to"}, "");
  std::vector<std::pair<std::string, std::string>> asked;  // stream, its field (both: all)
  if (body.contains("stream")) asked.emplace_back(text_of(body["stream"], "stream"), "stream");
  if (body.contains("streams")) {
    const Json& v = body["streams"];
    if (!v.is_array() || v.empty() || v.size() > backtest_max_streams)
      throw Problem(
          400, "must be an array of 1 to " + std::to_string(backtest_max_streams) + " stream ids",
          "streams");
    for (std::size_t i = 0; i < v.size(); ++i)
      asked.emplace_back(text_of(v[i], at("streams", i)), at("streams", i));
  }
  std::optional<std::int64_t> from, to;
  if (body.contains("from")) from = ns_of(body["from"], "from");
  if (body.contains("to")) to = ns_of(body["to"], "to");
  // (to before from: an empty range, no samples)
  std::optional<double> threshold;
  if (body.contains("threshold"))
    threshold = number_of(body["threshold"], "threshold", 0.0, std::numeric_limits<float>::max());
  kernels::PatternDef pattern = pattern_of(p, body);
  if (threshold) pattern.params.threshold = *threshold;

  const std::unique_lock lock(job_slots().backtest, std::try_to_lock);
  if (!lock.owns_lock()) return busy("backtest");
  const Deadline deadline{Clock::now() + job_time_limit, "the backtest"};
  // The streams: their dims and periods as the daemon has them.
  const StreamPage page = p.streams_page(0, std::numeric_limits<std::size_t>::max(), "");
  const auto status_of = [&](const std::string& id) -> const StreamStatus* {
    for (const StreamStatus& s : page.streams)
      if (s.id == id) return &s;
    return nullptr;
  };
  std::vector<std::pair<const StreamStatus*, std::string>> streams;
  for (const auto& [id, field] : asked) {
    if (std::any_of(streams.begin(), streams.end(),
                    [&id = id](const auto& taken) { return taken.first->id == id; }))
      continue;  // named twice: run once
    const StreamStatus* s = status_of(id);
    if (!s) throw Problem(404, "no stream '" + id + "'", field);
    if (s->dims != pattern.dims)
      throw Problem(422,
                    "stream '" + id + "' has " + std::to_string(s->dims) + " dims, the pattern " +
                        std::to_string(pattern.dims),
                    field);
    streams.emplace_back(s, field);
  }
  if (asked.empty())
    for (const StreamStatus& s : page.streams)
      if (s.dims == pattern.dims && streams.size() < backtest_max_streams &&
          p.history().samples(s.id, std::nullopt, 1))
        streams.emplace_back(&s, "streams");

  auto matcher = kernels::make_matcher(kernels::Backend::cpu);
  try {
    matcher->add_pattern(pattern);
  } catch (const std::invalid_argument& e) {
    throw Problem(400, e.what(), threshold ? "threshold" : "pattern");
  }
  std::vector<Found> found;
  std::uint64_t samples = 0;
  std::optional<std::int64_t> first_ns, last_ns;
  for (const auto& [s, field] : streams) {
    HistorySamples h = samples_of(p, s->id, from, to, field);
    if (h.count() > backtest_max_samples) {  // the newest of them
      const std::size_t drop = h.count() - backtest_max_samples;
      h.first_index += drop;
      h.times_ns.erase(h.times_ns.begin(), h.times_ns.begin() + static_cast<std::ptrdiff_t>(drop));
      h.values.erase(h.values.begin(),
                     h.values.begin() + static_cast<std::ptrdiff_t>(drop * h.dims));
    }
    if (h.count() == 0) continue;
    samples += h.count();
    first_ns = std::min(first_ns.value_or(h.times_ns.front()), h.times_ns.front());
    last_ns = std::max(last_ns.value_or(h.times_ns.back()), h.times_ns.back());
    matcher->add_stream(
        kernels::StreamDef{s->id, s->dims, std::max<std::int64_t>(1, s->period_ns)});
    const auto keep = [&](std::vector<kernels::RawMatch> matches) {
      for (auto& m : matches) found.push_back({std::move(m), h.first_index});
    };
    for (std::size_t i = 0; i < h.count(); i += backtest_chunk_samples) {
      deadline.check();
      const std::size_t n = std::min(backtest_chunk_samples, h.count() - i);
      const kernels::StreamChunk chunk{
          s->id, std::span<const float>(h.values).subspan(i * h.dims, n * h.dims),
          std::span<const std::int64_t>(h.times_ns).subspan(i, n)};
      keep(matcher->process({&chunk, 1}));
    }
    keep(matcher->remove_stream(s->id));
  }
  // Newest first: by end time, then by stream and start index (stable for equal times).
  std::stable_sort(found.begin(), found.end(),
                   [](const Found& a, const Found& b) { return a.match.end_ns > b.match.end_ns; });
  Json events = Json::array();
  for (std::size_t i = 0; i < found.size() && i < backtest_max_events; ++i)
    events.push_back(event_json(found[i]));
  return json({{"events", std::move(events)},
               {"total", found.size()},
               {"samples", samples},
               {"from_ns", first_ns ? Json(*first_ns) : Json()},
               {"to_ns", last_ns ? Json(*last_ns) : Json()},
               {"threshold", pattern.params.threshold}});
}

}  // namespace

void add_job_routes(Router& router, const Pipeline& pipeline) {
  const Pipeline* p = &pipeline;
  router.add("POST", "/api/v1/learn", [p](const Request& r) { return learn_route(*p, r); });
  router.add(
      "POST", "/api/v1/backtest", [p](const Request& r) { return backtest_route(*p, r); },
      Access::read);
}

}  // namespace warpwatch::service::http
