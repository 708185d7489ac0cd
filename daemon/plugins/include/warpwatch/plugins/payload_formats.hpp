// `ingest[].mqtt.payload`, `ingest[].kafka.payload`: the names of the payload formats the MQTT
// and Kafka sources take, shared by their plugins.
#pragma once

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "warpwatch/stream/payload_format.hpp"

namespace warpwatch::plugins {

inline constexpr std::pair<std::string_view, stream::PayloadFormat> payload_formats[] = {
    {"auto", stream::PayloadFormat::any},
    {"frame", stream::PayloadFormat::frame},
    {"text", stream::PayloadFormat::text},
    {"json", stream::PayloadFormat::json},
};

// The choices of the option rows.
std::vector<std::string_view> payload_format_names();
// nullopt for a name that is not one (the option table refuses those with a location).
std::optional<stream::PayloadFormat> parse_payload_format(std::string_view name);
// "?" for frame_or_text, which is no choice.
std::string_view payload_format_name(stream::PayloadFormat format);

}  // namespace warpwatch::plugins
