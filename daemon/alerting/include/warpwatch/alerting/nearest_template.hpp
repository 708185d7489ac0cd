// The nearest-template filter (docs/spec.md §5.1): of overlapping matches of one exclusive
// library's patterns on one stream, only the closest becomes an event.
//
// A match of an exclusive library is held until it is decided; the matches of other
// libraries pass at once. The rule is greedy non-maximum suppression over every match of
// the (stream, library), in ascending key order (closer() below): a match is published
// when no match of another pattern of the library that overlaps it (index ranges
// [start, end] sharing a sample) was published before it in that order; otherwise it is
// superseded. It is decided as soon as that is certain: superseded as soon as an
// overlapping match of a smaller key is published; published once the stream is settled
// past its end index (no overlapping match can appear any more: Matcher::settled_before)
// and every overlapping match of a smaller key is superseded. The published set is then
// the same for every partition of the stream into batches.
//
// Not thread-safe: the scheduler's thread (the Pipeline), or `warpwatch search`.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpwatch/kernels/types.hpp"

namespace warpwatch::alerting {

// How close a match is, for comparing matches of patterns with different thresholds:
// distance / threshold when the pattern's threshold is > 0; otherwise distance - threshold
// (a threshold of 0 or below lets only matches at or under it through, so the value is
// <= 0: such a match ranks as close as a match of distance 0 at a positive threshold, or
// closer).
double closeness(const kernels::RawMatch& match);
// The order of the rule: smaller closeness, then the earlier end index, then the smaller
// pattern id, then the earlier start index.
bool closer(const kernels::RawMatch& a, const kernels::RawMatch& b);

class NearestTemplate {
 public:
  using Matches = std::vector<kernels::RawMatch>;

  // The names of the libraries with `exclusive: true` (at start and at every reload). The
  // held matches of a library that is no longer exclusive are decided as at the end of
  // their stream's input and the published ones appended to `out`.
  void set_exclusive(std::set<std::string, std::less<>> libraries, Matches& out);
  // Whether there is anything to do: an exclusive library, or matches held.
  bool active() const { return !exclusive_.empty() || !held_.empty(); }
  bool exclusive(std::string_view library) const { return exclusive_.count(library) > 0; }

  // New matches: those of exclusive libraries are held, the others appended to `out` as
  // they come.
  void offer(Matches matches, Matches& out);
  // The streams holding matches, sorted, each once.
  std::vector<std::string> holding() const;
  // No match of `stream` starting before `settled` can appear any more: appends to `out`
  // what that decides to publish.
  void settle(std::string_view stream, std::uint64_t settled, Matches& out);
  // The end of the stream's input (removed, replay ended, shutdown without state): every
  // held match of it decided. The second: of every stream.
  void flush(std::string_view stream, Matches& out);
  void flush(Matches& out);

  // A checkpoint's share of a stream: its held matches (docs/operations.md §4), in key
  // order; forget() drops them (the stream left with its record); restore() holds a
  // restored stream's saved ones again, in place of any it holds (those of a library not
  // exclusive any more are appended to `out`: they pass).
  Matches held(std::string_view stream) const;
  void forget(std::string_view stream);
  void restore(std::string_view stream, Matches held, Matches& out);

  // Matches superseded so far, by library name.
  const std::map<std::string, std::uint64_t, std::less<>>& superseded() const {
    return superseded_;
  }
  std::size_t held_count() const;

 private:
  using Key = std::pair<std::string, std::string>;  // stream id, library name
  void decide(const Key& key, Matches& held, std::uint64_t settled, Matches& out);

  std::set<std::string, std::less<>> exclusive_;
  std::map<Key, Matches> held_;  // none empty
  std::map<std::string, std::uint64_t, std::less<>> superseded_;
};

}  // namespace warpwatch::alerting
