// The streams the daemon knows (declared in the configuration, or auto-created), the
// admission decision for each incoming message, the rejection counters of docs/spec.md §6 and
// their rate-limited log lines. Thread-safe: every ingest thread shares one registry.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "warpwatch/base/stream_def.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/validator.hpp"

namespace warpwatch::stream {

// The log's rate limit (docs/operations.md): distinct ids without a stream that get a log
// budget of their own; the others share one per reason.
inline constexpr std::size_t max_log_keys = 1024;

struct RegistryOptions {
  bool auto_create = false;              // accept undeclared ids, creating their streams
  std::size_t max_auto_streams = 10000;  // auto-created streams at most (declared not counted)
  std::size_t auto_dims = 1;             // dims of an auto-created stream
  std::int64_t auto_period_ns = 1'000'000'000;  // nominal period of an auto-created stream
  std::chrono::steady_clock::duration log_interval = std::chrono::seconds(10);
  // Per-stream ingest rate limit (docs/ingest.md §10): samples a second
  // per stream, as a token bucket of max_burst samples (0 = one second's worth, at least
  // 1); 0 = unlimited.
  double max_rate_hz = 0.0;
  double max_burst = 0.0;
};

// A token bucket: `burst` samples at most, refilled at `rate` a second. Starts full.
class RateBucket {
 public:
  using TimePoint = std::chrono::steady_clock::time_point;
  // How many of `n` samples may pass at `now` (the first ones); their tokens are taken.
  std::uint64_t take(std::uint64_t n, double rate, double burst, TimePoint now);

 private:
  double tokens_ = 0.0;
  std::optional<TimePoint> refilled_;  // nullopt: never used (full)
};

// The decision for one message.
struct Admit {
  std::optional<RejectReason> rejected;  // nullopt: accepted
  std::string detail;                    // why it was rejected (empty when accepted)
  StreamRef stream;                      // the stream, when the id has one (also on wrong_dims)
  bool created = false;                  // this call auto-created the stream
  std::uint64_t samples = 0;             // accepted: how many of the first samples may pass

  bool ok() const { return !rejected; }
};

struct StreamCounters {
  StreamRef stream;  // the registry's definition of the stream
  bool declared = false;
  std::uint64_t messages = 0;          // admitted messages
  std::uint64_t accepted_samples = 0;  // as reported by count_accepted()
  RejectCounts rejected;
  RateBucket rate;  // the stream's ingest rate limit (RegistryOptions::max_rate_hz)
};

struct RegistrySnapshot {
  RejectCounts rejected;  // all rejections, including those of ids that have no stream
  std::uint64_t messages = 0;
  std::uint64_t accepted_samples = 0;
  std::uint64_t log_lines = 0;          // calls of the log hook
  std::uint64_t log_suppressed = 0;     // rejections that the rate limit kept out of the log
  std::vector<StreamCounters> streams;  // sorted by id
};

// What redeclare() changed. A changed stream keeps its counters; its validation and
// matching start anew (its sample indices restart at 0).
struct StreamChanges {
  struct Changed {
    StreamRef before, after;
  };
  std::vector<StreamRef> added;  // newly declared ids
  std::vector<Changed> changed;  // same id, other dims or nominal period
  std::vector<std::string>
      removed;  // declared no longer, or auto-created while auto-creation is now off
  bool empty() const { return added.empty() && changed.empty() && removed.empty(); }
};

class StreamRegistry {
 public:
  // Receives one line's worth: the stream as it may be printed (ids that are not valid
  // stream ids are escaped and shortened), the reason, and a detail that ends with
  // "(N more since the last line)" when the rate limit held back N rejections.
  using LogHook =
      std::function<void(std::string_view stream, RejectReason reason, std::string_view detail)>;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // Throws std::invalid_argument for an invalid or duplicate id, or dims outside 1..64,
  // or a nominal period <= 0, declared or auto_period_ns (the configuration refuses those
  // first, with a location).
  explicit StreamRegistry(const std::vector<StreamDef>& declared, RegistryOptions options = {},
                          LogHook log = {}, Clock clock = std::chrono::steady_clock::now);

  // A configuration reload: `declared` replaces the declared streams, and the admission
  // options (auto_create, max_auto_streams, auto_dims, auto_period_ns) are replaced;
  // log_interval and the log's rate-limit state stay. An auto-created id that is now
  // declared becomes a declared stream (changed if its dims differ); auto-created streams
  // are removed when auto-creation is turned off. Throws std::invalid_argument as the
  // constructor does, before changing anything.
  StreamChanges redeclare(const std::vector<StreamDef>& declared, const RegistryOptions& options);

  // Decides whether a message for `id` whose samples have `dims` components is accepted,
  // in this order: invalid_stream_id, then for a known stream wrong_dims; for an unknown
  // one unknown_stream (auto-creation off), too_many_streams, wrong_dims (against
  // auto_dims; nothing is created), else the stream is created; then, with a rate limit
  // (max_rate_hz), rate_limited when none of the message's `samples` may pass, and when
  // only the first Admit::samples may, the rest are counted as rate_limited. A rejection is
  // counted and offered to the log here; the caller must not count it again.
  Admit admit(std::string_view id, std::size_t dims, std::uint64_t samples = 1);

  // Counts `count` rejections for `reason` (decode errors, oversized messages, samples
  // the validator dropped) and offers one log line. An id that has no stream is counted
  // in the totals only, so that random ids cannot grow memory. The log's budget is kept
  // per (reason, id); for an id without a stream, per (reason, log_key) when the caller
  // names one (the peer, e.g. "peer 127.0.0.1": input that carries no usable id).
  void reject(std::string_view id, RejectReason reason, std::string_view detail,
              std::uint64_t count = 1, std::string_view log_key = {});
  void count_accepted(std::string_view id, std::uint64_t samples);

  // The dims a message for `id` must have: the stream's, auto_dims for an id that would
  // be auto-created, nullopt when it would be refused (e.g. as a text-decoding hint).
  std::optional<std::size_t> expected_dims(std::string_view id) const;

  // A stream a checkpoint restores: the registry's definition when it has the id (declared
  // or created already); otherwise the stream is auto-created as a first message would
  // create it, when that message would be admitted (a valid id, auto-creation on, under
  // max_auto_streams, `def` the auto-created streams' dims and period). Null, with the
  // reason in `why`, when neither holds; the caller compares the definition it gets.
  StreamRef restore(const StreamDef& def, std::string& why);
  // Forgets an auto-created stream whose state went to another instance (its counters go
  // with it); a declared stream stays.
  void forget(std::string_view id);

  // The stream's definition (declared or auto-created), null when the id has none.
  StreamRef find(std::string_view id) const;

  RegistrySnapshot snapshot() const;

 private:
  struct LogState {
    std::chrono::steady_clock::time_point last;
    std::uint64_t suppressed = 0;
    bool streamless = false;  // counted in streamless_log_keys_
  };
  // Not a valid stream id (it holds a NUL byte): the shared entry beyond max_log_keys.
  static constexpr std::string_view others_log_key{"\0others", 7};
  struct PendingLine {
    std::string stream, detail;
    RejectReason reason;
  };

  // The *_locked functions run with mu_ held. count_locked returns the line to log, if any, which
  // the caller passes to the hook after unlocking (a hook that logs slowly must not hold up
  // ingest).
  std::optional<PendingLine> count_locked(std::string_view id, StreamCounters* stream,
                                          RejectReason reason, std::string_view detail,
                                          std::uint64_t count, std::string_view log_key = {});
  // The log's rate-limit entry for (key, reason), and whether it is new.
  std::pair<LogState*, bool> log_state_locked(std::string_view key, bool has_stream,
                                              RejectReason reason,
                                              std::chrono::steady_clock::time_point now);
  void forget_log_keys_locked(std::string_view id);
  StreamCounters* find_locked(std::string_view id);
  StreamCounters& create_auto_locked(std::string_view id);  // counted in auto_created_
  static void check_declarations(const std::vector<StreamDef>& declared,
                                 const RegistryOptions& options);
  void emit(std::optional<PendingLine> line) const;

  RegistryOptions options_;
  LogHook log_;
  Clock clock_;
  mutable std::mutex mu_;  // one lock per message, not per sample: cheap enough
  // Hashed: three lookups a message (expected dims, admission, accepted count).
  std::unordered_map<std::string, StreamCounters, StreamIdHash, std::equal_to<>> streams_;
  std::size_t auto_created_ = 0;
  RegistrySnapshot totals_;  // streams left empty; filled by snapshot()
  // The log's rate limit per (id, reason): a stream's id, or the id of a message that names
  // no stream (an unknown or invalid id, a raw text's first frame, a line's measurement).
  // Ids without a stream hold at most max_log_keys entries (idle ones are swept first);
  // beyond that they share one entry per reason, others_log_key.
  std::map<std::pair<std::string, RejectReason>, LogState> log_state_;
  std::size_t streamless_log_keys_ = 0;
};

}  // namespace warpwatch::stream
