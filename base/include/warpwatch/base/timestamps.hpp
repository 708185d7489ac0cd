// Timestamps made for samples that came without them: a replay file, a CLI series, a
// pattern given as plain values; and the wall clock they are compared with. Signed 64-bit
// nanoseconds since the Unix epoch (docs/spec.md §1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace warpwatch::stream {

// The longest a replay's schedule runs: beyond it a rate is as good as zero, and i / rate_hz
// seconds as nanoseconds would overflow the clock's int64. A paced replay waits at most this;
// the configuration refuses a replay file that would take longer.
inline constexpr double max_replay_seconds = 1e9;

// The timestamps of `n` samples, sample i at start_ns + i * period_ns. Throws
// std::invalid_argument when period_ns < 1 or the last one is beyond int64 (a long file
// at a long period), naming both numbers.
std::vector<std::int64_t> evenly_spaced_times(std::size_t n, std::int64_t start_ns,
                                              std::int64_t period_ns);

// The wall clock (system_clock) now, in the timestamps' unit: int64 ns since the epoch.
std::int64_t wall_clock_ns();

}  // namespace warpwatch::stream
