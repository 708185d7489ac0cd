// The last events the daemon published (daemon/service/store/), each with the samples it
// matched and the pattern as matched: what `GET /api/v1/events` and `/events/{id}` serve.
//
// Bounded by count and by bytes (either reached: the oldest go first, counted in
// evicted()). Thread-safe: written by the scheduler's thread, read by any; readers get
// shared_ptr<const StoredEvent>, so a reader holds the lock only while it picks.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpwatch/alerting/event.hpp"
#include "warpwatch/alerting/sink_payload.hpp"
#include "warpwatch/kernels/types.hpp"

namespace warpwatch::service {

struct StoredEvent {
  alerting::Event event;  // as published
  std::size_t dims = 1;
  std::uint64_t first_index = 0;  // stream index of segment's first sample
  // [start - context, end + context] as far as the history held it when the event was
  // published (the samples after it that arrive later are not added), row-major.
  std::vector<float> segment;
  std::vector<std::int64_t> segment_times_ns;
  // The history no longer held every matched sample [start, end] (a history shorter than
  // the match, or off): the segment is what was left of it.
  bool segment_partial = false;
  // The pattern as it was matched (values and params), shared by the events of one
  // pattern version; a reload that changes or removes the pattern leaves it as it was.
  kernels::PatternRef pattern;
  std::string pattern_version;  // pattern_version(*pattern)
};

// 16 hex digits: the first 8 bytes of the SHA-256 of the pattern's definition (dims,
// values, times and its matching parameters as pattern_json has them, not its id or
// library): equal definitions have equal versions, on every host.
std::string pattern_version(const kernels::PatternDef& pattern);

struct EventFilter {
  std::string stream, pattern, library;  // "" = any; otherwise equal
  std::optional<std::int64_t> since_ns;  // events whose end_ns is after it
  std::size_t limit = 100;
};

struct EventStoreLimits {
  std::size_t max_events = 10000;                 // 0: off
  std::size_t max_bytes = std::size_t{64} << 20;  // 0: off
};

class EventStore {
 public:
  explicit EventStore(EventStoreLimits limits = {});

  bool enabled() const { return limits_.max_events > 0 && limits_.max_bytes > 0; }

  // --- the scheduler's thread
  // The events of one publish, oldest first; the oldest kept go as the bounds require (an
  // event larger than max_bytes alone is not kept, and counted as evicted).
  void add(std::vector<std::shared_ptr<const StoredEvent>> events);

  // --- any thread
  std::vector<std::shared_ptr<const StoredEvent>> list(
      const EventFilter& filter) const;  // newest first
  // By event id; the newest when two rules reported one occurrence (they share its id).
  std::shared_ptr<const StoredEvent> find(std::string_view id) const;
  // Every event kept, oldest first (the checkpoint).
  std::vector<std::shared_ptr<const StoredEvent>> all() const;
  std::size_t size() const;
  std::size_t bytes() const;
  std::uint64_t evicted() const;

  // What one event counts for max_bytes: its strings, segment and pattern (a pattern
  // shared by several events counts in each: an upper bound of the memory held).
  static std::size_t bytes_of(const StoredEvent& event);

 private:
  struct Kept {
    std::shared_ptr<const StoredEvent> event;
    std::size_t bytes = 0;
  };
  EventStoreLimits limits_;
  mutable std::shared_mutex mu_;
  std::deque<Kept> events_;  // oldest first
  std::size_t bytes_ = 0;
  std::uint64_t evicted_ = 0;
};

// What the store keeps of each event as it is published (the scheduler's thread): the
// segment cut from the history, the pattern's version (computed once per definition).
class RecentHistory;
class EventRecorder {
 public:
  EventRecorder(EventStore& store, const RecentHistory& history, std::size_t context_samples)
      : store_(store), history_(history), context_(context_samples) {}
  // `events` as numbered, each with the pattern it was matched with.
  void record(const std::vector<alerting::SharedEvent>& events,
              const std::vector<kernels::PatternRef>& patterns);
  // Samples each side of a match of `length` samples.
  std::size_t context_for(std::uint64_t length) const;

 private:
  const std::string& version_of(const kernels::PatternRef& pattern);
  EventStore& store_;
  const RecentHistory& history_;
  std::size_t context_;
  // The versions computed, by definition (the Matcher's): dropped when it is the only holder.
  std::unordered_map<const kernels::PatternDef*,
                     std::pair<std::weak_ptr<const kernels::PatternDef>, std::string>>
      versions_;
};

// The JSON the API serves: the event's fields as alerting::to_json has them, plus
// "pattern_version", "segment_partial"; with_segment adds "segment" {first_index, dims,
// times_ns, values (a row a sample)} and "pattern" (pattern_json).
nlohmann::json to_json(const StoredEvent& event, bool with_segment);
// {"id", "library", "version", "dims", "values" (a row a sample), "times" (when it has
// them), "metric", "mode", "cost", "band", "threshold", "window", "hop", "normalize", and
// the metric's own parameters (gamma, nu, ...)}.
nlohmann::json pattern_json(const kernels::PatternDef& pattern);
// The inverse of to_json(event, true) and pattern_json (the checkpoint keeps events so);
// throws nlohmann::json::exception or std::invalid_argument on a document they did not write.
StoredEvent stored_event_from_json(const nlohmann::json& j);
kernels::PatternDef pattern_from_json(const nlohmann::json& j);

// The checkpoint's section of the store (checkpoint.hpp: Checkpoint::events): its events
// as CBOR, the patterns once per version; and back, each pattern version shared again.
std::string encode_events(const std::vector<std::shared_ptr<const StoredEvent>>& events);
std::vector<std::shared_ptr<const StoredEvent>> decode_events(std::string_view bytes);

}  // namespace warpwatch::service
