// The replay source: a recorded series sent as one live stream, paced at a sample rate
// (or as fast as the hub takes it), then ended so that its pending matches are reported.
#pragma once

#include <atomic>
#include <string>

#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/source.hpp"

namespace warpwatch::stream {

struct ReplaySourceOptions {
  std::string stream;    // the stream id the samples get
  Samples samples;       // the whole series, timestamps included
  double rate_hz = 0.0;  // samples per second; 0 = as fast as possible
  std::string origin;    // for describe(): the file it came from
};

class ReplaySource final : public ThreadedSource {
 public:
  ReplaySource(ReplaySourceOptions options, IngestHub& hub);
  ~ReplaySource() override;

  std::string describe() const override;
  bool finished() const override { return finished_.load(); }

 private:
  // Paced: about 100 chunks a second; unpaced: chunks of 1024 samples. Paused, or while
  // the hub's queue is full, it waits (and catches up with its schedule after). Stopped early, it
  // does not end the stream.
  void run(std::stop_token stop) override;

  ReplaySourceOptions options_;
  IngestHub& hub_;
  SourceId source_;
  std::atomic<bool> finished_{false};
};

}  // namespace warpwatch::stream
