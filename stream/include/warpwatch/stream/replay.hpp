// Sending a recorded series as a live stream: cut into chunks, paced at a sample rate.
// Shared by warpwatchd's replay source and `warpwatch replay`.
#pragma once

#include <cstddef>
#include <functional>

#include "warpwatch/stream/frame.hpp"

namespace warpwatch::stream {

// Calls send(part) for consecutive chunks of `chunk` samples of `samples`, the chunk
// starting at sample i sent no earlier than i / rate_hz seconds after the first (no
// pacing when rate_hz <= 0). Stops early when send returns false. Returns the chunks sent.
std::size_t replay_paced(const Samples& samples, std::size_t chunk, double rate_hz,
                         const std::function<bool(const Samples&)>& send);

}  // namespace warpwatch::stream
