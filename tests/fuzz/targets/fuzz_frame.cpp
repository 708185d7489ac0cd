// Fuzz target: the payload decoder (stream/frame.hpp) on any bytes, under every payload
// format. The first byte picks the format and the expected dims; the rest is the payload.
// Oracle: whatever decodes, re-encoded as a binary frame (explicit timestamps) and as text,
// decodes again to the same bits; the line errors' counts are not zero.
#include <cstdint>
#include <cstring>
#include <span>
#include <variant>

#include "fuzz_support.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace {

using warpwatch::stream::Decoded;
using warpwatch::stream::PayloadFormat;
using warpwatch::stream::Samples;

bool same_bits(const Samples& a, const Samples& b) {
  return a.dims == b.dims && a.times_ns == b.times_ns && a.values.size() == b.values.size() &&
         (a.values.empty() ||
          std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) == 0);
}

void check_round_trips(const Samples& s) {
  if (s.size() == 0) return;
  WARPWATCH_FUZZ_CHECK(s.values.size() == s.size() * s.dims, "values per sample = dims");
  if (s.dims >= 1 && s.dims <= 64) {
    const auto frame = warpwatch::stream::encode_frame(s, /*explicit_timestamps=*/true);
    const auto again = warpwatch::stream::decode_payload(frame, s.dims, PayloadFormat::frame);
    WARPWATCH_FUZZ_CHECK(std::holds_alternative<Decoded>(again), "re-encoded frame decodes");
    WARPWATCH_FUZZ_CHECK(same_bits(std::get<Decoded>(again).samples, s), "frame round trip");
  }
  const std::string text = warpwatch::stream::encode_text(s);
  const auto again = warpwatch::stream::decode_payload(std::as_bytes(std::span(text)), s.dims,
                                                       PayloadFormat::text);
  WARPWATCH_FUZZ_CHECK(std::holds_alternative<Decoded>(again), "re-encoded text decodes");
  const Decoded& d = std::get<Decoded>(again);
  WARPWATCH_FUZZ_CHECK(d.line_errors.empty(), "re-encoded text has no bad line");
  WARPWATCH_FUZZ_CHECK(same_bits(d.samples, s), "text round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  constexpr PayloadFormat formats[] = {PayloadFormat::frame, PayloadFormat::frame_or_text,
                                       PayloadFormat::text, PayloadFormat::json,
                                       PayloadFormat::any};
  const PayloadFormat format = formats[data[0] % std::size(formats)];
  const std::size_t dims = (data[0] / std::size(formats)) % 4;  // 0 = unknown
  const auto payload = std::as_bytes(std::span(data + 1, size - 1));
  const auto result = warpwatch::stream::decode_payload(payload, dims, format);
  if (const auto* decoded = std::get_if<Decoded>(&result)) {
    for (const auto& dropped : decoded->line_errors)
      WARPWATCH_FUZZ_CHECK(dropped.count > 0, "a line error counts at least one line");
    check_round_trips(decoded->samples);
  }
  return 0;
}
