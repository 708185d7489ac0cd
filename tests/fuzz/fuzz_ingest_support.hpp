// What the ingest fuzz targets share besides fuzz_support.hpp: the registry's log hook,
// which names ingest's reject reasons (kept apart so that targets that do not link ingest,
// fuzz_checkpoint and fuzz_config, need none of its headers).
#pragma once

#include <string_view>

#include "fuzz_support.hpp"
#include "warpwatch/stream/decode/frame.hpp"

namespace warpwatch::fuzz {

// A registry log hook (StreamRegistry::LogHook) that checks what it is given.
inline void check_log_line(std::string_view stream, stream::RejectReason, std::string_view detail) {
  WARPWATCH_FUZZ_CHECK(terminal_safe(stream), "a logged stream id is escaped");
  WARPWATCH_FUZZ_CHECK(terminal_safe(detail), "a logged rejection detail is escaped");
}

}  // namespace warpwatch::fuzz
