#include "warpwatch/stream/sources/replay_source.hpp"

#include <algorithm>
#include <chrono>

#include "warpwatch/stream/sources/replay.hpp"

namespace warpwatch::stream {

ReplaySource::ReplaySource(ReplaySourceOptions options, IngestHub& hub)
    : options_(std::move(options)),
      hub_(hub),
      source_(hub_.add_source(describe(), Overflow::wait)) {}

ReplaySource::~ReplaySource() {
  stop();
}

std::string ReplaySource::describe() const {
  return "replay " + (options_.origin.empty() ? std::string("samples") : options_.origin) + " -> " +
         options_.stream;
}

void ReplaySource::run(std::stop_token stop) {
  const double rate = options_.rate_hz;
  const std::size_t chunk = replay_chunk(rate);
  bool complete = true;
  replay_paced(options_.samples, chunk, rate, [&](const Samples& part) {
    // A full queue holds the replay back like a pause (a file can always wait).
    while (!hub_.wait_for_room(source_, stop,
                               std::chrono::steady_clock::now() + std::chrono::milliseconds(100)))
      if (stop.stop_requested()) return complete = false;
    if (!wait_while_paused(stop)) return complete = false;
    hub_.offer_samples(source_, options_.stream, part);
    return true;
  });
  if (!complete) return;
  hub_.end_stream(options_.stream);
  finished_ = true;
}

}  // namespace warpwatch::stream
