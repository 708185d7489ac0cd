// Sending a recorded series as a live stream: cut into chunks, paced at a sample rate.
// Shared by warpwatchd's replay source and `warpwatch replay`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "warpwatch/stream/frame.hpp"

namespace warpwatch::stream {

// The timestamps of `count` samples recorded every `period_ns` from `start_ns`: start_ns +
// i * period_ns. Throws std::range_error, naming the values, when the last one does not
// fit in int64 (a long file at a long period).
std::vector<std::int64_t> regular_times_ns(std::size_t count, std::int64_t start_ns,
                                           std::int64_t period_ns);

// Calls send(part) for consecutive chunks of `chunk` samples of `samples`, the chunk
// starting at sample i sent no earlier than i / rate_hz seconds after the first (no
// pacing when rate_hz <= 0; a wait beyond a year is a year). Stops early when send returns
// false. Returns the chunks sent.
std::size_t replay_paced(const Samples& samples, std::size_t chunk, double rate_hz,
                         const std::function<bool(const Samples&)>& send);

}  // namespace warpwatch::stream
