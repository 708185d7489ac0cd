// SPRING's state of one stream-mode pair in the form every backend reads and writes
// (common::SpringLaneState): defined with the stream snapshots that carry it.
#pragma once

#include "warpwatch/kernels/stream_snapshot.hpp"
