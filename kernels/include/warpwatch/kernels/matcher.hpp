// The Matcher: one interface, several backends (reference, cpu, cuda), drop-in.
//
// A Matcher is given streams and patterns; every pattern is matched against every
// stream of the same dimension (a "pair"). It is then fed batches of new samples per
// stream and returns the raw matches those samples complete (SPEC.md 3). All matching
// state (SPRING columns and candidates, window tails and candidates) lives inside the
// Matcher and is carried across batches, so any partition of a stream into batches
// gives the same matches. Adding or removing streams and patterns leaves the state of
// every unchanged pair as it was (hot reload relies on it).
//
// The public methods check their inputs and throw std::invalid_argument on misuse
// (unknown ids, wrong dimensions, non-increasing timestamps: the stream layer rejects
// bad samples before they get here); the protected virtual do_* methods do the work.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/params.hpp"
#include "warpwatch/kernels/series.hpp"
#include "warpwatch/stream/stream_def.hpp"

namespace warpwatch::kernels {

// A stream's identity is the stream layer's (stream/stream_def.hpp), not a copy.
using stream::StreamDef;
using stream::StreamRef;

struct PatternDef {
  std::string id;
  std::size_t dims = 1;
  std::vector<float> values;  // m x dims, row-major, m >= 2, all finite
  std::vector<double> times;  // optional relative timestamps in seconds (m, increasing);
                              // empty: uniform at the stream's nominal period (twed)
  MatchParams params;

  std::size_t length() const { return dims ? values.size() / dims : 0; }
  SeriesView view() const { return {values.data(), length(), dims, times.empty() ? nullptr : times.data()}; }
};

// New samples of one stream: count = values.size() / dims = timestamps_ns.size().
struct StreamChunk {
  std::string_view stream_id;
  std::span<const float> values;              // count x dims, row-major, finite
  std::span<const std::int64_t> timestamps_ns;  // strictly increasing, also across chunks
};

// One match: a SPRING report (stream mode) or an occurrence's best window (window mode).
struct RawMatch {
  std::string stream_id;
  std::string pattern_id;
  double distance = 0.0;
  std::uint64_t start_index = 0;  // 0-based sample index since the stream was added, inclusive
  std::uint64_t end_index = 0;    // inclusive
  std::int64_t start_ns = 0;
  std::int64_t end_ns = 0;

  friend bool operator==(const RawMatch&, const RawMatch&) = default;
};

struct MatcherCounters {
  std::uint64_t samples = 0;              // samples processed, all streams
  std::uint64_t cells = 0;                // DP cell updates (the unit of cells/s)
  std::uint64_t flat_windows_skipped = 0;  // znorm windows with std < 1e-8 (SPEC.md 3.2)
  std::uint64_t device_bytes = 0;          // device memory held (cuda backend; 0 elsewhere)
  double device_seconds = 0.0;             // cuda: stream-mode kernel time, CUDA events
};

class Matcher {
 public:
  virtual ~Matcher() = default;
  Matcher() = default;
  Matcher(const Matcher&) = delete;
  Matcher& operator=(const Matcher&) = delete;

  // Backend name for logs and benchmarks ("reference", "cpu", "cuda").
  virtual std::string_view name() const = 0;

  // A new stream starts at sample index 0. Throws when the id exists or dims is not 1..64.
  void add_stream(const StreamDef& stream);
  // Ends the stream's input: pending candidates are reported (SPEC.md 3.1 flush).
  std::vector<RawMatch> remove_stream(std::string_view stream_id);
  // A new pattern is paired with every stream of its dimension from that stream's next
  // sample on. Throws on a duplicate id, m < 2, non-finite values or invalid params.
  void add_pattern(const PatternDef& pattern);
  // Removes the pattern's pairs, reporting their pending candidates.
  std::vector<RawMatch> remove_pattern(std::string_view pattern_id);

  // Feeds one batch (at most one chunk per stream; empty chunks allowed) and returns
  // the matches it completes, ordered by stream, then pattern, then end index.
  std::vector<RawMatch> process(std::span<const StreamChunk> batch);
  // End of input for every stream: reports every pending candidate (SPEC.md 3.1), as
  // the daemon's shutdown drain and the end of `warpwatch search` do.
  std::vector<RawMatch> flush();

  bool has_stream(std::string_view id) const { return streams_.count(std::string(id)) != 0; }
  bool has_pattern(std::string_view id) const { return patterns_.count(std::string(id)) != 0; }
  const std::map<std::string, StreamDef, std::less<>>& streams() const { return streams_; }
  const std::map<std::string, PatternDef, std::less<>>& patterns() const { return patterns_; }
  virtual MatcherCounters counters() const = 0;

 protected:
  virtual void do_add_stream(const StreamDef& stream) = 0;
  virtual std::vector<RawMatch> do_remove_stream(const StreamDef& stream) = 0;
  virtual void do_add_pattern(const PatternDef& pattern) = 0;
  virtual std::vector<RawMatch> do_remove_pattern(const PatternDef& pattern) = 0;
  virtual std::vector<RawMatch> do_process(std::span<const StreamChunk> batch) = 0;
  virtual std::vector<RawMatch> do_flush() = 0;

 private:
  std::map<std::string, StreamDef, std::less<>> streams_;
  std::map<std::string, PatternDef, std::less<>> patterns_;
  std::map<std::string, std::int64_t, std::less<>> last_timestamp_;  // per stream
};

// Orders matches by stream, pattern, end index (the order process() returns).
void sort_matches(std::vector<RawMatch>& matches);

}  // namespace warpwatch::kernels
