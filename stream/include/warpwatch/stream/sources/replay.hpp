// Sending a recorded series as a live stream: cut into chunks, paced at a sample rate.
// Shared by warpwatchd's replay source and `warpwatch replay`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "warpwatch/stream/frame.hpp"

namespace warpwatch::stream {

// The longest a replay's schedule runs: beyond it a rate is as good as zero, and i / rate_hz
// seconds as nanoseconds would overflow the clock's int64. replay_paced waits at most this;
// the configuration refuses a replay file that would take longer.
inline constexpr double max_replay_seconds = 1e9;

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

// The timestamps of `n` samples, sample i at start_ns + i * period_ns. Throws
// std::invalid_argument when period_ns < 1 or the last one is beyond int64 (a long file
// at a long period), naming both numbers.
std::vector<std::int64_t> evenly_spaced_times(std::size_t n, std::int64_t start_ns,
                                              std::int64_t period_ns);

}  // namespace warpwatch::stream
