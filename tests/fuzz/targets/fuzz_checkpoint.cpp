// Fuzz target: the checkpoint formats (daemon/service/include/warpwatch/service/checkpoint.hpp).
// Input: one byte, even = a stream record (decode_stream_record), odd = a checkpoint file
// (decode_checkpoint); the rest are the bytes.
// Oracle: decoding throws nothing but CheckpointError and never crashes; what decodes
// encodes again to the same bytes; and every decoded record imported into the matcher of
// checkpoint_corpus.hpp (whose patterns the corpus's fingerprints name) is refused with
// std::invalid_argument or restored, and the matcher then runs samples after it and flushes
// without crashing (Matcher::import_stream's checks of forged state).
#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "checkpoint_corpus.hpp"
#include "fuzz_support.hpp"

namespace {

using namespace warpwatch;

void import_and_run(const service::StreamRecord& record) {
  auto m = fuzz::checkpoint_matcher();
  const kernels::StreamSnapshot& s = record.matcher;
  try {
    m->import_stream(s);
  } catch (const std::invalid_argument&) {
    return;  // a snapshot that does not hold together: refused, the matcher unchanged
  }
  // A few samples after the last one (a stream's timestamps only increase).
  std::vector<float> values(4 * s.def.dims, 1.5f);
  std::vector<std::int64_t> times;
  std::int64_t t = s.next_index > 0 ? s.last_ns : 0;
  for (int i = 0; i < 4; ++i) {
    if (t == INT64_MAX) return;
    times.push_back(++t);
  }
  const kernels::StreamChunk chunk{s.def.id, values, times};
  m->process(std::span<const kernels::StreamChunk>(&chunk, 1));
  m->flush();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool file = data[0] % 2 == 1;
  const std::string_view bytes(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    if (file) {
      const service::Checkpoint c = service::decode_checkpoint(bytes);
      WARPWATCH_FUZZ_CHECK(service::encode_checkpoint(c) == bytes, "file round trip");
      for (const auto& r : c.streams) import_and_run(r);
    } else {
      const service::StreamRecord r = service::decode_stream_record(bytes);
      WARPWATCH_FUZZ_CHECK(service::encode_stream_record(r) == bytes, "record round trip");
      import_and_run(r);
    }
  } catch (const service::CheckpointError&) {
  }
  return 0;
}
