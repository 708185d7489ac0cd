// Helpers of the ingest suites (tests/stream/): taking what sources deliver from the hub.
#pragma once

#include <chrono>
#include <cstddef>

#include "test_support.hpp"
#include "warpwatch/stream/ingest_hub.hpp"

namespace warpwatch::testing {

// Takes from the hub until `want` samples were taken in all, or `limit` (scaled) passed,
// handing each batch that holds samples to on_batch; returns how many were taken.
template <typename OnBatch>
std::size_t take_until(stream::IngestHub& hub, std::size_t want, OnBatch&& on_batch,
                       std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  std::size_t got = 0;
  const auto deadline = std::chrono::steady_clock::now() + scaled(limit);
  while (got < want && std::chrono::steady_clock::now() < deadline) {
    hub.wait(want - got, std::chrono::steady_clock::now() + std::chrono::milliseconds(20));
    stream::IngestBatch b = hub.take_all();
    got += b.samples;
    if (b.samples) on_batch(std::move(b));
  }
  return got;
}

}  // namespace warpwatch::testing
