// The oracle that the fuzz targets of ingest share (fuzz_ingest, fuzz_mqtt_payload,
// fuzz_line_protocol): what the hub hands out for matching, and how a message is accounted
// for in the registry's counters.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <variant>

#include "fuzz_support.hpp"
#include "warpwatch/base/stream_id.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"

namespace warpwatch::fuzz {

// Checks every batch taken from the hub: streams the registry knows under valid ids, their
// dims, finite values, timestamps that strictly increase from one take to the next, arrival
// runs that add up. Counts what it saw (`taken`).
class TakenSamples {
 public:
  explicit TakenSamples(const stream::StreamRegistry& registry) : registry_(registry) {}

  void check(const stream::IngestBatch& batch) {
    std::size_t samples = 0;
    for (const stream::QueuedSamples& q : batch.streams) {
      WARPWATCH_FUZZ_CHECK(q.stream != nullptr, "a queued stream has its definition");
      const stream::StreamDef& def = *q.stream;
      WARPWATCH_FUZZ_CHECK(!stream::invalid_stream_id_reason(def.id),
                           "a queued stream's id is valid");
      const stream::StreamRef known = registry_.find(def.id);
      WARPWATCH_FUZZ_CHECK(known != nullptr && known->dims == def.dims,
                           "a queued stream is the registry's");
      WARPWATCH_FUZZ_CHECK(!q.times_ns.empty(), "a taken stream has samples");
      WARPWATCH_FUZZ_CHECK(q.values.size() == q.times_ns.size() * def.dims,
                           "queued values = samples x dims");
      auto [last, fresh] = last_taken_.try_emplace(def.id, 0);
      for (const std::int64_t t : q.times_ns) {
        WARPWATCH_FUZZ_CHECK(fresh || t > last->second, "queued timestamps strictly increase");
        fresh = false;
        last->second = t;
      }
      for (const float v : q.values)
        WARPWATCH_FUZZ_CHECK(std::isfinite(v), "queued values are finite");
      std::size_t in_runs = 0;
      for (const stream::Arrival& a : batch.arrivals_of(q)) in_runs += a.samples;
      WARPWATCH_FUZZ_CHECK(in_runs == q.times_ns.size(), "arrival runs add up to the samples");
      samples += q.times_ns.size();
    }
    WARPWATCH_FUZZ_CHECK(samples == batch.samples, "a batch's count is its samples");
    taken_ += samples;
  }

  // At the end: takes what is left; everything accepted was taken, every stream is valid,
  // auto-created ones only when allowed, with auto_dims, within their limit.
  void check_end(stream::IngestHub& hub, const stream::RegistryOptions& options) {
    check(hub.take_all());
    const stream::RegistrySnapshot end = registry_.snapshot();
    WARPWATCH_FUZZ_CHECK(taken_ == end.accepted_samples,
                         "what is taken for matching is what was accepted");
    std::size_t auto_created = 0;
    for (const stream::StreamCounters& s : end.streams) {
      WARPWATCH_FUZZ_CHECK(!stream::invalid_stream_id_reason(s.stream->id),
                           "every stream id is valid");
      if (s.declared) continue;
      ++auto_created;
      WARPWATCH_FUZZ_CHECK(options.auto_create, "streams are auto-created only when allowed");
      WARPWATCH_FUZZ_CHECK(s.stream->dims == options.auto_dims,
                           "auto-created streams have auto_dims");
    }
    WARPWATCH_FUZZ_CHECK(auto_created <= options.max_auto_streams,
                         "auto-created streams stay within the limit");
  }

 private:
  const stream::StreamRegistry& registry_;
  std::map<std::string, std::int64_t, std::less<>> last_taken_;
  std::uint64_t taken_ = 0;
};

// One message offered to the hub as [id][payload] under `format`: its expected samples are
// what decode_payload makes of it with the dims the hub asks the registry for. Run `offer`
// (the source's own delivery function) between the snapshots; then every message counts
// somewhere, an oversized one as one oversized_message, and an admitted one's samples are
// each accepted or dropped (non_increasing_timestamp, non_finite_value); nothing is
// accepted of one that was not admitted.
template <typename Offer>
void offer_and_check(const stream::StreamRegistry& registry, const stream::QueueLimits& limits,
                     std::string_view id, std::span<const std::byte> payload,
                     stream::PayloadFormat format, Offer&& offer) {
  using stream::RejectReason;
  const std::size_t dims = stream::payload_kind(payload, format) == stream::PayloadKind::frame
                               ? 0
                               : registry.expected_dims(id).value_or(0);
  const bool oversized = id.size() + payload.size() > limits.max_message_bytes;
  const auto decoded = stream::decode_payload(payload, dims, format);
  const std::size_t samples_in = oversized || !std::holds_alternative<stream::Decoded>(decoded)
                                     ? 0
                                     : std::get<stream::Decoded>(decoded).samples.size();

  const stream::RegistrySnapshot before = registry.snapshot();
  offer();
  const stream::RegistrySnapshot after = registry.snapshot();
  const auto delta = [&](RejectReason r) { return after.rejected[r] - before.rejected[r]; };
  const std::uint64_t accepted = after.accepted_samples - before.accepted_samples;
  const std::uint64_t admitted = after.messages - before.messages;
  const std::uint64_t rejected = after.rejected.total() - before.rejected.total();
  WARPWATCH_FUZZ_CHECK(accepted + rejected > 0, "every message counts somewhere");
  WARPWATCH_FUZZ_CHECK(admitted <= 1, "a message is admitted once at most");
  if (oversized) {
    WARPWATCH_FUZZ_CHECK(delta(RejectReason::oversized_message) == 1 && rejected == 1,
                         "an oversized message is one oversized_message");
    return;
  }
  if (admitted == 1) {
    WARPWATCH_FUZZ_CHECK(accepted + delta(RejectReason::non_increasing_timestamp) +
                                 delta(RejectReason::non_finite_value) ==
                             samples_in,
                         "an admitted message's samples are accepted or dropped one by one");
    WARPWATCH_FUZZ_CHECK(registry.find(id) != nullptr, "an admitted message has a stream");
  } else {
    WARPWATCH_FUZZ_CHECK(accepted == 0, "nothing of a message that was not admitted is queued");
  }
}

// A message that the source refuses before the hub decodes it (wrong_part_count,
// unmapped_topic): `offer` counts exactly one rejection, under `reason`, and nothing else.
template <typename Offer>
void offer_and_check_refused(const stream::StreamRegistry& registry, stream::RejectReason reason,
                             Offer&& offer) {
  const stream::RegistrySnapshot before = registry.snapshot();
  offer();
  const stream::RegistrySnapshot after = registry.snapshot();
  WARPWATCH_FUZZ_CHECK(after.rejected[reason] == before.rejected[reason] + 1 &&
                           after.rejected.total() == before.rejected.total() + 1 &&
                           after.accepted_samples == before.accepted_samples &&
                           after.messages == before.messages,
                       "a refused message is one rejection under its reason, nothing else");
}

}  // namespace warpwatch::fuzz
