// warpwatchd's logging: spdlog loggers, one format for a terminal and one for journald.
//
// Every part of the daemon logs through a std::shared_ptr<spdlog::logger> that it is
// given (the Pipeline, the Publisher, the metrics server), so that tests can hand in a
// logger whose sink they inspect and the executable one that writes to stderr.
#pragma once

#include <spdlog/logger.h>

#include <iosfwd>
#include <memory>
#include <optional>
#include <string_view>

namespace warpwatch::service {

using Logger = std::shared_ptr<spdlog::logger>;

// True when stderr is connected to the systemd journal: systemd sets JOURNAL_STREAM to
// "device:inode" of that stream (systemd.exec(5)), so it must match stderr's.
bool stderr_is_journal();

// A logger named `name` writing one line per message to `out` (kept by reference: it
// must outlive the logger). With `journal` the line starts with a "<N>" syslog priority
// that journald turns into the entry's level, and carries no timestamp (journald adds
// its own); otherwise "2024-05-01 12:00:00.123 warpwatchd warning: message".
Logger make_stream_logger(std::string_view name, std::ostream& out, bool journal,
                          spdlog::level::level_enum level = spdlog::level::info);

// For components built without a logger (library use, tests that do not care): warnings
// and worse to stderr.
Logger stderr_logger();

}  // namespace warpwatch::service
