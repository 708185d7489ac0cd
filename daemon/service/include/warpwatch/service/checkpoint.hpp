// The daemon's matching state on disk and on the wire (docs/operations.md §4):
// one stream's record (its Matcher snapshot, its rules' cooldowns, its validator's last
// timestamp, and where a source such as Kafka stood), and the checkpoint file that holds
// every stream's record and the publisher's sequence.
//
// Both are versioned little-endian binary with a CRC32 (zlib) over what follows the header.
// Decoding is bounded: every size is checked against the bytes that remain before anything
// is allocated, so damaged, truncated, foreign or hostile input costs at most its own size
// and ends in a CheckpointError naming the reason, never a crash. What decodes encodes
// again to the same bytes (tests/fuzz/targets/fuzz_checkpoint.cpp checks both).
#pragma once

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "warpwatch/files/files.hpp"
#include "warpwatch/kernels/stream_snapshot.hpp"

namespace warpwatch::service {

// A record or file refused: what() says why (truncated, bad magic, unsupported version,
// checksum mismatch, field out of range, trailing bytes) and what was being read.
class CheckpointError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// StreamRecord::validator_last_ns of a stream that has accepted no sample yet.
inline constexpr std::int64_t no_timestamp = std::numeric_limits<std::int64_t>::min();

// A match the nearest-template filter holds (docs/spec.md §5.1: alerting/nearest_template.hpp),
// travelling with its stream: the match but its stream and pattern definitions (the pattern
// by id: restored with the pattern of that id configured then).
struct HeldMatch {
  std::string pattern_id;
  double distance = 0.0;
  std::uint64_t start_index = 0, end_index = 0;
  std::int64_t start_ns = 0, end_ns = 0;
  friend bool operator==(const HeldMatch&, const HeldMatch&) = default;
};

struct StreamRecord {
  kernels::StreamSnapshot matcher;
  // Per rule (by name): the end_ns of its last event for this stream (its cooldown).
  std::vector<std::pair<std::string, std::int64_t>> cooldowns;
  // The ingest validator's last accepted timestamp (no_timestamp: none).
  std::int64_t validator_last_ns = no_timestamp;
  // Opaque here: where a source stood (Kafka: {"partition": p, "offset": next offset}).
  std::map<std::string, std::int64_t> positions;
  // The nearest-template filter's held matches of the stream, in its order.
  std::vector<HeldMatch> held;
  friend bool operator==(const StreamRecord&, const StreamRecord&) = default;
};

// Self-contained bytes: magic "WWSR", format version, CRC32 of the payload, the payload.
std::string encode_stream_record(const StreamRecord& record);
// Throws CheckpointError (never anything else on bad input).
StreamRecord decode_stream_record(std::string_view bytes);

// The checkpoint file: header (magic "WWCK", version, the publisher's last sequence, when it
// was written, how many records, the payload's size and CRC32), then the records, then
// (version 2) the event store's section.
struct Checkpoint {
  std::uint64_t publisher_sequence = 0;  // the last event's sequence number
  std::int64_t written_ns = 0;           // wall clock, ns since the epoch
  std::vector<StreamRecord> streams;
  // The event store's section (encode_events, event_store.hpp), opaque here: a version-2
  // file. nullopt: a version-1 file (written before the store), encoded as version 1 again.
  std::optional<std::string> events;
  friend bool operator==(const Checkpoint&, const Checkpoint&) = default;
};

std::string encode_checkpoint(const Checkpoint& checkpoint);
Checkpoint decode_checkpoint(std::string_view bytes);

// The checkpoint file is written and read whole (files.hpp).
using files::read_whole_file;
using files::write_file_atomically;

}  // namespace warpwatch::service
