// How a source's payloads are to be read (frame.hpp decodes them). ZeroMQ ingest takes
// frames and text (docs/ingest.md §1); an MQTT source is configured with one
// format or `auto` (docs/ingest.md §5).
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
