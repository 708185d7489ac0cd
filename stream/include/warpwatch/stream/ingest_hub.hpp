// Where every source delivers: decode (frame.hpp), admit (registry.hpp), validate
// (validator.hpp), then queue the valid samples per stream until the scheduler takes them
// as one batch. The hub is the only part of ingest that talks to the registry. Ingest
// threads never wait on matching: take() swaps the queues out under a short lock.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "warpwatch/stream/frame.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/stream_def.hpp"
#include "warpwatch/stream/validator.hpp"

namespace warpwatch::stream {

// One stream's queued samples: count = times_ns.size(), values count x stream->dims.
struct QueuedSamples {
  StreamRef stream;  // the registry's definition when the samples were admitted
  std::vector<float> values;
  std::vector<std::int64_t> times_ns;
};

struct IngestBatch {
  std::vector<QueuedSamples> streams;  // streams with new samples, sorted by id
  std::vector<std::string> ended;      // streams whose finite input ended (replay done)
  std::size_t samples = 0;
};

class IngestHub {
 public:
  IngestHub(StreamRegistry& registry, std::size_t max_message_bytes);

  // A message [stream id][payload] from a socket. Thread-safe.
  void offer_message(std::string_view id, std::span<const std::byte> payload);
  // A message that is not [stream id][payload] (e.g. another number of frames): counted
  // as malformed under `id` (the first frame, or "") with `detail`. Thread-safe.
  void offer_malformed(std::string_view id, std::string_view detail);
  // Samples that need no decoding (the replay source). Thread-safe.
  void offer_samples(std::string_view id, const Samples& samples);
  // The stream's input is finite and has ended: its pending match candidates are to be
  // reported once its last samples are matched (SPEC.md 3.1).
  void end_stream(std::string_view id);

  // Everything queued since the last take().
  IngestBatch take();

  // A configuration reload's new stream declarations (StreamRegistry::redeclare), applied
  // between two messages: none is admitted under the old declarations and queued under
  // the new ones. Changed and removed streams start validation anew. Returns the changes
  // and what was queued under the old declarations, which the caller matches with the
  // old streams before it changes the Matcher's.
  struct Redeclared {
    StreamChanges changes;
    IngestBatch queued;
  };
  Redeclared redeclare(const std::vector<StreamDef>& declared, const RegistryOptions& options);
  // Waits until `samples` are queued, a stream ended, or `deadline` passes.
  void wait(std::size_t samples, std::chrono::steady_clock::time_point deadline);
  // Wakes a wait() early (shutdown).
  void notify();

 private:
  void accept(const Samples& samples, const Admit& admit);

  StreamRegistry& registry_;
  std::size_t max_message_bytes_;
  // Shared by every message from admission to queueing, exclusive for redeclare().
  std::shared_mutex declarations_mu_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, StreamValidator, std::less<>> validators_;
  std::map<std::string, QueuedSamples, std::less<>> pending_;
  std::vector<std::string> ended_;
  std::size_t pending_samples_ = 0;
};

}  // namespace warpwatch::stream
