// The Kafka ingest source (docs/ingest.md §6): a member of a consumer group (librdkafka's
// high-level consumer) on a thread of its own. A message's key is its stream id and its
// value the samples (a frame, text, JSON, or any of them, as an MQTT payload); the
// partitions the group assigns to this member are its streams.
//
// Backpressure: Kafka keeps what is not read, so nothing is dropped for a full queue.
// While the hub has no room (or the pipeline paused the source) the assigned partitions
// are paused (rd_kafka_pause_partitions: nothing more is fetched; what was fetched before
// is delivered, an overshoot of the queue as any waiting source makes) and the source goes
// on serving the group (rebalances, heartbeats) until there is room; they resume where
// they stopped.
//
// State (docs/ingest.md §6): with a KafkaStateStore (the pipeline's matching state), the
// source keeps a changelog, the compacted topic `<group_id>-state` with the input's
// partition count, keyed by stream id, each value a stream's state with the position it was
// cut at. A cut (every commit_interval, and when partitions are revoked) asks the store, on
// this thread (no delivery under way), for the state of every stream of the partitions after
// the samples of every message handed to the hub so far, produces one record per stream to
// the changelog's partition of the same number, waits until Kafka has them all, and only then
// commits the partitions' offsets: offsets are committed only with the state they belong to.
// On assignment the source reads the assigned partitions of the changelog to their ends,
// keeps and restores each stream's latest record, and starts the partition at the oldest of
// their offsets (one offset, but after a cut written in part; without a record: at the
// committed offset, else at the beginning). A failover thus replays exactly the messages
// after the last cut (samples a restored state already holds are refused by timestamp). Without a
// store, a cut only commits the offsets.
//
// Rejected messages: one without a key (counted as no_key, and in the hub as
// invalid_stream_id), one whose JSON value names another stream ("stream": "<id>" in the
// object or an element, counted as stream_mismatch, in the hub as invalid_stream_id); a
// consumer error (a partition that cannot be read) is counted as consume_error and logged.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/kafka_options.hpp"
#include "warpwatch/stream/source.hpp"

struct rd_kafka_s;                       // librdkafka's rd_kafka_t
struct rd_kafka_message_s;               // rd_kafka_message_t
struct rd_kafka_topic_partition_list_s;  // rd_kafka_topic_partition_list_t

namespace warpwatch::stream {

// Where a stream's state was cut: its input partition, and the offset of the first message
// whose samples it does not hold.
struct KafkaPosition {
  std::int32_t partition = 0;
  std::int64_t offset = 0;
  friend bool operator==(const KafkaPosition&, const KafkaPosition&) = default;
};

// The pipeline's side of a Kafka source's changelog (service/kafka_state.hpp implements it
// with the checkpoint's stream records). Called on the source's thread; cut() and restore()
// block until the pipeline's scheduler has served them.
class KafkaStateStore {
 public:
  virtual ~KafkaStateStore() = default;
  struct Value {
    std::string stream;
    std::string bytes;
  };
  // After matching every queued sample: a changelog value for each of `streams` that the
  // pipeline has, holding its state and its position; with `release` the streams then leave
  // the pipeline (their pending matches travel with the state). nullopt when the pipeline
  // stopped before it could serve the request.
  virtual std::optional<std::vector<Value>> cut(
      const std::vector<std::pair<std::string, KafkaPosition>>& streams, bool release) = 0;
  // The position a changelog value holds; nullopt, with `why`, for a value that is not one.
  virtual std::optional<KafkaPosition> position(std::string_view bytes, std::string& why) const = 0;
  // Restores the values' streams (each as the pipeline can: see Pipeline::import_streams);
  // returns the ids restored, nullopt when the pipeline stopped first.
  virtual std::optional<std::vector<std::string>> restore(std::vector<std::string> values) = 0;
};

// One Kafka source's counters, for /metrics.
struct KafkaCounters {
  std::string name;                       // KafkaSource::describe()
  bool connected = false;                 // KafkaSource::connected()
  std::uint64_t messages = 0;             // messages received (rejected ones included)
  std::uint64_t no_key = 0;               // rejected: no key (no stream id)
  std::uint64_t stream_mismatch = 0;      // rejected: the value names another stream
  std::uint64_t consume_errors = 0;       // errors the consumer reported for a partition
  std::uint64_t partitions_assigned = 0;  // now
  std::uint64_t rebalances = 0;           // assignments and revocations handled
  std::uint64_t lag = 0;                  // messages behind the partitions' ends (last stats)
  bool backpressure = false;              // its partitions are paused for a full queue now
  std::uint64_t pauses = 0;               // times they were paused for a full queue
  std::uint64_t commits_failed = 0;       // offset commits the group coordinator refused
  std::uint64_t cuts = 0;                 // changelog cuts written (records flushed, committed)
  std::uint64_t cuts_failed = 0;          // cuts whose records did not all reach the changelog
  std::uint64_t records_written = 0;      // changelog records produced by the cuts
  std::uint64_t streams_restored = 0;     // streams restored from the changelog
  std::uint64_t records_behind = 0;       // changelog records behind their partition's latest cut
};

// What a Kafka source hands the hub for a message with key `key` and value `value`:
// checked as the header says, then offered as `format`. Returns the rejection's reason
// ("no_key", "stream_mismatch") or "" when offered. Free of a broker, so that tests and a
// fuzz target call what the source calls.
std::string_view deliver_kafka_message(IngestHub& hub, SourceId source, PayloadFormat format,
                                       std::string_view key, bool has_key,
                                       std::span<const std::byte> value, std::int32_t partition,
                                       std::int64_t offset);

class KafkaSource final : public ThreadedSource {
 public:
  // Checks the options (std::invalid_argument: no brokers, topic or group, a property
  // librdkafka refuses) and creates the consumer (std::runtime_error when librdkafka
  // cannot); joins the group on start(). Registers with the hub as an Overflow::wait source.
  // Its log lines (librdkafka's included) go to `log`, each starting with describe().
  // `state` (may be null: offsets only) must outlive the source.
  KafkaSource(KafkaSourceOptions options, IngestHub& hub, KafkaLog log = {},
              KafkaStateStore* state = nullptr);
  ~KafkaSource() override;

  // "kafka TOPIC group GROUP at BROKERS"
  std::string describe() const override;
  // True while the group membership is up: the coordinator is known and this member holds
  // its assignment (librdkafka's statistics, every second; false from a lost assignment or
  // the stop until the next statistics say otherwise).
  bool connected() const override { return connected_.load(); }
  KafkaCounters counters() const;
  // The partitions assigned now, and the streams seen on each of them.
  std::map<std::int32_t, std::set<std::string>> partition_streams() const;

 private:
  using Clock = std::chrono::steady_clock;
  void run(std::stop_token stop) override;
  void handle(const rd_kafka_message_s& message);
  // The group changed this member's assignment (on the source's thread, in a poll).
  void on_rebalance(int err, rd_kafka_topic_partition_list_s* partitions);
  void assigned(rd_kafka_topic_partition_list_s* partitions);
  void revoked(rd_kafka_topic_partition_list_s* partitions);
  // Pauses or resumes every assigned partition (backpressure); no-op when already so.
  void hold(bool on);
  // A cut of `partitions` (all assigned ones when empty): the changelog records of their
  // streams (those whose partition moved since its last cut; all of them are released with
  // `release`), then the commit of their offsets; `sync` waits for the coordinator's answer.
  // False when the records did not all reach the changelog (nothing is committed then).
  bool cut(std::set<std::int32_t> partitions, bool release, bool sync);
  // The streams of these partitions leave the pipeline with nothing written (their next
  // owner replays from the last cut): a lost assignment, or a revocation whose cut failed.
  void release(const std::set<std::int32_t>& partitions);
  // Commits the next offsets of `partitions` that moved since the last commit.
  void commit(const std::set<std::int32_t>& partitions, bool sync);
  // Before the assignment of `partitions`: restores their streams from the changelog and
  // sets each one's start offset (the latest cut's) in the list.
  void restore(rd_kafka_topic_partition_list_s* partitions);
  // Whether the changelog topic exists with the input's partition count (asked until the
  // cluster answers, then kept); nullopt while unknown.
  std::optional<bool> changelog_usable();
  // Produces `values` (each to the changelog partition of its stream's) and waits until
  // Kafka has them (30 s at most); false when one did not get there.
  bool write_changelog(const std::vector<std::pair<std::int32_t, KafkaStateStore::Value>>& values);
  void on_statistics(std::string_view json);
  void log(KafkaLogLevel level, std::string_view text) const;

  KafkaSourceOptions options_;
  IngestHub& hub_;
  KafkaStateStore* state_;
  std::string changelog_;                // <group_id>-state
  KafkaClientContext context_;           // the consumer's opaque: its log, and this
  KafkaClientContext producer_context_;  // the changelog producer's: its log, and this
  SourceId source_ = 0;
  std::unique_ptr<rd_kafka_s, void (*)(rd_kafka_s*)> consumer_;
  std::unique_ptr<rd_kafka_s, void (*)(rd_kafka_s*)> producer_;  // the changelog's (with state)
  std::optional<bool> changelog_usable_;                         // checked at the first assignment
  std::atomic<std::uint64_t> changelog_failed_{0};  // delivery reports of failed records

  // The source thread's state.
  std::map<std::int32_t, std::int64_t> next_offset_;  // assigned partition -> after the last
  std::map<std::int32_t, std::int64_t> committed_;    // what the last commit sent
  bool holding_ = false;
  Clock::time_point next_commit_;
  Clock::time_point last_error_line_{};
  std::uint64_t errors_unlogged_ = 0;
  Clock::time_point last_move_line_{};  // a stream seen on another partition: 1 line / 10 s

  mutable std::mutex streams_mu_;  // partition_streams() reads it from other threads
  std::map<std::int32_t, std::set<std::string>> streams_;  // assigned partition -> streams

  std::atomic<bool> connected_{false}, backpressure_{false};
  std::atomic<std::uint64_t> messages_{0}, no_key_{0}, stream_mismatch_{0}, consume_errors_{0},
      partitions_assigned_{0}, rebalances_{0}, lag_{0}, pauses_{0}, commits_failed_{0}, cuts_{0},
      cuts_failed_{0}, records_written_{0}, streams_restored_{0}, records_behind_{0};
};

}  // namespace warpwatch::stream
