// Fuzz target: the ingest path from a ZeroMQ message to the per-stream queue, through the
// function a PULL or SUB source hands each message to (deliver_zmq_message: the part count,
// then IngestHub::offer_message: size limit, decoding, admission by the registry,
// validation, queueing).
//
// Input: byte 0 sets the registry up (bit 0 auto-creation, bits 1-2 its dims, bit 3 a limit
// of 2 auto-created streams, bit 4 a message limit of 64 bytes); then records, each either
// a message (a byte whose value mod 3 + 1 is its part count, the id [u8 length][bytes], for
// 2 or 3 parts the payload [u16 LE length][bytes], for 3 a third part [u8 length][bytes])
// or, when the first byte's top bit is set, a take of at most (byte & 0x7f) + 1 samples for
// matching. Declared streams: "a" (1 dims), "b" (2), "c" (3).
//
// Oracle: a message of other than 2 parts is one wrong_part_count and nothing else; a
// message of 2 is accounted for as ingest_oracle.hpp says; what take() hands out is what
// was accepted and satisfies the validator's rules; every log line is terminal-safe.
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "fuzz_ingest_support.hpp"
#include "ingest_oracle.hpp"
#include "warpwatch/stream/ingest_hub.hpp"
#include "warpwatch/stream/registry.hpp"
#include "warpwatch/stream/sources/zmq_source.hpp"

using namespace warpwatch::stream;
using warpwatch::fuzz::Input;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{std::span(data, size)};
  const std::uint8_t setup = in.u8();
  RegistryOptions options;
  options.auto_create = (setup & 1) != 0;
  options.auto_dims = 1 + (setup >> 1) % 3;
  options.max_auto_streams = (setup & 8) != 0 ? 2 : 100;
  QueueLimits limits;
  limits.max_message_bytes = (setup & 16) != 0 ? 64 : 1 << 16;
  const std::vector<StreamDef> declared = {{"a", 1, 1000}, {"b", 2, 1000}, {"c", 3, 1000}};
  StreamRegistry registry(declared, options, warpwatch::fuzz::check_log_line);
  IngestHub hub(registry, limits);
  const SourceId source = hub.add_source("fuzz", Overflow::wait);
  warpwatch::fuzz::TakenSamples taken(registry);

  while (!in.empty()) {
    const std::uint8_t head = in.u8();
    if ((head & 0x80) != 0) {
      IngestBatch batch = hub.take(static_cast<std::size_t>(head & 0x7f) + 1);
      taken.check(batch);
      hub.recycle(std::move(batch));
      continue;
    }
    const std::size_t parts = 1 + head % 3;
    const std::string id(in.take(in.u8()));
    const std::string payload(parts >= 2 ? in.take(in.u16()) : "");
    if (parts == 3) (void)in.take(in.u8());  // a third part: read and discarded by the source
    const auto bytes = std::as_bytes(std::span(payload));
    const auto deliver = [&] { deliver_zmq_message(hub, source, parts, id, bytes); };
    if (parts == 2) {
      warpwatch::fuzz::offer_and_check(registry, limits, id, bytes, PayloadFormat::frame_or_text,
                                       deliver);
      continue;
    }
    warpwatch::fuzz::offer_and_check_refused(registry, RejectReason::wrong_part_count, deliver);
  }
  taken.check_end(hub, options);
  return 0;
}
