// How a source's payloads are to be read (frame.hpp decodes them). ZeroMQ ingest takes
// frames and text (README.md, "Ingest protocol"); an MQTT source is configured with one
// format or `auto` (README.md, "MQTT").
#pragma once

namespace warpwatch::stream {

enum class PayloadFormat {
  frame_or_text,  // a binary frame when it starts with "WWF", otherwise text lines
  frame,          // a binary frame only
  text,           // text lines only
  json,           // JSON only: {"t": ns, "v": value or [values]}, or an array of them
  any,            // a frame ("WWF"), JSON (first non-blank byte '{' or '['), or text
};

}  // namespace warpwatch::stream
