#include "warpwatch/service/event_store.hpp"

#include "warpwatch/explain/explain.hpp"

#include <algorithm>
#include <map>
#include <mutex>
#include <stdexcept>

#include "warpwatch/base/sha256.hpp"
#include "warpwatch/explain/explain.hpp"
#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/params.hpp"
#include "warpwatch/service/recent_history.hpp"

namespace warpwatch::service {
namespace {

// dims, values, times and the parameters the pattern's metric reads: what pattern_version
// hashes (nlohmann::json sorts its keys: the same text for the same definition).
nlohmann::json definition_json(const kernels::PatternDef& p) {
  nlohmann::json j;
  j["dims"] = p.dims;
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < p.length(); ++i)
    rows.push_back(
        std::vector<float>(p.values.begin() + static_cast<std::ptrdiff_t>(i * p.dims),
                           p.values.begin() + static_cast<std::ptrdiff_t>((i + 1) * p.dims)));
  j["values"] = std::move(rows);
  if (!p.times.empty()) j["times"] = p.times;
  const kernels::MatchParams& m = p.params;
  const std::string_view metric = kernels::to_string(m.distance.metric);
  j["metric"] = metric;
  j["mode"] = kernels::to_string(m.mode);
  j["cost"] = kernels::to_string(m.distance.cost);
  j["band"] = m.distance.band ? nlohmann::json(*m.distance.band) : nlohmann::json(nullptr);
  j["threshold"] = m.threshold;
  j["window"] = m.window;
  j["hop"] = m.hop;
  j["normalize"] = kernels::to_string(m.normalize);
#define WW_PARAM_JSON_real(name) j[#name] = m.distance.name;
#define WW_PARAM_JSON_count(name) \
  j[#name] = m.distance.name ? nlohmann::json(*m.distance.name) : nlohmann::json(nullptr);
#define WW_PARAM_JSON(name, measure, kind, def, lower, open, help) \
  if (metric == #measure) {                                        \
    WW_PARAM_JSON_##kind(name)                                     \
  }
  WARPWATCH_MEASURE_PARAMS(WW_PARAM_JSON)
#undef WW_PARAM_JSON
#undef WW_PARAM_JSON_count
#undef WW_PARAM_JSON_real
  return j;
}

template <typename T>
T parsed(std::optional<T> value, std::string_view field, const nlohmann::json& j) {
  if (!value)
    throw std::invalid_argument("pattern: unknown " + std::string(field) + " " + j.dump());
  return *value;
}

alerting::Event event_from_json(const nlohmann::json& j) {
  alerting::Event e;
  e.rule = j.at("rule").get<std::string>();
  e.severity = j.at("severity").get<std::string>();
  e.stream = j.at("stream").get<std::string>();
  e.library = j.at("library").get<std::string>();
  const nlohmann::json& pattern = j.at("pattern");
  e.pattern = (pattern.is_object() ? pattern.at("id") : pattern).get<std::string>();
  e.metric = j.at("metric").get<std::string>();
  e.mode = j.at("mode").get<std::string>();
  e.distance = j.at("distance").get<double>();
  e.threshold = j.at("threshold").get<double>();
  e.start_index = j.at("start_index").get<std::uint64_t>();
  e.end_index = j.at("end_index").get<std::uint64_t>();
  e.start_ns = j.at("start_ns").get<std::int64_t>();
  e.end_ns = j.at("end_ns").get<std::int64_t>();
  e.detected_ns = j.at("detected_ns").get<std::int64_t>();
  e.sequence = j.at("sequence").get<std::uint64_t>();
  e.id = j.at("id").get<std::string>();
  e.instance = j.at("instance").get<std::string>();
  e.labels = j.at("labels").get<std::map<std::string, std::string>>();
  return e;
}

}  // namespace

std::string pattern_version(const kernels::PatternDef& pattern) {
  return stream::sha256_hex(definition_json(pattern).dump(), 8);
}

nlohmann::json pattern_json(const kernels::PatternDef& pattern) {
  nlohmann::json j = definition_json(pattern);
  j["id"] = pattern.id;
  j["library"] = pattern.library;
  j["version"] = pattern_version(pattern);
  return j;
}

kernels::PatternDef pattern_from_json(const nlohmann::json& j) {
  kernels::PatternDef p;
  p.id = j.at("id").get<std::string>();
  p.library = j.at("library").get<std::string>();
  p.dims = j.at("dims").get<std::size_t>();
  for (const auto& row : j.at("values")) {
    const auto values = row.get<std::vector<float>>();
    if (values.size() != p.dims)
      throw std::invalid_argument("pattern: a row of values is not dims long");
    p.values.insert(p.values.end(), values.begin(), values.end());
  }
  if (j.contains("times")) p.times = j.at("times").get<std::vector<double>>();
  kernels::MatchParams& m = p.params;
  m.distance.metric =
      parsed(kernels::parse_metric(j.at("metric").get<std::string>()), "metric", j.at("metric"));
  m.mode = parsed(kernels::parse_mode(j.at("mode").get<std::string>()), "mode", j.at("mode"));
  m.distance.cost =
      parsed(kernels::parse_cost(j.at("cost").get<std::string>()), "cost", j.at("cost"));
  if (!j.at("band").is_null()) m.distance.band = j.at("band").get<double>();
  m.threshold = j.at("threshold").get<double>();
  m.window = j.at("window").get<std::size_t>();
  m.hop = j.at("hop").get<std::size_t>();
  m.normalize = parsed(kernels::parse_normalize(j.at("normalize").get<std::string>()), "normalize",
                       j.at("normalize"));
#define WW_PARAM_FROM_real(name) m.distance.name = j.at(#name).get<double>();
#define WW_PARAM_FROM_count(name) \
  if (!j.at(#name).is_null()) m.distance.name = j.at(#name).get<std::size_t>();
#define WW_PARAM_FROM(name, measure, kind, def, lower, open, help) \
  if (j.contains(#name)) {                                         \
    WW_PARAM_FROM_##kind(name)                                     \
  }
  WARPWATCH_MEASURE_PARAMS(WW_PARAM_FROM)
#undef WW_PARAM_FROM
#undef WW_PARAM_FROM_count
#undef WW_PARAM_FROM_real
  kernels::check_pattern(p);
  return p;
}

nlohmann::json to_json(const StoredEvent& e, bool with_segment) {
  // The event's fields from alerting's own JSON, so that both say the same.
  nlohmann::json j = nlohmann::json::parse(alerting::to_json(e.event));
  j["pattern_version"] = e.pattern_version;
  j["segment_partial"] = e.segment_partial;
  if (!with_segment) return j;
  HistorySamples segment;
  segment.dims = e.dims;
  segment.first_index = e.first_index;
  segment.times_ns = e.segment_times_ns;
  segment.values = e.segment;
  j["segment"] = to_json(segment);
  j["pattern"] = pattern_json(*e.pattern);
  return j;
}

namespace {

// An event of to_json(event, true), with `pattern` its pattern (read apart).
StoredEvent read_stored(const nlohmann::json& j, kernels::PatternRef pattern) {
  StoredEvent e;
  e.event = event_from_json(j);
  e.pattern_version = j.at("pattern_version").get<std::string>();
  e.segment_partial = j.at("segment_partial").get<bool>();
  const nlohmann::json& segment = j.at("segment");
  e.dims = segment.at("dims").get<std::size_t>();
  e.first_index = segment.at("first_index").get<std::uint64_t>();
  e.segment_times_ns = segment.at("times_ns").get<std::vector<std::int64_t>>();
  for (const auto& row : segment.at("values")) {
    const auto values = row.get<std::vector<float>>();
    if (values.size() != e.dims) throw std::invalid_argument("segment: a row is not dims long");
    e.segment.insert(e.segment.end(), values.begin(), values.end());
  }
  if (e.segment.size() != e.segment_times_ns.size() * e.dims)
    throw std::invalid_argument("segment: values and times_ns differ in length");
  e.pattern = std::move(pattern);
  return e;
}

}  // namespace

StoredEvent stored_event_from_json(const nlohmann::json& j) {
  return read_stored(j, kernels::make_pattern(pattern_from_json(j.at("pattern"))));
}

std::string encode_events(const std::vector<std::shared_ptr<const StoredEvent>>& events) {
  // {"patterns": {version: pattern}, "events": [event without its pattern's definition]}
  nlohmann::json patterns = nlohmann::json::object();
  nlohmann::json list = nlohmann::json::array();
  for (const auto& e : events) {
    nlohmann::json j = to_json(*e, true);
    if (!patterns.contains(e->pattern_version))
      patterns[e->pattern_version] = std::move(j["pattern"]);
    j["pattern"] = e->event.pattern;
    list.push_back(std::move(j));
  }
  const nlohmann::json doc = {{"patterns", std::move(patterns)}, {"events", std::move(list)}};
  const std::vector<std::uint8_t> cbor = nlohmann::json::to_cbor(doc);
  return {cbor.begin(), cbor.end()};
}

std::vector<std::shared_ptr<const StoredEvent>> decode_events(std::string_view bytes) {
  const nlohmann::json doc = nlohmann::json::from_cbor(bytes.begin(), bytes.end());
  std::map<std::string, kernels::PatternRef, std::less<>> patterns;  // one per version
  for (const auto& [version, pattern] : doc.at("patterns").items())
    patterns[version] = kernels::make_pattern(pattern_from_json(pattern));
  std::vector<std::shared_ptr<const StoredEvent>> out;
  for (const nlohmann::json& j : doc.at("events")) {
    const std::string version = j.at("pattern_version").get<std::string>();
    const auto it = patterns.find(version);
    if (it == patterns.end())
      throw std::invalid_argument("event of pattern version " + version + " without its pattern");
    out.push_back(std::make_shared<const StoredEvent>(read_stored(j, it->second)));
  }
  return out;
}

// --- EventStore

EventStore::EventStore(EventStoreLimits limits) : limits_(limits) {}

std::size_t EventStore::bytes_of(const StoredEvent& s) {
  const alerting::Event& e = s.event;
  std::size_t n = sizeof(StoredEvent);
  for (const std::string* text : {&e.rule, &e.severity, &e.stream, &e.library, &e.pattern,
                                  &e.metric, &e.mode, &e.id, &e.instance, &s.pattern_version})
    n += text->capacity();
  for (const auto& [key, value] : e.labels) n += 64 + key.capacity() + value.capacity();
  n += s.segment.capacity() * sizeof(float) + s.segment_times_ns.capacity() * sizeof(std::int64_t);
  if (s.pattern)
    n += sizeof(kernels::PatternDef) + s.pattern->id.capacity() + s.pattern->library.capacity() +
         s.pattern->values.capacity() * sizeof(float) +
         s.pattern->times.capacity() * sizeof(double);
  return n;
}

void EventStore::add(std::vector<std::shared_ptr<const StoredEvent>> events) {
  if (!enabled() || events.empty()) return;
  std::vector<std::size_t> sizes;
  sizes.reserve(events.size());
  for (const auto& e : events) sizes.push_back(bytes_of(*e));
  std::vector<std::shared_ptr<const StoredEvent>> gone;  // freed after the lock
  const std::unique_lock lock(mu_);
  for (std::size_t k = 0; k < events.size(); ++k) {
    events_.push_back({std::move(events[k]), sizes[k]});
    bytes_ += sizes[k];
    while (!events_.empty() &&
           (events_.size() > limits_.max_events || bytes_ > limits_.max_bytes)) {
      bytes_ -= events_.front().bytes;
      gone.push_back(std::move(events_.front().event));
      events_.pop_front();
      ++evicted_;
    }
  }
}

std::vector<std::shared_ptr<const StoredEvent>> EventStore::list(const EventFilter& f) const {
  std::vector<std::shared_ptr<const StoredEvent>> out;
  const std::shared_lock lock(mu_);
  for (auto it = events_.rbegin(); it != events_.rend() && out.size() < f.limit; ++it) {
    const alerting::Event& e = it->event->event;
    if ((!f.stream.empty() && e.stream != f.stream) ||
        (!f.pattern.empty() && e.pattern != f.pattern) ||
        (!f.library.empty() && e.library != f.library) || (f.since_ns && e.end_ns <= *f.since_ns))
      continue;
    out.push_back(it->event);
  }
  return out;
}

std::shared_ptr<const StoredEvent> EventStore::find(std::string_view id) const {
  const std::shared_lock lock(mu_);
  for (auto it = events_.rbegin(); it != events_.rend(); ++it)
    if (it->event->event.id == id) return it->event;
  return nullptr;
}

std::vector<std::shared_ptr<const StoredEvent>> EventStore::all() const {
  const std::shared_lock lock(mu_);
  std::vector<std::shared_ptr<const StoredEvent>> out;
  out.reserve(events_.size());
  for (const Kept& k : events_) out.push_back(k.event);
  return out;
}

std::size_t EventStore::size() const {
  const std::shared_lock lock(mu_);
  return events_.size();
}

std::size_t EventStore::bytes() const {
  const std::shared_lock lock(mu_);
  return bytes_;
}

std::uint64_t EventStore::evicted() const {
  const std::shared_lock lock(mu_);
  return evicted_;
}

// --- EventRecorder

std::size_t EventRecorder::context_for(std::uint64_t length) const {
  return static_cast<std::size_t>(
      std::min<std::uint64_t>(context_, std::max<std::uint64_t>(8, length / 2)));
}

const std::string& EventRecorder::version_of(const kernels::PatternRef& pattern) {
  auto it = versions_.find(pattern.get());
  if (it != versions_.end() && it->second.first.lock() == pattern) return it->second.second;
  // Definitions nobody holds any more go first (their address may be reused).
  std::erase_if(versions_, [](const auto& kv) { return kv.second.first.expired(); });
  auto& entry = versions_[pattern.get()];
  entry = {pattern, pattern_version(*pattern)};
  return entry.second;
}

void EventRecorder::record(const std::vector<alerting::SharedEvent>& events,
                           const std::vector<kernels::PatternRef>& patterns) {
  if (!store_.enabled()) return;
  std::vector<std::shared_ptr<const StoredEvent>> kept;
  kept.reserve(events.size());
  for (std::size_t k = 0; k < events.size(); ++k) {
    if (!patterns[k]) continue;  // no match of its (never so: Pipeline::patterns_of)
    const alerting::Event& e = *events[k];
    auto s = std::make_shared<StoredEvent>();
    s->event = e;
    s->pattern = patterns[k];
    s->pattern_version = version_of(patterns[k]);
    s->dims = patterns[k]->dims;
    const std::size_t context = context_for(e.end_index - e.start_index + 1);
    // Stream mode holds more before the match: SPRING's replay reaches back that far when a
    // later report reset cells of the match's path (docs/spec.md §7).
    std::uint64_t before = context;
    if (patterns[k]->params.mode == kernels::Mode::stream)
      before = std::max(before, explain::stream_samples_before(patterns[k]->length()));
    const std::uint64_t from = e.start_index >= before ? e.start_index - before : 0;
    if (auto segment = history_.range(e.stream, from, e.end_index + context)) {
      s->dims = segment->dims;
      s->first_index = segment->first_index;
      s->segment = std::move(segment->values);
      s->segment_times_ns = std::move(segment->times_ns);
    } else {
      s->first_index = e.start_index;
    }
    const std::uint64_t held_to = s->first_index + s->segment_times_ns.size();  // exclusive
    s->segment_partial =
        s->segment_times_ns.empty() || s->first_index > e.start_index || held_to <= e.end_index;
    kept.push_back(std::move(s));
  }
  store_.add(std::move(kept));
}

}  // namespace warpwatch::service
