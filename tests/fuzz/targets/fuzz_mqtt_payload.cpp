// Fuzz target: MQTT messages, from topic and payload to the per-stream queue, through the
// function an MQTT source's message callback hands each message to (deliver_mqtt_message:
// the topic's stream id by a TopicTemplate, then IngestHub::offer_message under the
// source's payload format), and the JSON payload decoder on its own.
//
// Input: byte 0 picks the payload format (frame, frame_or_text, text, json, any: value mod
// 5) and the stream template (value / 5 mod 5: "{topic}", "{2}-{3}", "s/{1}/{{x}}",
// "{1}{1}", or one read from the input as [u8 length][bytes], which may be refused);
// byte 1 the registry (bit 0 auto-creation, bits 1-2 its dims); then messages, each a topic
// [u8 length][bytes] and a payload [u16 LE length][bytes].
//
// Oracle: a template either is refused with std::invalid_argument or maps every topic with
// at least highest_level() levels and no other ("{topic}" to the topic itself); an unmapped
// topic is one unmapped_topic; a mapped one is accounted for as ingest_oracle.hpp says. What
// a payload decodes to as JSON, written again as JSON (nlohmann-json), decodes to the same
// bits. Every log line is terminal-safe.
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "fuzz_ingest_support.hpp"
#include "ingest_oracle.hpp"
#include "warpwatch/stream/decode/frame.hpp"
#include "warpwatch/stream/sources/mqtt_source.hpp"
#include "warpwatch/stream/sources/topic_template.hpp"

using namespace warpwatch::stream;
using warpwatch::fuzz::Input;

namespace {

// A JSON payload's samples written again as an array of {"t": T, "v": [V...]}.
std::string as_json(const Samples& s) {
  nlohmann::json doc = nlohmann::json::array();
  for (std::size_t i = 0; i < s.size(); ++i) {
    nlohmann::json v = nlohmann::json::array();
    for (std::size_t k = 0; k < s.dims; ++k)
      v.push_back(static_cast<double>(s.values[i * s.dims + k]));
    doc.push_back({{"t", s.times_ns[i]}, {"v", v}});
  }
  return doc.dump();
}

bool same_bits(const Samples& a, const Samples& b) {
  return a.dims == b.dims && a.times_ns == b.times_ns && a.values.size() == b.values.size() &&
         (a.values.empty() ||
          std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(float)) == 0);
}

void check_json_round_trip(std::span<const std::byte> payload) {
  const auto decoded = decode_payload(payload, 0, PayloadFormat::json);
  const auto* ok = std::get_if<Decoded>(&decoded);
  if (!ok || ok->samples.size() == 0) return;
  const std::string again = as_json(ok->samples);
  const auto redecoded =
      decode_payload(std::as_bytes(std::span(again)), ok->samples.dims, PayloadFormat::json);
  const auto* back = std::get_if<Decoded>(&redecoded);
  WARPWATCH_FUZZ_CHECK(back != nullptr && back->line_errors.empty(),
                       "JSON written again decodes without errors");
  WARPWATCH_FUZZ_CHECK(same_bits(back->samples, ok->samples), "JSON round trip");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Input in{std::span(data, size)};
  const std::uint8_t choice = in.u8();
  constexpr PayloadFormat formats[] = {PayloadFormat::frame, PayloadFormat::frame_or_text,
                                       PayloadFormat::text, PayloadFormat::json,
                                       PayloadFormat::any};
  const PayloadFormat format = formats[choice % 5];
  constexpr const char* templates[] = {"{topic}", "{2}-{3}", "s/{1}/{{x}}", "{1}{1}"};
  const std::size_t which = (choice / 5) % 5;
  const std::string template_text(which < 4 ? std::string_view(templates[which])
                                            : in.take(in.u8()));
  std::optional<TopicTemplate> stream_template;
  try {
    stream_template.emplace(template_text);
  } catch (const std::invalid_argument&) {
    return 0;  // refused, as the configuration refuses it
  }
  const std::uint8_t setup = in.u8();
  RegistryOptions options;
  options.auto_create = (setup & 1) != 0;
  options.auto_dims = 1 + (setup >> 1) % 3;
  const QueueLimits limits;
  StreamRegistry registry({{"a", 1, 1000}, {"b", 2, 1000}}, options,
                          warpwatch::fuzz::check_log_line);
  IngestHub hub(registry, limits);
  const SourceId source = hub.add_source("fuzz mqtt", Overflow::drop);
  warpwatch::fuzz::TakenSamples taken(registry);

  while (!in.empty()) {
    const std::string topic(in.take(in.u8()));
    const std::string payload(in.take(in.u16()));
    const auto bytes = std::as_bytes(std::span(payload));
    check_json_round_trip(bytes);

    const std::optional<std::string> id = stream_template->stream_id(topic);
    WARPWATCH_FUZZ_CHECK(
        id.has_value() == (topic_levels(topic) >= stream_template->highest_level()),
        "a topic is mapped when it has the levels the template uses");
    if (template_text == "{topic}") WARPWATCH_FUZZ_CHECK(id == topic, "{topic} is the topic");
    const auto deliver = [&] {
      deliver_mqtt_message(hub, source, *stream_template, format, topic, bytes);
    };
    if (id) {
      warpwatch::fuzz::offer_and_check(registry, limits, *id, bytes, format, deliver);
      continue;
    }
    warpwatch::fuzz::offer_and_check_refused(registry, RejectReason::unmapped_topic, deliver);
  }
  taken.check_end(hub, options);
  return 0;
}
