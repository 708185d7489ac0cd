// Where every source delivers: decode (frame.hpp), admit (registry.hpp), validate
// (validator.hpp), then queue the valid samples per stream until the scheduler takes
// them, at most a batch's worth at a time. The hub is the only part of ingest that talks
// to the registry. Ingest threads never wait on matching: take() moves samples out under
// a short lock.
//
// The queues are bounded (docs/ingest.md §10): in bytes in total and per
// stream, a queued sample costing 8 + 4 x dims bytes. When they are full, a source whose
// transport can push back (ZeroMQ PULL, a replay) waits for room before it reads its next
// message (wait_for_room), so that the transport's own buffers fill and producers block;
// a source that cannot push back (ZeroMQ SUB, MQTT) goes on reading and its messages for a
// full queue are dropped whole and counted as queue_full (the newest input is dropped, what
// is queued is kept). A waiting source overshoots the limit by at most the message it was
// reading, so the queued bytes stay below total_bytes plus one message per source.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/validator.hpp"

namespace warpwatch::stream {

// When a run of one stream's queued samples arrived: the time its first message was queued
// (messages from one source within 10 ms of a run's first share the run).
struct Arrival {
  std::size_t samples = 0;
  std::chrono::steady_clock::time_point at;
};

// One stream's queued samples: count = times_ns.size(), values count x stream->dims.
struct QueuedSamples {
  StreamRef stream;  // the registry's definition when the samples were admitted
  std::vector<float> values;
  std::vector<std::int64_t> times_ns;
  // Their arrivals, oldest first: IngestBatch::arrivals_of(*this).
  std::size_t first_arrival = 0, arrival_runs = 0;
};

struct IngestBatch {
  std::vector<QueuedSamples> streams;  // streams with new samples, sorted by id
  std::vector<std::string> ended;      // streams whose finite input ended (replay done)
  std::size_t samples = 0;
  std::vector<Arrival> arrivals;  // every stream's runs (one vector a round, not one a stream)

  // The runs of `q`'s samples in arrival order; their samples add up to q's count.
  std::span<const Arrival> arrivals_of(const QueuedSamples& q) const {
    return std::span<const Arrival>(arrivals).subspan(q.first_arrival, q.arrival_runs);
  }
};

struct QueueLimits {
  std::size_t max_message_bytes = 1 << 20;  // a larger payload is rejected (oversized_message)
  std::size_t total_bytes = 256 << 20;      // all streams' queued samples
  std::size_t stream_bytes = 16 << 20;      // one stream's queued samples
};

// The bytes a queued sample of `dims` components is accounted for.
constexpr std::size_t queued_sample_bytes(std::size_t dims) {
  return sizeof(std::int64_t) + sizeof(float) * dims;
}

// What a source does when the queue is full.
enum class Overflow {
  wait,  // waits for room before reading on (its transport pushes back on producers)
  drop,  // goes on reading; input for a full queue is dropped and counted as queue_full
};

using SourceId = std::uint32_t;

// One source's share of the backlog, for /metrics.
struct SourceBacklog {
  std::string name;  // Source::describe()
  Overflow overflow = Overflow::wait;
  std::uint64_t samples = 0;          // queued now, not yet taken for matching
  std::uint64_t bytes = 0;            // the same, as accounted
  double oldest_age_seconds = 0.0;    // since the oldest of them was queued; 0 when none
  bool waiting = false;               // waiting for room now
  std::uint64_t waits = 0;            // times it had to wait for room
  std::uint64_t dropped_samples = 0;  // queue_full drops (Overflow::drop)
  std::uint64_t dropped_messages = 0;
};

struct Backlog {
  std::uint64_t samples = 0, bytes = 0;
  std::size_t streams = 0;  // streams with queued samples
  double oldest_age_seconds = 0.0;
  QueueLimits limits;
  std::vector<SourceBacklog> sources;  // in the order they were added
};

class IngestHub {
 public:
  using Clock = std::chrono::steady_clock;

  IngestHub(StreamRegistry& registry, QueueLimits limits);

  // A source that delivers here, for the per-source backlog and its overflow policy.
  SourceId add_source(std::string name, Overflow overflow);

  // A message [stream id][payload] from a socket, its payload read as `format` says.
  // Thread-safe.
  void offer_message(SourceId source, std::string_view id, std::span<const std::byte> payload,
                     PayloadFormat format = PayloadFormat::frame_or_text);
  // Input rejected before it became samples (a ZeroMQ message of other than [stream
  // id][payload], bad lines of line protocol): `count` of them counted under `reason` for
  // `id` (the stream's, or "") with `detail`, the first one's description; `log_key` (the
  // peer) keys the log's budget of input without an id (StreamRegistry::reject). Thread-safe.
  void offer_rejected(std::string_view id, RejectReason reason, std::string_view detail,
                      std::uint64_t count = 1, std::string_view log_key = {});
  // Samples that need no decoding (the replay source). Thread-safe.
  void offer_samples(SourceId source, std::string_view id, const Samples& samples);
  // The stream's input is finite and has ended: its pending match candidates are to be
  // reported once its last samples are matched (docs/spec.md §3.1).
  void end_stream(std::string_view id);

  // For Overflow::wait sources, before reading the next message: true at once while there
  // is room; otherwise waits until there is, `deadline` passes (false) or `stop` is
  // requested (false).
  bool wait_for_room(SourceId source, const std::stop_token& stop, Clock::time_point deadline);
  bool has_room() const;
  // Whether at most half of total_bytes is queued and no stream's queue is full: a source
  // that stops its transport's delivery when the queue is full (Kafka's paused partitions,
  // which each take a fetch to start again) starts it again only then, not at each sample
  // taken.
  bool half_empty() const;

  // Takes at most `max_samples` queued samples (at least one per stream taken), spread
  // fairly over the streams that have some: each gets an equal share, what a stream does
  // not use goes to the others, and the streams served first rotate from one call to the
  // next so that none waits behind the others under overload. Also every ended stream
  // whose samples are all taken.
  IngestBatch take(std::size_t max_samples);
  // Everything queued (shutdown and reload use it).
  IngestBatch take_all();
  // A batch taken before, whose samples are no longer needed: its vectors become the
  // spares of their streams' queues (up to limits_.total_bytes of them in all), so that
  // the next rounds allocate nothing. Optional; a batch not given back is just freed.
  void recycle(IngestBatch&& batch);
  std::size_t queued_samples() const;
  std::size_t queued_samples(std::string_view id) const;  // one stream's (0: none, or no such)

  // A configuration reload's new stream declarations (StreamRegistry::redeclare), applied
  // between two messages: none is admitted under the old declarations and queued under
  // the new ones. Changed and removed streams start validation anew. Returns the changes
  // and what was queued under the old declarations, which the caller matches with the
  // old streams before it changes the Matcher's.
  struct Redeclared {
    StreamChanges changes;
    IngestBatch queued;
  };
  Redeclared redeclare(const std::vector<StreamDef>& declared, const RegistryOptions& options);
  // A checkpoint's view of the validators (docs/operations.md §4): the last
  // timestamp the stream's validator accepted (nullopt: none, or no such stream); a restored
  // stream's validator going on after `last_ns` (StreamValidator::continue_after); and a
  // stream handed to another instance, its validator and queue dropped (its queued samples
  // are the caller's to have matched first).
  std::optional<std::int64_t> last_timestamp_ns(std::string_view id) const;
  void continue_after(const StreamRef& stream, std::int64_t last_ns);
  void forget_stream(std::string_view id);
  // Waits until `samples` are queued, a stream ended, or `deadline` passes.
  void wait(std::size_t samples, Clock::time_point deadline);
  // Wakes a wait() early (shutdown).
  void notify();

  Backlog backlog() const;

 private:
  // A run of queued samples from one source (for the per-source backlog and its age).
  struct Segment {
    SourceId source;
    std::size_t samples;
    Clock::time_point queued_at;
  };
  // One stream's queue: vectors, appended at the back and taken from the front (`head`:
  // the samples before it are taken). A round that takes a whole queue takes its vectors
  // (no copy); the queue's next message takes its spares, which recycle() refills with a
  // taken batch's vectors once the scheduler is done with them: in a steady state no
  // sample is copied and nothing is allocated between a message and the matcher. An idle
  // queue holds no memory but its spares (all spares within limits_.total_bytes).
  // (Deques, copied into fresh vectors, cost 49 ms a round of a million samples over
  // 10,000 streams.)
  struct Queue {
    StreamRef stream;
    std::vector<float> values;
    std::vector<std::int64_t> times_ns;
    std::size_t head = 0;
    std::vector<float> spare_values;  // empty, with capacity, or none
    std::vector<std::int64_t> spare_times_ns;
    std::deque<Segment> segments;
    std::size_t size() const { return times_ns.size() - head; }
    std::size_t bytes() const { return size() * queued_sample_bytes(stream->dims); }
    std::size_t spare_bytes() const { return capacity_bytes(spare_values, spare_times_ns); }
  };
  // The memory a pair of sample vectors holds (their capacity).
  static std::size_t capacity_bytes(const std::vector<float>& values,
                                    const std::vector<std::int64_t>& times_ns) {
    return values.capacity() * sizeof(float) + times_ns.capacity() * sizeof(std::int64_t);
  }
  struct SourceState {
    SourceBacklog counters;
  };

  // Queues the valid ones of the first admit.samples of `offered`.
  void accept(SourceId source, const Samples& offered, const Admit& admit);
  // Moves the first `n` samples of `q` into `out`, and their arrival runs into `batch`'s
  // (mu_ held).
  void take_from(Queue& q, std::size_t n, QueuedSamples& out, IngestBatch& batch);
  // Makes the (emptied) vectors `q`'s spares when it has none and the spares' budget
  // allows; returns false, leaving them, otherwise.
  bool keep_as_spares_locked(Queue& q, std::vector<float>& values,
                             std::vector<std::int64_t>& times_ns);
  bool has_room_locked() const;
  bool holds_samples_locked(std::string_view id) const;
  bool stream_full_locked(std::string_view id) const;
  void drop(SourceId source, std::string_view id, std::size_t samples);
  IngestBatch take_locked(std::size_t max_samples);

  StreamRegistry& registry_;
  QueueLimits limits_;
  // Shared by every message from admission to queueing, exclusive for redeclare().
  std::shared_mutex declarations_mu_;
  mutable std::mutex mu_;
  std::condition_variable cv_;        // the scheduler: wanted_samples_ queued, or an end
  std::condition_variable_any room_;  // waiting sources: room made
  // A stream's validation state and queue, from its first message until a reload changes
  // or removes the stream (erasing and rebuilding 10,000 queues a round cost more than the
  // samples); an empty queue holds no memory but its spares.
  struct Slot {
    explicit Slot(std::size_t dims) : validator(dims) {}
    StreamValidator validator;
    Queue queue;
  };
  Slot* find_slot_locked(std::string_view id) const;
  Slot& slot_locked(const StreamRef& stream);  // found, or made
  void erase_slot_locked(std::string_view id);

  // By id: take() serves the streams in this order. The index finds a message's slot in
  // O(1); its keys view the map's (map nodes never move).
  std::map<std::string, Slot, std::less<>> slots_;
  std::unordered_map<std::string_view, Slot*, StreamIdHash, std::equal_to<>> index_;
  std::size_t queued_streams_ = 0;  // slots whose queue holds samples
  // wait(): how many are waiting and the fewest samples one of them waits for, so that
  // accept() wakes the scheduler when that many are queued, not on every message (a
  // wake-up per message was a system call per message).
  std::size_t waiters_ = 0;
  std::size_t wanted_samples_ = 0;
  std::string next_first_;  // take(): the stream served first next time (lower bound)
  std::vector<std::string> ended_;
  std::vector<SourceState> sources_;
  std::vector<Arrival> spare_arrivals_;  // a recycled batch's, for the next take
  std::size_t queued_samples_ = 0, queued_bytes_ = 0;
  std::size_t spare_bytes_ = 0;   // the queues' spare vectors (at most limits_.total_bytes)
  std::size_t streams_full_ = 0;  // queues at or over limits_.stream_bytes
};

}  // namespace warpwatch::stream
