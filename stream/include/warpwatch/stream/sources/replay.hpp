// Sending a recorded series as a live stream: cut into chunks, paced at a sample rate.
// Shared by warpwatchd's replay source and `warpwatch replay`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "warpwatch/base/timestamps.hpp"  // max_replay_seconds
#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::stream {

// Calls send(part) for consecutive chunks of `chunk` samples of `samples` (chunk 0 is
// taken as 1), the chunk starting at sample i sent no earlier than i / rate_hz seconds after
// the first (no pacing when rate_hz is not > 0; a schedule beyond max_replay_seconds waits
// that long, so that no rate, however small, overflows the clock). Stops early when send returns
// false. Returns the chunks sent.
std::size_t replay_paced(const Samples& samples, std::size_t chunk, double rate_hz,
                         const std::function<bool(const Samples&)>& send);

// The samples a replay sends per message: paced (rate_hz > 0), about a hundredth of a
// second's worth (at least 1, at most 2^20, for any rate up to infinity); unpaced (rate_hz 0,
// negative or NaN), 1024.
std::size_t replay_chunk(double rate_hz);

}  // namespace warpwatch::stream
