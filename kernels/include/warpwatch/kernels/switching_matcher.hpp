// Two backends behind one Matcher, each batch run on the one a policy names for the batch's
// shape: what `auto` is when a device is usable (the cpu and cuda backends, backends.hpp).
// One set of streams, patterns, pairs and histories (the Matcher base's); the stream-mode
// pairs' state lives in one backend at a time and moves whole, every pair of every pattern,
// when a batch runs on the other one (Matcher::export/import_stream_pairs: bit for bit, so
// the matches are those of either backend alone). Window mode keeps no backend state.
//
// A move waits for the batches still running on the old backend (their matches are kept
// for collect()), and costs a copy of every pair's column (16,384 pairs of m 256: 34 MB,
// 100-170 ms on the H100); a policy should not switch back and forth (auto_backend_choice's
// hysteresis). A
// move that fails (device memory, say) puts the pairs it moved back, counts a failure and
// runs on the old backend from then on; when putting them back fails too, the matcher
// throws from then on.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "warpwatch/kernels/backends.hpp"
#include "warpwatch/kernels/matcher.hpp"

namespace warpwatch::kernels {

// Which backend (0: first, 1: second) runs a batch of this shape: the batch's pairs (of its
// streams with samples), its longest chunk, and the longest pattern and widest dims of all
// patterns. Called once per batch, in order (a policy may keep state).
using BackendChoice = std::function<std::size_t(const WorkShape& batch)>;

// Makes a fresh backend (no streams or patterns) that can export and import stream-mode
// state (reference, cpu, cuda can).
using BackendFactory = std::function<std::unique_ptr<Matcher>()>;

// Pairs start on backend `initial`, made now; the other is made when a batch first moves
// there (a backend that cannot be made counts as a failed move).
std::unique_ptr<Matcher> make_switching_matcher(BackendFactory first, BackendFactory second,
                                                BackendChoice choose, std::size_t initial);

}  // namespace warpwatch::kernels
