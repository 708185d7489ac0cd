// The Matcher: one interface, several backends (reference, cpu, cuda), drop-in.
//
// A Matcher is given streams and patterns; every pattern is matched against every
// stream of the same dimension (a "pair"). It is then fed batches of new samples per
// stream and returns the raw matches those samples complete (docs/spec.md §3). All matching
// state (SPRING columns and candidates, window tails and candidates) lives inside the
// Matcher and is carried across batches, so any partition of a stream into batches
// gives the same matches. Adding or removing streams and patterns leaves the state of
// every unchanged pair as it was (hot reload relies on it).
//
// This class owns what every backend needs alike: the streams (their shared definitions
// and histories), the patterns, the pairs, window mode's schedule and grouping, and the
// trimming of histories (common/matcher_state.hpp). A backend keeps only its own SIMD or
// device state for stream-mode pairs, and computes window distances, through the
// protected hooks below (faiss GpuIndex.h: public non-virtual methods check, protected
// virtual ones work).
//
// Errors: the public methods throw std::invalid_argument on misuse (unknown or duplicate
// ids, wrong dimensions, invalid patterns). The samples of a chunk are the stream layer's
// to validate (stream/validator.hpp: the one check that drops and counts bad samples):
// process() requires them finite with strictly increasing timestamps, also across chunks,
// and treats a chunk that breaks that as a bug of its caller (WW_ASSERT, errors.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/types.hpp"  // StreamDef, PatternDef, StreamChunk, RawMatch, counters

namespace warpwatch::kernels {

namespace common {
struct StreamState;
struct PatternState;
struct Pair;
struct WindowBatch;
struct SpringLaneState;
struct StreamSubset;
class MatcherState;
class WorkerPool;
}  // namespace common

class SwitchingMatcher;
class ShardedMatcher;
struct StreamSnapshot;  // stream_snapshot.hpp
struct StreamRestore;

class Matcher {
 public:
  virtual ~Matcher();
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  // Backend name for logs and benchmarks ("reference", "cpu", "cuda").
  virtual std::string_view name() const = 0;
  // The backend that ran the last batch ("cpu", "cuda", ...): name(), except under auto with
  // a device, whose batches move between two (switching_matcher.hpp). The daemon sizes its
  // rounds by it (config::batch_samples_for).
  virtual std::string_view running_backend() const { return name(); }

  // A new stream starts at sample index 0. Throws when the id exists or is empty, dims is
  // not 1..64 or the period is not > 0.
  void add_stream(StreamRef stream);
  void add_stream(const StreamDef& stream) { add_stream(stream::make_stream(stream)); }
  // Ends the stream's input: pending candidates are reported (docs/spec.md §3.1 flush).
  std::vector<RawMatch> remove_stream(std::string_view stream_id);
  // A new pattern is paired with every stream of its dimension from that stream's next
  // sample on. Throws on a duplicate id, m < 2, non-finite values, invalid params, or a
  // constant pattern under znorm.
  void add_pattern(PatternRef pattern);
  void add_pattern(const PatternDef& pattern) { add_pattern(make_pattern(pattern)); }
  // Removes the pattern's pairs, reporting their pending candidates.
  std::vector<RawMatch> remove_pattern(std::string_view pattern_id);

  // Feeds one batch (at most one chunk per stream; empty chunks allowed) and returns
  // the matches it completes, ordered by stream, then pattern, then end index. Needs no
  // batch outstanding (below).
  std::vector<RawMatch> process(std::span<const StreamChunk> batch);
  // The same batch in two steps, so that a device computes batch k while the host prepares
  // batch k+1 (the daemon's rounds, the bench): submit() checks the batch and starts it,
  // returning once its samples are copied out of the caller's memory and its device work
  // is queued (the cpu and reference backends do all of the work here); collect() returns
  // the matches of the oldest batch submitted and not yet collected, waiting for it. At
  // most max_outstanding batches may be submitted and not collected; results equal
  // process()'s for any interleaving. Adding or removing streams and patterns and flush()
  // need none outstanding. Both throw std::logic_error when called out of turn.
  static constexpr std::size_t max_outstanding = 2;
  void submit(std::span<const StreamChunk> batch);
  std::vector<RawMatch> collect();
  std::size_t outstanding() const;
  // End of input for every stream: reports every pending candidate (docs/spec.md §3.1), as
  // the daemon's shutdown drain and the end of `warpwatch search` do.
  std::vector<RawMatch> flush();

  // How far each stream is settled (docs/spec.md §5.1), for the ids given, in that order:
  // the oldest start index a match of the stream may still have. Stream-mode pairs: their
  // pending candidate or live cells (the backend's lower_to_live_starts, the hook every
  // backend has for trimming); window-mode pairs: their pending occurrence or the next
  // window; at most the stream's next index. No match starting before it can appear any
  // more. The backend looks at these streams' pairs once per call (the nearest-template
  // filter asks once per batch for the streams it holds matches of). Needs none
  // outstanding (std::logic_error); throws std::invalid_argument for an unknown id.
  std::vector<std::uint64_t> settled_before(std::span<const std::string> stream_ids);

  // One stream's whole state (stream_snapshot.hpp: its definition, next index, kept
  // history, every pair's state), changing nothing. Needs none outstanding; throws
  // std::invalid_argument for an unknown id.
  StreamSnapshot export_stream(std::string_view stream_id) const;
  // The same for several streams at once, in the order given: the backend is asked for all
  // their pairs in one call (the cuda backend downloads each tile once, not once a stream;
  // what a checkpoint of every stream needs).
  std::vector<StreamSnapshot> export_streams(std::span<const std::string> stream_ids) const;
  // Adds the snapshot's stream with its definition, history and next index; a stream of that
  // id already here is replaced (its state dropped, nothing reported). Each pair whose pattern
  // the Matcher has with an equal fingerprint goes on from its saved state (results are then
  // bit-identical to never having stopped); other pairs start fresh, as a pattern added now
  // would. The result says which did what, and why. Needs none outstanding. Throws
  // std::invalid_argument, changing nothing, for a snapshot that does not hold together
  // (sizes, order, indices its history cannot serve: a forged or damaged one). `stream`:
  // the definition object to hold (the registry's, stream_def.hpp), equal to the snapshot's;
  // null: a new one.
  StreamRestore import_stream(const StreamSnapshot& snapshot, StreamRef stream = nullptr);

  bool has_stream(std::string_view id) const;
  bool has_pattern(std::string_view id) const;
  // The definitions in use; null for an unknown id.
  StreamRef find_stream(std::string_view id) const;
  PatternRef find_pattern(std::string_view id) const;
  std::size_t stream_count() const;
  std::vector<std::string> stream_ids() const;  // sorted
  std::size_t pattern_count() const;
  MatcherCounters counters() const;

 protected:
  Matcher();

  using StreamState = common::StreamState;
  using PatternState = common::PatternState;
  using Pair = common::Pair;
  using WindowBatch = common::WindowBatch;

  // --- the backend's hooks. Pairs, patterns and streams stay at their addresses for their
  // lifetime; Pair::handle is the backend's to use (where it keeps the pair's state).

  // A stream arrives, before its pairs / leaves, after its pairs (and their reports): for a
  // backend that keeps streams apart (sharded_matcher.hpp: the shard a stream's pairs go
  // to). The defaults do nothing. on_stream_removed must not throw.
  virtual void on_stream_added(StreamState& stream);
  virtual void on_stream_removed(StreamState& stream);

  // A stream-mode pattern arrives, before its pairs; it leaves after its pairs' pending
  // candidates are appended by on_stream_pattern_removed (which drops all its state).
  virtual void on_stream_pattern_added(PatternState& pattern);
  virtual void on_stream_pattern_removed(PatternState& pattern, std::vector<RawMatch>& out) = 0;
  // The pattern and its pairs went to another backend, state and pending candidates
  // included (switching_matcher.hpp): drop them, reporting nothing. The default is a removal
  // whose reports are discarded; a backend overrides it where a removal does more (the
  // cuda backend reads the candidates back and hands freed memory back to the driver).
  virtual void on_stream_pattern_moved_out(PatternState& pattern);
  // A stream-mode pair starts fresh (D = +inf, no candidate) / ends, appending its pending
  // candidate to `out`.
  virtual void on_stream_pair_added(Pair& pair) = 0;
  virtual void on_stream_pair_removed(Pair& pair, std::vector<RawMatch>& out) = 0;
  // One batch: every stream's chunk is in its StreamState (chunk_first, chunk_count,
  // chunk_values; its history already holds it; chunk_count 0 for a stream without one),
  // and state().active lists the streams with samples, in batch order: a backend should
  // make its work follow that list. Runs every stream-mode pair over its stream's chunk,
  // appending the reports, and fills every window batch's distances (and flat marks for
  // the windows that znorm skips).
  virtual void run_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out) = 0;
  // The same batch split for pipelining (Matcher::submit/collect): start_batch fills every
  // window batch's distances and starts the stream-mode work, appending what it already
  // has to `out`; finish_batch waits for the oldest started batch and appends its reports.
  // Batches are finished in the order started; at most max_outstanding are started and not
  // finished, and none is while the stream, pattern, flush and trim hooks run. A
  // start_batch that throws leaves nothing started; a finish_batch that throws has
  // consumed its batch. A backend that does the whole batch at once keeps these defaults:
  // run_batch, then nothing.
  virtual void start_batch(std::span<WindowBatch> windows, std::vector<RawMatch>& out);
  virtual void finish_batch(std::vector<RawMatch>& out);
  // Appends every stream-mode pair's pending candidate (end of input) and clears it.
  virtual void flush_stream_pairs(std::vector<RawMatch>& out) = 0;
  // Lowers keep_from[stream slot] to the oldest start index that a stream-mode pair of the
  // stream may still report (its pending candidate, its cells with D <= eps), for the
  // streams of state().trim_streams (other slots may be lowered too; they are not read).
  virtual void lower_to_live_starts(std::span<std::uint64_t> keep_from) = 0;
  // Adds what only the backend counts (device bytes and time).
  virtual void add_backend_counters(MatcherCounters& counters) const;
  // The state of stream-mode pairs (of patterns the backend has), in a form every backend
  // reads (common/spring_lane_state.hpp): exported into `out` (one per pair, resized as
  // needed) without changing anything, and imported over pairs added since (fresh), so that
  // another backend goes on where this one stopped (switching_matcher.hpp). None started.
  // The defaults throw std::logic_error (a backend that cannot move its pairs).
  virtual void export_stream_pairs(std::span<Pair* const> pairs,
                                   std::span<common::SpringLaneState> out);
  virtual void import_stream_pairs(std::span<Pair* const> pairs,
                                   std::span<const common::SpringLaneState> in);

  // What the backends read (common/matcher_state.hpp): the matcher's own, or, for a backend
  // inside a SwitchingMatcher or a ShardedMatcher, that matcher's.
  const common::MatcherState& state() const { return *view_; }
  // The streams a backend's batch and trim hooks work on: state().active and
  // state().trim_streams, or, for a shard of a ShardedMatcher, the part of them it holds.
  std::span<StreamState* const> batch_streams() const;
  std::span<StreamState* const> streams_to_trim() const;
  // Host threads for the base's share of a large batch (sample checks, histories) and the
  // backend's own host loops; a backend lends its pool (it outlives the base's use of it:
  // the base uses it only inside submit()). None: one thread.
  void lend_host_pool(common::WorkerPool* pool) { host_pool_ = pool; }
  common::WorkerPool* host_pool() const { return host_pool_; }

 private:
  void pair_up(StreamState& stream, PatternState& pattern);
  // add_stream, with the history and pair states of `saved` when given (import_stream).
  void add_stream(StreamRef stream, const StreamSnapshot* saved, StreamRestore* restore);
  void restore_pairs(StreamState& stream, const StreamSnapshot& saved, StreamRestore& restore);
  void trim_histories(bool all);
  bool trim_due() const;
  struct Outstanding;
  // Finishes a started batch (its matches wait in it for collect()); every started one.
  void finish(Outstanding& batch);
  void finish_started();
  void require_none_outstanding(const char* what) const;

  // A SwitchingMatcher and a ShardedMatcher run their backends' hooks on their own state
  // (they point their view_ at it): one set of streams, patterns and pairs, whichever
  // backend runs a batch or holds a stream. A ShardedMatcher passes the view on to its
  // shards, and gives each shard its part of the batch's and the trim's streams (subset_).
  friend class SwitchingMatcher;
  friend class ShardedMatcher;
  virtual void attach_view(common::MatcherState* view) { view_ = view; }

  std::unique_ptr<common::MatcherState> state_;
  common::MatcherState* view_ = nullptr;
  const common::StreamSubset* subset_ = nullptr;
  common::WorkerPool* host_pool_ = nullptr;
  std::vector<Outstanding> outstanding_;  // oldest first
};

// Orders matches by stream, pattern, end index (the order process() returns).
void sort_matches(std::vector<RawMatch>& matches);

// What Matcher::add_pattern checks of a pattern before it changes anything: std::invalid_argument
// naming the pattern when the id is empty, dims are not 1..64, m < 2, values or times are not
// finite, times do not increase or are not one per sample, the params are invalid
// (validate), or the pattern is constant under znorm. The configuration calls it too, so
// that a pattern it accepts is one the Matcher takes.
void check_pattern(const PatternDef& pattern);

}  // namespace warpwatch::kernels
