// Each stream's last samples, as the Matcher was given them (daemon/service/store/): what
// `GET /api/v1/streams/{id}/samples` serves, and what an event's segment is cut from when it
// is published (event_store.hpp).
//
// Bounded twice: `samples_per_stream` per stream, and `max_bytes` for all streams together,
// which wins: each stream then keeps max_bytes / streams bytes (planned for a quarter more
// streams than there are, so that a stream coming or going does not reshape every other).
//
// Thread-safe: written by the scheduler's thread (one lock a round), read by any (readers
// copy out under a shared lock).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/stream/ingest_hub.hpp"

namespace warpwatch::service {

// Samples of one stream: times_ns.size() samples from stream index first_index on,
// values row-major (dims a sample).
struct HistorySamples {
  std::size_t dims = 1;
  std::uint64_t first_index = 0;
  std::vector<std::int64_t> times_ns;
  std::vector<float> values;
  std::size_t count() const { return times_ns.size(); }
  friend bool operator==(const HistorySamples&, const HistorySamples&) = default;
};

struct HistoryLimits {
  std::size_t samples_per_stream = 4096;           // 0: off
  std::size_t max_bytes = std::size_t{256} << 20;  // 0: off
};

class RecentHistory {
 public:
  explicit RecentHistory(HistoryLimits limits = {});

  bool enabled() const { return limits_.samples_per_stream > 0 && limits_.max_bytes > 0; }

  // --- the scheduler's thread
  // A round's samples, each stream's in the order the Matcher gets them (one lock).
  void append(std::span<const stream::QueuedSamples> round);
  // One stream's (tests, and the streams restored: their next index first, via reset).
  void append(std::string_view stream, std::size_t dims, std::span<const float> values,
              std::span<const std::int64_t> times_ns);
  // The stream starts over at `samples.first_index + samples.count()`, holding `samples`
  // (a restored stream: what its Matcher snapshot keeps).
  void reset(std::string_view stream, const HistorySamples& samples);
  // The stream is gone (removed, restarted, handed to another daemon): its samples too.
  void drop(std::string_view stream);

  // --- any thread
  // The stream's kept samples with time > since_ns (all when unset), at most `limit`
  // (the oldest of them), oldest first; nullopt for a stream it has none of.
  std::optional<HistorySamples> samples(std::string_view stream,
                                        std::optional<std::int64_t> since_ns,
                                        std::size_t limit) const;
  // Samples [from, to] (stream indices, inclusive) as far as they are kept; nullopt when
  // none of them is.
  std::optional<HistorySamples> range(std::string_view stream, std::uint64_t from,
                                      std::uint64_t to) const;
  // The stream's newest `n` kept samples, oldest first; nullopt for a stream it has none of.
  std::optional<HistorySamples> newest(std::string_view stream, std::size_t n) const;
  std::size_t bytes() const;    // allocated for samples, all streams
  std::size_t streams() const;  // streams with a history

 private:
  struct Ring {
    std::size_t dims = 1;
    std::size_t capacity = 0;         // samples
    std::uint64_t next_index = 0;     // of the stream's next sample
    std::size_t head = 0;             // once full: where the oldest is
    std::vector<std::int64_t> times;  // min(samples had, capacity)
    std::vector<float> values;
    std::size_t count() const { return times.size(); }
    std::uint64_t first_index() const { return next_index - count(); }
    std::size_t slot(std::size_t i) const { return (head + i) % count(); }  // i-th oldest
    std::size_t bytes() const { return times.capacity() * 8 + values.capacity() * 4; }
    void append(std::span<const float> v, std::span<const std::int64_t> t);
    void set_capacity(std::size_t samples);  // the newest `samples` kept
    // The i-th oldest to the n-th oldest (exclusive) into `out`.
    void copy(std::size_t i, std::size_t n, HistorySamples& out) const;
  };
  Ring& ring_of(std::string_view stream, std::size_t dims);  // under the lock
  std::size_t capacity_for(std::size_t dims) const;
  void plan(std::size_t streams);  // the planned stream count; shrinks every ring to fit

  HistoryLimits limits_;
  mutable std::shared_mutex mu_;
  std::unordered_map<std::string, Ring, stream::StreamIdHash, std::equal_to<>> rings_;
  std::size_t planned_ = 0;  // the stream count the capacities are computed for
  std::size_t bytes_ = 0;
};

// {"dims", "first_index", "times_ns": [...], "values": [[...], ...] (a row a sample)}
nlohmann::json to_json(const HistorySamples& samples);

}  // namespace warpwatch::service
