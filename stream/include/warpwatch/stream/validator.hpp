// Per-stream validation of decoded samples (docs/spec.md §1 and §6): timestamps strictly
// increase and components are finite; a bad sample is dropped and counted, the samples
// around it are kept. RejectReason and its to_string() are declared in frame.hpp, since
// the decoder reports them first; this header includes it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::stream {

// How many inputs were rejected, per reason. The unit is what the reason rejects: a
// message (malformed binary frame, unknown stream, wrong dims, oversized, invalid id, too
// many streams), a text line (malformed or wrong dims), or a sample (non-increasing
// timestamp, non-finite value).
struct RejectCounts {
  std::array<std::uint64_t, all_reject_reasons.size()> by_reason{};

  void add(RejectReason reason, std::uint64_t n = 1) {
    by_reason[static_cast<std::size_t>(reason)] += n;
  }
  std::uint64_t operator[](RejectReason reason) const {
    return by_reason[static_cast<std::size_t>(reason)];
  }
  std::uint64_t total() const;
  RejectCounts& operator+=(const RejectCounts& other);
  bool operator==(const RejectCounts&) const = default;
};

struct Accepted {
  Samples samples;               // the valid samples, in their original order
  std::vector<Dropped> dropped;  // one entry per reason that occurred, in reason order
};

// The validation state of one stream: its dims and the last accepted timestamp. Not
// thread-safe: each stream is validated by one ingest thread at a time.
class StreamValidator {
 public:
  // Throws std::invalid_argument unless 1 <= dims <= 64.
  explicit StreamValidator(std::size_t dims);

  // Returns the valid samples of `in` and adds what it dropped to `counts`. A message
  // whose dims differ from the stream's is rejected whole (one wrong_dims). Otherwise a
  // sample is dropped when its timestamp is not greater than the last accepted one
  // (non_increasing_timestamp, checked first) or a component is NaN or infinite
  // (non_finite_value). Dropped samples do not move the last accepted timestamp.
  // Throws std::invalid_argument when in.values.size() != in.size() * in.dims (decoded
  // samples never break that).
  Accepted accept(const Samples& in, RejectCounts& counts);
  // accept()'s fast path: when every sample of `in` is valid (the stream's dims, increasing
  // timestamps after the last accepted one, finite components) they are all accepted (the
  // last timestamp moves) and it returns true; otherwise nothing changes and it returns
  // false, and accept() says what to keep and drop.
  bool accept_all(const Samples& in);

  std::size_t dims() const { return dims_; }
  // The timestamp of the last accepted sample; nullopt before the first.
  std::optional<std::int64_t> last_timestamp_ns() const { return last_ns_; }
  // A restored stream (a checkpoint's): samples at or before `last_ns` are refused from now
  // on as if it had been accepted (an earlier last timestamp never moves it back).
  void continue_after(std::int64_t last_ns) {
    if (!last_ns_ || *last_ns_ < last_ns) last_ns_ = last_ns;
  }

 private:
  std::size_t dims_;
  std::optional<std::int64_t> last_ns_;
};

}  // namespace warpwatch::stream
