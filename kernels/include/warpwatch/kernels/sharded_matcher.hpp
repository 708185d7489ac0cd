// Several backends behind one Matcher, each holding the pairs of some of the streams: what
// the cuda backend is over several devices (cuda.devices: a cuda backend a device,
// backends.hpp). One set of streams, patterns, pairs and histories (the Matcher base's); a
// stream's pairs, stream mode and window mode, all stay on the shard it was placed on when
// it arrived: the shard with the fewest cells a sample then (the rows of its stream-mode
// patterns, and for window mode m x w cells (ed: m) per window, a window every hop samples,
// of the patterns of the stream's dims), ties to the one with the fewest streams, then the
// first. A stream is never moved: a pattern added later pairs with every stream of its dims
// on every shard, about in proportion to their streams.
//
// Each shard has a host thread of its own, which starts and finishes its part of every
// batch, so that shards (devices) work at once; submit/collect pipelining is each shard's
// (a batch is started on every shard before submit() returns, finished on every shard in
// collect()). Matches are merged and sorted (sort_matches), so that they are those of one
// backend holding every pair, bit for bit, whatever the placement. Counters are summed
// (device bytes are also listed per shard: MatcherCounters::device_bytes_per_device).
// Stream-mode state exports and imports through the shard holding each pair, so a sharded
// matcher can be one backend of a switching matcher (auto over several devices: the cpu
// and a sharded cuda backend, switching_matcher.hpp).
//
// The shards must be made fresh and give every stream-mode pattern the same handle
// (PatternState::handle: they are given the patterns in one order; the backends of this
// project do); the pattern is refused otherwise.
#pragma once

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "warpwatch/kernels/matcher.hpp"
#include "warpwatch/kernels/switching_matcher.hpp"

namespace warpwatch::kernels {

// A matcher over shards.size() >= 1 backends, each made now. Its name is its first shard's
// (the daemon sizes its rounds by it).
std::unique_ptr<Matcher> make_sharded_matcher(std::vector<BackendFactory> shards);

// The shard that holds the stream's pairs (the index of its factory); std::invalid_argument
// when `matcher` is not a sharded matcher or has no such stream.
std::size_t shard_of_stream(const Matcher& matcher, std::string_view stream_id);

}  // namespace warpwatch::kernels
